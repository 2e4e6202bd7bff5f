"""The two-byte DTM generator for chess tables with pawns, by pawn slices.

The words and the levels are :mod:`retrograde.chess_dtm`'s, the slices
:mod:`retrograde.chess_dtz50_pawns`'s: a pawn move leaves its slice for one whose pawns stand
further advanced, so the slices are solved most advanced first, each alone in a thread (the
slices of one advancement side by side), and within a slice a pawn move is an exit like a
capture. Under DTM an exit carries its distance: a push is worth the code of the position it
reaches (final, its slice solved), a capture or a promotion the child table's code, a double
push after which the opponent may capture en passant the better, for the opponent, of the
entry and those captures.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from games.chess import endgames as E
from games.value_codes import CODE_DRAW, loss_code, win_code
from retrograde.chess_dtm import (CLASS_SHIFT, EXIT_DRAWS, EXIT_WINS, FLAG, LEVEL_MASK, OPEN,
                                  initial_word, is_candidate, may_lose_at, pending_level,
                                  start_words)
from retrograde.chess_dtz50 import (MISSING_CHILD, MOST_PREDECESSORS, decode_in_row,
                                    decode_valid, every_quiet_move_loses, fastest_piece_slot,
                                    gather_predecessors, index_strides, quiet_move_reaching,
                                    spec_codes)
from retrograde.chess_dtz50_pawns import (CHUNK, KINGS, LIST, advancement_groups,
                                          list_open_entries, open_entries, slice_layout,
                                          white_first, with_room)
from retrograde.chess_exits import MOST_EXITS, child_plans
from runtime.borrow import borrowed

U16 = types.Array(types.uint16, 1, "C")
I64 = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")
I32 = types.Array(types.int32, 1, "C")
UNITS = 2 * KINGS  # a slice's units: side to move and king pair


@nb.njit(types.Tuple((types.int64, I64, types.int64, I64, types.int64))(
    types.int64, U16, I64, types.int64, I64, I64, U16, I64_2D, I64, I64, I64), cache=True)
def initialise_slice(table, work, bases, variants, inner, strides, child_dtm, plans, codes,
                     squares, found):
    """Every legal position's :func:`initial_word` in a slice. Returns how many captures lead
    to tables not loaded, the mates (a list and its length: the first level's frontier), and
    the positions whose captures come due (a list and its length)."""
    n = E.COUNT[table]
    (work, bases, inner, strides, child_dtm, plans, codes, squares, found) = borrowed(
        (work, bases, inner, strides, child_dtm, plans, codes, squares, found))
    missing = 0
    mates = np.empty(1024, dtype=np.int64)
    mated = 0
    pending = np.empty(1024, dtype=np.int64)
    count = 0
    fast = fastest_piece_slot(table)
    row = -1
    for v in range(variants):
        for u in range(UNITS):
            base = bases[v * UNITS + u]
            # room for the unit's entries: no list grown (and passed on) at each entry
            mates = with_room(mates, mated, inner.shape[0])
            pending = with_room(pending, count, inner.shape[0])
            for k in range(inner.shape[0]):
                index = base + inner[k]
                if work[index] < OPEN:  # not a legal position, or known to be drawn
                    continue
                stm, row = decode_in_row(table, index, squares, fast, row)
                word = initial_word(table, index, stm, strides, codes, squares, n, work,
                                    child_dtm, plans, found)
                if word == MISSING_CHILD:
                    missing += 1
                    word = OPEN
                work[index] = word
                if word == loss_code(0):
                    mates[mated] = index
                    mated += 1
                elif pending_level(word) >= 0:
                    pending[count] = index
                    count += 1
    return missing, mates, mated, pending, count


@nb.njit(I32(U16, I64, types.int64, I64), cache=True)
def chain_by_level(work, pending, count, first_due):
    """The first ``count`` ``pending`` positions chained by the level their captures come
    due at: the first of level ``L`` at ``first_due[L]``, each one's next in the returned
    array (-1 ends a chain); each chain in the list's order."""
    next_due = np.empty(count, dtype=np.int32)
    for p in range(count - 1, -1, -1):
        level = np.int64(work[pending[p]]) & LEVEL_MASK
        next_due[p] = first_due[level]
        first_due[level] = p
    return next_due


@nb.njit(LIST(types.int64, U16, I64, I64, types.int64, types.int64, types.int64,
              types.boolean, I64, types.int64, I64, I64, I64), cache=True)
def spread_slice(table, work, strides, sources, first, count, d, wins, out, written, codes,
                 squares, parents):
    """:func:`retrograde.chess_dtm.spread` from a list: the predecessors of the ``count``
    ``sources`` from ``first`` on (lost at ``d - 1`` if ``wins``, else won) won in ``d`` or
    flagged, each appended to ``out`` (``written`` long) as it is written; returns ``out``
    and its length."""
    n = E.COUNT[table]
    work, strides, sources, codes, squares, parents = borrowed(
        (work, strides, sources, codes, squares, parents))
    for start in range(first, first + count, CHUNK):
        stop = min(first + count, start + CHUNK)
        # room for the chunk's predecessors: no list grown (and passed on) at each one
        out = with_room(out, written, (stop - start) * MOST_PREDECESSORS)
        for s in range(start, stop):
            index = sources[s]
            child_stm = decode_valid(table, index, squares)
            found = gather_predecessors(table, index, strides, codes, squares, n, child_stm,
                                        parents, 0)
            for p in range(found):
                parent = parents[p]
                word = np.int64(work[parent])
                if wins and word >= OPEN:
                    work[parent] = win_code(d)
                elif not wins and may_lose_at(word, d):
                    work[parent] = word | FLAG
                else:
                    continue
                out[written] = parent
                written += 1
    return out, written


@nb.njit(types.Tuple((I64, types.int64, types.int64))(
    types.int64, U16, I64, I64, types.int64, types.int64, types.boolean, I64, types.int64,
    I64, I64), cache=True)
def pull_slice(table, work, strides, candidates, count, d, known, out, written, codes,
               squares):
    """Level ``d``'s wins found from the positions that may be won rather than from those
    lost at ``d - 1`` (:func:`spread_slice` with ``wins``: the same positions, a quiet move
    being an un-move read backwards): each of the first ``count`` ``candidates`` still a
    candidate with a quiet move to a position lost at ``d - 1`` is won in ``d`` and appended
    to ``out`` (``written`` long). The candidates left are moved to the front. Returns
    ``out``, its length and how many candidates are left."""
    n = E.COUNT[table]
    work, strides, candidates, codes, squares = borrowed(
        (work, strides, candidates, codes, squares))
    target = loss_code(d - 1)
    out = with_room(out, written, count)  # (room made once: no list grown in the loop)
    kept = 0
    for c in range(count):
        index = candidates[c]
        if not is_candidate(np.int64(work[index]), known):
            continue  # decided since it was listed
        stm = decode_valid(table, index, squares)
        if quiet_move_reaching(table, index, stm, strides, codes, squares, n, work, d, target):
            work[index] = win_code(d)
            out[written] = index
            written += 1
        else:
            candidates[kept] = index
            kept += 1
    return out, written, kept


@nb.njit(types.Tuple((I64, types.int64, I64, types.int64))(
    U16, types.int64, I64, I64, I32, I64, types.int64, I64, types.int64), cache=True)
def come_due_slice(work, d, pending, first_due, next_due, won, won_count, flagged,
                   flagged_count):
    """:func:`retrograde.chess_dtm.come_due` in a slice, along the chain of level ``d``
    (:func:`initialise_slice`): the positions won appended to ``won``, those flagged to
    ``flagged``; returns both lists and lengths."""
    chained = 0  # the chain's length first: room made once, no list grown in the loop
    p = first_due[d]
    while p >= 0:
        chained += 1
        p = next_due[p]
    won = with_room(won, won_count, chained)
    flagged = with_room(flagged, flagged_count, chained)
    p = first_due[d]
    while p >= 0:
        index = pending[p]
        word = np.int64(work[index])
        if pending_level(word) == d:  # (not decided since)
            if (word >> CLASS_SHIFT) & 3 == EXIT_WINS:
                work[index] = win_code(d)
                won[won_count] = index
                won_count += 1
            elif not word & FLAG:
                work[index] = word | FLAG
                flagged[flagged_count] = index
                flagged_count += 1
        p = next_due[p]
    return won, won_count, flagged, flagged_count


@nb.njit(LIST(types.int64, U16, I64, I64, types.int64, types.int64, I64, types.int64, I64, I64),
         cache=True)
def settle_slice(table, work, strides, flagged, count, d, lost, lost_count, codes, squares):
    """:func:`retrograde.chess_dtm.settle` of the first ``count`` ``flagged`` positions: the
    lost ones appended to ``lost``; returns it and its length."""
    n = E.COUNT[table]
    work, strides, flagged, codes, squares = borrowed(
        (work, strides, flagged, codes, squares))
    lost = with_room(lost, lost_count, count)  # (room made once: no list grown in the loop)
    for f in range(count):
        index = flagged[f]
        word = np.int64(work[index])
        stm = decode_valid(table, index, squares)
        if every_quiet_move_loses(table, index, stm, strides, codes, squares, n, work, d):
            work[index] = loss_code(d)
            lost[lost_count] = index
            lost_count += 1
        else:
            work[index] = word & ~FLAG
    return lost, lost_count


@nb.njit(types.int64(types.int64, U16, I64, types.int64, I64, I64, U16, I64_2D, types.boolean),
         cache=True)
def solve_slice(table, work, bases, variants, inner, strides, child_dtm, plans, known):
    """The levels of one slice, on this thread: its entries are ``bases[v * UNITS + u] +
    inner[k]`` for ``v < variants`` (variant ``v``: the pawn placement or its mirror image;
    unit ``u``: side to move and king pair). A level's frontier is a list of the positions
    the level before decided (no scan of the slice: a slice is as large as a table of one
    piece fewer, and DTM has many levels). ``known``: the words start from the table's
    DTZ50 codes (:func:`retrograde.chess_dtm.start_words`). Returns MISSING_CHILD if a child
    table is not loaded, else 0."""
    # the scratch of every position's moves, lent to the steps below (as
    # retrograde.chess_dtz50_pawns.solve_slice does)
    codes = spec_codes(table)
    squares = np.empty(E.COUNT[table], dtype=np.int64)
    found = np.empty(MOST_EXITS, dtype=np.int64)
    parents = np.empty(MOST_PREDECESSORS, dtype=np.int64)
    missing, lost, lost_count, pending, count = initialise_slice(
        table, work, bases, variants, inner, strides, child_dtm, plans, codes, squares, found)
    if missing:
        return MISSING_CHILD
    first_due = np.full(LEVEL_MASK + 1, -1, dtype=np.int64)
    next_due = chain_by_level(work, pending, count, first_due)
    # The long tail of a slice's levels: few positions of a side are still to be won, and
    # un-moving every loss of the other side walks far more moves than those few walk
    # forward (as the DTZ50 slices do: retrograde.chess_dtz50_pawns.solve_slice).
    per_side = E.PER_SIDE[table]
    nothing = np.empty(0, dtype=np.int64)
    # a candidate (chess_dtm.is_candidate): open, and with known outcomes a known win (its
    # class EXIT_DRAWS or EXIT_WINS)
    may_win = (EXIT_DRAWS << CLASS_SHIFT) if known else 0
    open_count = np.zeros(2, dtype=np.int64)  # candidates by side to move: an upper bound
    for side in range(2):
        open_count[side] = open_entries(work, bases, variants, inner, side, OPEN, may_win,
                                        nothing)
    listed = np.zeros(2, dtype=np.bool_)
    white_open = nothing
    black_open = nothing
    won = np.empty(1024, dtype=np.int64)  # decided at the level before
    won_count = 0
    new_won = np.empty(1024, dtype=np.int64)
    new_lost = np.empty(1024, dtype=np.int64)
    flagged = np.empty(1024, dtype=np.int64)
    d = 1
    while True:
        white_lost = white_first(lost, lost_count, per_side)
        new_won_count = 0
        for side in range(2):  # the side to move of the positions that may be won
            start, sources = (white_lost, lost_count - white_lost) if side == 0 \
                else (0, white_lost)
            if open_count[side] < sources:
                if not listed[side]:
                    listed[side] = True
                    listing = list_open_entries(work, bases, variants, inner, side, OPEN,
                                                may_win)
                    open_count[side] = listing.shape[0]
                    if side == 0:
                        white_open = listing
                    else:
                        black_open = listing
                new_won, new_won_count, open_count[side] = pull_slice(
                    table, work, strides, white_open if side == 0 else black_open,
                    open_count[side], d, known, new_won, new_won_count, codes, squares)
            else:
                before = new_won_count
                new_won, new_won_count = spread_slice(table, work, strides, lost, start,
                                                      sources, d, True, new_won,
                                                      new_won_count, codes, squares, parents)
                if not listed[side]:
                    open_count[side] -= new_won_count - before
        new_won, new_won_count, flagged, flagged_count = come_due_slice(
            work, d, pending, first_due, next_due, new_won, new_won_count, flagged, 0)
        flagged, flagged_count = spread_slice(table, work, strides, won, 0, won_count, d,
                                              False, flagged, flagged_count, codes, squares,
                                              parents)
        new_lost, new_lost_count = settle_slice(table, work, strides, flagged, flagged_count,
                                                d, new_lost, 0, codes, squares)
        won, new_won = new_won, won
        lost, new_lost = new_lost, lost
        won_count, lost_count = new_won_count, new_lost_count
        if won_count + lost_count:
            d += 1
            continue
        d += 1  # nothing decided: the next level with work is the next one with exits due
        while d <= LEVEL_MASK and first_due[d] < 0:
            d += 1
        if d > LEVEL_MASK:
            break
    for v in range(variants):  # what is still open is drawn
        for u in range(UNITS):
            base = bases[v * UNITS + u]
            for k in range(inner.shape[0]):
                index = base + inner[k]
                if work[index] >= OPEN:
                    work[index] = CODE_DRAW
    return 0


@nb.njit(types.void(types.int64, U16, I64_2D, I64, I64, I64, U16, I64_2D, types.boolean, I64),
         cache=True, parallel=True)
def solve_slices(table, work, slice_bases, variants, inner, strides, child_dtm, plans, known,
                 results):
    """:func:`solve_slice` of every row of ``slice_bases`` (independent slices, with
    ``variants`` each), side by side; their results in ``results``."""
    for s in prange(slice_bases.shape[0]):
        results[s] = solve_slice(table, work, slice_bases[s], variants[s], inner, strides,
                                 child_dtm, plans, known)


def solve(table: str, child_dtm: np.ndarray, child_offsets: np.ndarray,
          progress, outcomes=None, before_group=None) -> np.ndarray:
    """The DTM codes (``uint16``, storage index) of the chess ``table`` with pawns, slice by
    slice, from its children's DTM codes and, where ``outcomes`` reads them, its own DTZ50
    codes (as :func:`retrograde.chess_dtm.solve`). ``before_group(advancement)``, if given,
    is called before each advancement group's slices (to read the children's entries they
    reach into ``child_dtm``: :class:`retrograde.tables.ChildrenByGroup`)."""
    table_id = E.TABLE_IDS[table]
    if not E.PAWNFUL[table_id]:
        raise ValueError(f"{table}: no pawns (retrograde.chess_dtm builds it)")
    size = 2 * int(E.PER_SIDE[table_id])
    work = np.zeros(size, dtype=np.uint16)
    plans = child_plans(table, child_offsets)
    strides = index_strides(table_id)
    child_dtm = np.ascontiguousarray(child_dtm, dtype=np.uint16)
    inner = slice_layout(table)[2]
    known = start_words(table_id, work, outcomes)
    progress.update("legal positions", 1, 1, size)
    done = 0
    for advancement, slice_bases, variants in advancement_groups(table):
        if before_group is not None:
            before_group(advancement)
        results = np.zeros(len(variants), dtype=np.int64)
        solve_slices(table_id, work, slice_bases, variants, inner, strides, child_dtm, plans,
                     known, results)
        if (results == MISSING_CHILD).any():
            raise RuntimeError(f"{table}: exits lead to tables that are not loaded")
        done += len(variants)
        progress.update(f"dtm slices (advancement {advancement})", done, done, 0)
    return work
