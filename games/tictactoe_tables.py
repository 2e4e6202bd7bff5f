"""Tic-tac-toe as one retrograde table: every board as a base-3 number (cell i is digit i:
0 empty, 1 x, 2 o), 3^9 = 19,683 indices of which the 5,478 reachable boards are valid."""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import popcount
from games.table_family import RANK_SIGNATURE, TABLE_SHIFT, UNRANK_SIGNATURE, TableFamily
from games.tictactoe import TicTacToe, has_line

TABLE = "all"
SIZE = 3 ** 9


@nb.njit(types.boolean(types.uint64, types.boolean), cache=True)
def _lines_possible(stones, moved_last):
    """A player with a line moved last, and one last move completed all their lines."""
    common = types.uint64(0x1FF)
    found = False
    for line in (0x7, 0x38, 0x1C0, 0x49, 0x92, 0x124, 0x111, 0x54):
        line = types.uint64(line)
        if stones & line == line:
            found = True
            common &= line
    if not found:
        return True
    return moved_last and common != 0


@nb.njit(UNRANK_SIGNATURE, cache=True)
def unrank(table_id, index, pos):
    """Board from its base-3 index; False for boards that cannot arise in play."""
    x = types.uint64(0)
    o = types.uint64(0)
    for cell in range(9):
        digit = index % 3
        index //= 3
        if digit == 1:
            x |= types.uint64(1) << types.uint64(cell)
        elif digit == 2:
            o |= types.uint64(1) << types.uint64(cell)
    pos[0] = x
    pos[1] = o
    nx = popcount(x)
    no = popcount(o)
    if not (nx == no or nx == no + 1):
        return False
    if not _lines_possible(x, nx == no + 1) or not _lines_possible(o, nx == no):
        return False
    return True


@nb.njit(RANK_SIGNATURE, cache=True)
def rank(pos):
    """Base-3 index of the board (table 0)."""
    index = 0
    power = 1
    for cell in range(9):
        bit = types.uint64(1) << types.uint64(cell)
        if pos[0] & bit:
            index += power
        elif pos[1] & bit:
            index += 2 * power
        power *= 3
    return (0 << TABLE_SHIFT) | index


class TicTacToeTables(TableFamily):
    """The single table ``all`` holding every tic-tac-toe board."""

    index_scheme = "tictactoe-base3"
    index_version = 1
    sides = 1

    def __init__(self):
        self.game = TicTacToe()
        self.rank = rank
        self.unrank = unrank

    def table_names(self, max_pieces=None):
        """The one table."""
        return [TABLE]

    def size(self, table):
        """3^9 indices."""
        if table != TABLE:
            raise KeyError(table)
        return SIZE
