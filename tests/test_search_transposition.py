"""The player's transposition table: entries round-trip through the packed layout, in every
slot of a bucket; replacement prefers depth and recency; mate scores are stored from the node."""
from __future__ import annotations

import numba
import numpy as np

from solver.search import transposition as tt
from solver.search.scores import MATE, from_table, to_table


def _hash(bucket: int, key: int, table) -> int:
    return (key << 32) | (bucket & (table.table.shape[0] - 1))


def test_every_slot_of_a_bucket_round_trips():
    table = tt.TranspositionTable(1)
    assert table.table.shape == (16384, 8) and table.megabytes == 1.0
    for j, (move, score, evaluation, depth, bound) in enumerate(
            [(0, -31000, -19999, 0, tt.BOUND_UPPER), (20479, 31990, 19999, 255, tt.BOUND_EXACT),
             (-1, -1, 0, 7, tt.BOUND_LOWER), (12, 0, -5, 1, tt.BOUND_UPPER)]):
        position_hash = _hash(77, 0xDEADBE00 + j, table)
        tt.store(table.table, np.uint64(position_hash), move, score, evaluation, depth, bound, 5)
    for j, (move, score, evaluation, depth, bound) in enumerate(
            [(0, -31000, -19999, 0, tt.BOUND_UPPER), (20479, 31990, 19999, 255, tt.BOUND_EXACT),
             (-1, -1, 0, 7, tt.BOUND_LOWER), (12, 0, -5, 1, tt.BOUND_UPPER)]):
        slot = tt.probe(table.table, np.uint64(_hash(77, 0xDEADBE00 + j, table)))
        assert slot >= 0
        word = tt.entry(table.table, slot)
        assert (tt.entry_move(word), tt.entry_score(word), tt.entry_eval(word), tt.entry_depth(word),
                tt.entry_bound(word), tt.entry_generation(word)) == (move, score, evaluation, depth, bound, 5)
    assert tt.probe(table.table, np.uint64(_hash(77, 0x12345678, table))) == -1
    assert tt.probe(table.table, np.uint64(_hash(78, 0xDEADBE00, table))) == -1


def test_replacement_keeps_deep_recent_entries_and_the_best_move():
    table = tt.TranspositionTable(1)
    hashes = [np.uint64(_hash(3, 100 + j, table)) for j in range(5)]
    for j, depth in enumerate((9, 2, 8, 7)):
        tt.store(table.table, hashes[j], j, 0, 0, depth, tt.BOUND_LOWER, 1)
    tt.store(table.table, hashes[4], 4, 0, 0, 5, tt.BOUND_LOWER, 1)  # the bucket is full
    assert tt.probe(table.table, hashes[1]) == -1  # the shallowest went
    assert all(tt.probe(table.table, hashes[j]) >= 0 for j in (0, 2, 3, 4))
    # A shallower result for the same position does not overwrite a much deeper one of this
    # search, but a later search's entries age out.
    tt.store(table.table, hashes[0], 1, 0, 0, 3, tt.BOUND_UPPER, 1)
    assert tt.entry_depth(tt.entry(table.table, tt.probe(table.table, hashes[0]))) == 9
    tt.store(table.table, hashes[0], -1, 0, 0, 3, tt.BOUND_UPPER, 2)
    word = tt.entry(table.table, tt.probe(table.table, hashes[0]))
    assert tt.entry_depth(word) == 3 and tt.entry_move(word) == 0  # the known move is kept
    assert 0 <= table.hashfull(2) <= table.hashfull(1) + 1


def test_mate_scores_count_from_the_node_in_the_table():
    mate_in_5_from_root = MATE - 5
    stored = to_table(mate_in_5_from_root, 3)  # found at ply 3: mate 2 plies from that node
    assert stored == MATE - 2
    assert from_table(stored, 7) == MATE - 9  # the same node reached at ply 7
    assert from_table(to_table(-(MATE - 6), 4), 4) == -(MATE - 6)
    assert to_table(123, 9) == 123


@numba.njit  # not cached: numba gives no assembly of a function loaded from its cache
def _prefetch_then_probe(table, position_hash):
    tt.prefetch(table, position_hash)
    return tt.probe(table, position_hash)


def test_prefetch_emits_a_prefetch_instruction_and_changes_nothing():
    """The search prefetches a child's bucket right after making its move: the hint must reach
    the machine code (a silent no-op would lose the speed it gives), and leave the table as it
    was."""
    table = tt.TranspositionTable(1)
    position_hash = np.uint64(_hash(5, 0xABCD, table))
    tt.store(table.table, position_hash, 3, 10, 0, 4, tt.BOUND_EXACT, 1)
    before = table.table.copy()
    assert _prefetch_then_probe(table.table, position_hash) == tt.probe(table.table, position_hash) >= 0
    assert np.array_equal(table.table, before)
    assembly = _prefetch_then_probe.inspect_asm(_prefetch_then_probe.signatures[0])
    assert "prefetch" in assembly
