"""The two-byte DTM generator for chess tables without pawns: value and distance to mate
(the rule-free table), on the level loop of :mod:`retrograde.chess_dtz50`.

Two bytes per position of the table's storage index (the file's index: the working array
becomes the table). A resolved word is the position's final code (:mod:`games.value_codes`:
INVALID, CODE_DRAW, ``loss_code(d)``, ``win_code(d)``, below ``OPEN``). An open word holds
what the position's exits (captures: they leave the table) are worth and from which level
on, since under DTM a capture carries the child's distance::

    OPEN | FLAG? | class << 12 | level
    NO_EXIT      no capture
    EXIT_LOSES   every capture loses, the slowest in ``level`` plies: lost no sooner
    EXIT_DRAWS   a capture draws: never lost
    EXIT_WINS    the quickest capture wins in ``level`` plies: won then at the latest

The words start from the captures, seeded child to parent as in
:mod:`retrograde.chess_dtz50` (each placement without the victim read once in the child
table, the capture raised in every parent it is reached from), then the mates among the
positions in check. No position looks for its quiet moves: one that has none is decided by
its captures alone and waits in the same form (the settle pass finds no quiet move against
it; a stalemate, never flagged, is drawn at the end).

Level ``d`` = 1, 2, ...:

1. wins: the un-moves of every position lost at ``d - 1`` reach open positions: won in ``d``.
   Once fewer positions may still be won than were lost at ``d - 1`` (the long tail of a
   table: most wins are decided early), the other way round is cheaper: every open position
   that may be won looks for a quiet move to one lost at ``d - 1`` (:func:`pull_wins`);
2. exits due: an EXIT_WINS position whose level is ``d`` is won in ``d``; an EXIT_LOSES one
   is flagged (its captures now allow the loss);
3. flags: the un-moves of every position won at ``d - 1`` flag open positions that might now
   be lost (NO_EXIT, or EXIT_LOSES from its level on);
4. settle: a flagged position whose quiet moves all reach positions won below ``d`` is lost
   in ``d``; the others are unflagged.

Where the table's DTZ50 table is built (``solver build`` makes those first) it says which
positions are legal and what each is worth without the rule (a cursed win is a win, a
blessed loss a loss): the draws are final from the start (never initialised, flagged or
settled), the wins never flagged, and no pass of its own finds the legal positions.

A child counts as known only below ``d``, so the result does not depend on the order of the
scan or the number of threads. Step 2 reads only blocks whose earliest pending exit is due
(``due``, per block); levels with nothing to do are skipped to the next exit due. The loop
ends when a level decides nothing and no exit is pending; what is still open is drawn.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from databases.errors import DatabaseError
from games.chess import endgames as E
from games.value_codes import (CODE_DRAW, INVALID, better, code_distance, is_win, loss_code,
                               parent_code, win_code)
from retrograde.chess_dtz50 import (BLOCK, GATHERED, MISSING_CHILD, MOST_PREDECESSORS,
                                    WORD_OPEN, capture_passes, capture_plans, decode_valid,
                                    escapes_check, every_quiet_move_loses, fill_offsets,
                                    gather_predecessors, index_strides, mark_positions,
                                    quiet_move_reaching, seed_task, seed_tasks, spec_codes)
from retrograde.chess_exits import exit_codes
from retrograde.unmove import scatter_stride
from runtime.borrow import borrowed

OPEN = WORD_OPEN  # resolved codes are below
FLAG = 0x4000
CLASS_SHIFT = 12
LEVEL_MASK = (1 << CLASS_SHIFT) - 1
NO_EXIT, EXIT_LOSES, EXIT_DRAWS, EXIT_WINS = range(4)
NONE_DUE = 0xFFFF  # a block with no exit pending
KNOWN_WIN = OPEN | FLAG  # before the levels: a legal position the DTZ50 table says is won
WORDS_PER_BLOCK = BLOCK // 4  # the level scans read 4 entries at a time
LANES = types.uint64(0x0001000100010001)
LANE_HIGHS = types.uint64(0x8000800080008000)

U8 = types.Array(types.uint8, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
I64 = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")


@nb.njit(cache=True, inline="always")
def has_word(word, value):
    """Whether one of the 4 two-byte entries of ``word`` equals ``value``."""
    x = word ^ (LANES * types.uint64(value))
    return ((x - LANES) & ~x & LANE_HIGHS) != 0


@nb.njit(U16(U16), cache=True)
def outcome_words(dtz50):
    """The table's DTZ50 codes as the words its levels start from: INVALID, CODE_DRAW (a
    draw under the rule is one without it), KNOWN_WIN (won, cursed or not: won without the
    rule), OPEN (lost, blessed or not)."""
    words = np.empty(dtz50.shape[0], dtype=np.uint16)
    for index in range(dtz50.shape[0]):
        code = dtz50[index]
        if code == INVALID or code == CODE_DRAW:
            words[index] = code
        else:
            words[index] = KNOWN_WIN if is_win(code) else OPEN
    return words


@nb.njit(cache=True, inline="always")
def open_word(exit_class, level):
    """The open word of a position whose captures are worth ``exit_class`` from ``level``."""
    return OPEN | (exit_class << CLASS_SHIFT) | level


@nb.njit(cache=True, inline="always")
def pending_level(word):
    """The level at which an open word's captures come due (EXIT_WINS, EXIT_LOSES), else -1."""
    if word < OPEN:
        return -1
    exit_class = (word >> CLASS_SHIFT) & 3
    if exit_class == EXIT_WINS or exit_class == EXIT_LOSES:
        return word & LEVEL_MASK
    return -1


@nb.njit(cache=True, inline="always")
def may_lose_at(word, d):
    """Whether an open, unflagged word may be lost at level ``d``: no capture, or every
    capture lost by ``d``."""
    if word < OPEN or word & FLAG:
        return False
    exit_class = (word >> CLASS_SHIFT) & 3
    return exit_class == NO_EXIT or (exit_class == EXIT_LOSES and (word & LEVEL_MASK) <= d)


@nb.njit(cache=True, inline="always")
def word_of_exits(best, moves, quiet, in_check):
    """The initial word of a legal position whose best capture has code ``best`` (if it has
    ``moves``, i.e. a capture), with or without a legal ``quiet`` move (``in_check``: mated
    rather than stalemated when it has no move at all)."""
    if not moves:
        if quiet:
            return open_word(NO_EXIT, 0)
        return loss_code(0) if in_check else CODE_DRAW
    if best == CODE_DRAW:
        return open_word(EXIT_DRAWS, 0) if quiet else CODE_DRAW
    if is_win(best):
        return open_word(EXIT_WINS, code_distance(best))
    return open_word(EXIT_LOSES, code_distance(best))


@nb.njit(cache=True, inline="always")
def initial_word(table, index, stm, strides, codes, squares, n, work, child_dtm, plans, found):
    """(The DTM slices' initialisation, :mod:`retrograde.chess_dtm_pawns`.) The word of the
    legal position at storage ``index`` (``squares``, ``stm`` to move:
    :func:`retrograde.chess_dtz50.decode_in_row`) before the levels (see the module
    docstring), from its exits (:func:`retrograde.chess_exits.exit_codes`; ``found``:
    room for them); MISSING_CHILD if a child table is not loaded. A position known to be won
    (``KNOWN_WIN``) gets the class of one never lost unless a capture wins."""
    (strides, codes, squares, work, child_dtm, plans, found) = borrowed(
        (strides, codes, squares, work, child_dtm, plans, found))
    # (words hold their codes: exit_codes reads no two-byte result beside them, ``work``
    # stands in for it)
    known_win = work[index] == KNOWN_WIN
    count, quiet, in_check, _ = exit_codes(table, index, stm, strides, codes, squares, n,
                                           work, work, child_dtm, plans, found, -1, known_win)
    if count == MISSING_CHILD:
        return MISSING_CHILD
    best = CODE_DRAW
    for e in range(count):
        value = parent_code(found[e])
        if e == 0 or better(value, best):
            best = value
    word = word_of_exits(best, count > 0, quiet == 1, in_check == 1)
    if known_win and word >= OPEN and (word >> CLASS_SHIFT) & 3 != EXIT_WINS:
        return open_word(EXIT_DRAWS, 0)  # never lost: no flag need look at it
    return word


@nb.njit(cache=True, inline="always")
def exit_rank(word):
    """How good the captures an open word holds are for the side to move (higher better):
    none, then losses, the slowest first, a draw, wins, the quickest last."""
    exit_class = (word >> CLASS_SHIFT) & 3
    level = word & LEVEL_MASK
    if exit_class == NO_EXIT:
        return 0
    if exit_class == EXIT_LOSES:
        return 1 + level
    if exit_class == EXIT_DRAWS:
        return 2 * (LEVEL_MASK + 1)
    return 4 * (LEVEL_MASK + 1) - level


@nb.njit(cache=True, inline="always")
def raise_exit(work, parent, child):
    """Raise the captures the open word at ``parent`` holds to one into a position with DTM
    code ``child`` (a known win's FLAG kept); a decided word (INVALID, a draw the DTZ50
    table told) is left alone."""
    word = np.int64(work[parent])
    if word < OPEN:
        return
    value = parent_code(child)
    if value == CODE_DRAW:
        exit_word = open_word(EXIT_DRAWS, 0)
    elif is_win(value):
        exit_word = open_word(EXIT_WINS, code_distance(value))
    else:
        exit_word = open_word(EXIT_LOSES, code_distance(value))
    if exit_rank(exit_word) > exit_rank(word):
        work[parent] = exit_word | (word & FLAG)


@nb.njit(types.int64(types.int64, U16, U16, I64_2D, types.int64, types.int64), cache=True,
         parallel=True)
def seed_captures(table, work, child_dtm, plans, victim, capturers):
    """Every capture of ``victim`` by ``capturers``, child to parent
    (:func:`retrograde.chess_dtz50.seed_task`), raising its parents' exits
    (:func:`raise_exit`). Returns how many children are in tables not loaded."""
    tasks = seed_tasks(table, victim, capturers)[0]
    missing = np.zeros(tasks, dtype=np.int64)
    for task in prange(tasks):
        missing[task] = seed_task(table, work, child_dtm, plans, victim, capturers, task,
                                  raise_exit)
    return missing.sum()


@nb.njit(types.void(types.int64, U16, U16), cache=True, parallel=True)
def finish_words(table, work, due):
    """After the captures are seeded: a known win keeps its exits only if a capture wins
    (else it holds a draw: never lost); a position in check (the same placement with the
    other side to move is INVALID, which no write here changes) with no capture and no
    legal quiet move is mated (``loss_code(0)``); per block its earliest pending exit level
    into ``due``."""
    n = E.COUNT[table]
    per_side = E.PER_SIDE[table]
    size = work.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    strides = index_strides(table)
    stride = scatter_stride(blocks)  # (positions in check cluster: spread them over the threads)
    for k in prange(blocks):
        block = k * stride % blocks
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        earliest = NONE_DUE
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            word = np.int64(work[index])
            if word < OPEN:
                continue
            exit_class = (word >> CLASS_SHIFT) & 3
            if word & FLAG:  # a known win
                word = word & ~FLAG if exit_class == EXIT_WINS else open_word(EXIT_DRAWS, 0)
                work[index] = word
            elif exit_class == NO_EXIT and work[index - per_side if index >= per_side
                                                else index + per_side] == INVALID:
                stm = decode_valid(table, index, squares)
                if not escapes_check(table, index, stm, strides, codes, squares, n, work):
                    work[index] = loss_code(0)
                    continue
            if pending_level(word) >= 0:
                earliest = min(earliest, pending_level(word))
        due[block] = earliest


def initialise(table: int, work: np.ndarray, child_dtm: np.ndarray, plans: np.ndarray,
               due: np.ndarray) -> int:
    """Every legal position's word before the levels (``work`` as :func:`start_words` left
    it): its best capture, seeded child to parent (:func:`seed_captures`, every pass of
    :func:`retrograde.chess_dtz50.capture_passes`), then :func:`finish_words` (the mates,
    the known wins, ``due``). A position with no quiet move waits in the same form (the
    settle pass finds no quiet move against it; a stalemate, never flagged, is drawn at the
    end). Returns how many children are in tables not loaded."""
    missing = sum(seed_captures(table, work, child_dtm, plans, victim, capturers)
                  for victim, capturers in capture_passes(table))
    finish_words(table, work, due)
    return missing


@nb.njit(types.int64(I64, types.int64, U16, types.int64, types.boolean, U8), cache=True)
def mark_all(parents, count, work, d, wins, marked):
    """Each of the first ``count`` ``parents``: won in ``d`` if open (``wins``), else flagged
    if it may now be lost; its block set in ``marked``. Returns how many were written."""
    parents, work, marked = borrowed((parents, work, marked))
    written = 0
    for k in range(count):
        parent = parents[k]
        word = np.int64(work[parent])
        if wins:
            if word >= OPEN:
                work[parent] = win_code(d)
            else:
                continue
        elif may_lose_at(word, d):
            work[parent] = word | FLAG
        else:
            continue
        marked[parent // BLOCK] = 1
        written += 1
    return written


@nb.njit(types.int64(types.int64, U16, types.int64, types.boolean, U8, U8), cache=True,
         parallel=True)
def spread(table, work, d, wins, frontier_blocks, marked):
    """Level ``d``, steps 1 and 3: from every position lost (``wins``) or won at ``d - 1``
    in the blocks ``frontier_blocks``, :func:`mark_all` its predecessors. Returns how many
    were written."""
    n = E.COUNT[table]
    words = work.view(np.uint64)
    blocks = frontier_blocks.shape[0]
    target = loss_code(d - 1) if wins else win_code(d - 1)
    written = np.zeros(blocks, dtype=np.int64)
    strides = index_strides(table)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        if not frontier_blocks[block]:
            continue
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        parents = np.empty(GATHERED + MOST_PREDECESSORS, dtype=np.int64)
        count = 0
        for w in range(block * WORDS_PER_BLOCK,
                       min(words.shape[0], (block + 1) * WORDS_PER_BLOCK)):
            if not has_word(words[w], target):
                continue
            for index in range(4 * w, 4 * w + 4):
                if work[index] != target:
                    continue
                child_stm = decode_valid(table, index, squares)
                count = gather_predecessors(table, index, strides, codes, squares, n,
                                            child_stm, parents, count)
                if count >= GATHERED:
                    written[block] += mark_all(parents, count, work, d, wins, marked)
                    count = 0
        written[block] += mark_all(parents, count, work, d, wins, marked)
    return written.sum()


@nb.njit(cache=True, inline="always")
def holds_candidate(word, known):
    """Whether one of the 4 entries of ``word`` is open and may be won: with ``known``
    outcomes (the table's DTZ50 codes) only the known wins (classes EXIT_DRAWS and EXIT_WINS:
    bit 13 set, which the shift lines up with OPEN's), else any open entry."""
    if known:
        return (word & (word << types.uint64(2)) & LANE_HIGHS) != 0
    return (word & LANE_HIGHS) != 0


@nb.njit(cache=True, inline="always")
def is_candidate(word, known):
    """:func:`holds_candidate` for one entry's word."""
    return word >= OPEN and (not known or (word >> CLASS_SHIFT) & 2 != 0)


@nb.njit(types.int64(U16, types.boolean, U8), cache=True, parallel=True)
def mark_candidates(work, known, candidate_blocks):
    """Per block whether it holds an open position that may be won (:func:`is_candidate`),
    into ``candidate_blocks``; returns how many there are."""
    size = work.shape[0]
    blocks = candidate_blocks.shape[0]
    count = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            if is_candidate(np.int64(work[index]), known):
                count[block] += 1
        candidate_blocks[block] = 1 if count[block] else 0
    return count.sum()


@nb.njit(types.int64(types.int64, U16, types.int64, types.boolean, U8, U8), cache=True,
         parallel=True)
def pull_wins(table, work, d, known, candidate_blocks, touched):
    """Level ``d``, step 1 the other way round: every open position that may be won
    (:func:`is_candidate`, in ``candidate_blocks``) with a quiet move to a position lost at
    ``d - 1`` is won in ``d``. A block left with none is cleared from ``candidate_blocks``.
    (A position written here is read by no other: its word is not ``loss_code(d - 1)``,
    before or after.) Returns how many were won."""
    n = E.COUNT[table]
    words = work.view(np.uint64)
    blocks = candidate_blocks.shape[0]
    target = loss_code(d - 1)
    won = np.zeros(blocks, dtype=np.int64)
    strides = index_strides(table)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        if not candidate_blocks[block]:
            continue
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        left = 0
        for w in range(block * WORDS_PER_BLOCK,
                       min(words.shape[0], (block + 1) * WORDS_PER_BLOCK)):
            if not holds_candidate(words[w], known):
                continue
            for index in range(4 * w, 4 * w + 4):
                if not is_candidate(np.int64(work[index]), known):
                    continue
                stm = decode_valid(table, index, squares)
                if quiet_move_reaching(table, index, stm, strides, codes, squares, n, work, d,
                                       target):
                    work[index] = win_code(d)
                    won[block] += 1
                else:
                    left += 1
        if won[block]:
            touched[block] = 1
        if not left:
            candidate_blocks[block] = 0
    return won.sum()


@nb.njit(types.int64(U16, types.int64, U16, U8, U8), cache=True, parallel=True)
def come_due(work, d, due, touched, flagged):
    """Level ``d``, step 2: in every block whose earliest pending exit is due at ``d``, an
    EXIT_WINS position due now is won in ``d`` and an EXIT_LOSES one flagged; ``due`` then
    holds the block's next pending level. Returns how many were won."""
    size = work.shape[0]
    blocks = due.shape[0]
    won = np.zeros(blocks, dtype=np.int64)
    stride = scatter_stride(blocks)  # the blocks due cluster: spread them over the threads
    for k in prange(blocks):
        block = k * stride % blocks
        if due[block] != d:
            continue
        earliest = NONE_DUE
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            word = np.int64(work[index])
            level = pending_level(word)
            if level < 0:
                continue
            if level > d:
                earliest = min(earliest, level)
            elif level == d:
                if (word >> CLASS_SHIFT) & 3 == EXIT_WINS:
                    work[index] = win_code(d)
                    won[block] += 1
                    touched[block] = 1
                elif not word & FLAG:
                    work[index] = word | FLAG
                    flagged[block] = 1
        due[block] = earliest
    return won.sum()


@nb.njit(types.int64(types.int64, U16, types.int64, U8, U8), cache=True, parallel=True)
def settle(table, work, d, flagged_blocks, touched):
    """Level ``d``, step 4: every flagged position (in ``flagged_blocks``) whose quiet moves
    all reach positions won below ``d`` is lost in ``d``, the others are unflagged. A thread
    writes only in its own block. Returns how many were lost."""
    n = E.COUNT[table]
    blocks = flagged_blocks.shape[0]
    size = work.shape[0]
    lost = np.zeros(blocks, dtype=np.int64)
    strides = index_strides(table)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        if not flagged_blocks[block]:
            continue
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            word = np.int64(work[index])
            if word < OPEN or not word & FLAG:
                continue
            stm = decode_valid(table, index, squares)
            if every_quiet_move_loses(table, index, stm, strides, codes, squares, n, work, d):
                work[index] = loss_code(d)
                lost[block] += 1
            else:
                work[index] = word & ~FLAG
        if lost[block]:
            touched[block] = 1
    return lost.sum()


@nb.njit(types.void(U16), cache=True, parallel=True)
def close(work):
    """What is still open is drawn."""
    for index in prange(work.shape[0]):
        if work[index] >= OPEN:
            work[index] = CODE_DRAW


def start_words(table_id: int, work: np.ndarray, outcomes) -> bool:
    """``work``: the words the levels start from, from the table's DTZ50 codes when
    ``outcomes(out, convert)`` reads them (through ``convert``, into ``out``; a DTZ50 table
    that turns out missing or damaged is passed over), else OPEN for every legal position
    and INVALID for the rest. Returns whether the outcomes were read."""
    if outcomes is not None:
        try:
            outcomes(work, lambda chunk: outcome_words(np.ascontiguousarray(chunk, np.uint16)))
            return True
        except DatabaseError:
            pass  # every word is written again below
    mark_positions(table_id, work, OPEN)
    return False


def solve(table: str, child_dtm: np.ndarray, child_offsets: np.ndarray,
          progress, outcomes=None, pull: bool | None = None) -> np.ndarray:
    """The DTM codes (``uint16``, storage index) of the pawnless chess ``table``, from its
    children's DTM codes (``child_dtm`` at ``child_offsets[table id]``, as
    :func:`retrograde.tables.load_children` gives them) and, when ``outcomes`` can read them
    (:func:`start_words`), its own DTZ50 codes. RuntimeError if a child is missing. ``pull``
    chooses how the wins of a level are found (the codes do not depend on it): None the
    cheaper way by the counts, True by :func:`pull_wins` at every level after one with a
    loss, False always from the losses."""
    table_id = E.TABLE_IDS[table]
    if E.PAWNFUL[table_id]:
        raise ValueError(f"{table}: the two-byte DTM generator is for tables without pawns")
    size = 2 * int(E.PER_SIDE[table_id])
    work = np.zeros(size + (-size) % 4, dtype=np.uint16)  # whole words (the rest INVALID)
    blocks = (size + BLOCK - 1) // BLOCK
    due = np.zeros(blocks, dtype=np.uint16)
    plans = fill_offsets(capture_plans(table), child_offsets)
    known = start_words(table_id, work[:size], outcomes)
    missing = initialise(table_id, work[:size], np.ascontiguousarray(child_dtm, np.uint16),
                         plans, due)
    if missing:
        raise RuntimeError(f"{table}: {missing} captures lead to tables that are not loaded")
    progress.update("initialise", 1, 1, size)
    frontier = np.ones(blocks, dtype=np.uint8)  # the mates: anywhere
    touched = np.zeros(blocks, dtype=np.uint8)
    flagged = np.zeros(blocks, dtype=np.uint8)
    candidate_blocks = np.zeros(blocks, dtype=np.uint8)
    candidates = mark_candidates(work[:size], known, candidate_blocks)
    lost = 0  # at the level before
    d = 1
    while True:
        # step 1 the cheaper way: roughly as many reads an open position that may be won as
        # a position lost at d - 1 (the moves of one side either way)
        if lost and (pull or (pull is None and candidates < lost)):
            won = pull_wins(table_id, work, d, known, candidate_blocks, touched)
        else:
            won = spread(table_id, work, d, True, frontier, touched)
        won += come_due(work[:size], d, due, touched, flagged)
        spread(table_id, work, d, False, frontier, flagged)
        lost = settle(table_id, work[:size], d, flagged, touched)
        candidates -= won if known else won + lost
        decided = won + lost
        progress.update(f"dtm level {d}", 0, 0, int(decided))
        frontier, touched = touched, frontier
        touched[:] = 0
        flagged[:] = 0
        if decided:
            d += 1
            continue
        pending = int(due.min()) if blocks else NONE_DUE
        if pending == NONE_DUE:
            break
        d = pending  # nothing decided: the next level with work is the next exit due
        frontier[:] = 0
    close(work)
    return work[:size]
