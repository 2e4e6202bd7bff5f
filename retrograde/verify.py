"""Verifying tables: every entry re-derived from its successors by forward moves alone.

This code shares nothing with the builders' propagation: for each index it unranks the
position, plays every legal move, ranks the child (or has the family rank every child at
once, ``rank_children``, where it can), and recomputes the value as a one-ply minimax over
the stored children (win: the quickest mate, loss: the slowest, else draw).
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from databases import format as F
from databases.families import get_family
from games import kernels as K
from games.table_family import (INDEX_MASK, NEEDS_CHILDREN, RANK_CHILDREN_SIGNATURE, TABLE_SHIFT,
                                RankChildrenKernel, RankKernel, UnrankKernel)
from games.value_codes import better, parent_code, terminal_code
from retrograde.progress import Silent
from retrograde.tables import load_children, read_codes
from runtime.borrow import borrowed

CODES = types.Array(types.uint16, 1, "C")
OFFSETS = types.Array(types.int64, 1, "C")
RANKS = types.Array(types.int64, 1, "C")  # a rank kernel's answer for each move of a position


@nb.njit(types.int64(types.int64, types.int64, CODES, CODES, OFFSETS), cache=True)
def code_at(entry, table_id, codes, other_codes, offsets):
    """The stored code at ``entry`` (what a rank kernel returns: the table being checked or a
    child table), UNKNOWN if no table holds it, NEEDS_CHILDREN if its value must come from its
    own moves."""
    if entry == NEEDS_CHILDREN:
        return NEEDS_CHILDREN
    if entry < 0:
        return F.UNKNOWN
    child_table = entry >> TABLE_SHIFT
    child_index = entry & INDEX_MASK
    if child_table == table_id:
        return np.int64(codes[child_index])
    if offsets[child_table] < 0:
        return F.UNKNOWN
    return np.int64(other_codes[offsets[child_table] + child_index])


@nb.njit(types.int64(types.int64, types.int64), cache=True)
def choose(best, child):
    """The better of ``best`` (the mover's code so far, -1 for none) and the mover's code for
    playing into ``child``; -2 propagates an undecidable child."""
    if best == -2 or child == F.INVALID or child == F.UNKNOWN or child == NEEDS_CHILDREN:
        return -2
    mine = parent_code(child)
    if best < 0:
        return mine
    return mine if better(mine, best) else best


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, RankKernel, types.int64,
                     CODES, CODES, OFFSETS, K.POSITION, K.POSITION, K.MOVE_BUFFER), cache=True)
def code_from_moves(legal_moves, play, outcome, rank, table_id, codes, other_codes, offsets,
                    child, grandchild, more_moves):
    """The code of ``child``, a position whose entry does not tell its value (an en-passant
    right), from the stored codes of its own children; -1 if one of them is undecidable."""
    inner = legal_moves(child, more_moves)
    if inner == 0:
        result = outcome(child, inner)
        return terminal_code(result) if result != K.WIN else -1
    code = -1
    for j in range(inner):
        play(child, more_moves[j], grandchild)
        code = choose(code, code_at(rank(grandchild), table_id, codes, other_codes, offsets))
    return code if code >= 0 else -1


@nb.njit(RANK_CHILDREN_SIGNATURE, cache=True)
def no_rank_children(pos, moves, count, child, ranks):
    """Stands in for a family without ``rank_children`` (never called: each move is then played
    and ranked)."""


@nb.njit(cache=True, inline="always")
def rank_every_child(play, rank, rank_children, batched, pos, moves, count, child, ranks):
    """``ranks[i]``: the rank of the child of ``pos`` after ``moves[i]``, for the first
    ``count`` moves, every one before any code is read (the reads, independent of each other,
    then overlap their cache misses: in a table of hundreds of MB they are most of the cost).
    ``batched``: by ``rank_children`` at once, else each child played and ranked."""
    if batched:
        rank_children(pos, moves, count, child, ranks)
    else:
        for i in range(count):
            play(pos, moves[i], child)
            ranks[i] = rank(child)


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, RankKernel,
                     RankChildrenKernel, types.boolean, types.int64, CODES, CODES, OFFSETS,
                     K.POSITION, K.POSITION, K.MOVE_BUFFER, K.POSITION, K.MOVE_BUFFER, RANKS),
         cache=True)
def minimax_code(legal_moves, play, outcome, rank, rank_children, batched, table_id, codes,
                 other_codes, offsets, pos, child, moves, grandchild, more_moves, ranks):
    """The code ``pos`` must have given the stored codes of its children (one ply; a child whose
    entry does not tell its value is valued from its own children). -2 if undecidable.
    ``batched``: the children are ranked by ``rank_children``, else played and ranked one by
    one."""
    count = legal_moves(pos, moves)
    if count == 0:
        code = terminal_code(outcome(pos, count))
        return code if code >= 0 else -2
    rank_every_child(play, rank, rank_children, batched, pos, moves, count, child, ranks)
    best = -1
    for i in range(count):
        code = code_at(ranks[i], table_id, codes, other_codes, offsets)
        if code == NEEDS_CHILDREN:
            play(pos, moves[i], child)
            code = code_from_moves(legal_moves, play, outcome, rank, table_id, codes,
                                   other_codes, offsets, child, grandchild, more_moves)
            if code < 0:
                return -2
        best = choose(best, code)
    return best


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, UnrankKernel, RankKernel,
                     RankChildrenKernel, types.boolean, types.int64, CODES, CODES, OFFSETS,
                     K.POSITION, K.POSITION, K.MOVE_BUFFER, K.POSITION, K.MOVE_BUFFER, RANKS,
                     types.int64, types.int64), cache=True)
def count_disagreements(legal_moves, play, outcome, unrank, rank, rank_children, batched,
                        table_id, codes, other_codes, offsets, pos, child, moves, grandchild,
                        more_moves, ranks, start, stop):
    """Entries in ``[start, stop)`` whose stored code differs from the one-ply minimax."""
    # Lent (runtime/borrow.py): counting references to them took about a fifth of the time.
    codes, other_codes, offsets, pos, child, moves, grandchild, more_moves, ranks = borrowed(
        (codes, other_codes, offsets, pos, child, moves, grandchild, more_moves, ranks))
    errors = 0
    for index in range(start, stop):
        stored = np.int64(codes[index])
        if not unrank(table_id, index, pos):
            errors += stored != F.INVALID
            continue
        expected = minimax_code(legal_moves, play, outcome, rank, rank_children, batched,
                                table_id, codes, other_codes, offsets, pos, child, moves,
                                grandchild, more_moves, ranks)
        errors += expected != stored
    return errors


SPAN = 1 << 16  # entries per parallel task


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, UnrankKernel, RankKernel,
                     RankChildrenKernel, types.boolean, types.int64, CODES, CODES, OFFSETS,
                     K.POSITION, types.int64, types.int64, types.int64),
         cache=True, parallel=True, nogil=True)
def count_disagreements_parallel(legal_moves, play, outcome, unrank, rank, rank_children,
                                 batched, table_id, codes, other_codes, offsets, template,
                                 max_moves, start, stop):
    """:func:`count_disagreements` over ``[start, stop)`` on every thread, each task with its
    own positions and move buffers (the count does not depend on the number of threads)."""
    tasks = (stop - start + SPAN - 1) // SPAN
    errors = np.zeros(tasks, dtype=np.int64)
    for task in prange(tasks):
        pos, child, grandchild = (np.empty_like(template), np.empty_like(template),
                                  np.empty_like(template))
        moves = np.empty(max_moves, dtype=np.int32)
        more_moves = np.empty(max_moves, dtype=np.int32)
        ranks = np.empty(max_moves, dtype=np.int64)
        low = start + task * SPAN
        errors[task] = count_disagreements(legal_moves, play, outcome, unrank, rank,
                                           rank_children, batched, table_id, codes,
                                           other_codes, offsets, pos, child, moves, grandchild,
                                           more_moves, ranks, low, min(stop, low + SPAN))
    return errors.sum()


def verify_table(game: str, table: str, root, progress=None, chunk: int = 1 << 22) -> dict:
    """``{"table", "entries", "errors"}`` for one table on disk (its child tables must exist),
    on every thread numba has."""
    family = get_family(game)
    progress = progress or Silent()
    codes = read_codes(root, game, table)
    children, offsets, _ = load_children(root, family, family.dependencies(table))
    kernels = family.game.kernels
    game = family.game
    table_id = family.table_id(table)
    batched = family.rank_children is not None
    rank_children = family.rank_children if batched else no_rank_children
    errors = 0
    for start in range(0, codes.size, chunk):
        stop = min(codes.size, start + chunk)
        errors += int(count_disagreements_parallel(
            kernels.legal_moves, kernels.play, kernels.outcome, family.unrank, family.rank,
            rank_children, batched, table_id, codes, children, offsets, game.new_position(),
            game.max_moves, start, stop))
        progress.update("verify", stop, codes.size, stop - start)
    progress.done()
    return {"table": table, "entries": int(codes.size), "errors": errors}
