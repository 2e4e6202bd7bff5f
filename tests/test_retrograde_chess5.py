"""Five-piece chess tables against Syzygy's (``$SOLVER_ORACLE_DATA/chess/syzygy5``: KQRvKR,
KRRvKR, KRBvKR, KRNvKR, KRPvKR, probed with python-chess beside the 3-4-piece
directory): 20,000 random positions of each through python-chess, and every position
through the bulk reader of tests/syzygy_raw.py.

Building a five-piece table takes minutes, so these tests are marked ``slow``; they build the
tables into the session's 3-4-piece database (tests/conftest.py's ``full_db``:
``$SOLVER_TEST_CHESS_DB`` when it is set, tables already built and valid reused).
``$SOLVER_FIVE_PIECE_TABLES`` (comma-separated) narrows the tables checked.
"""
from __future__ import annotations

import os
import zlib

import chess.syzygy
import pytest

from databases import open_database
from retrograde.build import build_tables
from retrograde.verify import verify_table
from tests.test_retrograde_chess import check_every_position, check_random_positions

SYZYGY5_TABLES = ["KQRvKR", "KRRvKR", "KRBvKR", "KRNvKR", "KRPvKR"]
RANDOM_POSITIONS = 20_000  # every position is checked as well (below)


def checked_tables() -> list[str]:
    named = os.environ.get("SOLVER_FIVE_PIECE_TABLES")
    return named.split(",") if named else SYZYGY5_TABLES


@pytest.fixture(scope="module")
def five_db(full_db):
    """The five-piece tables, built beside the 3-4-piece ones they depend on."""
    build_tables("chess", checked_tables(), full_db, show_progress=False, dtz50=False)
    return full_db


@pytest.fixture(scope="module")
def syzygy5(oracle_data):
    with chess.syzygy.open_tablebase(str(oracle_data("chess/syzygy"))) as tablebase:
        tablebase.add_directory(str(oracle_data("chess/syzygy5")))
        yield tablebase


@pytest.mark.slow
@pytest.mark.parametrize("table", checked_tables())
def test_five_piece_wdl_matches_syzygy(five_db, syzygy5, table):
    # random legal positions, both sides to move, en passant where legal (the only positions
    # with an en-passant right checked here: they have no entry of their own)
    with open_database(five_db, "chess") as db:
        check_random_positions(db, syzygy5, table, RANDOM_POSITIONS,
                               seed=zlib.crc32(table.encode()))


@pytest.mark.slow
@pytest.mark.parametrize("table", checked_tables())
def test_five_piece_every_position_matches_syzygy(five_db, syzygy5, oracle_data, table):
    # the captures valued by the four-piece tables built beside it (built as the slow tests
    # of test_retrograde_chess.py check them: every position against Syzygy)
    check_every_position(five_db, syzygy5, oracle_data("chess/syzygy5"), table, 1_000)


@pytest.mark.slow
@pytest.mark.parametrize("table", checked_tables())
def test_five_piece_tables_verify(five_db, table):
    assert verify_table("chess", table, five_db)["errors"] == 0
