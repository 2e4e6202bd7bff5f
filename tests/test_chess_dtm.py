"""The two-byte DTM generators for chess tables (retrograde/chess_dtm.py without pawns,
retrograde/chess_dtm_pawns.py by pawn slices with them) against the un-move engine that built
the rule-free tables before them (retrograde/unmove.py, whose tables equal Syzygy's WDL and
the DTM checks of tests/test_retrograde_chess*.py), entry by entry, and the build's use of
them."""
from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

from databases.errors import DamagedTableError
from databases.families import get_family
from databases.location import DTZ50, table_path
from retrograde import chess_dtm, chess_dtm_pawns
from retrograde.build import build_tables
from retrograde.progress import Silent
from retrograde.tables import ChildLoader, load_children, read_codes
from retrograde.unmove import solve_by_unmoves

# Long wins with captures both ways (KQvKR), captures that draw (KRvKN), like pieces and kings
# on one diagonal (KBBvK); with pawns: promotions and under-promotions (KRvKP), en passant
# (KPvKP), a pair of pawns (KPPvK), a capture that promotes (KQvKP: the pawn takes on the
# last rank).
PAWNLESS = ["KQvKR", "KRvKN", "KBBvK"]
WITH_PAWNS = ["KRvKP", "KPvKP", "KPPvK", "KQvKP"]
TABLES = PAWNLESS + WITH_PAWNS


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """TABLES and their dependencies, the rule-free tables only, as `solver build` makes
    them (by these generators)."""
    root = tmp_path_factory.mktemp("two_byte")
    result = build_tables("chess", TABLES, root, show_progress=False, dtz50=False, pack=False)
    assert set(TABLES) <= set(result["built"])
    return root


@pytest.fixture(scope="module")
def db_with_dtz50(tmp_path_factory):
    """TABLES and their dependencies with their DTZ50 tables too, built first (as `solver
    build` makes them): the rule-free tables start from them."""
    root = tmp_path_factory.mktemp("two_byte_dtz50")
    build_tables("chess", TABLES, root, show_progress=False, pack=False)
    return root


def two_byte_codes(root, table: str, outcomes=None) -> np.ndarray:
    """The DTM codes of ``table`` by its two-byte generator, from its children on disk (and
    its own DTZ50 codes if ``outcomes`` reads them)."""
    family = get_family("chess")
    children, offsets, _ = load_children(root, family, family.dependencies(table))
    generator = chess_dtm_pawns if "P" in table else chess_dtm
    return generator.solve(table, children, offsets, Silent(), outcomes)


@pytest.mark.parametrize("table", TABLES)
def test_two_byte_codes_equal_the_unmove_engines(db, table):
    family = get_family("chess")
    theirs = solve_by_unmoves(family, table, ChildLoader(db, family, family.dependencies(table)),
                              Silent())
    ours = two_byte_codes(db, table)
    assert ours.dtype == np.uint16
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("table", ["KQvKR", "KRvKP"])
def test_the_build_writes_the_two_byte_codes(db, table):
    with h5py.File(table_path(db, "chess", table), "r") as handle:
        assert json.loads(handle.attrs["settings"])["method"] == "two-byte"
    assert np.array_equal(read_codes(db, "chess", table), two_byte_codes(db, table))


@pytest.mark.parametrize("table", TABLES)
def test_started_from_the_dtz50_codes_the_codes_are_the_same(db, db_with_dtz50, table):
    read = []

    def outcomes(out, convert):
        read_codes(db_with_dtz50, "chess", table, out=out, metric=DTZ50, convert=convert)
        read.append(table)

    ours = two_byte_codes(db_with_dtz50, table, outcomes)
    assert read == [table]  # the levels started from them
    assert np.array_equal(ours, read_codes(db, "chess", table))
    assert np.array_equal(read_codes(db_with_dtz50, "chess", table), ours)  # as built


@pytest.mark.parametrize("table", PAWNLESS)
@pytest.mark.parametrize("known", [False, True], ids=["alone", "from-dtz50"])
def test_wins_found_from_the_positions_that_may_win_are_the_same(db, db_with_dtz50, table,
                                                                 known):
    # pull=True finds every level's wins from the open positions (after a level with a
    # loss), pull=False from the positions just lost: the same codes as the table built
    family = get_family("chess")
    children, offsets, _ = load_children(db, family, family.dependencies(table))

    def outcomes(out, convert):
        read_codes(db_with_dtz50, "chess", table, out=out, metric=DTZ50, convert=convert)

    for pull in (True, False):
        ours = chess_dtm.solve(table, children, offsets, Silent(), outcomes if known else None,
                               pull=pull)
        assert np.array_equal(ours, read_codes(db, "chess", table)), pull


@pytest.mark.parametrize("table", ["KQvKR", "KPPvK"])
def test_a_dtz50_table_that_cannot_be_read_is_passed_over(db, table):
    def outcomes(out, convert):
        out[: out.size // 2] = 0xFFFF  # half read, then found damaged
        raise DamagedTableError("damaged page")

    assert np.array_equal(two_byte_codes(db, table, outcomes), read_codes(db, "chess", table))


def test_a_missing_child_table_is_an_error(db):
    family = get_family("chess")
    children, offsets, _ = load_children(db, family, ["KQvK"])
    with pytest.raises(RuntimeError, match="not loaded"):
        chess_dtm.solve("KQvKR", children, offsets, Silent())  # KRvK (the queen taken) is not
    children, offsets, _ = load_children(db, family, ["KRvK"])
    with pytest.raises(RuntimeError, match="not loaded"):
        chess_dtm_pawns.solve("KRvKP", children, offsets, Silent())  # no promotion child


@pytest.mark.parametrize("generator, table", [(chess_dtm, "KRvKP"), (chess_dtm_pawns, "KQvKR")])
def test_each_generator_refuses_the_other_kind_of_table(db, generator, table):
    with pytest.raises(ValueError):
        generator.solve(table, np.zeros(1, np.uint16), np.full(1, -1, np.int64), Silent())
