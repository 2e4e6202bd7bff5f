"""The correction history: the static evaluation corrected by what searches found.

A hand-written evaluation is wrong in the same direction across positions that share a
structure (chess: a pawn skeleton it misjudges). The correction history keeps, per structure
(the game's ``structure_key`` kernel, side to move included), a moving average of the search's
result minus the static evaluation, and adds it to the evaluation wherever that structure
appears again; the corrected evaluation then drives every pruning decision and quiescence's
standing pat, as in Stockfish since 2023.

An entry is updated at the end of a node, from the raw evaluation and the node's result, only
where the result says something about the position's own worth: not in check, not after a
noisy best move (the gain is the capture's, not the structure's), not a mate or table score, and
only in the direction its bound allows (a fail-high above the evaluation, a fail-low below it, or
an exact score). Deeper results weigh more. Entries are in 1/``CORRECTION_GRAIN`` centipawns.
"""
import numba as nb
import numpy as np
from numba import types

from games.kernels import EVAL_LIMIT

CORRECTION_SIZE = 1 << 14  # entries (64 KiB)
CORRECTION_GRAIN = 16  # an entry's units per centipawn
CORRECTION_MAX = 300  # centipawns: the largest correction, and the largest error one result may teach
CORRECTION_WEIGHT_MAX = 16  # out of 256: the weight of one result (its depth + 1, at most this)

I32_1D = types.Array(types.int32, 1, "C")


def new_correction() -> np.ndarray:
    """An empty correction history."""
    return np.zeros(CORRECTION_SIZE, dtype=np.int32)


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def correction_slot(structure):
    """The entry of a ``structure_key``."""
    return np.int64(structure & np.uint64(CORRECTION_SIZE - 1))


@nb.njit(types.int64(I32_1D, types.int64, types.int64), cache=True, inline="always")
def corrected_eval(correction, slot, raw_eval):
    """``raw_eval`` with the correction of ``slot`` added, kept inside the evaluation's bounds."""
    value = raw_eval + correction[slot] // CORRECTION_GRAIN
    return max(-(EVAL_LIMIT - 1), min(EVAL_LIMIT - 1, value))


@nb.njit(types.void(I32_1D, types.int64, types.int64, types.int64), cache=True, inline="always")
def learn_correction(correction, slot, error, depth):
    """Move the entry of ``slot`` toward ``error`` (a result minus the raw evaluation, in
    centipawns) by a weight growing with ``depth``."""
    target = max(-CORRECTION_MAX, min(CORRECTION_MAX, error)) * CORRECTION_GRAIN
    weight = min(depth + 1, CORRECTION_WEIGHT_MAX)
    correction[slot] = np.int32((correction[slot] * (256 - weight) + target * weight) // 256)


__all__ = ["CORRECTION_SIZE", "corrected_eval", "correction_slot", "learn_correction", "new_correction"]
