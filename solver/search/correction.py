"""Correction history: how far the static evaluation missed, learnt by structure, and added back.

A hand-written evaluation errs the same way in positions that share a structure (chess: the
same pawns), and the search measures those errors as it goes: a node's searched score against
its static evaluation. The search keeps, per ``correction_key`` of the game
(:mod:`games.kernels`), a running average of that difference, and every later static evaluation
of a position with the same key is shifted by it (Stockfish's pawn correction history).

The table ``correction[CORRECTION_SIZE]`` holds averages in 1/``CORRECTION_GRAIN`` of a
centipawn. A node updates its entry only where its result says something about the static
evaluation that a capture did not decide: not in check, its best move (if any) quiet, and its
bound on the right side of the evaluation (a fail-high above it, a fail-low below it, or exact).
Deeper nodes weigh more. The transposition table keeps the raw evaluation, so the correction
in force is always the current one.
"""
import numba as nb
import numpy as np
from numba import types

from solver.search.scores import KNOWN_WIN_BOUND

CORRECTION_SIZE = 1 << 14  # entries (64 KiB); a power of two
CORRECTION_GRAIN = 256  # an entry's units per centipawn
CORRECTION_LIMIT = 64 * CORRECTION_GRAIN  # no entry corrects by more than 64 centipawns
CORRECTION_WEIGHT_SCALE = 256  # an update moves an entry by weight / scale of the way
CORRECTION_MOST_WEIGHT = 16  # a node of depth d weighs min(d + 1, this)

I32_1D = types.Array(types.int32, 1, "C")


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def correction_slot(key):
    """The entry of a position whose ``correction_key`` is ``key``."""
    return np.int64(key & np.uint64(CORRECTION_SIZE - 1))


@nb.njit(types.int64(I32_1D, types.int64, types.int64), cache=True, inline="always")
def corrected_eval(correction, slot, raw_eval):
    """The static evaluation ``raw_eval`` shifted by the entry at ``slot`` (never into the
    bands of decided scores)."""
    shifted = raw_eval + correction[slot] // CORRECTION_GRAIN
    return max(-KNOWN_WIN_BOUND + 1, min(KNOWN_WIN_BOUND - 1, shifted))


@nb.njit(types.void(I32_1D, types.int64, types.int64, types.int64), cache=True, inline="always")
def learn_correction(correction, slot, error, depth):
    """Move the entry at ``slot`` towards ``error`` (searched score minus the corrected static
    evaluation it was searched from, in centipawns), by a weight growing with ``depth``."""
    weight = min(depth + 1, CORRECTION_MOST_WEIGHT)
    target = np.int64(correction[slot]) + error * CORRECTION_GRAIN
    value = (np.int64(correction[slot]) * (CORRECTION_WEIGHT_SCALE - weight)
             + target * weight) // CORRECTION_WEIGHT_SCALE
    correction[slot] = max(-CORRECTION_LIMIT, min(CORRECTION_LIMIT, value))
