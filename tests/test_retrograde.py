"""The generic retrograde engine and the verifier, on tic-tac-toe solved completely."""
from __future__ import annotations

from functools import lru_cache

import h5py
import numpy as np
import pytest

from databases import open_database
from databases import format as F
from databases.location import table_path
from games.tictactoe_tables import SIZE, unrank
from retrograde.build import build_tables
from retrograde.tables import read_codes
from retrograde.verify import verify_table

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@lru_cache(maxsize=None)
def minimax(board: str) -> tuple[int, int]:
    """(value for the side to move, plies to the end) by plain recursion over the rules:
    wins as fast as possible, losses as late as possible."""
    mover = "x" if board.count("x") == board.count("o") else "o"
    other = "o" if mover == "x" else "x"
    if any(all(board[i] == other for i in line) for line in LINES):
        return -1, 0
    empty = [i for i, c in enumerate(board) if c == "."]
    if not empty:
        return 0, 0
    results = []
    for cell in empty:
        value, plies = minimax(board[:cell] + mover + board[cell + 1:])
        results.append((-value, plies + 1))
    return max(results, key=lambda r: (r[0], -r[1] if r[0] > 0 else r[1] if r[0] < 0 else 0))


def reachable() -> set[str]:
    """Every board reachable from the empty one."""
    seen, frontier = {"........."}, ["........."]
    while frontier:
        board = frontier.pop()
        if minimax(board)[1] == 0:
            continue
        mover = "x" if board.count("x") == board.count("o") else "o"
        for cell, c in enumerate(board):
            if c == ".":
                child = board[:cell] + mover + board[cell + 1:]
                if child not in seen:
                    seen.add(child)
                    frontier.append(child)
    return seen


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    root = tmp_path_factory.mktemp("db")
    result = build_tables("tictactoe", root=root, show_progress=False)
    assert result["built"] == ["all"]
    return root


def test_every_reachable_position_matches_minimax(solved):
    boards = reachable()
    assert len(boards) == 5478
    with open_database(solved, "tictactoe") as db:
        game = db.game
        for board in boards:
            value, plies = minimax(board)
            result = db.probe(game.parse_position(board))
            assert result.wdl == value, board
            assert result.dtm == (plies if value > 0 else -plies if value < 0 else 0), board
        assert db.probe_wdl(game.start_position()) == 0


def test_exactly_the_reachable_indices_are_valid(solved):
    codes = read_codes(solved, "tictactoe", "all")
    position = np.zeros(2, dtype=np.uint64)
    valid = np.array([unrank(0, i, position) for i in range(SIZE)])
    assert np.count_nonzero(valid) == 5478
    assert np.array_equal(codes != F.INVALID, valid)


def test_best_move_keeps_the_value(solved):
    with open_database(solved, "tictactoe") as db:
        game = db.game
        for board in ["xx.oo....", "x...o....", "xo.......", "........."]:
            position = game.parse_position(board)
            before = db.probe(position)
            child = db.probe(game.play(position, db.best_move(position)))
            assert child.wdl == -before.wdl
            if before.wdl != 0:
                assert abs(child.dtm) == abs(before.dtm) - 1


def test_skips_valid_tables_and_rebuilds_invalid_ones(solved, tmp_path):
    assert build_tables("tictactoe", root=solved, show_progress=False)["skipped"] == ["all"]
    root = tmp_path
    build_tables("tictactoe", root=root, show_progress=False)
    with h5py.File(table_path(root, "tictactoe", "all"), "r+") as handle:
        handle.attrs["index_version"] = 0
    assert build_tables("tictactoe", root=root, show_progress=False)["built"] == ["all"]


def test_verify_finds_no_errors_and_catches_a_wrong_entry(solved, tmp_path):
    assert verify_table("tictactoe", "all", solved)["errors"] == 0
    codes = read_codes(solved, "tictactoe", "all")
    start = 0  # the empty board: a draw; claim a win instead
    codes[start] = F.encode(1, 9)
    from databases.writer import write_table
    write_table(table_path(tmp_path, "tictactoe", "all"), codes, game="tictactoe", table="all",
                index_scheme="tictactoe-base3", index_version=1, sides=1, generator="test",
                generator_version="0", settings={}, build_seconds=0)
    assert verify_table("tictactoe", "all", tmp_path)["errors"] == 1
