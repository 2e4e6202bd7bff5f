"""The exits of a chess position, as the level generators see them (the one-byte DTZ50 ones
with pawns, the two-byte DTM ones): every legal move the levels do not follow, with the code
of the position it reaches, and whether a legal quiet move is left for the levels.

An exit is a capture, a promotion (with or without a capture) or an en-passant capture: into
a child table; or a pawn push: into a solved slice of the same table. A double push after
which the opponent may capture en passant reaches a position that is not the table's entry:
for the opponent it is worth the better of the entry and those captures. Codes are read off
the children's codes (``plans``, one row per kind of exit: ``child_plans``) and the table's
own working array (bytes with a two-byte result beside them, or words).
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games.chess import endgames as E
from games.chess.attacks import pawn_attacks
from games.chess.bitops import lsb
from games.chess.position import BISHOP, KNIGHT, PAWN, QUEEN, ROOK
from games.value_codes import INVALID, better, parent_code, wdl50
from retrograde.chess_dtz50 import (LOSS_OLD, MISSING_CHILD, WIN_NOW, ZEROING_CLASSES, attacked,
                                    capture_child_code, capture_plans, decode_valid,
                                    fill_offsets, king_moved_index, moved_index, occupancy,
                                    plan_row, reach, slot_on)
from runtime.borrow import borrowed

PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)
PROMOTION_BASE = E.MAX_PIECES  # plan rows: captures 0..4, then promotions, then both
CAPTURE_PROMOTION_BASE = PROMOTION_BASE + E.MAX_PIECES * 4
PLAN_ROWS = CAPTURE_PROMOTION_BASE + E.MAX_PIECES * E.MAX_PIECES * 4
MOST_EXITS = 128  # exits of one position (generous: four pawns promoting with captures)
NO_LEAVING = -3  # best_leaving_value: no move leaves the table (below every WDL50)
UNKNOWN_LEAVING = -4  # best_leaving_value: a child table is not loaded (exit_codes: or not seen)
LEAVING_SHIFT = 4  # a best_leaving_value kept as a byte (chess_dtz50_pawns' leaving): plus this

U8 = types.Array(types.uint8, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
I64 = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")


def child_plans(table: str, child_offsets: np.ndarray) -> np.ndarray:
    """Where every exit of ``table`` that leaves it lands, a row per kind
    (``chess_dtz50.plan_row``): a capture of slot ``c`` (row ``c``), a promotion of the
    pawn in slot ``p`` to the ``k``-th of Q R B N (``PROMOTION_BASE + 4p + k``), both at once
    (``CAPTURE_PROMOTION_BASE + 4 (p * MAX_PIECES + c) + k``)."""
    spec = E.spec_of(table)
    plans = capture_plans(table, PLAN_ROWS)
    for pawn, code in enumerate(spec):
        if code % 6 != PAWN:
            continue
        for k, kind in enumerate(PROMOTIONS):
            new_code = (code // 6) * 6 + kind
            plans[PROMOTION_BASE + 4 * pawn + k] = plan_row(spec, -1, pawn, new_code)
            for captured in range(2, len(spec)):
                if spec[captured] // 6 != code // 6:
                    plans[CAPTURE_PROMOTION_BASE + 4 * (pawn * E.MAX_PIECES + captured) + k] = \
                        plan_row(spec, captured, pawn, new_code)
    return fill_offsets(plans, child_offsets)


@nb.njit(cache=True, inline="always")
def final_code(work, far, index):
    """The code of a decided entry: a byte of :mod:`retrograde.chess_dtz50` (its code in
    ``far`` where the byte holds a marker) or a word of :mod:`retrograde.chess_dtm` (the code
    itself; ``far`` unused)."""
    code = np.int64(work[index])
    if work.itemsize == 1 and LOSS_OLD <= code <= WIN_NOW:
        return np.int64(far[index])
    return code


@nb.njit([types.int64(types.int64, types.int64, I64, I64, types.int64, types.int64,
                      types.int64, U8, U16, ZEROING_CLASSES, I64_2D),
          types.int64(types.int64, types.int64, I64, I64, types.int64, types.int64,
                      types.int64, U16, U16, U16, I64_2D)], cache=True)
def double_push_code(table, index, codes, squares, n, pawn, stm, work, far, children, plans):
    """The code, for the opponent, of the position a double push of the pawn in slot
    ``pawn`` (already on its square in ``squares``) reaches, whose entry is ``index``: the
    entry's code, or better for the opponent an en-passant capture of that pawn; INVALID if
    the push is illegal, MISSING_CHILD if a child table is not loaded. (With the children's
    DTZ50 zeroing classes the capture's code is right as a class, which is all a DTZ50 exit
    needs: ``parent_code`` of a class keeps ``within_rule``.)"""
    (codes, squares, work, far, children, plans) = borrowed(
        (codes, squares, work, far, children, plans))
    entry = final_code(work, far, index)
    if entry == INVALID:
        return INVALID
    best = entry
    landing = squares[pawn]
    passed = landing - 8 if stm == 0 else landing + 8
    for j in range(n):
        if codes[j] != (1 - stm) * 6 + PAWN or (squares[j] >> 3) != (landing >> 3) \
                or abs((squares[j] & 7) - (landing & 7)) != 1:
            continue
        start = squares[j]
        squares[j] = passed
        child = capture_child_code(squares, n, pawn, stm, plans[pawn], children)
        squares[j] = start
        if child == MISSING_CHILD:
            return MISSING_CHILD
        if child != INVALID:  # (INVALID: the capture would leave its king in check)
            theirs = parent_code(child)
            if better(theirs, best):
                best = theirs
    return best


@nb.njit(cache=True, inline="always")
def slot_targets(codes, i, squares, stm, occupied, own, leaving_only):
    """The squares the piece in slot ``i`` of ``stm`` moves to: a pawn's captures and single
    push, a piece's moves (``reach``); with ``leaving_only`` only the moves that leave the
    table: captures, and a push that promotes."""
    enemy = occupied & ~own
    if codes[i] % 6 != PAWN:
        return reach(codes[i], i, squares, occupied) & (enemy if leaving_only else ~own)
    targets = pawn_attacks(stm, squares[i]) & enemy
    one = squares[i] + (8 if stm == 0 else -8)
    if not (occupied >> types.uint64(one)) & types.uint64(1) \
            and (not leaving_only or (one >> 3) == (7 if stm == 0 else 0)):
        targets |= types.uint64(1) << types.uint64(one)
    return targets


# inlined: a call per position passing a dozen arrays cost a tenth of the DTZ50 slices'
# initialisation (KBPvKN)
@nb.njit(cache=True, inline="always")
def exit_codes(table, index, stm, strides, codes, squares, n, work, far, children, plans, found,
               enough, quiet_known):
    """The exits of the legal position at storage ``index`` (``squares``, ``stm`` to move:
    :func:`retrograde.chess_dtz50.decode_in_row`; as it came, they are left): the code (for
    the opponent) of
    the position each legal one reaches, into ``found``; returns ``(count, quiet,
    in_check, leaving)``: how many (MISSING_CHILD if a child table is not loaded), whether
    (1) or not (0) a legal quiet move exists, when there is no legal move at all whether the
    side to move is in check, and :func:`best_leaving_value` of the position (children as
    zeroing classes; UNKNOWN_LEAVING when the search ended before every move out was seen).
    A move is legal when the entry it reaches is not INVALID (``work`` already tells the
    legal positions of this table apart; a child table does the same). An exit whose code
    is ``enough`` (-1: none is) ends the search: the rest are not looked at. With
    ``quiet_known`` (the caller knows a legal quiet move exists: the position is won) no
    quiet move is looked at."""
    (strides, codes, squares, work, far, children, plans, found) = borrowed(
        (strides, codes, squares, work, far, children, plans, found))
    occupied, own = occupancy(codes, squares, n, stm)
    enemy = occupied & ~own
    count = 0
    leaving = NO_LEAVING
    quiet = quiet_known
    last_rank = 7 if stm == 0 else 0
    forward = 8 if stm == 0 else -8
    for k in range(n):
        # last slot first: the entry its quiet move reaches (read for legality) lies nearest
        # (the smallest stride), a king's farthest (another king pair)
        i = n - 1 - k
        if codes[i] // 6 != stm:
            continue
        start = squares[i]
        pawn = codes[i] % 6 == PAWN
        targets = slot_targets(codes, i, squares, stm, occupied, own, False)
        if quiet and not pawn:
            targets &= enemy  # one legal quiet move is all we need: the captures are left
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            captured = slot_on(squares, n, to) \
                if enemy & (types.uint64(1) << types.uint64(to)) else -1
            squares[i] = to
            if not pawn and captured < 0:  # a quiet move (the first since none was legal)
                if i < 2:
                    child_index = king_moved_index(table, index, strides, squares, i, start,
                                                   stm)
                else:
                    child_index = moved_index(table, index, strides, squares, i, start, stm)
                quiet = work[child_index] != INVALID
                if quiet:
                    targets &= enemy
                squares[i] = start
                continue
            promotes = pawn and (to >> 3) == last_rank
            kinds = 4 if promotes else 1  # the promotions; a single push and a double one
            two = to + forward
            if pawn and captured < 0 and not promotes and (start >> 3) == (1 if stm == 0 else 6) \
                    and not (occupied >> types.uint64(two)) & types.uint64(1):
                kinds = 2
            for k in range(kinds):
                if promotes:
                    if captured >= 0:
                        row = CAPTURE_PROMOTION_BASE + 4 * (i * E.MAX_PIECES + captured) + k
                    else:
                        row = PROMOTION_BASE + 4 * i + k
                    child = capture_child_code(squares, n, captured, 1 - stm, plans[row],
                                               children)
                elif captured >= 0:
                    child = capture_child_code(squares, n, captured, 1 - stm, plans[captured],
                                               children)
                elif k == 0:  # a single push: into a solved slice of this table
                    child = final_code(work, far, moved_index(table, index, strides, squares,
                                                              i, start, stm))
                else:
                    squares[i] = two
                    child = double_push_code(
                        table, moved_index(table, index, strides, squares, i, start, stm),
                        codes, squares, n, i, stm, work, far, children, plans)
                if child == MISSING_CHILD:
                    squares[i] = start
                    return MISSING_CHILD, 0, 0, UNKNOWN_LEAVING
                if child != INVALID:
                    found[count] = child
                    count += 1
                    if promotes or captured >= 0:
                        leaving = max(leaving, -wdl50(child))
                    if child == enough:
                        squares[i] = start
                        # a move out that ends the search is worth the most: the rest no more
                        done = leaving == 2 and (promotes or captured >= 0)
                        return count, 1 if quiet else 0, 0, leaving if done else UNKNOWN_LEAVING
            squares[i] = start
    in_check = not quiet and count == 0 \
        and attacked(squares[stm], 1 - stm, n, codes, squares, occupied, -1)
    return count, 1 if quiet else 0, 1 if in_check else 0, leaving


@nb.njit(types.int64(types.int64, types.int64, I64, I64, types.int64, ZEROING_CLASSES, I64_2D),
         cache=True)
def best_leaving_value(table, index, codes, squares, n, children, plans):
    """The best WDL50 (python-chess's, 2 .. -2), for the side to move at storage ``index``,
    of its moves that leave the table (captures, promotions with or without one), each worth
    minus its child's (``children``: their zeroing classes); NO_LEAVING if it has none,
    UNKNOWN_LEAVING if a child table is not loaded. What a pack needs (retrograde.pack): the
    moves :func:`exit_codes` also finds but the pushes, which stay in the table."""
    codes, squares, children, plans = borrowed((codes, squares, children, plans))
    stm = decode_valid(table, index, squares)
    occupied, own = occupancy(codes, squares, n, stm)
    enemy = occupied & ~own
    last_rank = 7 if stm == 0 else 0
    best = NO_LEAVING
    for i in range(n):
        if codes[i] // 6 != stm:
            continue
        start = squares[i]
        pawn = codes[i] % 6 == PAWN
        targets = slot_targets(codes, i, squares, stm, occupied, own, True)
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            captured = slot_on(squares, n, to) \
                if enemy & (types.uint64(1) << types.uint64(to)) else -1
            promotes = pawn and (to >> 3) == last_rank
            squares[i] = to
            for k in range(4 if promotes else 1):
                if not promotes:
                    row = captured
                elif captured >= 0:
                    row = CAPTURE_PROMOTION_BASE + 4 * (i * E.MAX_PIECES + captured) + k
                else:
                    row = PROMOTION_BASE + 4 * i + k
                child = capture_child_code(squares, n, captured, 1 - stm, plans[row], children)
                if child == MISSING_CHILD:
                    squares[i] = start
                    return UNKNOWN_LEAVING
                if child != INVALID:  # (INVALID: the move would leave its king in check)
                    best = max(best, -wdl50(child))
            squares[i] = start
    return best
