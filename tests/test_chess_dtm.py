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

from databases.families import get_family
from databases.location import table_path
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


def two_byte_codes(root, table: str) -> np.ndarray:
    """The DTM codes of ``table`` by its two-byte generator, from its children on disk."""
    family = get_family("chess")
    children, offsets, _ = load_children(root, family, family.dependencies(table))
    generator = chess_dtm_pawns if "P" in table else chess_dtm
    return generator.solve(table, children, offsets, Silent())


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
