"""Tic-tac-toe kernels and notation."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, strategies as st

import games
from games.perft import perft
from tests.reference_games import TicTacToeReference

GAME = games.get("tictactoe")

# Leaf counts from the empty board, finished games having no moves (from the issue; also
# the well-known 255,168 games total = sum over the finished games).
PERFT = [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


@pytest.mark.parametrize("depth", range(10))
def test_perft_from_the_empty_board(depth):
    assert perft(GAME, GAME.start_position(), depth) == PERFT[depth]


def test_startpos_is_the_empty_board():
    assert GAME.format_position(GAME.parse_position("startpos")) == "........."


def _naively_reachable(cells: str) -> bool:
    """Whether a board arises in play: search backwards through the naive reference."""
    reference = TicTacToeReference()
    frontier = {"........."}
    for _ in range(9):
        if cells in frontier:
            return True
        frontier = {reference.play(b, m) for b in frontier for m in reference.legal_moves(b)}
    return cells in frontier


REACHABLE = set()


def _all_reachable() -> set[str]:
    if not REACHABLE:
        reference = TicTacToeReference()
        frontier = {"........."}
        while frontier:
            REACHABLE.update(frontier)
            frontier = {reference.play(b, m) for b in frontier for m in reference.legal_moves(b)}
    return REACHABLE


def test_parser_accepts_exactly_the_reachable_boards():
    reachable = _all_reachable()
    assert len(reachable) == 5478  # the classic count of legal tic-tac-toe positions
    for cells in map("".join, itertools.product("xo.", repeat=9)):
        if cells in reachable:
            assert GAME.format_position(GAME.parse_position(cells)) == cells
        else:
            with pytest.raises(games.NotationError):
                GAME.parse_position(cells)


@given(st.text(max_size=12))
def test_parser_never_crashes(text):
    try:
        position = GAME.parse_position(text)
    except games.NotationError:
        return
    assert GAME.format_position(position) in _all_reachable()


@pytest.mark.parametrize("text", ["", "x", "xxxxxxxxxx", "xo.xo.xo?", "XO.......", "xxx......"])
def test_malformed_positions_are_refused(text):
    with pytest.raises(games.NotationError):
        GAME.parse_position(text)


@pytest.mark.parametrize("move", ["0", "10", "a", "", "1 2"])
def test_malformed_moves_are_refused(move):
    with pytest.raises(games.NotationError):
        GAME.parse_move(GAME.start_position(), move)


def test_occupied_cell_is_illegal():
    with pytest.raises(games.NotationError):
        GAME.parse_move(GAME.parse_position("x........"), "1")
