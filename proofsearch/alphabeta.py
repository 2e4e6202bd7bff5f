"""Boolean alpha-beta for a goal: does the side to move get what it wants? (a depth-first
solver that finishes what df-pn starts, for games whose positions fix their ply).

df-pn is best-first: on positions where a short win hides among many moves it needs a
fraction of the nodes of a depth-first search. On positions where every line must be read to
the end (the middle game of Connect Four), its bookkeeping per node (two visits, the children's
numbers, a table store at every exit) costs twice what a plain depth-first search pays, and its
node count is no smaller. :class:`proofsearch.dfpn.DfpnSearch` therefore hands a position that
df-pn has not solved within a small budget to this search (:mod:`proofsearch.settings`).

The search is alpha-beta with a window of width one on a two-valued outcome, as Pascal Pons'
weak solver runs it: a node succeeds for its mover when one move leads to a child that fails
for its own mover. Moves are the game's ``proof_candidates`` when it has them (the moves left
out lose at once), best first by the static evaluation of the child. Every node it finishes is
stored in df-pn's table as a solved entry, ``(0, INF)`` or ``(INF, 0)``, with the length of the
line it found (plies to the end: the first winning line for a success, the longest refutation
for a failure), so that df-pn, the proof walk and later searches read its results as their own.
Entries it finds solved end the node at once.

Only for games with ``plies_fixed_by_position`` and searches without a depth bound or
database leaves: a position then has one value whatever the path to it, which is what lets a
depth-first search store it as solved. A node budget and a stop flag (``params``) end the
search early; the result is then unknown, and every entry stored so far stays exact.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
import runtime.recursion_typing  # noqa: F401  (goal_alphabeta calls itself: typed by its signature)
from runtime.borrow import borrowed
from runtime.stopping import poll_due
from proofsearch.goals import GOAL_DRAW, mover_succeeds
from proofsearch.table import (INFINITY, INT32_2D, INT64_1D, INT64_2D, TABLE, UINT64_2D, entry_length, other_goal_key,
                              prefetch, probe,
                              read_entry, store, table_key)

INF = np.int64(INFINITY)
UNFINISHED = -1  # the budget ran out or the stop flag was raised
NOT_SOLVED = -2  # no table entry settles the node

# Parameters and results (params[...]).
A_GOAL, A_SALT, A_BUDGET, A_GENERATION, A_CANDIDATES, A_STOP, A_NODES, A_BEST, A_ROOT = range(9)
ALPHABETA_PARAMS = 9



@nb.njit(cache=True, inline="always")
def encode(succeeds, length):
    """A finished node's result: its length (plies to the end along the line found) and
    whether its mover succeeds, in one non-negative integer."""
    return (length << 1) | np.int64(succeeds)


@nb.njit(cache=True, inline="always")
def solved_in_table(table, key, mover_wants_draw, generation):
    """The result (as :func:`encode` gives it) the table holds for the node of ``key``, or ``NOT_SOLVED``.
    The entry of the mover's other goal (same bucket) counts too: a win is a success for the
    draw goal, and failing to draw is a failure for the win goal. A result read that way is
    stored under ``key`` as well, so that the proof walk, which reads a goal's own entries,
    finds it."""
    row = probe(table, key)
    if row >= 0:
        phi, delta = read_entry(table, row)
        if phi == 0 or delta == 0:
            return encode(phi == 0, entry_length(table, row))
    row = probe(table, other_goal_key(key))
    if row >= 0:
        phi, delta = read_entry(table, row)
        if (phi == 0) if mover_wants_draw else (delta == 0):
            length = entry_length(table, row)
            store(table, key, 0 if mover_wants_draw else INF, INF if mover_wants_draw else 0, 1, 0, generation,
                  length)
            return encode(mover_wants_draw, length)
    return NOT_SOLVED


@nb.njit(types.int64(K.LegalMovesKernel, K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.HashKernel,
                     K.EvaluateKernel, UINT64_2D, INT32_2D, INT64_2D, UINT64_2D, TABLE, INT64_1D, types.int64,
                     types.uint64, types.boolean),
         cache=True, nogil=True)
def goal_alphabeta(legal_moves, candidates, play, outcome, position_key, evaluate, positions, moves, scores,
                   keys, table, params, ply, key, probed):
    """Solve ``positions[ply]`` for its mover (the root attacker's goal ``params[A_GOAL]`` at
    even plies, its dual at odd ones, as in df-pn); rows ``ply + 1`` and beyond of
    ``positions``, ``moves``, ``scores`` and ``keys`` are scratch. ``key`` is the node's table key
    when the caller has it (0: not known); ``probed``, that the caller found no entry settling
    the node. Returns :func:`encode`'s result, or
    ``UNFINISHED``. The search starts at ``ply == params[A_ROOT]``: there the table's entry is not
    taken (the children are read, so that a success writes its winning move into
    ``params[A_BEST]``).
    """
    # Lent (runtime/borrow.py): counting references to them at every node took about 40% of
    # the time of a Connect Four proof. The recursive calls get them lent already.
    positions, moves, scores, keys, table, params = borrowed((positions, moves, scores, keys, table, params))
    # 1. Count the node, unless the budget is spent or another thread says stop.
    if params[A_NODES] >= params[A_BUDGET] or (poll_due(params[A_NODES]) and params[A_STOP] != 0):
        return UNFINISHED
    params[A_NODES] += 1
    goal = params[A_GOAL]
    position = positions[ply]
    mover_is_attacker = ply % 2 == 0

    # 2. A finished game.
    count = legal_moves(position, moves[ply])
    result = outcome(position, count)
    if result != K.ONGOING:
        return encode(mover_succeeds(goal, mover_is_attacker, result), 0)

    # 3. The table: a solved entry ends the node.
    salt = types.uint64(params[A_SALT])
    if key == 0:
        key = table_key(position_key(position), salt, goal, -1, ply)
    if ply != params[A_ROOT] and not probed:
        found = solved_in_table(table, key, (goal ^ (ply & 1)) == GOAL_DRAW, params[A_GENERATION])
        if found != NOT_SOLVED:
            return found

    # 4. The moves to try: every legal move left out by the candidates loses at once.
    if params[A_CANDIDATES] != 0:
        count = candidates(position, moves[ply])
    generation = params[A_GENERATION]
    if count == 0:
        store(table, key, INF, 0, 1, 0, generation, 2)
        return encode(False, 2)

    # 5. Best first: the child the evaluation likes least for its mover. Its table key is
    # found (and handed down) and its bucket asked for now, so that the loads overlap.
    child = positions[ply + 1]
    keys[ply, 0] = 0  # a single move needs neither: the child finds its own key
    for i in range(count if count > 1 else 0):
        play(position, moves[ply, i], child)
        scores[ply, i] = -np.int64(evaluate(child))
        keys[ply, i] = table_key(position_key(child), salt, goal, -1, ply + 1)
        prefetch(table, keys[ply, i])
    for i in range(1, count):
        j = i
        while j > 0 and scores[ply, j - 1] < scores[ply, j]:
            scores[ply, j - 1], scores[ply, j] = scores[ply, j], scores[ply, j - 1]
            moves[ply, j - 1], moves[ply, j] = moves[ply, j], moves[ply, j - 1]
            keys[ply, j - 1], keys[ply, j] = keys[ply, j], keys[ply, j - 1]
            j -= 1

    # 6. The first child that fails for its mover is a success; if none, a failure. After the
    # first child, the others' entries are read before any is searched (by then their buckets
    # are in the cache): one that shows its child failing for its mover is a success at once
    # (an enhanced transposition cutoff), and one settled the other way needs no search.
    first_node = params[A_NODES]
    longest = np.int64(0)
    child_wants_draw = (goal ^ ((ply + 1) & 1)) == GOAL_DRAW
    for i in range(count):
        if i == 1:
            for j in range(1, count):
                scores[ply, j] = solved_in_table(table, keys[ply, j], child_wants_draw, generation)
                if scores[ply, j] != NOT_SOLVED and (scores[ply, j] & 1) == 0:
                    moves[ply, 1], moves[ply, j] = moves[ply, j], moves[ply, 1]
                    scores[ply, 1], scores[ply, j] = scores[ply, j], scores[ply, 1]
                    keys[ply, 1], keys[ply, j] = keys[ply, j], keys[ply, 1]
                    break
        if i >= 1 and scores[ply, i] != NOT_SOLVED:
            below = scores[ply, i]  # the child's result, found in the table
        else:
            play(position, moves[ply, i], child)
            below = goal_alphabeta(legal_moves, candidates, play, outcome, position_key, evaluate, positions,
                                   moves, scores, keys, table, params, ply + 1, keys[ply, i], i >= 1)
        if below == UNFINISHED:
            return UNFINISHED
        length = (below >> 1) + 1
        if (below & 1) == 0:
            store(table, key, 0, INF, params[A_NODES] - first_node, 0, generation, length)
            if ply == params[A_ROOT]:
                params[A_BEST] = moves[ply, i]
            return encode(True, length)
        longest = max(longest, length)
    store(table, key, INF, 0, params[A_NODES] - first_node, 0, generation, longest)
    return encode(False, longest)


__all__ = ["goal_alphabeta", "encode", "UNFINISHED", "ALPHABETA_PARAMS", "A_GOAL", "A_SALT", "A_BUDGET",
           "A_GENERATION", "A_CANDIDATES", "A_STOP", "A_NODES", "A_BEST", "A_ROOT"]
