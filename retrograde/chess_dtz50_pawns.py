"""The one-byte DTZ50 generator for chess tables with pawns, by pawn slices.

The byte and the levels are :mod:`retrograde.chess_dtz50`'s. A pawn move zeroes the count,
so within a table it is an exit like a capture: its worth is a class read off the position it
reaches, which is final once that position's *slice* is solved. A slice is the set of
positions with one placement of the pawns (and its mirror image in the d/e line, where the
white king's frame puts a position whose king crosses it); moves of the other pieces stay in
it, pawn moves leave it for a slice whose pawns stand further advanced. So the slices are
solved most advanced first, each one alone: its own levels over its own entries (in a
thread: the slices of one advancement are independent and run side by side), as Syzygy's
rtbgenp does. A level's frontier is a list of the positions the level before decided, and
the positions it flags a list too: a slice is as large as a table of one piece fewer, and a
scan of it per level cost more than the levels' moves. A level's wins come from un-moving
the positions the other side lost at the level before, or, where that side has fewer
positions still open than those losses, from its open positions, each looking for a quiet
move to one of them (the stronger side's positions are mostly won at once, by a push or a
capture, so its open ones are soon the fewer).

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
from retrograde.chess_dtz50 import (CAPTURE_WINS, CURSE_LEVEL, FLAG, FLAGGED_CLOSS, HOLDS_CWIN,
                                    LONGEST, LOSS_NOW, LOSS_PREV, MISSING_CHILD,
                                    MOST_PREDECESSORS, NO_CAPTURE, OPEN,
                                    OPEN_CLOSS, WIN_NOW, ZEROING_CLASSES, byte_of_exits,
                                    capture_class, decode_in_row, decode_valid,
                                    every_quiet_move_loses, fastest_piece_slot,
                                    gather_predecessors, index_strides, mark_positions,
                                    quiet_move_reaching, spec_codes)
from retrograde.chess_exits import (LEAVING_SHIFT, MOST_EXITS, child_plans, exit_codes,
                                    final_code)
from runtime.borrow import borrowed

KINGS = E.KING_PAIRS[1]  # the king pairs of a table with pawns (the white king on files a-d)
TOO_FAR = -2  # solve_slice: a distance passed the byte's codes (run the slice again with far)
ZEROING_LOSS = 2  # loss_code(0): a child lost within the rule, as its zeroing class reads

U8 = types.Array(types.uint8, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
I64 = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")


@nb.njit(cache=True, inline="always")
def initial_byte(table, index, stm, strides, codes, squares, n, work, far, child_dtz, plans,
                 found):
    """:func:`retrograde.chess_dtz50.initial_byte` with pawns: ``(byte, level, leaving)`` of
    the legal position at ``index`` (``squares``, ``stm`` to move) before its slice's levels,
    from its exits (:func:`retrograde.chess_exits.exit_codes`: pushes read the table's solved
    slices, the other exits the child tables; ``found``: room for them); ``leaving``: the
    best value of its moves out of the table, as exit_codes gives it (for its pack)."""
    (strides, codes, squares, work, far, child_dtz, plans, found) = borrowed(
        (strides, codes, squares, work, far, child_dtz, plans, found))
    # a zeroing move into a position lost within the rule decides it: won in 1
    count, quiet, in_check, leaving = exit_codes(table, index, stm, strides, codes, squares, n,
                                                 work, far, child_dtz, plans, found,
                                                 ZEROING_LOSS, False)
    if count == MISSING_CHILD:
        return MISSING_CHILD, -1, leaving
    best = NO_CAPTURE
    for e in range(count):
        best = max(best, capture_class(found[e]))
    if best == CAPTURE_WINS:
        return win_code(1), 1, leaving
    byte, level = byte_of_exits(best, quiet == 1, in_check == 1)
    return byte, level, leaving


LIST = types.Tuple((I64, types.int64))  # a growing list of entries and its length


@nb.njit(cache=True, inline="always")
def with_room(items, count, need):
    """``items``, or its first ``count`` entries copied into a larger array if fewer than
    ``need`` places follow them. A loop that makes room once and then writes in place passes
    no list from one round to the next: a list grown (and reassigned) inside a loop costs
    atomic reference counts at every round, written or not (KBPvKN's DTZ50 slices: a fifth of
    their time)."""
    if count + need <= items.shape[0]:
        return items
    grown = np.empty(max(2 * items.shape[0], count + need), dtype=np.int64)
    grown[:count] = items[:count]
    return grown


CHUNK = 256  # the sources :func:`spread_slice` takes between two checks of its list's room


@nb.njit(cache=True, inline="always")
def mark_entry(parent, d, wins, won, work, far):
    """:func:`retrograde.chess_dtz50.mark` inside a slice; returns whether it wrote."""
    byte = work[parent]
    if wins:
        if byte >= OPEN:
            work[parent] = won
            if won == WIN_NOW:
                far[parent] = win_code(d)
            return True
    elif byte == OPEN or (byte == OPEN_CLOSS and d >= CURSE_LEVEL):
        work[parent] = byte + FLAG
        return True
    return False


@nb.njit(types.Tuple((types.int64, types.int64, types.int64, types.int64, types.int64))(
    types.int64, U8, U16, types.int64, types.int64, I64, I64, ZEROING_CLASSES, I64_2D, U8, I64,
    I64, I64, I64, types.int64, I64, types.int64, I64, types.int64, I64, types.int64),
    cache=True)
def initialise_run(table, work, far, base, fast, inner, strides, child_dtz, plans, leaving,
                   codes, squares, found, mates, mated, first, first_count, at_curse,
                   at_curse_count, waiting, waiting_count):
    """:func:`initialise_slice` of the entries ``base + inner[k]`` (one side to move, king
    pair and placement of the pawns; ``fast``: :func:`fastest_piece_slot`), each list with
    room for all of them. Returns the positions whose captures lead to tables not loaded, and
    the lists' new lengths: ``(missing, mated, first_count, at_curse_count,
    waiting_count)``."""
    (work, far, inner, strides, child_dtz, plans, leaving, codes, squares, found, mates, first,
     at_curse, waiting) = borrowed((work, far, inner, strides, child_dtz, plans, leaving, codes,
                                    squares, found, mates, first, at_curse, waiting))
    n = E.COUNT[table]
    missing = 0
    row = -1
    for k in range(inner.shape[0]):
        index = base + inner[k]
        if work[index] == INVALID:
            continue
        stm, row = decode_in_row(table, index, squares, fast, row)
        byte, level, best_out = initial_byte(table, index, stm, strides, codes, squares, n,
                                             work, far, child_dtz, plans, found)
        if leaving.shape[0]:
            leaving[index] = best_out + LEAVING_SHIFT
        if byte == MISSING_CHILD:
            missing += 1
            byte = OPEN
        work[index] = byte
        if level == 0:
            mates[mated] = index
            mated += 1
        elif level == 1:
            first[first_count] = index
            first_count += 1
        elif level == CURSE_LEVEL:
            at_curse[at_curse_count] = index
            at_curse_count += 1
        elif byte == OPEN_CLOSS or byte == HOLDS_CWIN:
            waiting[waiting_count] = index
            waiting_count += 1
    return missing, mated, first_count, at_curse_count, waiting_count


@nb.njit(types.Tuple((types.int64, I64, types.int64, I64, types.int64, I64, types.int64,
                      I64, types.int64))(
    types.int64, U8, U16, I64, types.int64, I64, I64, ZEROING_CLASSES, I64_2D, U8, I64, I64, I64),
    cache=True)
def initialise_slice(table, work, far, bases, variants, inner, strides, child_dtz, plans,
                     leaving, codes, squares, found):
    """Every legal position's :func:`initial_byte` in a slice (and, unless ``leaving`` is
    empty, its best move out of the table into ``leaving``, plus LEAVING_SHIFT). Returns how
    many captures lead to tables not loaded, and four lists (each an array and its length)
    of the positions its exits decided: the mates (the first level's frontier), those
    decided at level 1 and at the curse level (they join the frontier after it), and those
    waiting for the curse level (OPEN_CLOSS, HOLDS_CWIN)."""
    (work, far, bases, inner, strides, child_dtz, plans, leaving, codes, squares,
     found) = borrowed((work, far, bases, inner, strides, child_dtz, plans, leaving, codes,
                        squares, found))
    mates = np.empty(256, dtype=np.int64)
    first = np.empty(256, dtype=np.int64)
    at_curse = np.empty(256, dtype=np.int64)
    waiting = np.empty(256, dtype=np.int64)
    mated = first_count = at_curse_count = waiting_count = 0
    missing = 0
    units = 2 * KINGS
    fast = fastest_piece_slot(table)
    run = inner.shape[0]
    for v in range(variants):
        for u in range(units):
            mates = with_room(mates, mated, run)
            first = with_room(first, first_count, run)
            at_curse = with_room(at_curse, at_curse_count, run)
            waiting = with_room(waiting, waiting_count, run)
            more, mated, first_count, at_curse_count, waiting_count = initialise_run(
                table, work, far, bases[v * units + u], fast, inner, strides, child_dtz, plans,
                leaving, codes, squares, found, mates, mated, first, first_count, at_curse,
                at_curse_count, waiting, waiting_count)
            missing += more
    return (missing, mates, mated, first, first_count, at_curse, at_curse_count, waiting,
            waiting_count)


@nb.njit(types.int64(types.int64, U8, U16, I64, I64, types.int64, types.int64, types.int64,
                     types.boolean, types.int64, I64, types.int64, I64, I64, I64), cache=True)
def spread_chunk(table, work, far, strides, sources, start, stop, d, wins, longest, out,
                 written, codes, squares, parents):
    """:func:`spread_slice` of ``sources[start:stop]``, ``out`` with room for all their
    predecessors: returns its new length."""
    work, far, strides, sources, out, codes, squares, parents = borrowed(
        (work, far, strides, sources, out, codes, squares, parents))
    n = E.COUNT[table]
    won = win_code(d) if d <= longest else WIN_NOW
    for s in range(start, stop):
        index = sources[s]
        child_stm = decode_valid(table, index, squares)
        found = gather_predecessors(table, index, strides, codes, squares, n, child_stm,
                                    parents, 0)
        for p in range(found):
            if mark_entry(parents[p], d, wins, won, work, far):
                out[written] = parents[p]
                written += 1
    return written


@nb.njit(LIST(types.int64, U8, U16, I64, I64, types.int64, types.int64, types.int64,
              types.boolean, types.int64, I64, types.int64, I64, I64, I64), cache=True)
def spread_slice(table, work, far, strides, sources, first, count, d, wins, longest, out,
                 written, codes, squares, parents):
    """:func:`retrograde.chess_dtz50.spread` from a list: the predecessors of the ``count``
    ``sources`` from ``first`` on (lost at ``d - 1`` if ``wins``, else won) won in ``d`` or
    flagged, each appended to ``out`` (``written`` long) as it is written; returns ``out``
    and its length."""
    work, far, strides, sources, codes, squares, parents = borrowed(
        (work, far, strides, sources, codes, squares, parents))
    for start in range(first, first + count, CHUNK):
        stop = min(first + count, start + CHUNK)
        out = with_room(out, written, (stop - start) * MOST_PREDECESSORS)
        written = spread_chunk(table, work, far, strides, sources, start, stop, d, wins,
                               longest, out, written, codes, squares, parents)
    return out, written


@nb.njit(cache=True)
def open_entries(work, bases, variants, inner, side, low, mask, out):
    """How many entries of a slice (as :func:`solve_slice` lays them out) with ``side`` to
    move are still open: at least ``low`` (this module's OPEN; the DTM words' of
    :mod:`retrograde.chess_dtm_pawns`) and, unless ``mask`` is 0, with a bit of ``mask`` set
    (there: the classes of a position that may be won). Each is written into ``out`` unless
    it is empty."""
    found = 0
    for v in range(variants):
        for u in range(side * KINGS, (side + 1) * KINGS):
            base = bases[v * 2 * KINGS + u]
            for k in range(inner.shape[0]):
                entry = np.int64(work[base + inner[k]])
                if entry >= low and (mask == 0 or entry & mask):
                    if out.shape[0]:
                        out[found] = base + inner[k]
                    found += 1
    return found


@nb.njit(cache=True)
def list_open_entries(work, bases, variants, inner, side, low, mask):
    """A new array of the entries :func:`open_entries` counts."""
    nothing = np.empty(0, dtype=np.int64)
    listing = np.empty(open_entries(work, bases, variants, inner, side, low, mask, nothing),
                       dtype=np.int64)
    open_entries(work, bases, variants, inner, side, low, mask, listing)
    return listing


@nb.njit(types.int64(I64, types.int64, types.int64), cache=True)
def white_first(entries, count, per_side):
    """The first ``count`` ``entries`` reordered with White to move first (storage indices
    below ``per_side``); returns how many those are."""
    white = 0
    for i in range(count):
        if entries[i] < per_side:
            entries[i], entries[white] = entries[white], entries[i]
            white += 1
    return white


@nb.njit(types.Tuple((I64, types.int64, types.int64))(
    types.int64, U8, U16, I64, I64, types.int64, types.int64, types.int64, I64, types.int64,
    I64, I64), cache=True)
def pull_slice(table, work, far, strides, candidates, count, d, longest, out, written, codes,
               squares):
    """Level ``d``'s wins found from the open positions rather than from those lost at
    ``d - 1`` (:func:`spread_slice` with ``wins``; the same positions: a quiet move is an
    un-move read backwards): each of the first ``count`` ``candidates`` still open that has a
    quiet move to a position lost at ``d - 1`` is won in ``d`` and appended to ``out``
    (``written`` long). The candidates still open after it are moved to the front. Returns
    ``out``, its length and how many candidates are left."""
    work, far, strides, candidates, codes, squares = borrowed(
        (work, far, strides, candidates, codes, squares))
    n = E.COUNT[table]
    won = win_code(d) if d <= longest else WIN_NOW
    lost_before = loss_code(d - 1) if d - 1 <= longest else LOSS_PREV  # (past the byte: a marker)
    out = with_room(out, written, count)  # (room made once: no list grown in the loop)
    kept = 0
    for c in range(count):
        index = candidates[c]
        if work[index] < OPEN:
            continue  # decided since it was listed
        stm = decode_valid(table, index, squares)
        if quiet_move_reaching(table, index, stm, strides, codes, squares, n, work, d,
                               lost_before):
            work[index] = won
            if won == WIN_NOW:
                far[index] = win_code(d)
            out[written] = index
            written += 1
        else:
            candidates[kept] = index
            kept += 1
    return out, written, kept


@nb.njit(LIST(types.int64, U8, U16, I64, I64, types.int64, types.int64, types.int64, I64,
              types.int64, I64, I64), cache=True)
def settle_slice(table, work, far, strides, flagged, count, d, longest, lost, lost_count, codes,
                 squares):
    """:func:`retrograde.chess_dtz50.settle` of the first ``count`` ``flagged`` positions:
    the lost ones appended to ``lost``; returns it and its length."""
    work, far, strides, flagged, codes, squares = borrowed(
        (work, far, strides, flagged, codes, squares))
    n = E.COUNT[table]
    lost = with_room(lost, lost_count, count)  # (room made once: no list grown in the loop)
    for f in range(count):
        index = flagged[f]
        byte = work[index]
        stm = decode_valid(table, index, squares)
        if every_quiet_move_loses(table, index, stm, strides, codes, squares, n, work, d):
            if d <= longest:
                work[index] = loss_code(d)
            else:
                work[index] = LOSS_NOW
                far[index] = loss_code(d)
            lost[lost_count] = index
            lost_count += 1
        else:
            work[index] = byte - FLAG
    return lost, lost_count


@nb.njit(types.void(U8, I64, types.int64, types.int64), cache=True)
def age_listed(work, listed, count, newest):
    """Past the byte's codes, the markers of the first ``count`` ``listed`` positions one
    level older: ``newest`` NOW (decided at this level) to PREV, else PREV to OLD."""
    low = LOSS_NOW if newest else LOSS_PREV
    for i in range(count):
        byte = work[listed[i]]
        if low <= byte <= low + 1:
            work[listed[i]] = byte - 2


@nb.njit(types.int64(types.int64, U8, U16, I64, types.int64, I64, I64, ZEROING_CLASSES, I64_2D,
                     types.int64, U8), cache=True)
def solve_slice(table, work, far, bases, variants, inner, strides, child_dtz, plans, longest,
                leaving):
    """The levels of one slice, on this thread: its entries are ``bases[v * 2 * KINGS + u] +
    inner[k]`` for ``v < variants`` (variant ``v``: the pawn placement or its mirror image;
    unit ``u``: side to move and king pair). A level's frontier is a list of the positions
    the level before decided (no scan of the slice per level). Returns MISSING_CHILD if a
    child table is not loaded, TOO_FAR if a distance passed ``longest`` without ``far`` to
    hold it, else 0. ``leaving``: as :func:`initialise_slice`'s."""
    # the scratch of every position's moves, lent to the steps below: an array a step made
    # itself would cost two atomic reference counts at each call it passes through, per
    # position
    codes = spec_codes(table)
    squares = np.empty(E.COUNT[table], dtype=np.int64)
    found = np.empty(MOST_EXITS, dtype=np.int64)
    parents = np.empty(MOST_PREDECESSORS, dtype=np.int64)
    (missing, lost, lost_count, first, first_count, at_curse, at_curse_count, waiting,
     waiting_count) = initialise_slice(table, work, far, bases, variants, inner, strides,
                                       child_dtz, plans, leaving, codes, squares, found)
    if missing:
        return MISSING_CHILD
    cursed = at_curse_count + waiting_count
    # Most positions un-moved from a loss are decided before (the stronger side's, here,
    # mostly at once, by a push or a capture): once fewer positions of a side are open than
    # the other side lost at the level before, that side's open positions look for a quiet
    # move to such a loss instead (the same wins, far fewer moves walked).
    per_side = E.PER_SIDE[table]
    nothing = np.empty(0, dtype=np.int64)
    open_count = np.zeros(2, dtype=np.int64)  # by side to move: an upper bound until listed
    for side in range(2):
        open_count[side] = open_entries(work, bases, variants, inner, side, OPEN, 0, nothing)
    listed = np.zeros(2, dtype=np.bool_)
    white_open = nothing
    black_open = nothing
    won = np.empty(256, dtype=np.int64)  # decided at the level before (lost: the mates)
    won_count = 0
    new_won = np.empty(256, dtype=np.int64)
    new_lost = np.empty(256, dtype=np.int64)
    flagged = np.empty(256, dtype=np.int64)
    d = 1
    while True:
        if d > longest and far.shape[0] == 0:
            return TOO_FAR
        white_lost = white_first(lost, lost_count, per_side)
        new_won_count = 0
        for side in range(2):  # the side to move of the positions that may be won
            start, sources = (white_lost, lost_count - white_lost) if side == 0 \
                else (0, white_lost)
            if open_count[side] < sources:
                if not listed[side]:  # (counted again: the bound is no size to write to)
                    listed[side] = True
                    listing = list_open_entries(work, bases, variants, inner, side, OPEN, 0)
                    open_count[side] = listing.shape[0]
                    if side == 0:
                        white_open = listing
                    else:
                        black_open = listing
                new_won, new_won_count, open_count[side] = pull_slice(
                    table, work, far, strides, white_open if side == 0 else black_open,
                    open_count[side], d, longest, new_won, new_won_count, codes, squares)
            else:
                before = new_won_count
                new_won, new_won_count = spread_slice(table, work, far, strides, lost, start,
                                                      sources, d, True, longest, new_won,
                                                      new_won_count, codes, squares, parents)
                if not listed[side]:
                    open_count[side] -= new_won_count - before
        if d == CURSE_LEVEL:  # the cursed captures come due
            for i in range(at_curse_count):  # (markers past the byte's codes)
                byte = work[at_curse[i]]
                if d > longest and (byte == win_code(d) or byte == loss_code(d)):
                    far[at_curse[i]] = byte
                    work[at_curse[i]] = WIN_NOW if byte & 1 else LOSS_NOW
            new_won = with_room(new_won, new_won_count, waiting_count)
            for i in range(waiting_count):
                if work[waiting[i]] == HOLDS_CWIN:
                    if d <= longest:
                        work[waiting[i]] = win_code(d)
                    else:
                        work[waiting[i]] = WIN_NOW
                        far[waiting[i]] = win_code(d)
                    new_won[new_won_count] = waiting[i]
                    new_won_count += 1
        flagged, flagged_count = spread_slice(table, work, far, strides, won, 0, won_count,
                                              d, False, longest, flagged, 0, codes, squares,
                                              parents)
        if d == CURSE_LEVEL:
            flagged = with_room(flagged, flagged_count, waiting_count)
            for i in range(waiting_count):
                if work[waiting[i]] == OPEN_CLOSS:
                    work[waiting[i]] = FLAGGED_CLOSS
                    flagged[flagged_count] = waiting[i]
                    flagged_count += 1
        new_lost, new_lost_count = settle_slice(table, work, far, strides, flagged,
                                                flagged_count, d, longest, new_lost, 0, codes,
                                                squares)
        white_decided = white_first(new_lost, new_lost_count, per_side)
        for side in range(2):
            if not listed[side]:
                open_count[side] -= white_decided if side == 0 else new_lost_count - white_decided
        # what the exits decided at this level joins the next level's frontier
        late, late_count = (first, first_count) if d == 1 else (at_curse, at_curse_count)
        if d == 1 or d == CURSE_LEVEL:
            new_won = with_room(new_won, new_won_count, late_count)
            new_lost = with_room(new_lost, new_lost_count, late_count)
            for i in range(late_count):
                if work[late[i]] & 1:
                    new_won[new_won_count] = late[i]
                    new_won_count += 1
                else:
                    new_lost[new_lost_count] = late[i]
                    new_lost_count += 1
        if d > longest:
            age_listed(work, won, won_count, False)
            age_listed(work, lost, lost_count, False)
            age_listed(work, new_won, new_won_count, True)
            age_listed(work, new_lost, new_lost_count, True)
        won, new_won = new_won, won
        lost, new_lost = new_lost, lost
        won_count, lost_count = new_won_count, new_lost_count
        if won_count + lost_count:
            d += 1
        elif d < CURSE_LEVEL and cursed:
            d = CURSE_LEVEL  # nothing before the cursed captures come due
        else:
            break
    units = 2 * KINGS
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
                    I64, U8), cache=True, parallel=True)
def solve_slices(table, work, far, slice_bases, variants, inner, strides, child_dtz, plans,
                 longest, results, leaving):
    """:func:`solve_slice` of every row of ``slice_bases`` (independent slices, with
    ``variants`` each), side by side; their results in ``results``."""
    for s in prange(slice_bases.shape[0]):
        results[s] = solve_slice(table, work, far, slice_bases[s], variants[s], inner, strides,
                                 child_dtz, plans, longest, leaving)


def group_squares(digit: int, count: int) -> list[int]:
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


def group_digit(squares: list[int]) -> int:
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
        placed = [group_squares(digit, count) for digit, (_, count, _) in zip(digits, groups)]
        every = [square for squares in placed for square in squares]
        if len(set(every)) != len(every) or digits in seen:
            continue
        mirror = tuple(group_digit([square ^ 7 for square in squares]) for squares in placed)
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
    times their strides, plus an inner offset; the pawns stand outside the king pair in the
    index, so a unit's entries are one run)."""
    table_id = E.TABLE_IDS[table]
    per_side = int(E.PER_SIDE[table_id])
    pawn_strides, inner = [], np.zeros(1, dtype=np.int64)
    for g in range(E.MAX_GROUPS):
        first, count, values = (int(x) for x in E.GROUPS[table_id, g])
        if not count:
            continue
        stride = int(E.GROUP_STRIDE[table_id, g])
        if E.PAWN_GROUP[table_id, g]:
            pawn_strides.append(stride)
        else:
            inner = (inner[:, None] + np.arange(values, dtype=np.int64)[None, :] * stride).ravel()
    units = np.arange(2 * KINGS, dtype=np.int64)
    bases = (units // KINGS) * per_side + (units % KINGS) * int(E.KINGS_STRIDE[table_id])
    return np.array(pawn_strides, dtype=np.int64), bases, np.sort(inner)


def advancement_groups(table: str):
    """The slices of ``table`` by advancement, most advanced first (solved in that order; the
    slices of one advancement are independent): ``(advancement, slice bases, variants)``,
    a slice's row of bases as :func:`solve_slice` takes them (``2 * KINGS`` per variant) and
    its number of variants."""
    pawn_strides, unit_bases, _ = slice_layout(table)
    groups: dict[int, list] = {}
    for advancement, variants in slices(table):
        groups.setdefault(advancement, []).append(variants)
    for advancement in sorted(groups, reverse=True):
        batch = groups[advancement]
        slice_bases = np.zeros((len(batch), 2 * unit_bases.size), dtype=np.int64)
        for row, placements in enumerate(batch):
            for v, digits in enumerate(placements):
                slice_bases[row, v * unit_bases.size:(v + 1) * unit_bases.size] = \
                    unit_bases + int(np.dot(digits, pawn_strides))
        yield advancement, slice_bases, np.array([len(v) for v in batch], dtype=np.int64)


def placement_run_length(table: str) -> int:
    """Entries of ``table`` with one placement of the pawns and one side to move: a run of
    the index (version 3: the pawns' digits outside the king pair and the pieces)."""
    return KINGS * int(E.KINGS_STRIDE[E.TABLE_IDS[table]])


def placement_runs(table: str) -> dict[int | None, np.ndarray]:
    """The start of every run of ``table``'s entries with one placement of the pawns and one
    side to move (``KINGS * KINGS_STRIDE`` entries), by the advancement of its slice
    (:func:`slices`); under None the runs of no slice (pawns on one square: no position)."""
    table_id = E.TABLE_IDS[table]
    per_side = int(E.PER_SIDE[table_id])
    pawn_strides, _, _ = slice_layout(table)
    length = placement_run_length(table)
    placements = per_side // length
    group_of: dict[int, int] = {}
    for advancement, variants in slices(table):
        for digits in variants:
            group_of[int(np.dot(digits, pawn_strides)) // length] = advancement
    found: dict[int | None, list[int]] = {}
    for side in range(2):
        for placement in range(placements):
            found.setdefault(group_of.get(placement), []).append(side * per_side
                                                                 + placement * length)
    return {group: np.array(starts, dtype=np.int64) for group, starts in found.items()}


def solve(table: str, child_dtz: np.ndarray, child_offsets: np.ndarray, progress,
          longest: int = LONGEST, before_group=None, after_group=None,
          leaving: np.ndarray | None = None) -> np.ndarray:
    """The DTZ50 codes (storage index) of the chess ``table`` with pawns, slice by slice,
    from its children's DTZ50 codes (as :func:`retrograde.chess_dtz50.solve`): ``uint8``
    when every distance fits the byte's codes, else ``uint16``. ``before_group``: as
    :func:`retrograde.chess_dtm_pawns.solve`'s; ``after_group(advancement, work, far)``, if
    given, is called once each group is solved (its entries' codes final:
    :func:`retrograde.chess_exits.final_code`), its children still read. ``leaving``, if
    given (a byte per entry), receives every legal position's best move out of the table
    plus LEAVING_SHIFT as its slice is initialised (:func:`initialise_slice`)."""
    table_id = E.TABLE_IDS[table]
    if not E.PAWNFUL[table_id]:
        raise ValueError(f"{table}: no pawns (retrograde.chess_dtz50 builds it)")
    leaving = np.zeros(0, dtype=np.uint8) if leaving is None else leaving
    size = 2 * int(E.PER_SIDE[table_id])
    work = np.zeros(size, dtype=np.uint8)
    far = np.zeros(0, dtype=np.uint16)
    plans = child_plans(table, child_offsets)
    strides = index_strides(table_id)
    inner = slice_layout(table)[2]
    mark_positions(table_id, work, OPEN)
    progress.update("legal positions", 1, 1, size)
    done = 0
    for advancement, slice_bases, variants in advancement_groups(table):
        if before_group is not None:
            before_group(advancement)
        results = np.zeros(len(variants), dtype=np.int64)
        solve_slices(table_id, work, far, slice_bases, variants, inner, strides, child_dtz,
                     plans, longest, results, leaving)
        again = np.flatnonzero(results == TOO_FAR)
        if again.size:  # the byte's codes ran out: a two-byte result from now on
            if far.size == 0:
                far = work.astype(np.uint16)
            solve_slices(table_id, work, far, slice_bases[again], variants[again], inner,
                         strides, child_dtz, plans, longest, results[again], leaving)
        if (results == MISSING_CHILD).any():
            raise RuntimeError(f"{table}: exits lead to tables that are not loaded")
        if after_group is not None:
            after_group(advancement, work, far)
        done += len(variants)
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
