"""Deliberately naive reference implementations of the games, written from the rules on plain
grids and notation strings, sharing no code with the bitboard kernels they check.

Each reference works on positions in the game's notation and answers with move strings and
results, so the conformance tests can compare it with any game through its notation alone.
"""
from __future__ import annotations

import numba as nb
import numpy as np

WIN, DRAW, LOSS, ONGOING = 1, 0, -1, 2


class TicTacToeReference:
    """Tic-tac-toe on a 3x3 list of characters."""

    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def _winner(self, cells: str) -> str | None:
        for a, b, c in self.LINES:
            if cells[a] != "." and cells[a] == cells[b] == cells[c]:
                return cells[a]
        return None

    def side_to_move(self, cells: str) -> str:
        """x moves first."""
        return "x" if cells.count("x") == cells.count("o") else "o"

    def legal_moves(self, cells: str) -> set[str]:
        """Empty cells as digits 1-9, none once a line is made."""
        if self._winner(cells):
            return set()
        return {str(i + 1) for i, c in enumerate(cells) if c == "."}

    def play(self, cells: str, move: str) -> str:
        """The board after ``move``."""
        i = int(move) - 1
        return cells[:i] + self.side_to_move(cells) + cells[i + 1:]

    def outcome(self, cells: str) -> int:
        """From the side to move's point of view."""
        winner = self._winner(cells)
        if winner:
            return WIN if winner == self.side_to_move(cells) else LOSS
        return DRAW if "." not in cells else ONGOING


class ConnectFourReference:
    """Connect Four on a list of columns (bottom first), positions as column-digit strings."""

    def __init__(self, width: int = 7, height: int = 6):
        self.width, self.height = width, height

    def _grid(self, sequence: str) -> list[list[int]]:
        columns: list[list[int]] = [[] for _ in range(self.width)]
        for ply, char in enumerate(sequence):
            columns[int(char) - 1].append(ply % 2)
        return columns

    def _has_four(self, columns: list[list[int]], player: int) -> bool:
        def at(c: int, r: int) -> bool:
            return 0 <= c < self.width and 0 <= r < len(columns[c]) and columns[c][r] == player

        for c in range(self.width):
            for r in range(self.height):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    if all(at(c + k * dc, r + k * dr) for k in range(4)):
                        return True
        return False

    def legal_moves(self, sequence: str) -> set[str]:
        """Columns with room, none after four in a row."""
        columns = self._grid(sequence)
        if self._has_four(columns, 0) or self._has_four(columns, 1):
            return set()
        return {str(c + 1) for c in range(self.width) if len(columns[c]) < self.height}

    def play(self, sequence: str, move: str) -> str:
        """The sequence after ``move``."""
        return sequence + move

    def outcome(self, sequence: str) -> int:
        """From the side to move's point of view."""
        columns = self._grid(sequence)
        mover = len(sequence) % 2
        if self._has_four(columns, 1 - mover):
            return LOSS
        if self._has_four(columns, mover):
            return WIN
        return DRAW if len(sequence) == self.width * self.height else ONGOING


@nb.njit(cache=True)
def _grid_has_four(grid, player):
    width, height = grid.shape
    for c in range(width):
        for r in range(height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                k = 0
                while k < 4:
                    cc, rr = c + k * dc, r + k * dr
                    if cc < 0 or cc >= width or rr < 0 or rr >= height or grid[cc, rr] != player:
                        break
                    k += 1
                if k == 4:
                    return True
    return False


@nb.njit(cache=True)
def _grid_perft(grid, heights, player, depth):
    if depth == 0:
        return 1
    if _grid_has_four(grid, 1 - player):
        return 0
    width, height = grid.shape
    total = 0
    for c in range(width):
        if heights[c] < height:
            grid[c, heights[c]] = player
            heights[c] += 1
            total += _grid_perft(grid, heights, 1 - player, depth - 1)
            heights[c] -= 1
            grid[c, heights[c]] = -1
    return total


def connect4_reference_perft(sequence: str, depth: int, width: int = 7, height: int = 6) -> int:
    """Perft on a plain grid with an exhaustive four-in-a-row scan at every node (compiled only
    so that deep counts finish; the algorithm is the naive one)."""
    grid = -np.ones((width, height), dtype=np.int64)
    heights = np.zeros(width, dtype=np.int64)
    for ply, char in enumerate(sequence):
        column = int(char) - 1
        grid[column, heights[column]] = ply % 2
        heights[column] += 1
    return int(_grid_perft(grid, heights, len(sequence) % 2, depth))


def reference_for(game_name: str):
    """The reference of a registered game, or None when the tests have none."""
    if game_name == "tictactoe":
        return TicTacToeReference()
    if game_name == "connect4":
        return ConnectFourReference()
    if game_name == "chess":
        from tests.chess_reference import ChessReference

        return ChessReference()
    return None
