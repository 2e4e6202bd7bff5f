"""Tic-tac-toe as bitboard kernels.

Bit layout (one 9-bit mask per player, bit i is cell i + 1 of the notation)::

     0 | 1 | 2        notation:  1 | 2 | 3
    ---+---+---                 ---+---+---
     3 | 4 | 5                   4 | 5 | 6
    ---+---+---                 ---+---+---
     6 | 7 | 8                   7 | 8 | 9

Position array: ``[x_stones, o_stones]``. ``x`` moves first, so the side to move follows from
the stone counts. A move is the cell index 0..8.

The rules kernels are here; ``evaluate``, ``is_noisy`` and the player kernels are in
:mod:`games.tictactoe_player`, loaded on first use.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import mix64, popcount
from games.game import Game, Kernels, NotationError, PlayerKernels

FULL_BOARD = 0x1FF
# The kernels only the engines that search need are loaded on first use.
PLAYER = "games.tictactoe_player:"
DEFAULTS = "games.player_defaults:"
LINES = np.array([0x7, 0x38, 0x1C0, 0x49, 0x92, 0x124, 0x111, 0x54], dtype=np.uint64)


@nb.njit(types.boolean(types.uint64), cache=True)
def has_line(stones):
    """Whether ``stones`` contains three in a row."""
    for line in (0x7, 0x38, 0x1C0, 0x49, 0x92, 0x124, 0x111, 0x54):
        if stones & types.uint64(line) == types.uint64(line):
            return True
    return False


# inline="always" helpers take no signature: inlined into each caller, never compiled on their own.
@nb.njit(cache=True, inline="always")
def mover_and_opponent(pos):
    """The stones of the side to move and of its opponent (x moves first)."""
    if popcount(pos[0]) == popcount(pos[1]):
        return pos[0], pos[1]
    return pos[1], pos[0]


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def legal_moves(pos, moves):
    """Empty cells, unless a line has been made."""
    if has_line(pos[0]) or has_line(pos[1]):
        return 0
    occupied = pos[0] | pos[1]
    count = 0
    for cell in range(9):
        if not (occupied >> types.uint64(cell)) & types.uint64(1):
            moves[count] = cell
            count += 1
    return count


@nb.njit(K.PLAY_SIGNATURE, cache=True)
def play(pos, move, child):
    """Put the side to move's mark on cell ``move``."""
    child[0] = pos[0]
    child[1] = pos[1]
    side = 0 if popcount(pos[0]) == popcount(pos[1]) else 1
    child[side] = pos[side] | (types.uint64(1) << types.uint64(move))


@nb.njit(K.OUTCOME_SIGNATURE, cache=True)
def outcome(pos, n_legal):
    """The last mover may have made a line (a loss for the side to move); a full board draws."""
    mover, opponent = mover_and_opponent(pos)
    if has_line(opponent):
        return K.LOSS
    if has_line(mover):  # cannot arise in play; kept total for robustness
        return K.WIN
    if (pos[0] | pos[1]) == types.uint64(FULL_BOARD):
        return K.DRAW
    return K.ONGOING


@nb.njit(K.HASH_SIGNATURE, cache=True)
def hash_position(pos):
    """Mixed 18-bit key ``x | o << 9``."""
    return mix64(pos[0] | (pos[1] << types.uint64(9)))


class TicTacToe(Game):
    """Tic-tac-toe: positions are 9 characters ``x``, ``o``, ``.`` row by row from the top
    left; moves are cell digits 1-9."""

    name = "tictactoe"
    position_width = 2
    max_moves = 9
    move_space = 9
    move_text_needs_position = False  # a column / cell digit
    plies_fixed_by_position = True  # every move adds a mark
    max_game_length = 9
    kernels = Kernels(legal_moves, play, outcome, hash_position, PLAYER + "evaluate", PLAYER + "is_noisy")
    player = PlayerKernels(DEFAULTS + "never_in_check", DEFAULTS + "never_gives_check", DEFAULTS + "no_pass",
                           PLAYER + "move_keys", PLAYER + "noisy_moves", DEFAULTS + "never_repeats",
                           DEFAULTS + "move_itself", PLAYER + "is_legal")

    def parse_position(self, text: str) -> np.ndarray:
        """Parse ``x.o......``-style boards (or ``startpos``), refusing impossible ones."""
        text = text.strip()
        if text == "startpos":
            text = "." * 9
        if len(text) != 9:
            raise NotationError(f"tic-tac-toe position must have 9 cells, got {len(text)}: {text!r}")
        bad = sorted(set(text) - set("xo."))
        if bad:
            raise NotationError(f"tic-tac-toe position has characters other than x, o, '.': {bad}")
        x = sum(1 << i for i, c in enumerate(text) if c == "x")
        o = sum(1 << i for i, c in enumerate(text) if c == "o")
        nx, no = bin(x).count("1"), bin(o).count("1")
        if not (nx == no or nx == no + 1):
            raise NotationError(f"impossible position: {nx} x and {no} o (x moves first)")
        _check_lines_possible(x, nx == no + 1, "x")
        _check_lines_possible(o, nx == no, "o")
        return np.array([x, o], dtype=np.uint64)

    def format_position(self, position: np.ndarray) -> str:
        """Format as 9 characters ``x``, ``o``, ``.``."""
        x, o = int(position[0]), int(position[1])
        return "".join("x" if x >> i & 1 else "o" if o >> i & 1 else "." for i in range(9))

    def parse_move(self, position: np.ndarray, text: str) -> int:
        """Parse a cell digit 1-9 that is legal in ``position``."""
        text = text.strip()
        if len(text) != 1 or text not in "123456789":
            raise NotationError(f"tic-tac-toe move must be a cell digit 1-9, got {text!r}")
        move = int(text) - 1
        if move not in self.legal_moves(position):
            raise NotationError(f"illegal move {text} in {self.format_position(position)}")
        return move

    def format_move(self, position: np.ndarray, move: int) -> str:
        """Format as a cell digit 1-9."""
        return str(move + 1)


def _check_lines_possible(stones: int, moved_last: bool, mark: str) -> None:
    """A player with a line must have moved last, and all their lines share the last cell."""
    lines = [int(line) for line in LINES if stones & int(line) == int(line)]
    if not lines:
        return
    if not moved_last:
        raise NotationError(f"impossible position: {mark} has three in a row but the other side moved after it")
    common = FULL_BOARD
    for line in lines:
        common &= line
    if not common:
        raise NotationError(f"impossible position: {mark}'s lines could not all be made by one last move")
