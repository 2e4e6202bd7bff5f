"""Perft: count the leaf nodes of the game tree to a fixed depth, over the kernel interface."""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.game import Game
from runtime.borrow import borrowed
from runtime.interrupt import flag_raiser, run_interruptibly
from runtime.stopping import poll_due

POSITION_STACK = types.Array(types.uint64, 2, "C")
MOVE_STACK = types.Array(types.int32, 2, "C")
STOP_FLAG = types.Array(types.int64, 1, "C")

# Depths beyond any game anyone can count (chess perft 15 is out of reach) but small enough that
# the per-ply buffers stay a few megabytes.
MAX_DEPTH = 1000
STOPPED = -1  # the kernel's answer when it saw the stop flag


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, POSITION_STACK, MOVE_STACK, types.int64, STOP_FLAG),
         cache=True, nogil=True)
def perft_kernel(legal_moves, play, positions, moves, depth, stop):
    """Leaf count below ``positions[0]`` at ``depth`` plies, or ``STOPPED`` once ``stop[0]`` is
    set (polled every ``POLL_MASK + 1`` interior nodes).

    ``positions[ply]`` and ``moves[ply]`` are per-ply buffers (copy-make, no allocation in the
    loop). Leaves one ply above the horizon are counted in bulk: their move count is the answer.
    """
    if depth == 0:
        return 1
    # Lent (runtime/borrow.py): counting references to the rows passed to the game's kernels took
    # about a fifth of the time.
    positions, moves = borrowed((positions, moves))
    # Iterative depth-first walk: index[ply] is the next move to try at ply.
    count = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    count[0] = legal_moves(positions[0], moves[0])
    if depth == 1:
        return count[0]
    total = 0
    visited = 0
    ply = 0
    while ply >= 0:
        visited += 1
        if poll_due(visited) and stop[0] != 0:
            return STOPPED
        if index[ply] == count[ply]:
            ply -= 1
            continue
        move = moves[ply, index[ply]]
        index[ply] += 1
        play(positions[ply], move, positions[ply + 1])
        if ply + 2 == depth:
            total += legal_moves(positions[ply + 1], moves[ply + 1])
        else:
            ply += 1
            count[ply] = legal_moves(positions[ply], moves[ply])
            index[ply] = 0
    return total


def perft(game: Game, position: np.ndarray, depth: int) -> int:
    """Number of leaf nodes ``depth`` plies below ``position`` (finished games have no moves).

    ``depth`` is at most ``MAX_DEPTH``. Interruptible from the main thread (KeyboardInterrupt).
    """
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be between 0 and {MAX_DEPTH}, got {depth}")
    positions = np.zeros((depth + 1, game.position_width), dtype=np.uint64)
    positions[0] = position
    moves = np.zeros((depth + 1, game.max_moves), dtype=np.int32)
    stop = np.zeros(1, dtype=np.int64)
    nodes = run_interruptibly(
        lambda: perft_kernel(game.kernels.legal_moves, game.kernels.play, positions, moves, depth, stop),
        flag_raiser(stop))
    return int(nodes)
