"""DTZ50 tables (the 50-move rule) against Syzygy's WDL and DTZ (python-chess, tables from
$SOLVER_ORACLE_DATA/chess/syzygy), and their verifier.

The normal run builds KPvKP and every table it depends on (pawn moves inside the table,
promotions, en passant) and checks random legal positions of each against Syzygy: the five WDL
values equal, our DTZ equal to Syzygy's or one ply longer (python-chess documents that Syzygy's
may be one ply short, never at the 100-ply edge). The one-byte generator builds the pawnless
ones, the un-move engine those with pawns (pawn moves made exits); the forward passes, written
apart, must give the same codes. The slow run
verifies every 3-4 piece DTZ50 table and checks more positions of each against Syzygy
(``scripts/check_syzygy_all.py --dtz50`` checks every position through Fathom).
"""
from __future__ import annotations

import random
import shutil
import types

import chess
import chess.syzygy

import numpy as np
import pytest

from databases import open_database
from databases.location import DTZ50, table_path
from databases.writer import write_table
from games.chess import endgames as E
from games.value_codes import (CODE_DRAW, CURSED_WORTH, loss_code, parent_code, rule_class,
                               wdl50, win_code)
from retrograde.build import build_tables
from retrograde.dtz50 import solve_dtz50, solve_dtz50_by_unmoves, verify_dtz50
from retrograde.progress import Silent
from retrograde.tables import load_children, read_codes
from games.chess.random_positions import random_board

NORMAL_TABLE = "KPvKP"  # pawn_db (tests/conftest.py) builds it


def agrees_with_syzygy(ours_wdl: int, ours_dtz: int, wdl: int, dtz: int) -> bool:
    """Our WDL equals Syzygy's; our DTZ equals Syzygy's or is one ply further from 0 (the
    latitude python-chess's probe_dtz documents)."""
    if ours_wdl != wdl:
        return False
    return ours_dtz == dtz or (dtz > 0 and ours_dtz == dtz + 1) or (dtz < 0 and ours_dtz == dtz - 1)


def check_random_positions(root, syzygy, tables, count: int, seed: int) -> None:
    """``count`` random legal positions of each table (en-passant ones among them) agree."""
    rng = random.Random(seed)
    with open_database(root, "chess") as db:
        for table in tables:
            wrong = []
            for _ in range(count):
                board = random_board(table, rng)
                ours = (db.probe_wdl50(board), db.probe_dtz(board))
                theirs = (syzygy.probe_wdl(board), syzygy.probe_dtz(board))
                if not agrees_with_syzygy(*ours, *theirs):
                    wrong.append((board.fen(), ours, theirs))
            assert not wrong, f"{table}: {len(wrong)} disagree, e.g. {wrong[:3]}"


def test_dtz50_agrees_with_syzygy(pawn_db, syzygy):
    tables = [t for t in E.tables_up_to(4) if table_path(pawn_db, "chess", t, DTZ50).is_file()]
    assert NORMAL_TABLE in tables and "KQvKP" in tables
    check_random_positions(pawn_db, syzygy, tables, 1500, seed=50)


def forward_and_unmove_codes(root, table: str) -> tuple[np.ndarray, np.ndarray]:
    """The DTZ50 codes of ``table`` by forward passes, and as built (by the one-byte generator
    without pawns, by the un-move engine with them)."""
    from databases.families import get_family

    family = get_family("chess")
    children, offsets, _ = load_children(root, family, family.dependencies(table), metric=DTZ50)
    forward = solve_dtz50(family, table, read_codes(root, "chess", table), children, offsets,
                          Silent())
    return forward, read_codes(root, "chess", table, metric=DTZ50)


@pytest.mark.parametrize("table", ["KQvK", "KRvKB"])
def test_forward_passes_give_the_unmove_engines_codes(tmp_path, table):
    assert table in build_tables("chess", [table], tmp_path, show_progress=False)["dtz50_built"]
    forward, unmoves = forward_and_unmove_codes(tmp_path, table)
    assert np.array_equal(forward, unmoves)
    assert int(unmoves.max()) > 2 * 20  # long distances in both (KRvKB: 36 plies)


@pytest.mark.parametrize("table", ["KPvK", "KPvKP"])
def test_forward_passes_give_the_codes_of_pawn_moves_as_exits(pawn_db, table):
    """With pawns the engine makes pawn moves exits (the table's own codes as a child)."""
    forward, unmoves = forward_and_unmove_codes(pawn_db, table)
    assert np.array_equal(forward, unmoves)


def test_mate_and_draw_conventions(pawn_db, syzygy):
    with open_database(pawn_db, "chess") as db:
        mated = chess.Board("8/8/8/8/8/8/8/kQK5 b - - 0 1")
        assert (db.probe_wdl50(mated), db.probe_dtz(mated)) == (-2, -1) \
            == (syzygy.probe_wdl(mated), syzygy.probe_dtz(mated))
        drawn = chess.Board("8/8/8/8/8/8/8/k1K5 w - - 0 1")
        assert (db.probe_wdl50(drawn), db.probe_dtz(drawn)) == (0, 0)
        won = chess.Board("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1")
        assert db.probe_dtz(won) == syzygy.probe_dtz(won) == 17


@pytest.mark.parametrize("table", ["KQvK", "KPvKP"])
def test_verify_counts_a_wrong_entry(pawn_db, tmp_path, table):
    # (KPvKP: pawn moves are zeroing, double pushes reach positions valued from their moves)
    shutil.copytree(pawn_db, tmp_path, dirs_exist_ok=True)
    assert verify_dtz50("chess", table, tmp_path)["errors"] == 0
    codes = read_codes(tmp_path, "chess", table, metric=DTZ50)
    won = np.flatnonzero((codes > win_code(3)) & (codes & 1 == 1))
    codes[won[0]] += 2  # one win a ply slower than its moves give
    lost = np.flatnonzero((codes >= loss_code(1)) & (codes & 1 == 0))
    codes[lost[0]] = CODE_DRAW  # one loss called a draw
    write_table(table_path(tmp_path, "chess", table, DTZ50), codes, game="chess", table=table,
                index_scheme=E.INDEX_SCHEME, index_version=E.INDEX_VERSION, sides=2,
                generator="test", generator_version="0", settings={}, build_seconds=0.0)
    # both entries, and perhaps a parent whose best move went through the slowed win
    assert verify_dtz50("chess", table, tmp_path)["errors"] >= 2


@pytest.mark.slow
def test_dtz50_every_table_agrees_with_syzygy(full_db, syzygy):
    root = full_db  # its DTZ50 tables are built here, beside the rule-free ones
    build_tables("chess", None, root, max_pieces=4, show_progress=False)
    tables = E.tables_up_to(4)
    for table in tables:
        assert verify_dtz50("chess", table, root)["errors"] == 0, table
    check_random_positions(root, syzygy, [t for t in tables if t != "KvK"], 20_000, seed=51)


class _OneMoveFamily:
    """A three-entry table for the rounds of :func:`solve_dtz50_by_unmoves`: entry 0 wins by a
    pawn move into entry 1, a loss the rule saves (150 plies from its zeroing move); entry 2 is
    drawn. Its kernels (``solve_one_move`` below) read entry 1 as chess's pawn-move exits do."""

    class unmoves:
        @staticmethod
        def zeroing_space(table):
            return types.SimpleNamespace(child_ranges={})

    class game:
        name = "fake"

    @staticmethod
    def zeroing_moves_leave(table):
        return False

    @staticmethod
    def size(table):
        return 3

    @staticmethod
    def dependencies(table):
        return []

    @staticmethod
    def table_id(table):
        return 0


def solve_one_move(family, table, children, progress, space):
    """The un-move engine on :class:`_OneMoveFamily`: entry 0's pawn move valued from the
    table's own codes of the round before, cut to their rule class as the kernels cut them."""
    own = children.codes[children.offsets[0]:]
    return np.array([parent_code(rule_class(own[1])), loss_code(150), CODE_DRAW], np.uint16)


def test_rounds_carry_a_blessed_loss_to_the_pawn_move_into_it(monkeypatch):
    """A pawn move into a loss the rule saves wins only as a cursed win (101 plies), and the
    rounds settle on it (regression: the classes were cut twice, lost the curse and never
    settled)."""
    import retrograde.tables
    import retrograde.unmove

    rule_free = np.array([win_code(1), loss_code(150), CODE_DRAW], np.uint16)
    monkeypatch.setattr(retrograde.tables, "read_codes", lambda *args, **kw: rule_free)
    monkeypatch.setattr(retrograde.tables, "load_children", lambda *args, extra=0, **kw: (
        np.zeros(extra, np.uint16), np.full(1, -1, np.int64), 0))
    monkeypatch.setattr(retrograde.unmove, "solve_by_unmoves", solve_one_move)
    dtz = solve_dtz50_by_unmoves(_OneMoveFamily(), "KPvK", None, Silent())
    assert dtz.tolist() == [win_code(CURSED_WORTH), loss_code(150), CODE_DRAW]
    assert [wdl50(code) for code in dtz] == [1, -1, 0]
