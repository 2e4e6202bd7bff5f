"""The one-byte DTZ50 generator for chess tables with pawns, by pawn slices.

The byte and the levels are :mod:`retrograde.chess_dtz50`'s. A pawn move zeroes the count,
so within a table it is an exit like a capture: its worth is a class read off the position it
reaches, which is final once that position's *slice* is solved. A slice is the set of
positions with one placement of the pawns (and its mirror image in the d/e line, where the
white king's frame puts a position whose king crosses it); moves of the other pieces stay in
it, pawn moves leave it for a slice whose pawns stand further advanced. So the slices are
solved most advanced first, each one alone: its own levels over its own entries (in a
thread: the slices of one advancement are independent and run side by side), as Syzygy's
rtbgenp does.

Exits, valued as classes (``capture_class``): captures, promotions (with or without a
capture) and en passant into the child tables; single and double pushes into this table's
solved slices. A double push after which the opponent may capture en passant reaches a
position that is not the table's entry: for the opponent it is worth the better of the
entry and the en-passant captures.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from games.chess import endgames as E
from games.chess.position import PAWN
from games.value_codes import CODE_DRAW, INVALID, loss_code, win_code
from retrograde.chess_dtz50 import (CAPTURE_WINS, CURSE_LEVEL, FLAG, FLAGGED, FLAGGED_CLOSS,
                                    HOLDS_CWIN, LONGEST, LOSS_NOW, LOSS_OLD, MISSING_CHILD,
                                    NO_CAPTURE, OPEN, OPEN_CLOSS, WIN_NOW, ZEROING_CLASSES,
                                    byte_of_exits, capture_class, decode_valid,
                                    every_quiet_move_loses, frontier_byte, gather_predecessors,
                                    index_strides, mark_positions)
from retrograde.chess_exits import MOST_EXITS, child_plans, exit_codes, final_code
from runtime.borrow import borrowed

KINGS = 2048  # the king pairs of a table with pawns (the white king on files a-d)
TOO_FAR = -2  # solve_slice: a distance passed the byte's codes (run the slice again with far)

U8 = types.Array(types.uint8, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
I64 = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")


@nb.njit(types.UniTuple(types.int64, 2)(types.int64, types.int64, I64, I64, I64, types.int64,
                                        U8, U16, ZEROING_CLASSES, I64_2D, I64), cache=True)
def initial_byte(table, index, strides, codes, squares, n, work, far, child_dtz, plans, found):
    """:func:`retrograde.chess_dtz50.initial_byte` with pawns: ``(byte, level)`` of the legal
    position at ``index`` before its slice's levels, from its exits
    (:func:`retrograde.chess_exits.exit_codes`: pushes read the table's solved slices, the
    other exits the child tables; ``found``: room for them)."""
    (strides, codes, squares, work, far, child_dtz, plans, found) = borrowed(
        (strides, codes, squares, work, far, child_dtz, plans, found))
    count, quiet, in_check = exit_codes(table, index, strides, codes, squares, n, work, far,
                                        child_dtz, plans, found)
    if count == MISSING_CHILD:
        return MISSING_CHILD, -1
    best = NO_CAPTURE
    for e in range(count):
        best = max(best, capture_class(found[e]))
    if best == CAPTURE_WINS:
        return win_code(1), 1
    return byte_of_exits(best, quiet == 1, in_check == 1)


@nb.njit(types.int64(types.int64, types.int64), cache=True, inline="always")
def unit_of(table, index):
    """The unit (side to move, king pair) of an entry: what a slice's levels mark touched."""
    per_side = E.PER_SIDE[table]
    stm = 1 if index >= per_side else 0
    return stm * KINGS + (index - stm * per_side) // (per_side // KINGS)


@nb.njit(types.int64(types.int64, types.int64, types.int64, types.boolean, types.int64, U8,
                     U16, types.int64), cache=True, inline="always")
def mark_entry(table, parent, d, wins, won, work, far, longest):
    """:func:`retrograde.chess_dtz50.mark` inside a slice; returns the parent's unit + 1 if
    written, else 0."""
    byte = work[parent]
    if wins:
        if byte >= OPEN:
            work[parent] = won
            if won == WIN_NOW:
                far[parent] = win_code(d)
            return unit_of(table, parent) + 1
    elif byte == OPEN or (byte == OPEN_CLOSS and d >= CURSE_LEVEL):
        work[parent] = byte + FLAG
        return unit_of(table, parent) + 1
    return 0


@nb.njit(types.int64(types.int64, U8, U16, I64, types.int64, I64, I64, ZEROING_CLASSES, I64_2D,
                     types.int64), cache=True)
def solve_slice(table, work, far, bases, variants, inner, strides, child_dtz, plans, longest):
    """The levels of one slice, on this thread: its entries are ``bases[v * 2 * KINGS + u] +
    inner[k]`` for ``v < variants`` (variant ``v``: the pawn placement or its mirror image;
    unit ``u``: side to move and king pair). Returns MISSING_CHILD if a child table is not
    loaded, TOO_FAR if a distance passed ``longest`` without ``far`` to hold it, else 0."""
    n = E.COUNT[table]
    codes = np.empty(n, dtype=np.int64)
    for i in range(n):
        codes[i] = E.SPEC[table, i]
    squares = np.empty(n, dtype=np.int64)
    units = 2 * KINGS
    frontier = np.zeros(units, dtype=np.uint8)
    touched = np.zeros(units, dtype=np.uint8)
    flagged = np.zeros(units, dtype=np.uint8)
    first_level = np.zeros(units, dtype=np.uint8)
    curse_level = np.zeros(units, dtype=np.uint8)
    parents = np.empty(512, dtype=np.int64)
    found = np.empty(MOST_EXITS, dtype=np.int64)
    cursed = 0
    missing = 0
    for v in range(variants):
        for u in range(units):
            base = bases[v * units + u]
            for k in range(inner.shape[0]):
                index = base + inner[k]
                if work[index] == INVALID:
                    continue
                byte, level = initial_byte(table, index, strides, codes, squares, n, work, far,
                                           child_dtz, plans, found)
                if byte == MISSING_CHILD:
                    missing += 1
                    byte = OPEN
                work[index] = byte
                if byte == OPEN_CLOSS or byte == HOLDS_CWIN:
                    cursed += 1
                if level == 1:
                    first_level[u] = 1
                elif level == CURSE_LEVEL:
                    curse_level[u] = 1
                    cursed += 1
    if missing:
        return MISSING_CHILD
    frontier[:] = 1  # the mates: anywhere
    d = 1
    while True:
        if d > longest and far.shape[0] == 0:
            return TOO_FAR
        decided = 0
        for wins in (True, False):
            target = frontier_byte(d, wins, longest)
            won = win_code(d) if d <= longest else WIN_NOW
            for u in range(units):
                if not frontier[u]:
                    continue
                for v in range(variants):
                    base = bases[v * units + u]
                    for k in range(inner.shape[0]):
                        index = base + inner[k]
                        if work[index] != target:
                            continue
                        child_stm = decode_valid(table, index, squares)
                        count = gather_predecessors(table, index, strides, codes, squares, n,
                                                    child_stm, parents, 0)
                        for p in range(count):
                            unit = mark_entry(table, parents[p], d, wins, won, work, far,
                                              longest)
                            if unit:
                                if wins:
                                    touched[unit - 1] = 1
                                    decided += 1
                                else:
                                    flagged[unit - 1] = 1
            if wins and d == CURSE_LEVEL:  # the cursed captures come due
                for u in range(units):
                    for v in range(variants):
                        base = bases[v * units + u]
                        for k in range(inner.shape[0]):
                            index = base + inner[k]
                            byte = work[index]
                            if d > longest and (byte == win_code(d) or byte == loss_code(d)):
                                far[index] = byte  # decided by the initialisation: markers
                                work[index] = WIN_NOW if byte & 1 else LOSS_NOW
                            elif byte == HOLDS_CWIN:
                                if d <= longest:
                                    work[index] = win_code(d)
                                else:
                                    work[index] = WIN_NOW
                                    far[index] = win_code(d)
                                touched[u] = 1
                                decided += 1
                            elif byte == OPEN_CLOSS:
                                work[index] = FLAGGED_CLOSS
                                flagged[u] = 1
        for u in range(units):
            if not flagged[u]:
                continue
            for v in range(variants):
                base = bases[v * units + u]
                for k in range(inner.shape[0]):
                    index = base + inner[k]
                    byte = work[index]
                    if byte != FLAGGED and byte != FLAGGED_CLOSS:
                        continue
                    stm = decode_valid(table, index, squares)
                    if every_quiet_move_loses(table, index, stm, strides, codes, squares, n,
                                              work, d):
                        if d <= longest:
                            work[index] = loss_code(d)
                        else:
                            work[index] = LOSS_NOW
                            far[index] = loss_code(d)
                        touched[u] = 1
                        decided += 1
                    else:
                        work[index] = byte - FLAG
        if d == 1:
            for u in range(units):
                if first_level[u]:
                    touched[u] = 1
                    decided += 1
        elif d == CURSE_LEVEL:
            for u in range(units):
                if curse_level[u]:
                    touched[u] = 1
                    decided += 1
        if d > longest:  # PREV -> OLD, NOW -> PREV
            for u in range(units):
                for v in range(variants):
                    base = bases[v * units + u]
                    for k in range(inner.shape[0]):
                        index = base + inner[k]
                        byte = work[index]
                        if LOSS_OLD + 2 <= byte <= WIN_NOW:
                            work[index] = byte - 2
        frontier[:] = touched
        touched[:] = 0
        flagged[:] = 0
        if decided:
            d += 1
        elif d < CURSE_LEVEL and cursed:
            d = CURSE_LEVEL
            frontier[:] = 0
        else:
            break
    for u in range(units):  # what is still open is drawn
        for v in range(variants):
            base = bases[v * units + u]
            for k in range(inner.shape[0]):
                index = base + inner[k]
                if work[index] >= OPEN:
                    work[index] = CODE_DRAW
                    if far.shape[0]:
                        far[index] = CODE_DRAW
    return 0


@nb.njit(types.void(types.int64, U8, U16, I64_2D, I64, I64, I64, ZEROING_CLASSES, I64_2D, types.int64,
                    I64), cache=True, parallel=True)
def solve_slices(table, work, far, slice_bases, variants, inner, strides, child_dtz, plans,
                 longest, results):
    """:func:`solve_slice` of every row of ``slice_bases`` (independent slices, with
    ``variants`` each), side by side; their results in ``results``."""
    for s in prange(slice_bases.shape[0]):
        results[s] = solve_slice(table, work, far, slice_bases[s], variants[s], inner, strides,
                                 child_dtz, plans, longest)


def _group_squares(digit: int, count: int) -> list[int]:
    """The squares of a pawn group's storage digit (inverse of ``group_part``)."""
    found = []
    if count == 3:
        c = int(E.TRIPLE_TOP[digit])
        found.append(c)
        digit -= c * (c - 1) * (c - 2) // 6
    if count >= 2:
        b = int(E.PAIR_TOP[digit])
        found.append(b)
        digit -= b * (b - 1) // 2
    found.append(digit)
    return sorted(square + 8 for square in found)


def _group_digit(squares: list[int]) -> int:
    """The storage digit of a pawn group on ``squares`` (``group_part``)."""
    s = sorted(square - 8 for square in squares)
    if len(s) == 1:
        return s[0]
    if len(s) == 2:
        return s[0] + s[1] * (s[1] - 1) // 2
    return s[0] + s[1] * (s[1] - 1) // 2 + s[2] * (s[2] - 1) * (s[2] - 2) // 6


def slices(table: str) -> list[tuple[int, list[tuple[int, ...]]]]:
    """The pawn slices of ``table``, most advanced first: ``(advancement, variants)``, each
    variant the digits of the pawn groups (a placement of the pawns and, if it differs, its
    mirror image in the d/e line). Advancement counts the ranks White's pawns have gone up
    and Black's down: a pawn move raises it, so a slice's pushes land in earlier slices."""
    table_id = E.TABLE_IDS[table]
    groups = [(int(first), int(count), int(values)) for first, count, values in E.GROUPS[table_id]
              if count and E.SPEC[table_id, first] % 6 == PAWN]
    colours = [int(E.SPEC[table_id, first]) // 6 for first, _, _ in groups]
    seen, found = set(), []
    for digits in np.ndindex(*[values for _, _, values in groups]):
        placed = [_group_squares(digit, count) for digit, (_, count, _) in zip(digits, groups)]
        every = [square for squares in placed for square in squares]
        if len(set(every)) != len(every) or digits in seen:
            continue
        mirror = tuple(_group_digit([square ^ 7 for square in squares]) for squares in placed)
        seen.update((digits, mirror))
        advancement = sum((square >> 3) if colour == 0 else 7 - (square >> 3)
                          for squares, colour in zip(placed, colours) for square in squares)
        found.append((advancement, [digits] if mirror == digits else [digits, mirror]))
    found.sort(key=lambda item: -item[0])
    return found


def slice_layout(table: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pawn strides, unit bases, inner offsets)``: each pawn group's stride, the index of
    every (side to move, king pair) with the pawn digits 0, and the offsets of every digit
    combination of the other groups (a slice's entries: a unit base, plus its pawn digits
    times their strides, plus an inner offset)."""
    table_id = E.TABLE_IDS[table]
    per_side = int(E.PER_SIDE[table_id])
    strides, stride = {}, 1
    for g in range(E.MAX_GROUPS - 1, -1, -1):
        first, count, values = (int(x) for x in E.GROUPS[table_id, g])
        if count:
            strides[g] = stride
            stride *= values
    kings_stride = stride
    pawn_strides, inner = [], np.zeros(1, dtype=np.int64)
    for g in sorted(strides):
        first, count, values = (int(x) for x in E.GROUPS[table_id, g])
        if E.SPEC[table_id, first] % 6 == PAWN:
            pawn_strides.append(strides[g])
        else:
            inner = (inner[:, None] + np.arange(values, dtype=np.int64)[None, :] * strides[g]).ravel()
    units = np.arange(2 * KINGS, dtype=np.int64)
    bases = (units // KINGS) * per_side + (units % KINGS) * kings_stride
    return np.array(pawn_strides, dtype=np.int64), bases, np.sort(inner)


def solve(table: str, child_dtz: np.ndarray, child_offsets: np.ndarray, progress,
          longest: int = LONGEST) -> np.ndarray:
    """The DTZ50 codes (storage index) of the chess ``table`` with pawns, slice by slice,
    from its children's DTZ50 codes (as :func:`retrograde.chess_dtz50.solve`): ``uint8``
    when every distance fits the byte's codes, else ``uint16``."""
    table_id = E.TABLE_IDS[table]
    if not E.PAWNFUL[table_id]:
        raise ValueError(f"{table}: no pawns (retrograde.chess_dtz50 builds it)")
    size = 2 * int(E.PER_SIDE[table_id])
    work = np.zeros(size, dtype=np.uint8)
    far = np.zeros(0, dtype=np.uint16)
    plans = child_plans(table, child_offsets)
    strides = index_strides(table_id)
    pawn_strides, unit_bases, inner = slice_layout(table)
    mark_positions(table_id, work, OPEN)
    progress.update("legal positions", 1, 1, size)
    groups: dict[int, list] = {}
    for advancement, variants in slices(table):
        groups.setdefault(advancement, []).append(variants)
    done = 0
    for advancement in sorted(groups, reverse=True):
        batch = groups[advancement]
        slice_bases = np.zeros((len(batch), 2 * unit_bases.size), dtype=np.int64)
        variants = np.array([len(v) for v in batch], dtype=np.int64)
        for row, placements in enumerate(batch):
            for v, digits in enumerate(placements):
                slice_bases[row, v * unit_bases.size:(v + 1) * unit_bases.size] = \
                    unit_bases + int(np.dot(digits, pawn_strides))
        results = np.zeros(len(batch), dtype=np.int64)
        solve_slices(table_id, work, far, slice_bases, variants, inner, strides, child_dtz,
                     plans, longest, results)
        again = np.flatnonzero(results == TOO_FAR)
        if again.size:  # the byte's codes ran out: a two-byte result from now on
            if far.size == 0:
                far = work.astype(np.uint16)
            solve_slices(table_id, work, far, slice_bases[again], variants[again], inner,
                         strides, child_dtz, plans, longest, results[again])
        if (results == MISSING_CHILD).any():
            raise RuntimeError(f"{table}: exits lead to tables that are not loaded")
        done += len(batch)
        progress.update(f"dtz50 slices (advancement {advancement})", done, done, 0)
    if far.size == 0:
        return work
    merge_codes(work, far)
    return far


@nb.njit(types.void(U8, U16), cache=True, parallel=True)
def merge_codes(work, far):
    """``far``: every entry's code (the slices that never passed the byte's codes left theirs
    in ``work`` alone)."""
    for index in prange(work.shape[0]):
        far[index] = final_code(work, far, index)
