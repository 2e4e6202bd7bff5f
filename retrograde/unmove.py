"""The generic retrograde engine with un-move generation, over any family that offers it
(:class:`games.table_family.UnmoveKernels`; chess does).

Level ``d`` = 1, 2, ... decides the positions won or lost in ``d`` plies:

1. ``propagate``: every position decided at level ``d - 1`` hands its predecessors to the
   game's ``mark_predecessors`` kernel, in two passes: first those of a lost position are won
   in ``d`` at once, and so are positions whose moves out of the table win at level ``d``
   (``exit_win``); then those of a won one are flagged (``GEN_FLAGGED``, a code of its own:
   no second array, and the pass that writes it writes nothing else), or, for positions that
   count their moves not yet known won for the opponent (``count_code``, set by the game's
   initialisation), have their count decremented: the one that reaches 0 is lost in ``d``
   (or at its ``exit_floor``, if later), with no look at its moves.
   When few positions are left unresolved and many were lost at ``d - 1``, the first pass
   runs the other way (``pull_wins``, with the game's ``wins_by_moves``, where its space
   allows): every unresolved position looks at its own moves for one into a position lost
   at ``d - 1``. Both ways win the same positions; the one expected to touch fewer entries
   runs (``pull_is_cheaper``).
2. ``settle``: the game's ``evaluate`` kernel looks at every flagged position, and at those
   whose moves out of the table or other events (``exit_floor``, ``wake``) become known at
   level ``d``; a position all of whose moves lose for it is lost in ``d``.

The loop stops when a level decides nothing and no summary level lies beyond it; what is
still unresolved is drawn. A child counts as known only below distance ``d``, so entries
written during a level are never read as known by it, and a flag reads as unknown: the result
does not depend on the order of the scan or on the number of threads.

Distances need not fit a byte: codes and levels count from an offset, moved up when the
levels near the byte's range (:mod:`games.table_family`, "distances beyond one byte"): what
is decided so far goes to storage (at the first shift one byte each, in the memory of the
``hints``, which the kernels then do without; at later shifts their ninth bits beside them, a
bit each), every code and level is shifted down, and the levels go on.

The scans visit only the blocks of ``TOUCH_BLOCK`` positions that can hold work: those written
at the level before (every code write marks its block; two block arrays swap at each level)
and those whose per-block level masks hold the level's events. Inside a block they read eight
one-byte entries at a time (a ``uint64`` view); the game's kernels get batches of entries, so the
indirect call through ``numba.types.FunctionType`` (what keeps this engine in numba's on-disk
cache) is paid once per batch, not once per position.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from games.table_family import (BYTES, CHILD_CODES, GEN_AUX, GEN_EVALUATE_SIGNATURE,
                                GEN_INITIALISE_SIGNATURE, GEN_MARK_SIGNATURE, GEN_PARAMS,
                                GEN_STORE_SIGNATURE, GEN_UNKNOWN, GEN_WINS_BY_MOVES_SIGNATURE,
                                INT64S, NO_LEVEL, REVISIT_SHIFT, TOUCH_BLOCK)
from games.value_codes import (COUNT_BASE, GEN_FLAGGED, LONGEST_BYTE_DISTANCE, is_unresolved,
                               longest_distance, loss_code, shifted, win_code)
from retrograde.tables import ChildCodes, ChildSource
from runtime.borrow import borrowed

BLOCK = 4096  # positions per parallel task in the initialisation and storage passes
WORD_BLOCK = TOUCH_BLOCK // 8  # 8-byte words per parallel task in the level scans (a block)
BATCH = 256  # entries handed to a kernel per call
# Relative distances must fit the one-byte codes below the unresolved ones; a shift moves the next level
# back to FIRST_LEVEL_AFTER_SHIFT (the level before it is still read, as the frontier).
WINDOW = LONGEST_BYTE_DISTANCE
FIRST_LEVEL_AFTER_SHIFT = 2

InitialiseKernel = types.FunctionType(GEN_INITIALISE_SIGNATURE)
MarkKernel = types.FunctionType(GEN_MARK_SIGNATURE)
EvaluateKernel = types.FunctionType(GEN_EVALUATE_SIGNATURE)
StoreKernel = types.FunctionType(GEN_STORE_SIGNATURE)
WinsByMovesKernel = types.FunctionType(GEN_WINS_BY_MOVES_SIGNATURE)
WORDS = types.Array(types.uint64, 1, "C")
LEVEL_MASKS = types.Array(types.uint64, 2, "C")  # per block, a bit per level (4 x 64)

ONES = types.uint64(0x0101010101010101)
HIGHS = types.uint64(0x8080808080808080)


@nb.njit(cache=True, inline="always")
def has_byte(word, value):
    """Whether one of the 8 bytes of ``word`` equals ``value`` (lets scans skip 8 at once)."""
    x = word ^ (ONES * types.uint64(value))
    return ((x - ONES) & ~x & HIGHS) != 0


@nb.njit(types.int64(types.int64), cache=True)
def scatter_stride(blocks):
    """A stride coprime to ``blocks`` near 0.618 of it: block ``k * stride % blocks`` visits
    every block once, and each thread's share of ``prange(blocks)`` (numba hands out
    contiguous ranges) lands all over the table. The positions a level touches cluster (all
    of one side to move, say), so contiguous shares would leave one thread with the work."""
    stride = max(1, (blocks * 618) // 1000)
    while np.gcd(stride, blocks) != 1:
        stride += 1
    return stride


@nb.njit(types.int64(InitialiseKernel, GEN_PARAMS, GEN_AUX, BYTES, BYTES, BYTES, BYTES,
                     CHILD_CODES, INT64S, types.boolean), cache=True, parallel=True)
def initialise(kernel, params, aux, codes, exit_win, exit_floor, wake, child_codes,
               child_offsets, first):
    """Run the game's initialisation (``first``) or a fold of the moves into another group of
    child tables over the whole generation index; the latest level set."""
    # lent: the threads share these arrays, and counting references to them is atomic
    params, aux, codes, exit_win, exit_floor, wake, child_codes, child_offsets = borrowed(
        (params, aux, codes, exit_win, exit_floor, wake, child_codes, child_offsets))
    size = codes.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    latest = np.zeros(blocks, dtype=np.int64)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        latest[block] = kernel(params, aux, block * BLOCK, min(size, (block + 1) * BLOCK),
                               codes, exit_win, exit_floor, wake, child_codes, child_offsets,
                               first)
    return latest.max()


@nb.njit(cache=True, inline="always")
def has_level(masks, block, level):
    """Whether ``level`` is among the levels recorded for ``block`` in ``masks``."""
    return (masks[block, level >> 6] >> types.uint64(level & 63)) & types.uint64(1) != 0


@nb.njit(types.int64(MarkKernel, GEN_PARAMS, GEN_AUX, types.int64, BYTES, BYTES, BYTES, WORDS,
                     WORDS, types.boolean, types.boolean, BYTES, BYTES, LEVEL_MASKS),
         cache=True, parallel=True)
def propagate(mark_predecessors, params, aux, d, codes, exit_win, exit_floor, code_words,
              exit_win_words, wins, exits_now, written_before, written_now, exit_masks):
    """Level ``d``, first half, one of two passes over the positions decided at ``d - 1``
    (found in the blocks ``written_before``, the ones written at level ``d - 1``).
    With ``wins``: the predecessors of the lost ones are won, and so are the positions whose
    moves out of the table win at ``d`` (looked for only when ``exits_now``, in the blocks
    whose ``exit_masks`` hold ``d``); returns how many. Without: the other predecessors (of
    the won ones, mostly) are flagged, or their counts decremented; returns how many of those
    were lost. Blocks written are recorded in ``written_now``. In each pass every thread
    writes the same code, so the result does not depend on their timing."""
    # lent: the threads share these arrays, and counting references to them is atomic
    params, aux, codes, exit_win, exit_floor, code_words, exit_win_words, written_before, \
        written_now, exit_masks = borrowed((params, aux, codes, exit_win, exit_floor, code_words,
                                            exit_win_words, written_before, written_now,
                                            exit_masks))
    words = code_words.shape[0]
    blocks = (words + WORD_BLOCK - 1) // WORD_BLOCK
    won = np.zeros(blocks, dtype=np.int64)
    lost_code = loss_code(d - 1)
    won_code = win_code(d - 1)
    exits_now = exits_now and wins
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        exits_here = exits_now and has_level(exit_masks, block, d)
        if not (written_before[block] or exits_here):
            continue
        entries = np.empty(BATCH, dtype=np.int64)
        count = 0
        for w in range(block * WORD_BLOCK, min(words, (block + 1) * WORD_BLOCK)):
            word = code_words[w]
            if not (has_byte(word, lost_code) or (not wins and has_byte(word, won_code))
                    or (exits_here and has_byte(exit_win_words[w], d))):
                continue
            for g in range(8 * w, 8 * w + 8):
                code = codes[g]
                if code == lost_code or (code == won_code and not wins):
                    entries[count] = g
                    count += 1
                    if count == BATCH:
                        won[block] += mark_predecessors(params, aux, entries, count, codes,
                                                        exit_floor, wins, written_now)
                        count = 0
                elif exits_here and is_unresolved(code) and exit_win[g] == d:
                    codes[g] = win_code(d)
                    written_now[block] = 1
                    won[block] += 1
        if count:
            won[block] += mark_predecessors(params, aux, entries, count, codes, exit_floor, wins,
                                            written_now)
    return won.sum()


@nb.njit(cache=True, inline="always")
def _write_wins(entries, results, count, codes):
    """Write the wins a batch found (the others keep their codes: counts stay counts);
    returns how many."""
    won = 0
    for k in range(count):
        if results[k] != GEN_UNKNOWN:
            codes[entries[k]] = results[k]
            won += 1
    return won


@nb.njit(types.int64(WinsByMovesKernel, GEN_PARAMS, GEN_AUX, types.int64, BYTES, BYTES, WORDS,
                     BYTES), cache=True, parallel=True)
def pull_wins(wins_by_moves, params, aux, d, codes, exit_win, code_words, written_now):
    """Level ``d``, first pass the other way round (what ``propagate`` with ``wins`` decides):
    every unresolved position with a move inside the table into a position lost at ``d - 1``,
    or whose moves out of the table win at ``d``, is won in ``d``; returns how many. Codes
    change only from unresolved to won in ``d`` while the kernel looks for lost ones, so the
    result does not depend on the threads' timing."""
    # lent: the threads share these arrays, and counting references to them is atomic
    params, aux, codes, exit_win, code_words, written_now = borrowed(
        (params, aux, codes, exit_win, code_words, written_now))
    words = code_words.shape[0]
    blocks = (words + WORD_BLOCK - 1) // WORD_BLOCK
    won = np.zeros(blocks, dtype=np.int64)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        entries = np.empty(BATCH, dtype=np.int64)
        results = np.empty(BATCH, dtype=np.int64)
        count = 0
        for w in range(block * WORD_BLOCK, min(words, (block + 1) * WORD_BLOCK)):
            if not code_words[w] & HIGHS:  # every unresolved code has its high bit set
                continue
            for g in range(8 * w, 8 * w + 8):
                if not is_unresolved(codes[g]):
                    continue
                if exit_win[g] == d:
                    codes[g] = win_code(d)
                    won[block] += 1
                    continue
                entries[count] = g
                count += 1
                if count == BATCH:
                    wins_by_moves(params, aux, entries, count, d, codes, results)
                    won[block] += _write_wins(entries, results, count, codes)
                    count = 0
        if count:
            wins_by_moves(params, aux, entries, count, d, codes, results)
            won[block] += _write_wins(entries, results, count, codes)
        if won[block]:
            written_now[block] = 1
    return won.sum()


@nb.njit(cache=True, inline="always")
def _write_results(entries, results, count, codes, wake, event_masks, block):
    """Write the codes a batch decided and unflag the rest; a revisit (``revisit_at``) sets
    the entry's ``wake`` level and records it in its ``block``'s ``event_masks``. Returns how
    many were decided."""
    decided = 0
    for k in range(count):
        result = results[k]
        if result > GEN_UNKNOWN:
            level = result >> REVISIT_SHIFT
            wake[entries[k]] = level
            event_masks[block, level >> 6] |= types.uint64(1) << types.uint64(level & 63)
            result = GEN_UNKNOWN
        codes[entries[k]] = result
        if result != GEN_UNKNOWN:
            decided += 1
    return decided


@nb.njit(types.int64(EvaluateKernel, GEN_PARAMS, GEN_AUX, types.int64, BYTES, BYTES, BYTES,
                     BYTES, BYTES, CHILD_CODES, INT64S, WORDS, WORDS, WORDS,
                     types.boolean, types.int64, BYTES, LEVEL_MASKS), cache=True, parallel=True)
def settle(evaluate, params, aux, d, codes, exit_win, exit_floor, wake, hints,
           child_codes, child_offsets, code_words, floor_words, wake_words, events_now, offset,
           written_now, event_masks):
    """Level ``d``, second half: evaluate every flagged position (in the blocks
    ``written_now``) and, when ``events_now``, every ``GEN_UNKNOWN`` one whose ``exit_floor``
    or ``wake`` level is ``d`` (in the blocks whose ``event_masks`` hold ``d``); the flags are
    cleared. A count that reached 0 before its ``exit_floor`` is lost at that level. A
    position to be looked at again later gets that ``wake`` level, recorded in its block's
    ``event_masks``. Returns the number decided. A thread writes only inside the block it
    scans."""
    # lent: the threads share these arrays, and counting references to them is atomic
    params, aux, codes, exit_win, exit_floor, wake, hints, child_codes, child_offsets, \
        code_words, floor_words, wake_words, written_now, event_masks = borrowed(
            (params, aux, codes, exit_win, exit_floor, wake, hints, child_codes, child_offsets,
             code_words, floor_words, wake_words, written_now, event_masks))
    words = code_words.shape[0]
    blocks = (words + WORD_BLOCK - 1) // WORD_BLOCK
    decided = np.zeros(blocks, dtype=np.int64)
    waking = wake.shape[0] > 0  # an empty wake array: the table has no such events
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        events_here = events_now and has_level(event_masks, block, d)
        if not (written_now[block] or events_here):
            continue
        entries = np.empty(BATCH, dtype=np.int64)
        results = np.empty(BATCH, dtype=np.int64)
        count = 0
        for w in range(block * WORD_BLOCK, min(words, (block + 1) * WORD_BLOCK)):
            if not (has_byte(code_words[w], GEN_FLAGGED)
                    or (events_here and (has_byte(floor_words[w], d)
                                         or (waking and has_byte(wake_words[w], d))))):
                continue
            for g in range(8 * w, 8 * w + 8):
                code = codes[g]
                if code == COUNT_BASE and events_here and exit_floor[g] == d:
                    codes[g] = loss_code(d)  # every move known won for them, and the exits now
                    decided[block] += 1
                    continue
                if code != GEN_FLAGGED and not (
                        code == GEN_UNKNOWN and events_here
                        and (exit_floor[g] == d or (waking and wake[g] == d))):
                    continue
                entries[count] = g
                count += 1
                if count == BATCH:
                    evaluate(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                             child_codes, child_offsets, results, offset)
                    decided[block] += _write_results(entries, results, count, codes, wake,
                                                     event_masks, block)
                    count = 0
        if count:
            evaluate(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                     child_codes, child_offsets, results, offset)
            decided[block] += _write_results(entries, results, count, codes, wake, event_masks,
                                             block)
        if decided[block]:
            written_now[block] = 1
    return decided.sum()


@nb.njit(types.void(StoreKernel, GEN_PARAMS, GEN_AUX, BYTES, CHILD_CODES, types.int64),
         cache=True, parallel=True)
def to_storage(kernel, params, aux, codes, out, offset):
    """The storage codes of the whole table, from codes counted from ``offset``."""
    size = out.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        start = block * BLOCK
        stop = min(size, start + BLOCK)
        kernel(params, aux, start, stop, codes, out[start:stop], offset)


@nb.njit(types.void(StoreKernel, GEN_PARAMS, GEN_AUX, BYTES, BYTES), cache=True, parallel=True)
def to_byte_storage(kernel, params, aux, codes, out):
    """Like :func:`to_storage` with no offset, into one-byte codes (they fit: no distance
    went beyond the byte's window)."""
    size = out.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        start = block * BLOCK
        stop = min(size, start + BLOCK)
        chunk = np.empty(stop - start, dtype=np.uint16)
        kernel(params, aux, start, stop, codes, chunk, 0)
        for k in range(stop - start):
            out[start + k] = chunk[k]


@nb.njit(types.int64(StoreKernel, GEN_PARAMS, GEN_AUX, BYTES, BYTES, BYTES, types.int64),
         cache=True, parallel=True)
def to_split_storage(kernel, params, aux, codes, low, high, offset):
    """Like :func:`to_storage`, into storage codes kept as their low byte (``low``) and their
    ninth bit (``high``, one bit per entry): mates up to 254 plies without a two-byte array
    beside the generation arrays. Returns the largest code (over 511: it did not fit)."""
    size = low.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    largest = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):  # BLOCK is a multiple of 8: a byte of bits has one block
        start = block * BLOCK
        stop = min(size, start + BLOCK)
        chunk = np.empty(stop - start, dtype=np.uint16)
        for g in range(start, stop):
            chunk[g - start] = np.int64(low[g]) | (((np.int64(high[g >> 3]) >> (g & 7)) & 1) << 8)
        kernel(params, aux, start, stop, codes, chunk, offset)
        for g in range(start, stop):
            value = np.int64(chunk[g - start])
            largest[block] = max(largest[block], value)
            low[g] = value & 255
            bit = np.int64(1) << (g & 7)
            high[g >> 3] = (np.int64(high[g >> 3]) & ~bit) | (bit if value & 256 else 0)
    return largest.max()


@nb.njit(types.void(BYTES, BYTES, CHILD_CODES), cache=True, parallel=True)
def _joined(low, high, out):
    """``out``: the two-byte storage codes of :func:`to_split_storage`'s halves (``high``
    empty: none has a ninth bit)."""
    size = out.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        for g in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            ninth = (np.int64(high[g >> 3]) >> (g & 7)) & 1 if high.shape[0] else 0
            out[g] = np.int64(low[g]) | (ninth << 8)


@nb.njit(cache=True, inline="always")
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
            if g < wake.shape[0]:
                wake[g] = _shifted_level(wake[g], shift)


@nb.njit(types.void(BYTES, BYTES, LEVEL_MASKS), cache=True, parallel=True)
def _mark_levels(levels, more_levels, masks):
    """Adds to ``masks[block]`` every level (but ``NO_LEVEL``) found in the block of
    ``levels`` and of ``more_levels`` (which may be empty)."""
    blocks = masks.shape[0]
    for block in prange(blocks):
        for array in (levels, more_levels):
            for g in range(block * TOUCH_BLOCK, min(array.shape[0], (block + 1) * TOUCH_BLOCK)):
                level = array[g]
                if level != NO_LEVEL:
                    masks[block, level >> 6] |= types.uint64(1) << types.uint64(level & 63)


def _level_masks(levels: np.ndarray, more_levels: np.ndarray) -> np.ndarray:
    """Per block of ``TOUCH_BLOCK`` positions, the set of levels found there (4 x 64 bits)."""
    masks = np.zeros(((levels.shape[0] + TOUCH_BLOCK - 1) // TOUCH_BLOCK, 4), dtype=np.uint64)
    _mark_levels(levels, more_levels, masks)
    return masks


def _levels_present(masks: np.ndarray) -> np.ndarray:
    """Which of the 256 levels occur in any block of ``masks``."""
    union = np.bitwise_or.reduce(masks, axis=0)
    return np.unpackbits(union.astype("<u8").view(np.uint8), bitorder="little").astype(bool)


CHILD_GROUP_BYTES = 768 << 20  # child codes held at once while initialising (when foldable)


@nb.njit(types.int64(WORDS), cache=True, parallel=True)
def count_unresolved(code_words):
    """How many codes are unresolved (no temporary array: the codes may be gigabytes)."""
    words = code_words.shape[0]
    blocks = (words + WORD_BLOCK - 1) // WORD_BLOCK
    counts = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        for w in range(block * WORD_BLOCK, min(words, (block + 1) * WORD_BLOCK)):
            word = code_words[w]
            if not word & HIGHS:
                continue
            for lane in range(8):
                if (word >> types.uint64(8 * lane)) & types.uint64(0xFF) >= COUNT_BASE:
                    counts[block] += 1
    return counts.sum()


PULL_FACTOR = 3.0  # pull the wins when fewer positions are unresolved than this times the frontier


def pull_is_cheaper(unresolved: int, frontier: int) -> bool:
    """Whether looking at the moves of the ``unresolved`` positions should touch fewer entries
    than un-moving from the ``frontier`` of positions lost at the level before (about as many
    moves per position as un-moves)."""
    return frontier >= 0 and unresolved < PULL_FACTOR * frontier


def solve_by_unmoves(family, table: str, children: ChildSource, progress,
                     space=None) -> np.ndarray:
    """Storage codes (:mod:`databases.format`; ``uint8`` when every distance fits a byte,
    else ``uint16``) of ``table``; ``children`` holds the codes of the tables its moves
    leave to (each released once read, but those the levels read:
    ``GenerationSpace.children_read_later``). ``space``: another generation space of the
    table than ``family.unmoves.space(table)`` (a DTZ50 one). RuntimeError if a child's
    distance does not fit the one-byte levels."""
    kernels = family.unmoves
    space = space if space is not None else kernels.space(table)
    params = space.params
    size = space.size + (-space.size) % 8  # whole words for the 8-at-a-time scans
    codes = np.zeros(size, dtype=np.uint8)
    exit_win = np.zeros(size, dtype=np.uint8)
    exit_floor = np.zeros(size, dtype=np.uint8)
    wake = np.zeros(size if space.wake else 0, dtype=np.uint8)
    hints = np.zeros(size, dtype=np.uint8)
    aux, latest, kept = _initialise_all(kernels, table, space, children, codes, exit_win,
                                        exit_floor, wake)
    progress.update("initialise", 1, 1, space.size)
    blocks = (size + TOUCH_BLOCK - 1) // TOUCH_BLOCK
    exit_masks, event_masks = _level_masks(exit_win, wake[:0]), _level_masks(exit_floor, wake)
    exit_levels, event_levels = _levels_present(exit_masks), _levels_present(event_masks)
    written_before = np.ones(blocks, dtype=np.uint8)  # the first level scans everything
    pulls = kernels.wins_by_moves is not None and space.wins_by_moves
    unresolved = count_unresolved(codes.view(np.uint64)) if pulls else 0
    frontier = -1  # positions lost at the level before (not counted before the first level)
    written_now = np.zeros(blocks, dtype=np.uint8)
    stored = None  # storage codes of what was decided before a shift (see _set_aside)
    ninth = np.zeros(0, dtype=np.uint8)  # their ninth bits, from the second shift
    offset = 0  # codes and levels count from here
    d = 1  # the level, in plies from the end
    while True:
        if d - offset > WINDOW:
            stored, ninth, hints = _set_aside(kernels, table, space, aux, codes, hints,
                                              stored, ninth, offset)
            shift = d - FIRST_LEVEL_AFTER_SHIFT - offset
            shift_down(codes, exit_win, exit_floor, wake, shift)
            offset += shift
            exit_masks, event_masks = _level_masks(exit_win, wake[:0]), _level_masks(exit_floor, wake)
            exit_levels, event_levels = _levels_present(exit_masks), _levels_present(event_masks)
            written_before[:] = 1  # every code moved: the next level scans everything
        level = d - offset
        code_words = codes.view(np.uint64)
        if pulls and pull_is_cheaper(unresolved, frontier):
            won = pull_wins(kernels.wins_by_moves, params, aux, level, codes, exit_win,
                            code_words, written_now)
        else:
            won = propagate(kernels.mark_predecessors, params, aux, level, codes, exit_win,
                            exit_floor, code_words, exit_win.view(np.uint64), True,
                            bool(exit_levels[level]), written_before, written_now, exit_masks)
        lost = propagate(kernels.mark_predecessors, params, aux, level, codes, exit_win,
                         exit_floor, code_words, exit_win.view(np.uint64), False, False,
                         written_before, written_now, exit_masks)
        decided = settle(kernels.evaluate, params, aux, level, codes, exit_win, exit_floor,
                         wake, hints, kept.codes, kept.offsets, code_words,
                         exit_floor.view(np.uint64), wake.view(np.uint64),
                         bool(event_levels[level]), offset, written_now, event_masks)
        if space.wake:  # settle may have set wake levels (revisits)
            event_levels = _levels_present(event_masks)
            latest = max(latest, offset + int(np.flatnonzero(event_levels).max(initial=0)))
        progress.update(f"level {d}", 0, 0, int(won + lost + decided))
        if won + lost + decided == 0 and d >= latest:
            break
        unresolved -= won + lost + decided
        frontier = lost + decided  # most of what settle decides is lost
        written_before, written_now = written_now, written_before
        written_now[:] = 0
        d += 1
    del exit_win, exit_floor, wake, kept  # not needed any more: the peak stays lower
    if stored is not None:
        out = np.empty(stored.shape[0], dtype=np.uint16)
        _joined(stored, ninth, out)
        del stored, ninth  # (the hints' memory)
        to_storage(kernels.to_storage, params, aux, codes, out, offset)
        return out
    # Every distance fits a byte: the storage codes go where the hints were.
    return _byte_storage(kernels, space, aux, codes, hints)


def _initialise_all(kernels, table, space, children: ChildSource, codes, exit_win, exit_floor,
                    wake):
    """Initialise every position from the child tables, group by group (the first one
    settles each position, later ones fold their moves in). Returns the kernels' ``aux``
    (extended by ``with_children``), the latest level set, and the children the levels read
    (the others are released once read)."""
    later = space.children_read_later
    if later is None:
        children = children.load_all()  # the levels read every child: one group
    whole = slice(0, space.size)
    aux = space.aux
    latest = 0
    kept = ChildCodes(np.zeros(1, dtype=np.uint16), np.full(1, -1, dtype=np.int64))
    for number, group in enumerate(children.groups(CHILD_GROUP_BYTES, later or (),
                                                   space.child_ranges)):
        longest_child = _longest_distance(group.codes)
        if longest_child + 1 >= NO_LEVEL:
            raise RuntimeError(f"{table}: a child table's mate in {longest_child} "
                               "plies does not fit the one-byte levels")
        if number == 0 and kernels.with_children is not None:
            aux = kernels.with_children(space, group.codes, group.offsets)
        latest = max(latest, initialise(kernels.initialise, space.params, aux, codes[whole],
                                        exit_win[whole], exit_floor[whole], wake[whole],
                                        group.codes, group.offsets, number == 0))
        if number == 0 and (later is None or later):
            kept = group  # the first group holds the tables the levels read
        else:
            group.release()
    return aux, latest, kept


def _set_aside(kernels, table, space, aux, codes, hints, stored, ninth, offset):
    """Before a shift: the storage codes of what is decided so far, into ``stored``. At the
    first shift every distance fits a byte, and the one-byte storage codes take the hints'
    memory (the hints only save work: ``evaluate`` then starts each look afresh), so a long
    table never holds two-byte codes beside its four generation arrays; at later shifts the
    codes' ninth bits go to ``ninth``, one bit per entry (RuntimeError for a mate beyond 254
    plies). Returns ``(stored, ninth, hints)``."""
    params = space.params
    if stored is None:
        stored = _bytes_in_hints(space, hints)
        to_byte_storage(kernels.to_storage, params, aux, codes, stored)
        return stored, ninth, np.zeros(0, dtype=np.uint8)
    if ninth.shape[0] == 0:
        ninth = np.zeros((stored.shape[0] + 7) // 8, dtype=np.uint8)
    if to_split_storage(kernels.to_storage, params, aux, codes, stored, ninth, offset) > 511:
        raise RuntimeError(f"{table}: a mate longer than 254 plies does not fit the storage "
                           "codes set aside at a shift")
    return stored, ninth, hints


def _byte_storage(kernels, space, aux, codes, hints):
    """One-byte storage codes of a table whose distances all fit a byte, in the hints'
    memory when it is large enough."""
    out = _bytes_in_hints(space, hints)
    to_byte_storage(kernels.to_storage, space.params, aux, codes, out)
    return out


def _bytes_in_hints(space, hints):
    """A one-byte array of the table's storage size, in the memory of ``hints`` (no longer
    read) when it is large enough."""
    if space.storage_size <= hints.shape[0]:
        return hints[:space.storage_size]
    return np.empty(space.storage_size, dtype=np.uint8)


def _longest_distance(codes: np.ndarray) -> int:
    """The longest win or loss in ``codes`` (storage codes), in plies."""
    if codes.size == 0:
        return 0
    return longest_distance(codes.max())
