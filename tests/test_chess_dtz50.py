"""The one-byte DTZ50 generators for chess tables (retrograde/chess_dtz50.py without pawns,
retrograde/chess_dtz50_pawns.py by pawn slices with them) against the un-move engine that
built the DTZ50 tables before them (retrograde/dtz50.py, whose tables equal Syzygy's on every
3-4-piece position: tests/test_dtz50.py, scripts/check_syzygy_all.py), entry by entry, and
the build's use of them.

Syzygy itself is checked in tests/test_dtz50.py on tables the build now makes with this
generator (KQvK, KRvKB and the pawnless children of KPvKP); the slow run there verifies every
3-4-piece DTZ50 table.
"""
from __future__ import annotations

import collections
import json

import h5py
import numpy as np
import pytest

from databases.families import get_family
from databases.location import DTZ50, table_path
from retrograde import chess_dtz50, chess_dtz50_pawns
from retrograde.build import build_tables
from games.value_codes import CODE_DRAW, INVALID, zeroing_value
from retrograde.dtz50 import load_zeroing_classes, solve_dtz50_by_unmoves, zeroing_classes
from retrograde.progress import Silent
from retrograde.tables import read_codes

# Two kings and a queen against a rook (long wins, captures both ways), a rook against a
# knight (mostly drawn, captures that draw), two bishops (like pieces: a pair in the index);
# with pawns: a rook against a pawn (promotions, under-promotions), pawn against pawn (en
# passant), two like pawns (a pair of pawns in the index).
PAWNLESS = ["KQvKR", "KRvKN", "KBBvK"]
WITH_PAWNS = ["KRvKP", "KPvKP", "KPPvK"]
TABLES = PAWNLESS + WITH_PAWNS


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """TABLES and their dependencies with their DTZ50 tables, as `solver build` makes them."""
    root = tmp_path_factory.mktemp("one_byte")
    result = build_tables("chess", TABLES, root, show_progress=False, pack=False)
    assert set(TABLES) <= set(result["dtz50_built"])
    return root


def one_byte_codes(root, table: str, **options) -> np.ndarray:
    """The DTZ50 codes of ``table`` by its one-byte generator, from its children on disk."""
    family = get_family("chess")
    children, offsets = load_zeroing_classes(root, family, family.dependencies(table))
    generator = chess_dtz50_pawns if "P" in table else chess_dtz50
    return generator.solve(table, children, offsets, Silent(), **options)


@pytest.mark.parametrize("table", TABLES)
def test_one_byte_codes_equal_the_unmove_engines(db, table):
    ours = one_byte_codes(db, table)
    theirs = solve_dtz50_by_unmoves(get_family("chess"), table, db, Silent())
    assert ours.dtype == np.uint8 and ours.size == theirs.size
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("table", TABLES)
def test_the_build_uses_the_one_byte_generators(db, table):
    with h5py.File(table_path(db, "chess", table, DTZ50), "r") as handle:
        assert json.loads(handle.attrs["settings"])["method"] == "one-byte"
    assert np.array_equal(read_codes(db, "chess", table, metric=DTZ50), one_byte_codes(db, table))


@pytest.mark.parametrize("table, longest", [("KQvKR", 10), ("KQvKR", 40), ("KRvKP", 12)])
def test_levels_past_the_bytes_codes_give_the_same_codes(db, table, longest):
    """Past ``longest`` plies the byte holds markers and the codes go to a second array
    (KBBvKN's DTZ50 reaches 132 plies): here forced early (KQvKR's DTZ50 reaches 62 plies;
    KRvKP's slices go past 12 one by one, and later ones read earlier ones' codes there)."""
    far = one_byte_codes(db, table, longest=longest)
    assert far.dtype == np.uint16
    assert np.array_equal(far, read_codes(db, "chess", table, metric=DTZ50))


@pytest.mark.parametrize("table", PAWNLESS)
@pytest.mark.parametrize("longest", [chess_dtz50.LONGEST, 10])
def test_wins_pulled_and_every_open_position_flagged_give_the_same_codes(db, table, longest,
                                                                        monkeypatch):
    """Each level's passes go the way expected to read fewer entries per side to move
    (``ways_of_level``); forced the other way round at every level from the second, the
    codes are the same (with ``longest`` 10, past it as markers)."""
    calls = collections.Counter()
    for name in ("pull_wins", "flag_every_open"):
        def counted(*arguments, kernel=getattr(chess_dtz50, name), name=name):
            calls[name] += 1
            return kernel(*arguments)
        monkeypatch.setattr(chess_dtz50, name, counted)
    monkeypatch.setattr(chess_dtz50, "SCAN_FROM", 1 << 40)  # a frontier of one pays
    expected = read_codes(db, "chess", table, metric=DTZ50)
    for pulled, flagged_all in ((True, False), (False, True), (True, True)):
        monkeypatch.setattr(chess_dtz50, "PULL_WINS_BELOW", float("inf") if pulled else 0.0)
        monkeypatch.setattr(chess_dtz50, "FLAG_ALL_ABOVE", 0.0 if flagged_all else float("inf"))
        calls.clear()
        assert np.array_equal(one_byte_codes(db, table, longest=longest), expected)
        assert (calls["pull_wins"] > 0, calls["flag_every_open"] > 0) == (pulled, flagged_all)


def test_a_missing_child_table_is_an_error(db, tmp_path):
    family = get_family("chess")
    children, offsets = load_zeroing_classes(db, family, ["KQvK"])
    with pytest.raises(RuntimeError, match="not loaded"):
        chess_dtz50.solve("KQvKR", children, offsets, Silent())  # KRvK (the queen taken) is not


def test_every_placement_of_both_kings_on_a_diagonal_has_its_mirror_images_code(db):
    """Such a position has two storage indices (its mirror image in the diagonal is not
    folded onto it): both must hold the same code."""
    from games.chess import endgames as E

    table = "KQvKR"
    codes = read_codes(db, "chess", table, metric=DTZ50)
    t = E.TABLE_IDS[table]
    checked = 0
    squares = np.zeros(4, dtype=np.int64)
    for index in range(0, codes.size, 97):
        stm = E.storage_unrank(t, index, squares)
        wk, bk = squares[0], squares[1]
        if stm < 0 or (wk >> 3) != (wk & 7) or (bk >> 3) != (bk & 7):
            continue
        mirror = np.array([((s & 7) << 3) | (s >> 3) for s in squares], dtype=np.int64)
        assert codes[E.storage_index(t, mirror, stm)] == codes[index]
        checked += 1
    assert checked > 100


def test_zeroing_classes_keep_what_a_zeroing_move_is_worth_in_a_byte():
    """The children are held as these classes: a capture or a promotion into any DTZ50 code
    (distances to 300 plies, cursed and blessed) must be worth what it was."""
    codes = np.array([INVALID, CODE_DRAW] + list(range(2, 604)), dtype=np.uint16)
    cut = zeroing_classes(codes)
    assert cut.dtype == np.uint8
    assert [zeroing_value(int(c)) for c in cut[2:]] == [zeroing_value(int(c)) for c in codes[2:]]
    assert cut[0] == INVALID and cut[1] == CODE_DRAW


def test_the_children_are_loaded_as_zeroing_classes(db):
    family = get_family("chess")
    children, offsets = load_zeroing_classes(db, family, ["KQvK"])
    codes = read_codes(db, "chess", "KQvK", metric=DTZ50)
    start = offsets[family.table_id("KQvK")]
    assert children.dtype == np.uint8
    assert np.array_equal(children[start:start + codes.size], zeroing_classes(codes))


@pytest.mark.parametrize("table", ["KQvKR", "KRvKP", "KBNvK", "KBvKN", "KPvKP", "KRRvK"])
def test_legal_positions_marked_by_rows_are_those_of_each_entry(table):
    # mark_positions takes 64 entries at a time where a lone piece is the fastest digit (a
    # slider of the side to move, one of the other side that can only block; KPvKP, KRRvK:
    # entry by entry), holds_position one entry: both must mark the same positions.
    from games.chess import endgames as E

    table_id = E.TABLE_IDS[table]
    size = 2 * int(E.PER_SIDE[table_id])
    marked = np.zeros(size, dtype=np.uint8)
    chess_dtz50.mark_positions(table_id, marked, chess_dtz50.OPEN)
    codes = chess_dtz50.spec_codes(table_id)
    squares = np.empty(len(codes), dtype=np.int64)
    sample = np.random.default_rng(3).choice(size, 20_000, replace=False)
    expected = [chess_dtz50.OPEN if chess_dtz50.holds_position(table_id, int(index), codes,
                                                                squares, len(codes)) else INVALID
                for index in sample]
    assert marked[sample].tolist() == expected
    assert INVALID in expected and chess_dtz50.OPEN in expected
