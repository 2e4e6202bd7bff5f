"""Depth-first proof-number search (Nagai's df-pn) over the kernel interface.

One engine, compiled once, serves every game: the game's kernels arrive as arguments typed
``numba.types.FunctionType`` (see :mod:`games.kernels`), so numba loads it from its cache.

phi/delta
    OR nodes (attacker to move) and AND nodes (defender to move) share one code path. Every
    node is seen from its own side to move: ``phi`` is the cost of proving that the mover gets
    what it wants, ``delta`` the cost of refuting that. For a node,
    ``phi = min(delta(child))`` and ``delta = sum(phi(child))``; at an OR node phi/delta are the
    proof/disproof numbers, at an AND node the other way round. A solved node has
    ``(0, INF)`` (the mover succeeds) or ``(INF, 0)`` (it fails).

Threshold loop (the MID procedure, written as an explicit stack)
    A node is searched until ``phi >= th_phi`` or ``delta >= th_delta``. The child with the
    least delta is searched with ``th_phi(child) = th_delta - delta + phi(child)`` and
    ``th_delta(child) = min(th_phi, ceil(delta_2 * (1 + epsilon)))`` where ``delta_2`` is the
    second-least delta: the 1+epsilon trick (Pawlewicz and Lew) that keeps the search longer in
    one child instead of switching back and forth between two nearly equal ones.

Initial numbers
    A new node gets ``phi = 1`` and ``delta`` = its number of moves (candidate moves when the
    game offers a ``proof_candidates`` kernel, below). Children are tried in the order of the
    static evaluation (best for the parent first).

Graph-history interaction
    A position that repeats one on the current path (or in the given history) is a draw leaf.
    Every solved node records the shallowest path index whose presence its result relies on
    (``dep``). A node at index ``i`` with ``dep >= i`` relies only on its own subtree: its result
    holds whatever the path, and only such results are stored as solved in the transposition
    table. A result that relies on a shallower ancestor is kept by its parent for as long as
    the parent is being searched, never stored, so no repetition-based proof or disproof can
    leak into another path through the table.

Depth bound
    With ``max_depth``, a position ``max_depth`` plies below the root that is not finished is a
    leaf that fails ``win`` and survives for ``draw``; results leaning on such leaves are marked
    bounded (the search reports them as ``unknown``). Keys then include the remaining depth.

Games whose positions fix their ply (``Game.plies_fixed_by_position``: every move adds a
stone, as in Connect Four) cannot repeat a position, and nothing below one child can be its
sibling: for them the search skips the repetition scan and, when it comes back to a node, does
not read its other children's entries again. Both shortcuts leave the search node for node
the same (tested); they save about a quarter of its time on Connect Four.

Hand-off to alpha-beta: in a game with a hand-off in :mod:`proofsearch.settings` (Connect Four), a root df-pn has
not solved after that many nodes goes to the depth-first goal search of
:mod:`proofsearch.alphabeta`, which stores every node it finishes as a solved entry of this
table; the proof walk reads them like df-pn's own (only without depth bound or tables).

Memory: the children's table buckets are prefetched before any of them is probed, so the
cache misses of one expansion overlap (about a quarter of the time on Connect Four and on long
chess mates with a table of 64 MiB or more).

Optional kernel ``proof_candidates(pos, moves) -> int64`` (same signature as ``legal_moves``,
an attribute of the game object when it has one): writes a subset of the legal moves such that
every legal move left out loses at once (the opponent can then finish the game with a win in one
move); it may return 0 when every move loses so. Without it the search uses ``legal_moves``
(correct, only slower where immediate threats abound, as in Connect Four).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba as nb
import numpy as np
from numba import types

from databases.cache import ARENA, DIRECTORY
from games import kernels as K
from games.game import Game
from games.table_family import RankKernel
from proofsearch.alphabeta import (A_BEST, A_CANDIDATES, A_GENERATION, A_GOAL, A_NODES, A_SALT, A_STOP,
                                   A_BUDGET, ALPHABETA_PARAMS, UNFINISHED, goal_alphabeta)
from databases.leaves import (PAGE_MISSING, DatabaseLeaves, database_code, decode_code,
                                         empty_leaf_arrays, no_tables)
from proofsearch.goals import GOAL_DRAW, GOAL_WIN, goal_code, mover_succeeds
from proofsearch.settings import prover_settings
from proofsearch.table import (FLAG_BOUNDED, INFINITY, INT32_2D, INT64_1D, INT64_2D, INT64_3D, TABLE, UINT64_1D,
                              UINT64_2D, TranspositionTable, entry_flags, entry_length, is_disproven, other_goal_key,
                              prefetch, probe, read_entry, store, table_key)
from runtime.borrow import borrowed
from runtime.interrupt import flag_raiser, run_interruptibly
from runtime.stopping import limit_reached, next_chunk, poll_due

INF = np.int64(INFINITY)
NO_DEP = np.int64(1) << 40

# Per-child fields of the child_vals[ply, child, field] array.
C_PHI, C_DELTA, C_DEP, C_BOUNDED, C_SOLVED, C_ORDER, C_LENGTH = range(7)
CHILD_FIELDS = 7
# Per-ply fields of the frames[ply, field] array.
F_TH_PHI, F_TH_DELTA, F_COUNT, F_SELECTED, F_START = range(5)
FRAME_FIELDS = 5
# Parameters (params[...]).
(P_GOAL, P_MAX_DEPTH, P_BUDGET, P_EPSILON, P_GENERATION, P_SALT, P_HISTORY, P_CANDIDATES, P_EVAL_SCALE,
 P_DATABASE, P_STOP, P_FIXED_PLIES) = range(12)
PARAMS = 12
# A call with at most this many nodes runs in the calling thread (at most about 0.1 s): handing
# it to the worker thread costs more than small searches take (runtime.interrupt).
IN_PLACE_NODES = 20_000
# Results (stats[...]).
S_NODES, S_PN, S_DN, S_DEP, S_BOUNDED, S_BEST, S_BEST_PHI, S_PAGE_MISSING, S_LENGTH = range(9)
STATS = 9



@nb.njit(types.UniTuple(types.int64, 2)(TABLE, types.uint64, types.uint64, types.int64, types.int64,
                                         types.int64), cache=True)
def least_refuted_depth(table, position_hash, salt, goal, ply, up_to):
    """(remaining depth, length) of the table's tightest entry holding the position at ``ply``
    as solved against its mover: the least remaining depth in ``0..up_to`` at which it is, or
    ``(-1, 0)``. Without a depth bound (``up_to < 0``) the one depth-free entry, as depth 0.
    Proof extraction walks these: always taking the tightest entry keeps a line from coming
    back to a position it has passed. A mover whose goal is ``win`` is also refuted by an
    entry showing it fails to draw (alpha-beta settles nodes by such entries)."""
    wants_win = (goal ^ (ply & 1)) == GOAL_WIN
    for remaining in range(max(up_to, 0) + 1):
        key = table_key(position_hash, salt, goal, ply + remaining if up_to >= 0 else -1, ply)
        row = probe(table, key)
        if row < 0 or not is_disproven(table, row):
            row = probe(table, other_goal_key(key)) if wants_win else -1
        if row >= 0 and is_disproven(table, row):
            return np.int64(remaining), entry_length(table, row)
    return np.int64(-1), np.int64(0)


@nb.njit(types.int64(
    K.LegalMovesKernel, K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.HashKernel, K.EvaluateKernel,
    UINT64_2D, INT32_2D, INT32_2D, UINT64_2D, INT64_3D, INT64_2D, UINT64_1D, TABLE, INT64_1D, INT64_1D,
    RankKernel, DIRECTORY, INT64_1D, ARENA),
    cache=True, nogil=True)
def dfpn_kernel(legal_moves, candidates, play, outcome, hash_position, evaluate,
                positions, move_buffer, child_moves, child_hashes, child_vals, frames,
                path_hash, table, params, stats, rank, db_directory, db_bases, db_arena):
    """Search ``positions[0]`` until it is solved or ``params[P_BUDGET]`` nodes are expanded.

    ``positions`` and ``move_buffer`` have one row per ply plus a scratch row; ``path_hash``
    holds the hashes of the history (``params[P_HISTORY]`` entries) followed by room for the
    path. Writes the root's numbers into ``stats`` and returns the number of nodes expanded.
    With ``params[P_DATABASE]``, positions the tables cover are leaves (``rank`` and the page
    cache arrays, see :mod:`databases.leaves`); if a needed page is not resident the
    kernel stops at once with ``stats[S_PAGE_MISSING] = 1`` and that position in
    ``positions[ply + 1]``, for the caller to load the page and search again. Another thread
    may set ``params[P_STOP]``: the kernel then returns within ``POLL_MASK + 1`` expansions (runtime.stopping),
    leaving ``stats`` meaningless (the table stays consistent).
    """
    # Lent for the call (runtime/borrow.py): counting references to them at every node took
    # about half of the prover's time.
    (positions, move_buffer, child_moves, child_hashes, child_vals, frames, path_hash, table, params,
     stats, db_directory, db_bases, db_arena) = borrowed(
        (positions, move_buffer, child_moves, child_hashes, child_vals, frames, path_hash, table, params,
         stats, db_directory, db_bases, db_arena))
    goal = params[P_GOAL]
    max_depth = params[P_MAX_DEPTH]
    budget = params[P_BUDGET]
    epsilon = params[P_EPSILON]  # threshold factor in 1/1024ths
    generation = params[P_GENERATION]
    salt = types.uint64(params[P_SALT])
    history = params[P_HISTORY]
    use_candidates = params[P_CANDIDATES] != 0
    eval_scale = params[P_EVAL_SCALE]
    use_database = params[P_DATABASE] != 0
    fixed_plies = params[P_FIXED_PLIES] != 0
    stats[S_PAGE_MISSING] = 0
    stack = positions.shape[0] - 1
    scratch = positions[stack]
    scratch_moves = move_buffer[stack]
    nodes = np.int64(0)

    path_hash[history] = hash_position(positions[0])
    frames[0, F_TH_PHI] = INF
    frames[0, F_TH_DELTA] = INF
    ply = 0
    expand = True
    while True:
        mover_is_attacker = ply % 2 == 0
        if expand:
            # --- 1. generate the children of the node at ply and give each its numbers ---
            expand = False
            nodes += 1
            if poll_due(nodes) and params[P_STOP] != 0:
                return nodes
            frames[ply, F_START] = nodes
            parent = positions[ply]
            remaining = max_depth - ply if max_depth >= 0 else np.int64(1) << 30
            count = legal_moves(parent, move_buffer[ply])
            if use_candidates and remaining >= 2:
                count = candidates(parent, move_buffer[ply])
            child = positions[ply + 1]
            child_remaining = remaining - 1
            # Ask for every child's table bucket first, so that the loads overlap instead of
            # each probe below waiting on memory in turn.
            for i in range(count):
                play(parent, move_buffer[ply, i], child)
                prefetch(table, table_key(hash_position(child), salt, goal, max_depth, ply + 1))
            for i in range(count):
                move = move_buffer[ply, i]
                play(parent, move, child)
                child_hash = hash_position(child)
                child_moves[ply, i] = move
                child_hashes[ply, i] = child_hash
                vals = child_vals[ply, i]
                vals[C_DEP] = NO_DEP
                vals[C_BOUNDED] = 0
                vals[C_SOLVED] = 0
                vals[C_ORDER] = 0
                vals[C_LENGTH] = 0
                child_is_attacker = not mover_is_attacker
                solved = False
                succeeds = False
                leaf_distance = np.int64(0)  # plies to the end of a table leaf (move ordering)
                n_child = legal_moves(child, scratch_moves)
                result = outcome(child, n_child)
                if result != K.ONGOING:
                    solved = True
                    succeeds = mover_succeeds(goal, child_is_attacker, result)
                elif use_database:
                    code = database_code(rank, db_directory, db_bases, db_arena, child)
                    if code == PAGE_MISSING:
                        scratch[:] = child  # the caller loads its page from here
                        stats[S_PAGE_MISSING] = 1
                        return nodes
                    if code > 0:
                        value, distance = decode_code(code)
                        attacker_value = value if child_is_attacker else -value
                        # A table win for the attacker ends the line only if the mate fits.
                        if not (max_depth >= 0 and goal == GOAL_WIN and attacker_value == K.WIN
                                and distance > child_remaining):
                            solved = True
                            succeeds = mover_succeeds(goal, child_is_attacker, value)
                            leaf_distance = distance
                            vals[C_LENGTH] = distance
                if result == K.ONGOING and not solved:
                    repeated = np.int64(-1)
                    # Same side to move as the child: every other index (none to scan when
                    # positions fix their ply: they cannot repeat).
                    j = history + ply - 1 if not fixed_plies else np.int64(-1)
                    while j >= 0:
                        if path_hash[j] == child_hash:
                            repeated = j
                            break
                        j -= 2
                    if repeated >= 0:
                        solved = True
                        succeeds = mover_succeeds(goal, child_is_attacker, K.DRAW)
                        vals[C_DEP] = repeated
                    elif child_remaining <= 0 or ply + 1 >= stack - 1:
                        # The depth horizon (or the end of the stack): unknown, counted as
                        # failing `win` and surviving for `draw`.
                        solved = True
                        attacker_ok = goal == GOAL_DRAW
                        succeeds = attacker_ok if child_is_attacker else not attacker_ok
                        vals[C_BOUNDED] = 1
                if not solved:
                    score = np.int64(evaluate(child))
                    row = probe(table, table_key(child_hash, salt, goal, max_depth, ply + 1))
                    if row >= 0:
                        phi, delta = read_entry(table, row)
                        vals[C_PHI] = phi
                        vals[C_DELTA] = delta
                        if phi == 0 or delta == 0:
                            vals[C_SOLVED] = 1
                            vals[C_BOUNDED] = entry_flags(table, row) & FLAG_BOUNDED
                            vals[C_LENGTH] = entry_length(table, row)
                    else:
                        mobility = n_child
                        if use_candidates and child_remaining >= 2:
                            mobility = candidates(child, scratch_moves)
                            if mobility == 0:
                                solved = True  # every move loses at once: two plies to the end
                                succeeds = False
                                vals[C_LENGTH] = 2
                            elif mobility == 1:
                                # A single candidate: a forced win at once shows here.
                                play(child, scratch_moves[0], scratch)
                                n_grand = legal_moves(scratch, scratch_moves)
                                grand = outcome(scratch, n_grand)
                                if grand != K.ONGOING:
                                    solved = True
                                    succeeds = not mover_succeeds(goal, mover_is_attacker, grand)
                                    vals[C_LENGTH] = 1
                        if not solved:
                            vals[C_PHI] = 1
                            vals[C_DELTA] = max(mobility, 1)
                            if eval_scale > 0:
                                # The static evaluation shades the numbers: the side it favours
                                # looks cheaper to prove.
                                vals[C_PHI] += max(-score, 0) // eval_scale
                                vals[C_DELTA] += max(score, 0) // eval_scale
                    vals[C_ORDER] = -score
                if solved:
                    vals[C_SOLVED] = 1
                    if succeeds:
                        vals[C_PHI] = 0
                        vals[C_DELTA] = INF
                        vals[C_ORDER] = -(np.int64(1) << 40)  # useless to the parent: last
                    else:
                        vals[C_PHI] = INF
                        vals[C_DELTA] = 0
                        # Refutes the child's mover: first, the quickest table win foremost.
                        vals[C_ORDER] = (np.int64(1) << 40) - leaf_distance
            # Order children best-first for the parent (insertion sort on C_ORDER, stable).
            for i in range(1, count):
                j = i
                while j > 0 and child_vals[ply, j - 1, C_ORDER] < child_vals[ply, j, C_ORDER]:
                    for f in range(CHILD_FIELDS):
                        tmp = child_vals[ply, j - 1, f]
                        child_vals[ply, j - 1, f] = child_vals[ply, j, f]
                        child_vals[ply, j, f] = tmp
                    tm = child_moves[ply, j - 1]
                    child_moves[ply, j - 1] = child_moves[ply, j]
                    child_moves[ply, j] = tm
                    th = child_hashes[ply, j - 1]
                    child_hashes[ply, j - 1] = child_hashes[ply, j]
                    child_hashes[ply, j] = th
                    j -= 1
            frames[ply, F_COUNT] = count

        # --- 2. the node's phi/delta from its children (refreshed from the table) ---
        count = frames[ply, F_COUNT]
        phi = INF
        delta = np.int64(0)
        best = np.int64(-1)
        delta_2 = INF
        child_is_attacker = not mover_is_attacker
        for i in range(count):
            vals = child_vals[ply, i]
            if vals[C_SOLVED] == 0 and not fixed_plies:
                row = probe(table, table_key(child_hashes[ply, i], salt, goal, max_depth, ply + 1))
                if row >= 0:
                    c_phi, c_delta = read_entry(table, row)
                    vals[C_PHI] = c_phi
                    vals[C_DELTA] = c_delta
                    if c_phi == 0 or c_delta == 0:
                        vals[C_SOLVED] = 1
                        vals[C_DEP] = NO_DEP
                        vals[C_BOUNDED] = entry_flags(table, row) & FLAG_BOUNDED
                        vals[C_LENGTH] = entry_length(table, row)
            c_phi = vals[C_PHI]
            c_delta = vals[C_DELTA]
            if c_phi >= INF or delta >= INF:
                delta = INF
            else:
                delta = min(delta + c_phi, INF - 1)
            if c_delta < phi or best < 0:
                delta_2 = phi
                phi = c_delta
                best = i
            elif c_delta < delta_2:
                delta_2 = c_delta
        if count == 0:
            phi = INF
            delta = 0

        # --- 3. leave the node when a threshold is reached or the budget is spent ---
        if phi >= frames[ply, F_TH_PHI] or delta >= frames[ply, F_TH_DELTA] or nodes >= budget:
            dep = NO_DEP
            bounded = np.int64(0)
            length = np.int64(0)  # plies to the end along the solution (solved nodes)
            solved_here = phi == 0 or delta == 0
            if phi == 0:
                # The mover succeeds through one refuted child: pick the least path-dependent,
                # unbounded one, then the quickest.
                choice = -1
                for i in range(count):
                    vals = child_vals[ply, i]
                    if vals[C_DELTA] == 0:
                        chosen = child_vals[ply, choice]
                        if (choice < 0 or vals[C_BOUNDED] < chosen[C_BOUNDED]
                                or (vals[C_BOUNDED] == chosen[C_BOUNDED]
                                    and (vals[C_DEP] > chosen[C_DEP]
                                         or (vals[C_DEP] == chosen[C_DEP] and vals[C_LENGTH] < chosen[C_LENGTH])))):
                            choice = i
                best = choice
                dep = child_vals[ply, choice, C_DEP]
                bounded = child_vals[ply, choice, C_BOUNDED]
                length = child_vals[ply, choice, C_LENGTH] + 1
            elif delta == 0:
                # The mover fails: every child was needed, the longest line counts.
                for i in range(count):
                    dep = min(dep, child_vals[ply, i, C_DEP])
                    bounded |= child_vals[ply, i, C_BOUNDED]
                    length = max(length, child_vals[ply, i, C_LENGTH] + 1)
            if dep >= history + ply:
                dep = NO_DEP
            if not solved_here or dep == NO_DEP:
                store(table, table_key(path_hash[history + ply], salt, goal, max_depth, ply), phi, delta,
                      nodes - frames[ply, F_START] + 1, FLAG_BOUNDED if bounded else 0, generation, length)
            if ply == 0:
                stats[S_NODES] = nodes
                stats[S_PN] = phi
                stats[S_DN] = delta
                stats[S_DEP] = dep
                stats[S_BOUNDED] = bounded
                stats[S_BEST] = child_moves[0, best] if best >= 0 else -1
                stats[S_BEST_PHI] = phi
                stats[S_LENGTH] = length
                return nodes
            ply -= 1
            vals = child_vals[ply, frames[ply, F_SELECTED]]
            vals[C_PHI] = phi
            vals[C_DELTA] = delta
            if solved_here:
                vals[C_SOLVED] = 1
                vals[C_DEP] = dep
                vals[C_BOUNDED] = bounded
                vals[C_LENGTH] = length
            continue

        # --- 4. descend into the most promising child ---
        frames[ply, F_SELECTED] = best
        c_phi = child_vals[ply, best, C_PHI]
        th_phi = frames[ply, F_TH_DELTA] - delta + c_phi
        th_delta = frames[ply, F_TH_PHI]
        if delta_2 < INF:
            widened = max(delta_2 + 1, (delta_2 * epsilon + 1023) >> 10)
            th_delta = min(th_delta, widened)
        play(positions[ply], child_moves[ply, best], positions[ply + 1])
        ply += 1
        path_hash[history + ply] = child_hashes[ply - 1, best]
        frames[ply, F_TH_PHI] = min(th_phi, INF)
        frames[ply, F_TH_DELTA] = min(th_delta, INF)
        expand = True


@dataclass
class SearchResult:
    """What a df-pn search found at the root."""

    result: str  # "proven", "disproven" or "unknown"
    goal: str
    best: int | None  # a move proving the goal (proven), else the most promising one, if any
    nodes: int
    seconds: float
    reason: str = ""  # why "unknown": "node limit", "time limit", "depth limit", "stopped"
    pn: int = 0
    dn: int = 0
    # Solved: plies from the root to the end of the game along the solution found (for a proven
    # ``win``, a mate within that many plies; not necessarily the shortest). Else None.
    length: int | None = None


def _candidates_kernel(game: Game):
    """The game's optional ``proof_candidates`` kernel, or its ``legal_moves``."""
    kernel = getattr(game, "proof_candidates", None)
    return (kernel, True) if kernel is not None else (game.kernels.legal_moves, False)


def position_key_kernel(game: Game):
    """The kernel whose hash keys the prover's table: the game's optional ``proof_key`` (shared
    by symmetric positions), else its ``hash``. Only a game whose positions fix their ply may
    have a ``proof_key``: the search compares keys to find repetitions, and a mirror image is
    not a repetition."""
    kernel = getattr(game, "proof_key", None)
    if kernel is None:
        return game.kernels.hash
    if not game.plies_fixed_by_position:
        raise ValueError(f"{game.name}: a proof_key needs positions that fix their ply")
    return kernel


class DfpnSearch:
    """Reusable df-pn search over one game: buffers and a transposition table kept between
    calls (each call is a fresh search; the table's generations keep them apart)."""

    def __init__(self, game: Game, table: TranspositionTable | None = None, stack: int | None = None,
                 epsilon: float | None = None, eval_scale: int = 0, database: DatabaseLeaves | None = None,
                 handoff: int | bool = True):
        self.game = game
        self.database = database
        self.eval_scale = eval_scale
        self.table = table if table is not None else TranspositionTable()
        self.epsilon = prover_settings(game).epsilon if epsilon is None else epsilon
        self.stack = stack if stack is not None else min(game.max_game_length, 1000) + 2
        width, moves = game.position_width, game.max_moves
        self.positions = np.zeros((self.stack + 1, width), dtype=np.uint64)
        self.move_buffer = np.zeros((self.stack + 1, moves), dtype=np.int32)
        self.child_moves = np.zeros((self.stack, moves), dtype=np.int32)
        self.child_hashes = np.zeros((self.stack, moves), dtype=np.uint64)
        self.child_vals = np.zeros((self.stack, moves, CHILD_FIELDS), dtype=np.int64)
        self.frames = np.zeros((self.stack, FRAME_FIELDS), dtype=np.int64)
        self.candidates, self.has_candidates = _candidates_kernel(game)
        self.position_key = position_key_kernel(game)
        self._no_database = empty_leaf_arrays()
        self._params = np.zeros(PARAMS, dtype=np.int64)  # those of the search running now
        self._alphabeta_params = np.zeros(ALPHABETA_PARAMS, dtype=np.int64)
        self.scores = np.zeros((self.stack + 1, moves), dtype=np.int64)  # alpha-beta's move order
        self.child_keys = np.zeros((self.stack + 1, moves), dtype=np.uint64)  # and its children's keys
        # True: the game's own hand-off (proofsearch.settings); False: df-pn alone; or a node count.
        self.handoff = prover_settings(game).handoff if handoff is True else (None if handoff is False else int(handoff))

    def stop(self) -> None:
        """Stop the search running now (from another thread): it returns ``unknown``, reason
        ``stopped``, within about a thousand expansions. Ctrl-C in the main thread stops it too
        (and raises KeyboardInterrupt)."""
        self._params[P_STOP] = 1
        self._alphabeta_params[A_STOP] = 1

    def prove(self, position: np.ndarray, goal: str = "win", max_nodes: int | None = None,
              seconds: float | None = None, max_depth: int | None = None,
              history: list[int] | None = None, progress=None) -> SearchResult:
        """Prove or disprove ``goal`` for the side to move in ``position``.

        ``history`` is the hashes of earlier positions of the game (oldest first, the
        position's parent last): repeating one of them is a draw. Limits on nodes, seconds and
        depth give ``unknown`` when hit, never a guess. ``progress(nodes, seconds)`` is called
        between chunks of work. Interruptible: see :meth:`stop`.
        """
        code = goal_code(goal)
        if max_depth is not None and max_depth < 0:
            raise ValueError("max_depth must be >= 0")
        started = time.perf_counter()
        history = list(history or [])
        path_hash = np.zeros(len(history) + self.stack + 1, dtype=np.uint64)
        path_hash[:len(history)] = np.array(history, dtype=np.uint64)
        self.positions[0] = position
        generation, salt = self.table.new_search(), self.table.salt
        params = self._params = np.zeros(PARAMS, dtype=np.int64)
        params[P_GOAL] = code
        params[P_MAX_DEPTH] = -1 if max_depth is None else max_depth
        params[P_EPSILON] = int(round((1 + self.epsilon) * 1024))
        params[P_GENERATION] = generation
        params[P_SALT] = np.int64(np.uint64(salt).view(np.int64))
        params[P_HISTORY] = len(history)
        params[P_CANDIDATES] = int(self.has_candidates)
        params[P_EVAL_SCALE] = self.eval_scale
        params[P_DATABASE] = int(self.database is not None)
        params[P_FIXED_PLIES] = int(self.game.plies_fixed_by_position)
        if self.database is not None:
            rank, db_bases = self.database.rank, self.database.bases
        else:
            rank, db_bases = no_tables, self._no_database[1]
        stats = np.zeros(STATS, dtype=np.int64)
        stats[S_BEST] = -1  # no move until a chunk has finished at the root
        kernels = self.game.kernels

        root_result = self._root_outcome(position, code)
        if root_result is not None:
            return SearchResult(root_result, goal, None, 0, time.perf_counter() - started, length=0)

        # df-pn first; a position it has not solved after `handoff` nodes goes to alpha-beta.
        handoff = self._handoff(max_depth)
        total = 0
        chunk = 20000 if seconds is None else 2000  # on a clock, learn the node rate first
        reason = ""
        while True:
            budget = chunk if max_nodes is None else min(chunk, max_nodes - total)
            if handoff is not None:
                budget = min(budget, handoff - total)
            params[P_BUDGET] = max(budget, 1)
            self.positions[0] = position
            directory, arena = self._leaf_arrays()
            total += run_interruptibly(
                lambda: dfpn_kernel(kernels.legal_moves, self.candidates, kernels.play, kernels.outcome,
                                    self.position_key, kernels.evaluate, self.positions, self.move_buffer,
                                    self.child_moves, self.child_hashes, self.child_vals, self.frames,
                                    path_hash, self.table.rows, params, stats,
                                    rank, directory, db_bases, arena),
                flag_raiser(params, P_STOP), in_place=params[P_BUDGET] <= IN_PLACE_NODES)
            elapsed = time.perf_counter() - started
            if params[P_STOP]:  # stats were left half-written: no result
                pn = dn = -1
                reason = "stopped"
                break
            page_missing = bool(stats[S_PAGE_MISSING])
            if page_missing:
                # A database page was needed: load it and resume (the table keeps the work).
                self.database.load_page_of(self.positions[self.stack])
                pn = dn = -1
            else:
                pn, dn = int(stats[S_PN]), int(stats[S_DN])
                if pn == 0 or dn == 0:
                    break
            reason = limit_reached(total, elapsed, max_nodes, seconds)
            if reason:
                break
            if handoff is not None and total >= handoff:
                return self._finish_by_alphabeta(position, code, goal, stats, total, started, max_nodes, seconds,
                                                 progress)
            if page_missing:
                continue
            if progress is not None:
                progress(total, elapsed)
            chunk = next_chunk(chunk, total / max(elapsed, 1e-6), None if seconds is None else seconds - elapsed)
        elapsed = time.perf_counter() - started
        best = int(stats[S_BEST]) if stats[S_BEST] >= 0 else None
        if pn == 0 or dn == 0:
            result = "proven" if pn == 0 else "disproven"
            if stats[S_BOUNDED]:
                result, reason = "unknown", "depth limit"
            if result != "proven":
                best = best if result == "unknown" else None
        else:
            result = "unknown"
        length = int(stats[S_LENGTH]) if result != "unknown" else None
        return SearchResult(result, goal, best, total, elapsed, reason, pn, dn, length)

    def handoff_applies(self, max_depth: int | None) -> bool:
        """Whether a search with this depth bound hands off to alpha-beta."""
        return self._handoff(max_depth) is not None

    def _handoff(self, max_depth: int | None) -> int | None:
        """df-pn nodes after which an unsolved position goes to alpha-beta, or None (the game
        does not hand off, or this search is one alpha-beta cannot run: see
        :mod:`proofsearch.alphabeta`)."""
        if (self.handoff is None or not self.game.plies_fixed_by_position or max_depth is not None
                or self.database is not None):
            return None
        return self.handoff

    def _finish_by_alphabeta(self, position: np.ndarray, code: int, goal: str, dfpn_stats: np.ndarray,
                             nodes: int, started: float, max_nodes: int | None, seconds: float | None,
                             progress) -> SearchResult:
        """Solve the root with :func:`proofsearch.alphabeta.goal_alphabeta` after df-pn's
        ``nodes``. Under limits it runs in chunks of doubling budgets (each restart reads what the
        last one solved from the table); an unfinished search reports df-pn's numbers."""
        params = self._alphabeta_params = np.zeros(ALPHABETA_PARAMS, dtype=np.int64)
        params[A_GOAL] = code
        params[A_SALT] = np.int64(np.uint64(self.table.salt).view(np.int64))
        params[A_GENERATION] = self.table.generation
        params[A_CANDIDATES] = int(self.has_candidates)
        params[A_STOP] = self._params[P_STOP]  # a stop that came as df-pn handed over
        kernels = self.game.kernels
        chunk = 1 << 16
        reason = ""
        while True:
            unlimited = max_nodes is None and seconds is None
            params[A_BUDGET] = np.iinfo(np.int64).max if unlimited else chunk
            if max_nodes is not None:
                params[A_BUDGET] = min(params[A_BUDGET], max(max_nodes - nodes, 1))
            params[A_NODES] = 0
            chunk_started = time.perf_counter()
            self.positions[0] = position
            tick = None
            if progress is not None:  # live figures from the kernel's node counter
                def tick(before=nodes):
                    progress(before + int(params[A_NODES]), time.perf_counter() - started)
            found = run_interruptibly(
                lambda: goal_alphabeta(kernels.legal_moves, self.candidates, kernels.play, kernels.outcome,
                                       self.position_key, kernels.evaluate, self.positions, self.move_buffer,
                                       self.scores, self.child_keys, self.table.rows, params, 0, np.uint64(0), False),
                flag_raiser(params, A_STOP), tick, in_place=params[A_BUDGET] <= IN_PLACE_NODES)
            nodes += int(params[A_NODES])
            elapsed = time.perf_counter() - started
            if found != UNFINISHED:
                proven = (found & 1) == 1
                best = int(params[A_BEST]) if proven else None
                return SearchResult("proven" if proven else "disproven", goal, best, nodes, elapsed, "",
                                    0 if proven else int(INF), int(INF) if proven else 0, found >> 1)
            reason = "stopped" if params[A_STOP] else limit_reached(nodes, elapsed, max_nodes, seconds)
            if reason:
                best = int(dfpn_stats[S_BEST]) if dfpn_stats[S_BEST] >= 0 else None
                return SearchResult("unknown", goal, best, nodes, elapsed, reason,
                                    int(dfpn_stats[S_PN]), int(dfpn_stats[S_DN]))
            if progress is not None:
                progress(nodes, elapsed)
            rate = params[A_NODES] / max(time.perf_counter() - chunk_started, 1e-6)
            chunk = next_chunk(chunk, rate, None if seconds is None else seconds - elapsed)

    def _leaf_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(page directory, page arena) for the kernel: the database's, or empty ones."""
        if self.database is None:
            return self._no_database[0], self._no_database[2]
        return self.database.directory, self.database.arena

    def _root_outcome(self, position: np.ndarray, code: int) -> str | None:
        """"proven"/"disproven" when the game is already over at the root, else None."""
        buffer = np.empty(self.game.max_moves, dtype=np.int32)
        count = self.game.kernels.legal_moves(position, buffer)
        result = int(self.game.kernels.outcome(position, count))
        if result == K.ONGOING:
            return None
        return "proven" if mover_succeeds(code, True, result) else "disproven"


def prove(game: Game, position: np.ndarray, goal: str = "win", **limits) -> SearchResult:
    """One df-pn search with a fresh default table (see :meth:`DfpnSearch.prove`)."""
    return DfpnSearch(game).prove(position, goal, **limits)


__all__ = ["DfpnSearch", "SearchResult", "prove", "dfpn_kernel", "least_refuted_depth", "table_key", "INF",
           "GOAL_WIN", "GOAL_DRAW"]
