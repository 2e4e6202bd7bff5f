"""The generic retrograde engine with un-move generation, over any family that offers it
(:class:`games.table_family.UnmoveKernels`; chess does).

Level ``d`` = 1, 2, ... decides the positions won or lost in ``d`` plies:

1. ``propagate``: every position decided at level ``d - 1`` hands its predecessors to the
   game's ``mark_predecessors`` kernel: those of a lost position are won in ``d`` at once,
   those of a won one are flagged. Positions whose moves out of the table win at level ``d``
   (``exit_win``) are won in ``d``.
2. ``settle``: the game's ``evaluate`` kernel looks at every flagged position, and at those
   whose moves out of the table or other events (``exit_floor``, ``wake``) become known at
   level ``d``; a position all of whose moves lose for it is lost in ``d``.

The loop stops when a level decides nothing and no summary level lies beyond it; what is
still unresolved is drawn. A child counts as known only below distance ``d``, so entries
written during a level are never read as known by it and flags live in their own array: the
result does not depend on the order of the scan or on the number of threads.

Distances need not fit a byte: codes and levels count from an offset, moved up when the
levels near the byte's range (:mod:`games.table_family`, "distances beyond one byte"): what
is decided so far goes to storage, every code and level is shifted down, and the levels go on.

The scans read eight one-byte entries at a time (a ``uint64`` view) to skip the bulk of a
table that a level does not touch; the game's kernels get batches of entries, so the
indirect call through ``numba.types.FunctionType`` (what keeps this engine in numba's on-disk
cache) is paid once per batch, not once per position.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from games.table_family import (BYTES, CHILD_CODES, GEN_AUX, GEN_EVALUATE_SIGNATURE,
                                GEN_INITIALISE_SIGNATURE, GEN_MARK_SIGNATURE, GEN_PARAMS,
                                GEN_STORE_SIGNATURE, GEN_UNKNOWN, INT64S, NO_LEVEL)
from games.value_codes import LONGEST_BYTE_DISTANCE, shifted

BLOCK = 4096  # positions per parallel task in the initialisation and storage passes
WORD_BLOCK = 1024  # 8-byte words per parallel task in the level scans
BATCH = 256  # entries handed to a kernel per call
# Relative distances must fit the one-byte codes below GEN_UNKNOWN; a shift moves the next level
# back to FIRST_LEVEL_AFTER_SHIFT (the level before it is still read, as the frontier).
WINDOW = LONGEST_BYTE_DISTANCE
FIRST_LEVEL_AFTER_SHIFT = 2

InitialiseKernel = types.FunctionType(GEN_INITIALISE_SIGNATURE)
MarkKernel = types.FunctionType(GEN_MARK_SIGNATURE)
EvaluateKernel = types.FunctionType(GEN_EVALUATE_SIGNATURE)
StoreKernel = types.FunctionType(GEN_STORE_SIGNATURE)
WORDS = types.Array(types.uint64, 1, "C")

ONES = types.uint64(0x0101010101010101)
HIGHS = types.uint64(0x8080808080808080)


@nb.njit(types.boolean(types.uint64, types.int64), cache=True, inline="always")
def has_byte(word, value):
    """Whether one of the 8 bytes of ``word`` equals ``value`` (lets scans skip 8 at once)."""
    x = word ^ (ONES * types.uint64(value))
    return ((x - ONES) & ~x & HIGHS) != 0


@nb.njit(types.int64(InitialiseKernel, GEN_PARAMS, GEN_AUX, BYTES, BYTES, BYTES, BYTES,
                     CHILD_CODES, INT64S), cache=True, parallel=True)
def initialise(kernel, params, aux, codes, exit_win, exit_floor, wake, child_codes,
               child_offsets):
    """Run the game's initialisation over the whole generation index; the latest level set."""
    size = codes.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    latest = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        latest[block] = kernel(params, aux, block * BLOCK, min(size, (block + 1) * BLOCK),
                               codes, exit_win, exit_floor, wake, child_codes, child_offsets)
    return latest.max()


@nb.njit(types.int64(MarkKernel, GEN_PARAMS, GEN_AUX, types.int64, BYTES, BYTES, BYTES, WORDS,
                     WORDS, types.boolean), cache=True, parallel=True)
def propagate(mark_predecessors, params, aux, d, codes, flags, exit_win, code_words,
              exit_win_words, exits_now):
    """Level ``d``, first half: predecessors of the positions decided at ``d - 1`` are won or
    flagged; positions whose moves out of the table win at ``d`` (looked for only when
    ``exits_now``) are won. Returns the number of positions won."""
    words = code_words.shape[0]
    blocks = (words + WORD_BLOCK - 1) // WORD_BLOCK
    won = np.zeros(blocks, dtype=np.int64)
    lost_code = 2 + 2 * (d - 1)
    won_code = 3 + 2 * (d - 1)
    for block in prange(blocks):
        entries = np.empty(BATCH, dtype=np.int64)
        count = 0
        for w in range(block * WORD_BLOCK, min(words, (block + 1) * WORD_BLOCK)):
            word = code_words[w]
            if not (has_byte(word, lost_code) or has_byte(word, won_code)
                    or (exits_now and has_byte(exit_win_words[w], d))):
                continue
            for g in range(8 * w, 8 * w + 8):
                code = codes[g]
                if code == lost_code or code == won_code:
                    entries[count] = g
                    count += 1
                    if count == BATCH:
                        won[block] += mark_predecessors(params, aux, entries, count, codes, flags)
                        count = 0
                elif code == GEN_UNKNOWN and exit_win[g] == d:
                    codes[g] = 3 + 2 * d
                    won[block] += 1
        if count:
            won[block] += mark_predecessors(params, aux, entries, count, codes, flags)
    return won.sum()


@nb.njit(types.int64(INT64S, INT64S, types.int64, BYTES), cache=True, inline="always")
def _write_decided(entries, results, count, codes):
    """Write the codes a batch decided; returns how many."""
    decided = 0
    for k in range(count):
        if results[k] != GEN_UNKNOWN:
            codes[entries[k]] = results[k]
            decided += 1
    return decided


@nb.njit(types.int64(EvaluateKernel, GEN_PARAMS, GEN_AUX, types.int64, BYTES, BYTES, BYTES,
                     BYTES, BYTES, BYTES, CHILD_CODES, INT64S, WORDS, WORDS, WORDS,
                     types.boolean, types.int64), cache=True, parallel=True)
def settle(evaluate, params, aux, d, codes, flags, exit_win, exit_floor, wake, hints,
           child_codes, child_offsets, flag_words, floor_words, wake_words, events_now, offset):
    """Level ``d``, second half: evaluate every flagged position and, when ``events_now``,
    every one whose ``exit_floor`` or ``wake`` level is ``d``. Returns the number decided."""
    words = flag_words.shape[0]
    blocks = (words + WORD_BLOCK - 1) // WORD_BLOCK
    decided = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        entries = np.empty(BATCH, dtype=np.int64)
        results = np.empty(BATCH, dtype=np.int64)
        count = 0
        for w in range(block * WORD_BLOCK, min(words, (block + 1) * WORD_BLOCK)):
            if flag_words[w] == 0 and not (events_now and (has_byte(floor_words[w], d)
                                                           or has_byte(wake_words[w], d))):
                continue
            for g in range(8 * w, 8 * w + 8):
                if not flags[g] and exit_floor[g] != d and wake[g] != d:
                    continue
                flags[g] = 0
                if codes[g] != GEN_UNKNOWN:
                    continue
                entries[count] = g
                count += 1
                if count == BATCH:
                    evaluate(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                             child_codes, child_offsets, results, offset)
                    decided[block] += _write_decided(entries, results, count, codes)
                    count = 0
        if count:
            evaluate(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                     child_codes, child_offsets, results, offset)
            decided[block] += _write_decided(entries, results, count, codes)
    return decided.sum()


@nb.njit(types.void(StoreKernel, GEN_PARAMS, GEN_AUX, BYTES, CHILD_CODES, types.int64),
         cache=True, parallel=True)
def to_storage(kernel, params, aux, codes, out, offset):
    """The storage codes of the whole table, from codes counted from ``offset``."""
    size = out.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        kernel(params, aux, block * BLOCK, min(size, (block + 1) * BLOCK), codes, out, offset)


@nb.njit(types.uint8(types.uint8, types.int64), cache=True, inline="always")
def _shifted_level(level, shift):
    if level == NO_LEVEL:
        return level
    return max(np.int64(level) - shift, 0)


@nb.njit(types.void(BYTES, BYTES, BYTES, BYTES, types.int64), cache=True, parallel=True)
def shift_down(codes, exit_win, exit_floor, wake, shift):
    """Every code's distance and every level ``shift`` plies shorter, floored at 0
    (``NO_LEVEL`` stays)."""
    size = codes.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        for g in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            codes[g] = shifted(np.int64(codes[g]), shift)
            exit_win[g] = _shifted_level(exit_win[g], shift)
            exit_floor[g] = _shifted_level(exit_floor[g], shift)
            wake[g] = _shifted_level(wake[g], shift)


def _levels_in_use(exit_win: np.ndarray, exit_floor: np.ndarray, wake: np.ndarray):
    """Which levels have a position whose moves out of the table win there, and which have
    one whose other events fall there."""
    exits = np.bincount(exit_win, minlength=256) > 0
    events = (np.bincount(exit_floor, minlength=256) > 0) | (np.bincount(wake, minlength=256) > 0)
    return exits, events


def solve_by_unmoves(family, table: str, children: np.ndarray, offsets: np.ndarray,
                     progress) -> np.ndarray:
    """Storage codes (``uint16``, :mod:`databases.format`) of ``table``; ``children`` holds
    the codes of the tables its moves leave to, concatenated at ``offsets``. RuntimeError if a
    child's distance does not fit the one-byte levels."""
    kernels = family.unmoves
    space = kernels.space(table)
    params, aux = space.params, space.aux
    size = space.size + (-space.size) % 8  # whole words for the 8-at-a-time scans
    codes = np.zeros(size, dtype=np.uint8)
    flags = np.zeros(size, dtype=np.uint8)
    exit_win = np.zeros(size, dtype=np.uint8)
    exit_floor = np.zeros(size, dtype=np.uint8)
    wake = np.zeros(size, dtype=np.uint8)
    hints = np.zeros(size, dtype=np.uint8)
    children = np.ascontiguousarray(children, dtype=np.uint16)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    whole = slice(0, space.size)
    longest_child = _longest_distance(children)
    if longest_child + 1 >= NO_LEVEL:
        raise RuntimeError(f"{table}: a child table's mate in {longest_child} plies does not fit "
                           "the one-byte levels")
    latest = initialise(kernels.initialise, params, aux, codes[whole], exit_win[whole],
                        exit_floor[whole], wake[whole], children, offsets)
    progress.update("initialise", 1, 1, space.size)
    exit_levels, event_levels = _levels_in_use(exit_win, exit_floor, wake)
    out = np.empty(space.storage_size, dtype=np.uint16)
    offset = 0  # codes and levels count from here
    d = 1  # the level, in plies from the end
    while True:
        if d - offset > WINDOW:
            to_storage(kernels.to_storage, params, aux, codes, out, offset)
            shift = d - FIRST_LEVEL_AFTER_SHIFT - offset
            shift_down(codes, exit_win, exit_floor, wake, shift)
            offset += shift
            exit_levels, event_levels = _levels_in_use(exit_win, exit_floor, wake)
        level = d - offset
        won = propagate(kernels.mark_predecessors, params, aux, level, codes, flags, exit_win,
                        codes.view(np.uint64), exit_win.view(np.uint64), bool(exit_levels[level]))
        decided = settle(kernels.evaluate, params, aux, level, codes, flags, exit_win, exit_floor,
                         wake, hints, children, offsets, flags.view(np.uint64),
                         exit_floor.view(np.uint64), wake.view(np.uint64),
                         bool(event_levels[level]), offset)
        progress.update(f"level {d}", 0, 0, int(won + decided))
        if won + decided == 0 and d >= latest:
            break
        d += 1
    to_storage(kernels.to_storage, params, aux, codes, out, offset)
    return out


def _longest_distance(codes: np.ndarray) -> int:
    """The longest win or loss in ``codes`` (storage codes), in plies."""
    if codes.size == 0:
        return 0
    top = int(codes.max())
    return (top - 2) >> 1 if top >= 2 else 0
