"""The compiled proof walk: a solved search's strategy read from the transposition table in one
numba call, for games whose move text does not depend on the position (Connect Four,
tic-tac-toe) and searches without database leaves.

It makes the choices of :mod:`proofsearch.proof_tree`'s walk, in the same order, and writes the
same tokens: at a prover node the first legal move that ends the game to the prover's good,
else the child with the tightest table entry refuting its mover (least remaining depth, then
shortest line, first in move order among equals; a child the search refuted while generating
its parent, through the game's ``proof_candidates``, counts as an entry of depth 2 and
length 2); at an opponent node every legal move. Where the table has lost what the search knew
at a prover node (entries are replaced as it fills), the kernel returns ``NEEDS_SEARCH``;
:func:`walk_proof` searches that node again, with its path as history, and resumes the walk
with the move found, as the Python walk does. The kernel never backtracks: where the Python
walk would try another move (a repetition that fails the prover), it stops with ``STUCK`` and
the caller runs the Python walk. Tokens are moves (>= 0) and ``TOKEN_REFERENCE`` (a position proven earlier in
the stream, the ``=`` of docs/proof-format.md).
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from proofsearch.dfpn import (
    INT32_2D,
    INT64_1D,
    INT64_2D,
    UINT64_1D,
    UINT64_2D,
    least_refuted_depth,
)
from proofsearch.alphabeta import (A_BEST, A_BUDGET, A_CANDIDATES, A_GENERATION, A_GOAL, A_NODES, A_ROOT, A_SALT,
                                   ALPHABETA_PARAMS, UNFINISHED, goal_alphabeta)
from proofsearch.goals import DUAL_GOALS, GOALS, attacker_reaches
from proofsearch.table import TABLE, prefetch, table_key

# Outcomes of walk_kernel.
DONE, STUCK, NEEDS_SEARCH, NEEDS_ROOM, TOO_DEEP = range(5)
TOKEN_REFERENCE = -1
# Parameters (params[...]).
(W_GOAL, W_PROVER_IS_ATTACKER, W_SALT, W_REMAINING, W_HAS_CANDIDATES, W_RESUME,
 W_FORCED_MOVE, W_FIXED_PLIES) = range(8)
WALK_PARAMS = 8
# How a call starts (params[W_RESUME]): a new walk, or where the last call paused (with the
# move found by a search: NEEDS_SEARCH; with larger buffers: NEEDS_ROOM).
RESUME_FRESH, RESUME_WITH_MOVE, RESUME_AS_PAUSED = range(3)
# Per-ply fields of frames[ply, ...].
(FR_REMAINING, FR_HASH, FR_PROVER, FR_NEXT, FR_COUNT, FR_HEIGHT, FR_REPEATS) = range(7)
FRAME_FIELDS = 7
# Results (stats[...]).
WS_SIZE, WS_TOKENS, WS_WRITTEN, WS_PLY = range(4)
WALK_STATS = 4

INT32_1D = types.Array(types.int32, 1, "C")


@nb.njit(cache=True, inline="always")
def _prover_succeeds(goal, prover_is_attacker, ply, result):
    """Whether a game over with ``result`` for the side to move at ``ply`` is the prover's."""
    attacker_result = result if ply % 2 == 0 else -result
    reached = attacker_reaches(goal, attacker_result)
    return reached if prover_is_attacker else not reached


@nb.njit(cache=True, inline="always")
def _is_candidate(move, candidate_moves, n_candidates, has_candidates):
    """Whether ``move`` is among ``candidate_moves[:n_candidates]`` (every move is, without
    the game's ``proof_candidates``)."""
    if not has_candidates:
        return True
    for i in range(n_candidates):
        if candidate_moves[i] == move:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _written_height(keys, heights, key):
    """The height stored for ``key`` in the open-addressing map, or -1."""
    mask = keys.size - 1
    slot = np.int64(key & types.uint64(mask))
    while heights[slot] >= 0:
        if keys[slot] == key:
            return heights[slot]
        slot = (slot + 1) & mask
    return np.int64(-1)


@nb.njit(cache=True, inline="always")
def _remember(keys, heights, key, height):
    """Store ``height`` for a ``key`` not in the map."""
    mask = keys.size - 1
    slot = np.int64(key & types.uint64(mask))
    while heights[slot] >= 0:
        slot = (slot + 1) & mask
    keys[slot] = key
    heights[slot] = height


@nb.njit(types.int64(K.LegalMovesKernel, K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.HashKernel,
                     K.HashKernel, K.EvaluateKernel, TABLE, INT64_1D, UINT64_2D, INT32_2D, INT64_2D, UINT64_1D,
                     UINT64_1D, INT64_1D, INT32_1D, INT64_1D, INT64_2D, UINT64_2D, INT64_1D),
         cache=True, nogil=True)
def walk_kernel(legal_moves, candidates, play, outcome, hash_position, position_key, evaluate, table, params,
                positions, move_buffer, frames, path_hash, written_keys, written_heights, tokens, stats, scores,
                child_keys, alphabeta_params):
    """Write the strategy of the solved ``positions[0]`` into ``tokens``; return ``DONE`` or why
    not (``STUCK``, ``TOO_DEEP``; ``NEEDS_SEARCH`` and ``NEEDS_ROOM`` pause it, see below).
    ``stats`` gets the proof size (positions visited, as the checker counts them) and the
    number of tokens. ``written_heights`` must be all -1 (empty) and a power of two long.
    ``hash_position`` tells positions apart (repetitions, references); ``position_key`` is the
    search's table key (:func:`proofsearch.dfpn.position_key_kernel`). Where the search may hand
    off to alpha-beta (``alphabeta_params[A_BUDGET] > 0``, no depth bound), a prover node whose
    entries were lost is solved again here by :func:`proofsearch.alphabeta.goal_alphabeta`
    (``evaluate``, ``scores`` and ``child_keys`` serve it) before the caller is asked for a search.

    The walk pauses at a node, its state in ``stats`` and the per-ply arrays: ``NEEDS_SEARCH``
    where the table has no move for the prover (the caller resumes it with ``params[W_RESUME]
    = RESUME_WITH_MOVE`` and the move in ``params[W_FORCED_MOVE]``), ``NEEDS_ROOM`` where
    ``tokens`` or the written map might overflow before the next node (resumed with
    ``RESUME_AS_PAUSED`` and larger buffers holding what was written)."""
    goal = params[W_GOAL]
    prover_is_attacker = params[W_PROVER_IS_ATTACKER] != 0
    salt = types.uint64(params[W_SALT])
    has_candidates = params[W_HAS_CANDIDATES] != 0
    fixed_plies = params[W_FIXED_PLIES] != 0
    stack = positions.shape[0] - 2
    scratch = positions[stack + 1]
    scratch_moves = move_buffer[stack + 1]
    size = np.int64(0)
    written = np.int64(0)
    n_tokens = np.int64(0)
    frames[0, FR_REMAINING] = params[W_REMAINING]
    ply = 0
    forced_ply = -1
    if params[W_RESUME] != RESUME_FRESH:  # back at the node where the walk paused
        size, n_tokens, written = stats[WS_SIZE], stats[WS_TOKENS], stats[WS_WRITTEN]
        ply = stats[WS_PLY]
        if params[W_RESUME] == RESUME_WITH_MOVE:
            forced_ply = ply
    entering = True
    child_height = np.int64(0)
    child_repeats = np.int64(0)
    while True:
        if entering:
            # --- 1. a new node: a leaf, a reference, or a frame to fill ---
            if n_tokens >= tokens.size or 2 * (written + ply + 1) > written_keys.size:
                # Room for this node's token and for the subtrees it may close on the way up
                # (one each for it and its ancestors): the caller grows the buffers and resumes.
                stats[WS_SIZE] = size
                stats[WS_TOKENS] = n_tokens
                stats[WS_WRITTEN] = written
                stats[WS_PLY] = ply
                return NEEDS_ROOM
            entering = False
            size += 1
            position = positions[ply]
            remaining = frames[ply, FR_REMAINING]
            count = legal_moves(position, move_buffer[ply])
            result = outcome(position, count)
            node_hash = hash_position(position)
            leaf = False
            prover = False
            if result != K.ONGOING:
                if not _prover_succeeds(goal, prover_is_attacker, ply, result):
                    return STUCK
                leaf, child_height, child_repeats = True, 0, 0
            elif not fixed_plies:  # (a position that fixes its ply never comes back on a path)
                for j in range(ply):
                    if path_hash[j] == node_hash:
                        if not _prover_succeeds(goal, prover_is_attacker, ply, K.DRAW):
                            return STUCK
                        leaf, child_height, child_repeats = True, 0, 1
                        break
            if not leaf:
                if remaining == 0:
                    return STUCK
                prover = (ply % 2 == 0) == prover_is_attacker
                if prover:
                    height = _written_height(written_keys, written_heights, node_hash)
                    if height >= 0 and (remaining < 0 or height <= remaining):
                        tokens[n_tokens] = TOKEN_REFERENCE
                        n_tokens += 1
                        leaf, child_height, child_repeats = True, height, 0
            if not leaf:
                if ply + 1 >= stack:
                    return TOO_DEEP
                path_hash[ply] = node_hash
                frames[ply, FR_HASH] = np.int64(node_hash)
                frames[ply, FR_PROVER] = prover
                frames[ply, FR_COUNT] = count
                frames[ply, FR_NEXT] = 0
                frames[ply, FR_HEIGHT] = 0
                frames[ply, FR_REPEATS] = 0
                below = remaining - 1 if remaining > 0 else np.int64(-1)
                if prover:
                    # --- 2. the prover's move: a finish, else the tightest refuted child ---
                    chosen = np.int64(-1)
                    chosen_remaining = below
                    best_depth = np.int64(1) << 40
                    best_length = np.int64(1) << 40
                    child = positions[ply + 1]
                    # Only the candidates can be refuted (the other moves lose at once); they are
                    # taken in the legal moves' order, the Python walk's. Their buckets are asked
                    # for first, so that the probes below do not wait on memory one by one.
                    # Their keys are kept for the probes (``child_keys`` is alpha-beta's scratch,
                    # free until it runs below).
                    n_candidates = candidates(position, move_buffer[ply + 1]) if has_candidates else count
                    prefetched = forced_ply != ply and below < 0
                    for i in range(count if prefetched else 0):
                        if _is_candidate(move_buffer[ply, i], move_buffer[ply + 1], n_candidates, has_candidates):
                            play(position, move_buffer[ply, i], child)
                            child_keys[ply, i] = position_key(child)
                            prefetch(table, table_key(child_keys[ply, i], salt, goal, -1, ply + 1))
                    for i in range(count if forced_ply != ply else 0):
                        move = move_buffer[ply, i]
                        if not _is_candidate(move, move_buffer[ply + 1], n_candidates, has_candidates):
                            continue
                        play(position, move, child)
                        n_child = legal_moves(child, scratch_moves)
                        child_result = outcome(child, n_child)
                        child_hash = hash_position(child)
                        repeated = False
                        for j in range(ply + 1 if not fixed_plies else 0):
                            if path_hash[j] == child_hash:
                                repeated = True
                                break
                        if child_result != K.ONGOING or repeated:
                            finished = child_result if child_result != K.ONGOING else K.DRAW
                            if _prover_succeeds(goal, prover_is_attacker, ply + 1, finished):
                                chosen, chosen_remaining = i, below
                                break
                            continue
                        child_key = child_keys[ply, i] if prefetched else position_key(child)
                        depth, length = least_refuted_depth(table, child_key, salt, goal, ply + 1, below)
                        if depth < 0 and has_candidates and (below < 0 or below >= 2):
                            mobility = candidates(child, scratch_moves)
                            if mobility == 0:
                                depth, length = (0 if below < 0 else 2), 2
                            elif mobility == 1:
                                play(child, scratch_moves[0], scratch)
                                grand = outcome(scratch, legal_moves(scratch, scratch_moves))
                                if grand != K.ONGOING and _prover_succeeds(goal, prover_is_attacker,
                                                                           ply + 2, grand):
                                    depth, length = (0 if below < 0 else 2), 2
                        if depth >= 0 and (depth < best_depth
                                           or (depth == best_depth and length < best_length)):
                            chosen, best_depth, best_length = i, depth, length
                            chosen_remaining = depth if below >= 0 else np.int64(-1)
                    if forced_ply == ply:
                        forced_ply = -1
                        for i in range(count):
                            if move_buffer[ply, i] == params[W_FORCED_MOVE]:
                                chosen = i
                    if chosen < 0 and below < 0 and alphabeta_params[A_BUDGET] > 0:
                        # the table has lost what the search knew here: alpha-beta solves the
                        # node again, storing its refuting child's entry, and names its move
                        alphabeta_params[A_ROOT] = ply
                        alphabeta_params[A_NODES] = 0
                        alphabeta_params[A_BEST] = -1
                        found = goal_alphabeta(legal_moves, candidates, play, outcome, position_key, evaluate,
                                               positions, move_buffer, scores, child_keys, table, alphabeta_params, ply,
                                               types.uint64(0), False)
                        count = legal_moves(position, move_buffer[ply])  # (alpha-beta reordered them)
                        frames[ply, FR_COUNT] = count
                        if found != UNFINISHED and (found & 1) == 1:
                            for i in range(count):
                                if move_buffer[ply, i] == alphabeta_params[A_BEST]:
                                    chosen, chosen_remaining = i, np.int64(-1)
                    if chosen < 0:
                        # the table has lost what the search knew here: the caller searches
                        # this node again (with its path as history) and resumes with its move
                        stats[WS_SIZE] = size - 1
                        stats[WS_TOKENS] = n_tokens
                        stats[WS_WRITTEN] = written
                        stats[WS_PLY] = ply
                        return NEEDS_SEARCH
                    tokens[n_tokens] = move_buffer[ply, chosen]
                    n_tokens += 1
                    frames[ply, FR_NEXT] = count  # one child only
                    play(position, move_buffer[ply, chosen], positions[ply + 1])
                    frames[ply + 1, FR_REMAINING] = chosen_remaining
                else:
                    frames[ply, FR_NEXT] = 1
                    play(position, move_buffer[ply, 0], positions[ply + 1])
                    frames[ply + 1, FR_REMAINING] = below
                ply += 1
                entering = True
                continue
        # --- 3. a child's subtree is complete: fold it into its parent ---
        if ply == 0:
            stats[WS_SIZE] = size
            stats[WS_TOKENS] = n_tokens
            stats[WS_WRITTEN] = written
            return DONE
        ply -= 1
        frames[ply, FR_HEIGHT] = max(frames[ply, FR_HEIGHT], child_height + 1)
        frames[ply, FR_REPEATS] |= child_repeats
        nxt = frames[ply, FR_NEXT]
        if nxt < frames[ply, FR_COUNT]:
            # the opponent's next move
            frames[ply, FR_NEXT] = nxt + 1
            play(positions[ply], move_buffer[ply, nxt], positions[ply + 1])
            frames[ply + 1, FR_REMAINING] = (frames[ply, FR_REMAINING] - 1
                                             if frames[ply, FR_REMAINING] > 0 else np.int64(-1))
            ply += 1
            entering = True
            continue
        child_height = frames[ply, FR_HEIGHT]
        child_repeats = frames[ply, FR_REPEATS]
        node_hash = types.uint64(frames[ply, FR_HASH])
        if child_repeats == 0 and _written_height(written_keys, written_heights, node_hash) < 0:
            _remember(written_keys, written_heights, node_hash, child_height)
            written += 1


def walk_proof(search, position: np.ndarray, goal: str, prover_is_attacker: bool,
               max_depth: int | None, budget: int = 10_000_000,
               max_searches: int = 100_000) -> tuple[list[int], int] | None:
    """(tokens, size) of the strategy at the solved ``position``, or None where the compiled
    walk cannot write it (the Python walk then does). Where the table has lost an entry the
    walk needs, that node is searched again (at most ``budget`` nodes, ``max_searches``
    times in all) and the walk goes on with the move found. Buffers grow as the walk fills them."""
    game = search.game
    stack = min(game.max_game_length, 1000) + 2
    params = np.zeros(WALK_PARAMS, dtype=np.int64)
    params[W_GOAL] = GOALS[goal]
    params[W_PROVER_IS_ATTACKER] = int(prover_is_attacker)
    params[W_SALT] = np.int64(np.uint64(search.table.salt).view(np.int64))
    params[W_REMAINING] = -1 if max_depth is None else max_depth
    params[W_HAS_CANDIDATES] = int(search.has_candidates)
    params[W_FIXED_PLIES] = int(game.plies_fixed_by_position)
    positions = np.zeros((stack + 2, game.position_width), dtype=np.uint64)
    move_buffer = np.zeros((stack + 2, game.max_moves), dtype=np.int32)
    frames = np.zeros((stack, FRAME_FIELDS), dtype=np.int64)
    path_hash = np.zeros(stack, dtype=np.uint64)
    stats = np.zeros(WALK_STATS, dtype=np.int64)
    tokens = np.empty(1 << 10, dtype=np.int32)  # both grow fourfold when the walk pauses for room
    written_keys, written_heights = _written_map(1 << 11)
    kernels = game.kernels
    scores = np.zeros((stack + 2, game.max_moves), dtype=np.int64)
    child_keys = np.zeros((stack + 2, game.max_moves), dtype=np.uint64)
    alphabeta_params = np.zeros(ALPHABETA_PARAMS, dtype=np.int64)
    if search.handoff_applies(max_depth):  # lost entries are solved again inside the walk
        alphabeta_params[A_GOAL] = GOALS[goal]
        alphabeta_params[A_SALT] = params[W_SALT]
        alphabeta_params[A_GENERATION] = search.table.generation
        alphabeta_params[A_CANDIDATES] = int(search.has_candidates)
        alphabeta_params[A_BUDGET] = budget
    searches = 0
    positions[0] = position
    params[W_RESUME] = RESUME_FRESH
    while True:
        status = walk_kernel(kernels.legal_moves, search.candidates, kernels.play, kernels.outcome,
                             kernels.hash, search.position_key, kernels.evaluate, search.table.rows, params,
                             positions, move_buffer, frames, path_hash, written_keys, written_heights, tokens,
                             stats, scores, child_keys, alphabeta_params)
        if status == DONE:
            return tokens[:stats[WS_TOKENS]].tolist(), int(stats[WS_SIZE])
        if status == NEEDS_SEARCH and searches < max_searches:
            searches += 1
            ply = int(stats[WS_PLY])
            remaining = int(frames[ply, FR_REMAINING])
            mover_goal = goal if ply % 2 == 0 else DUAL_GOALS[goal]
            found = search.prove(positions[ply].copy(), mover_goal, max_nodes=budget,
                                 max_depth=None if remaining < 0 else remaining,
                                 history=[int(value) for value in path_hash[:ply]])
            if found.result != "proven" or found.best is None:
                return None
            params[W_RESUME] = RESUME_WITH_MOVE
            params[W_FORCED_MOVE] = found.best
        elif status == NEEDS_ROOM:
            params[W_RESUME] = RESUME_AS_PAUSED
        else:
            return None
        # the room the node where the walk resumes needs (see walk_kernel)
        if stats[WS_TOKENS] >= tokens.size:
            tokens = np.concatenate([tokens, np.empty(3 * tokens.size, dtype=np.int32)])
        if 2 * (stats[WS_WRITTEN] + stats[WS_PLY] + 1) > written_keys.size:
            bigger_keys, bigger_heights = _written_map(4 * written_keys.size)
            _move_written(written_keys, written_heights, bigger_keys, bigger_heights)
            written_keys, written_heights = bigger_keys, bigger_heights


def _written_map(size: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty map of written subtrees (position hash -> height) with ``size`` slots."""
    return np.zeros(size, dtype=np.uint64), np.full(size, -1, dtype=np.int64)


@nb.njit(types.void(UINT64_1D, INT64_1D, UINT64_1D, INT64_1D), cache=True)
def _move_written(keys, heights, new_keys, new_heights):
    """Put every entry of one written-subtree map into another (larger, empty) one."""
    for slot in range(keys.size):
        if heights[slot] >= 0:
            _remember(new_keys, new_heights, keys[slot], heights[slot])


__all__ = ["TOKEN_REFERENCE", "walk_kernel", "walk_proof"]
