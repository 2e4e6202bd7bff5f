"""How a chess move is held in an integer: the one definition of the encoding, with the
inlined helpers every kernel reads and writes moves with.

A move is an int32, dense in ``[0, MOVE_SPACE)``::

    bits  0-5   from square
    bits  6-11  to square
    bits 12-14  promotion piece type: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen

Flags need no bits: a king moving onto a square of its own rook is castling (the king's
destination is then the g- or c-file, the rook's the f- or d-file, as in Chess960), a pawn
moving diagonally onto the en-passant square is an en-passant capture, and a pawn moving two
ranks is a double push. (The retrograde builder's un-move records are another encoding, kept in
:mod:`games.chess.retrograde_kernels`.)

>>> int(encode_move(12, 28)), int(move_origin(796)), int(move_target(796)), int(move_promotion(796 | 4 << 12))
(1804, 28, 12, 4)
"""
import numba as nb
import numpy as np

TARGET_SHIFT = 6
PROMOTION_SHIFT = 12
SQUARE_MASK = 63
MOVE_SPACE = 5 << PROMOTION_SHIFT  # every move is below this


@nb.njit(cache=True, inline="always")
def encode_move(origin, target):
    """The move from square ``origin`` to square ``target`` (no promotion)."""
    return origin | (target << TARGET_SHIFT)


@nb.njit(cache=True, inline="always")
def with_promotion(move, piece_type):
    """``move`` promoting to ``piece_type`` (1 knight ... 4 queen)."""
    return move | (piece_type << PROMOTION_SHIFT)


@nb.njit(cache=True, inline="always")
def move_origin(move):
    """The square a move leaves."""
    return np.int64(move & SQUARE_MASK)


@nb.njit(cache=True, inline="always")
def move_target(move):
    """The square a move goes to (for castling: the rook's square)."""
    return np.int64((move >> TARGET_SHIFT) & SQUARE_MASK)


@nb.njit(cache=True, inline="always")
def move_promotion(move):
    """The piece type a move promotes to, 0 for none."""
    return np.int64(move >> PROMOTION_SHIFT)
