"""The df-pn transposition table: three entries to a cache-line bucket."""
from __future__ import annotations

import numpy as np

from proofsearch.table import (ENTRIES, INFINITY, TranspositionTable, entry_flags, entry_length, other_goal_key,
                               probe, read_entry, store, work_code)


def test_buckets_start_on_cache_lines_and_fill_the_budget():
    table = TranspositionTable.from_megabytes(1)
    assert table.rows.ctypes.data % 64 == 0 and table.rows.nbytes == 2**20
    assert table.rows.flags["C_CONTIGUOUS"]


def test_an_entry_reads_back_as_stored():
    table = TranspositionTable(1 << 12)
    rng = np.random.default_rng(3)
    keys = rng.integers(1, 2**63, size=300, dtype=np.int64).astype(np.uint64)
    for i, key in enumerate(keys):
        store(table.rows, key, i, INFINITY - i, 5, i & 1, 7, 1000 + i)
    kept = 0
    for i, key in enumerate(keys):
        slot = probe(table.rows, key)
        if slot >= 0:
            kept += 1
            assert read_entry(table.rows, slot) == (i, INFINITY - i)
            assert (entry_length(table.rows, slot), entry_flags(table.rows, slot)) == (1000 + i, i & 1)
    assert kept == 300  # 1,024 buckets of three: room for all


def test_a_full_bucket_keeps_the_entries_with_most_work():
    table = TranspositionTable(4)  # one bucket
    for key, work in ((1, 500), (2, 3), (3, 90_000)):
        store(table.rows, np.uint64(key), 1, 1, work, 0, 1, 0)
    store(table.rows, np.uint64(4), 1, 1, 40, 0, 1, 0)
    assert [probe(table.rows, np.uint64(key)) >= 0 for key in (1, 2, 3, 4)] == [True, False, True, True]
    store(table.rows, np.uint64(5), 1, 1, 1, 0, 2, 0)  # a newer search replaces an older one's first
    assert sum(probe(table.rows, np.uint64(key)) >= 0 for key in (1, 2, 3, 4, 5)) == ENTRIES


def test_work_codes_grow_with_work():
    codes = [work_code(work) for work in range(0, 5000)] + [work_code(1 << 40), work_code((1 << 62) + 5)]
    assert codes == sorted(codes) and codes[0] == 0 and codes[-1] <= 255
    assert len(set(codes)) > 40


def test_a_positions_two_goals_share_a_bucket():
    table = TranspositionTable(1 << 16)
    for key in np.random.default_rng(5).integers(1, 2**63, size=100, dtype=np.int64).astype(np.uint64):
        store(table.rows, key, 0, INFINITY, 1, 0, 1, 3)
        store(table.rows, other_goal_key(key), INFINITY, 0, 1, 0, 1, 4)
        assert probe(table.rows, key) >> 2 == probe(table.rows, other_goal_key(key)) >> 2
