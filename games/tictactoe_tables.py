"""Tic-tac-toe as one retrograde table: every board as a base-3 number (cell i is digit i:
0 empty, 1 x, 2 o), 3^9 = 19,683 indices of which the 5,478 reachable boards are valid.

The family offers un-move generation (taking back one mark of the side that just moved), in
the same base-3 index, so :mod:`retrograde.unmove` solves it; :mod:`retrograde.forward`
solves it too when the un-moves are left out, and the tests check that both agree."""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games.bits import popcount
from games.table_family import (BYTES, GEN_EVALUATE_SIGNATURE, GEN_FLAGGED,
                                GEN_INITIALISE_SIGNATURE, GEN_MARK_SIGNATURE, GEN_STORE_SIGNATURE,
                                GEN_UNKNOWN, NO_LEVEL, RANK_SIGNATURE, TABLE_SHIFT,
                                UNRANK_SIGNATURE, GenerationSpace, TableFamily, UnmoveKernels,
                                touch)
from games.tictactoe import TicTacToe, has_line
from games.value_codes import (CODE_DRAW, code_distance, is_loss, is_unresolved, loss_code, parent_code,
                               stored_code)

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


# --- un-move generation (games.table_family.UnmoveKernels); the index is the storage index ---
@nb.njit(cache=True, inline="always")
def _digit(index, cell):
    """The base-3 digit of ``cell`` (0 empty, 1 x, 2 o)."""
    return (index // 3 ** cell) % 3


@nb.njit(GEN_INITIALISE_SIGNATURE, cache=True)
def initialise_range(params, aux, start, stop, codes, exit_win, exit_floor, wake, child_codes,
                     child_offsets, first):
    """Invalid boards (0), boards with a line (lost for the side to move, code 2), full boards
    (drawn, 1), the rest unresolved. No move leaves the table, so no levels are set (and a
    later group of child tables, which this family never has, changes nothing)."""
    if not first:
        return 0
    pos = np.zeros(2, dtype=np.uint64)
    for index in range(start, stop):
        exit_win[index] = NO_LEVEL
        exit_floor[index] = 0
        wake[index] = NO_LEVEL
        if not unrank(0, index, pos):
            codes[index] = 0
        elif has_line(pos[0]) or has_line(pos[1]):
            codes[index] = 2
        elif pos[0] | pos[1] == types.uint64(0x1FF):
            codes[index] = 1
        else:
            codes[index] = GEN_UNKNOWN
    return 0


@nb.njit(cache=True, inline="always")
def _marks(index):
    """Number of marks on the board ``index``."""
    count = 0
    for cell in range(9):
        count += _digit(index, cell) != 0
    return count


@nb.njit(GEN_MARK_SIGNATURE, cache=True)
def mark_predecessors_of(params, aux, entries, count, codes, exit_floor, wins, touched):
    """Take back each mark of the side that just moved: with ``wins``, the boards before a
    lost entry are won at once; without, those before a won entry are flagged (no counts
    here, so ``exit_floor`` is not read)."""
    won = 0
    for k in range(count):
        index = entries[k]
        code = np.int64(codes[index])
        if is_loss(code) != wins:
            continue
        last_mover = 1 if _marks(index) % 2 == 1 else 2  # x moved last after an odd count
        for cell in range(9):
            if _digit(index, cell) != last_mover:
                continue
            parent = index - last_mover * 3 ** cell
            if wins:
                if is_unresolved(codes[parent]):
                    codes[parent] = parent_code(code)
                    touch(touched, parent)
                    won += 1
            elif codes[parent] == GEN_UNKNOWN:
                codes[parent] = GEN_FLAGGED
                touch(touched, parent)
    return won


@nb.njit(types.int64(types.int64, types.int64, BYTES), cache=True)
def _code_at_level(index, d, codes):
    """The code of the unresolved board ``index`` at level ``d``: a win if a move leads to a
    loss known below ``d``, a loss once every move leads to such a win, else GEN_UNKNOWN."""
    mover = 1 if _marks(index) % 2 == 0 else 2
    longest = 0
    for cell in range(9):
        if _digit(index, cell) != 0:
            continue
        child = np.int64(codes[index + mover * 3 ** cell])
        if child == GEN_UNKNOWN or child == CODE_DRAW or code_distance(child) >= d:
            return GEN_UNKNOWN
        if is_loss(child):
            return parent_code(child)
        longest = max(longest, code_distance(child))
    return loss_code(longest + 1)


@nb.njit(GEN_EVALUATE_SIGNATURE, cache=True)
def evaluate_entries(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                     child_codes, child_offsets, results, offset):
    """:func:`_code_at_level` of each of ``entries[:count]`` (no child tables: the offset
    changes nothing here)."""
    for k in range(count):
        results[k] = _code_at_level(entries[k], d, codes)


@nb.njit(GEN_STORE_SIGNATURE, cache=True)
def store_range(params, aux, start, stop, codes, out, offset):
    """Storage codes: the same index (:func:`games.value_codes.stored_code`)."""
    for index in range(start, stop):
        code = stored_code(np.int64(codes[index]), offset)
        if code >= 0:
            out[index - start] = code


def generation_space(table: str) -> GenerationSpace:
    """The one table in its base-3 index (no parameters)."""
    if table != TABLE:
        raise KeyError(table)
    return GenerationSpace(size=SIZE, storage_size=SIZE, params=np.zeros(1, dtype=np.int64),
                           aux=np.zeros(1, dtype=np.uint64))


UNMOVE_KERNELS = UnmoveKernels(space=generation_space, initialise=initialise_range,
                               mark_predecessors=mark_predecessors_of,
                               evaluate=evaluate_entries, to_storage=store_range)


class TicTacToeTables(TableFamily):
    """The single table ``all`` holding every tic-tac-toe board."""

    index_scheme = "tictactoe-base3"
    index_version = 1
    sides = 1

    def __init__(self):
        self.game = TicTacToe()
        self.rank = rank
        self.unrank = unrank
        self.unmoves = UNMOVE_KERNELS

    def table_names(self, max_pieces=None):
        """The one table."""
        return [TABLE]

    def size(self, table):
        """3^9 indices."""
        if table != TABLE:
            raise KeyError(table)
        return SIZE
