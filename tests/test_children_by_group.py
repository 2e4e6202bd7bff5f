"""A pawn table's promotion children read one advancement group at a time
(retrograde/chess_promotion_runs.py, retrograde.tables.ChildrenByGroup): the pawn generators
and the pack give with them what they give with every child loaded whole, reading only the
runs each group reaches."""
from __future__ import annotations

import mmap

import numpy as np
import pytest

from databases.families import get_family
from databases.location import DTZ50, table_path
from databases.packed import BLOCK_ENTRIES
from databases.reader import TableFile
from games.chess import endgames as E
from retrograde import chess_dtm_pawns, chess_dtz50_pawns
from retrograde.build import build_tables, own_dtz50
from retrograde.chess_exits import child_plans
from retrograde.chess_promotion_runs import promotion_runs, sliced_children
from retrograde.dtz50 import load_zeroing_classes, solve_chess_pawn_dtz50, to_zeroing_classes
from retrograde.pack import (chess_pawn_stored_bytes, chess_stored_bytes_of_segments,
                             segments_of_runs)
from retrograde.progress import Silent
from retrograde.tables import (ChildrenByGroup, load_children, read_codes, release_entries,
                               zeroed)

FAMILY = get_family("chess")
# Both sides promote into a table with a pawn (KPvKP: KQvKP ... and, colours swapped, the
# same tables), two like pawns, one promoting beside the other (KPPvK: KQPvK ...).
TABLES = ["KPvKP", "KPPvK"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("by_group")
    build_tables("chess", TABLES, root, show_progress=False, pack=False)
    return root


def grouped(root, table: str, metric: str) -> ChildrenByGroup:
    """``table``'s children read by group, as the build reads them for ``metric``."""
    if metric == DTZ50:
        return ChildrenByGroup(root, FAMILY, FAMILY.dependencies(table), promotion_runs(table),
                               metric=DTZ50, convert=to_zeroing_classes, dtype=np.uint8)
    return ChildrenByGroup(root, FAMILY, FAMILY.dependencies(table), promotion_runs(table))


@pytest.mark.parametrize("table", TABLES)
def test_each_group_reads_a_part_of_each_promotion_child(table):
    runs = promotion_runs(table)
    children = sliced_children(table)
    assert len(children) == 4 and len(runs) >= 6
    for child in children:
        size = 2 * int(E.PER_SIDE[E.TABLE_IDS[child]])
        per_group = [sum(stop - start for start, stop in by_child.get(child, []))
                     for by_child in runs.values()]
        assert 0 < max(per_group) <= size // 10
        assert sum(per_group) == size // 2  # the promoter's opponent to move: half of it


@pytest.mark.parametrize("table", TABLES)
def test_generators_read_by_group_give_the_codes_of_every_child_whole(db, table):
    children = grouped(db, table, DTZ50)
    by_group = chess_dtz50_pawns.solve(table, children.codes, children.offsets, Silent(),
                                       before_group=children.before_group)
    assert 0 < children.entries_read < sum(FAMILY.size(c) for c in sliced_children(table))
    whole, offsets = load_zeroing_classes(db, FAMILY, FAMILY.dependencies(table))
    assert np.array_equal(by_group, chess_dtz50_pawns.solve(table, whole, offsets, Silent()))

    children = grouped(db, table, "dtm")
    by_group = chess_dtm_pawns.solve(table, children.codes, children.offsets, Silent(),
                                     own_dtz50(db, table), children.before_group)
    whole, offsets, _ = load_children(db, FAMILY, FAMILY.dependencies(table))
    assert np.array_equal(by_group, chess_dtm_pawns.solve(table, whole, offsets, Silent(),
                                                          own_dtz50(db, table)))


def test_a_group_without_its_runs_gives_other_codes(db):
    # what the test above would catch: a promotion into entries not read is taken as illegal
    table = "KPvKP"
    runs = promotion_runs(table)
    last = max(runs)
    runs[last] = {child: [] for child in runs[last]}
    children = ChildrenByGroup(db, FAMILY, FAMILY.dependencies(table), runs, metric=DTZ50,
                               convert=to_zeroing_classes, dtype=np.uint8)
    codes = chess_dtz50_pawns.solve(table, children.codes, children.offsets, Silent(),
                                    before_group=children.before_group)
    assert not np.array_equal(codes, read_codes(db, "chess", table, metric=DTZ50))


@pytest.mark.parametrize("table", TABLES)
def test_the_pack_read_by_group_stores_the_bytes_of_every_child_whole(db, table):
    source = TableFile(table_path(db, "chess", table, DTZ50), "chess", table, FAMILY)
    try:
        by_group = chess_pawn_stored_bytes(db, FAMILY, table, source)
    finally:
        source.close()
    classes = to_zeroing_classes(read_codes(db, "chess", table, metric=DTZ50))
    whole, offsets = load_zeroing_classes(db, FAMILY, FAMILY.dependencies(table))
    length = chess_dtz50_pawns.placement_run_length(table)
    starts = np.arange(0, classes.size, length, dtype=np.int64)
    values = np.empty(classes.size, dtype=np.uint8)
    assert chess_stored_bytes_of_segments(E.TABLE_IDS[table], classes, whole,
                                          child_plans(table, offsets), values,
                                          segments_of_runs(starts, length, BLOCK_ENTRIES)) == 0
    assert np.array_equal(by_group, values)


@pytest.mark.parametrize("table", TABLES + ["KRvKP"])
def test_stored_bytes_made_beside_the_dtz50_generator_equal_the_packs_own(db, table):
    # solver build packs a pawn table from the bytes its DTZ50 generator made group by group
    codes, stored = solve_chess_pawn_dtz50(FAMILY, table, db, Silent(), stored_bytes=True)
    assert np.array_equal(codes, read_codes(db, "chess", table, metric=DTZ50))
    source = TableFile(table_path(db, "chess", table, DTZ50), "chess", table, FAMILY)
    try:
        assert np.array_equal(stored, chess_pawn_stored_bytes(db, FAMILY, table, source))
    finally:
        source.close()


def test_released_entries_read_zero_and_cost_no_memory():
    def resident_mib() -> int:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * mmap.PAGESIZE >> 20

    codes = zeroed(128 << 20, np.uint16)  # 256 MiB, untouched
    before = resident_mib()
    codes[:] = 7
    assert resident_mib() - before > 200
    release_entries(codes, 5, codes.size - 5)
    assert resident_mib() - before < 10
    assert codes[5] == 7 and codes[-6] == 7  # their pages are only partly released
    assert codes[codes.size // 2] == 0 and not codes[4096:codes.size - 4096].any()
