"""Lookup tables for the chess kernels, built once at import with plain numpy (a few ms).

All tables are small (the largest, ``BETWEEN``, is 32 KiB), so the kernels read them as globals:
numba freezes them into the compiled code, which stays small and cacheable. Sliding attacks need
no big magic tables: files and diagonals use hyperbola quintessence (a byte swap), ranks a
512-entry first-rank table.

Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63.
"""
from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1

KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING_STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS = ((1, 1), (-1, -1), (1, -1), (-1, 1))


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _steps_from(square: int, steps) -> int:
    file, rank = square & 7, square >> 3
    bits = 0
    for df, dr in steps:
        if _on_board(file + df, rank + dr):
            bits |= 1 << ((rank + dr) * 8 + file + df)
    return bits


def ray_attacks(square: int, occupied: int, directions) -> int:
    """Slow reference: squares a slider on ``square`` attacks, walking each ray to a blocker."""
    file, rank = square & 7, square >> 3
    bits = 0
    for df, dr in directions:
        f, r = file + df, rank + dr
        while _on_board(f, r):
            bits |= 1 << (r * 8 + f)
            if occupied >> (r * 8 + f) & 1:
                break
            f, r = f + df, r + dr
    return bits


def _line_mask(square: int, directions) -> int:
    """The line(s) through ``square`` along ``directions``, without the square itself."""
    return ray_attacks(square, 0, directions)


def _array(values) -> np.ndarray:
    return np.array([v & MASK64 for v in values], dtype=np.uint64)


KNIGHT_ATTACKS = _array(_steps_from(sq, KNIGHT_STEPS) for sq in range(64))
KING_ATTACKS = _array(_steps_from(sq, KING_STEPS) for sq in range(64))
# PAWN_ATTACKS[colour * 64 + square]: squares a pawn of that colour on that square attacks.
PAWN_ATTACKS = _array([_steps_from(sq, ((-1, 1), (1, 1))) for sq in range(64)]
                      + [_steps_from(sq, ((-1, -1), (1, -1))) for sq in range(64)])

FILE_MASKS = _array(_line_mask(sq, ((0, 1), (0, -1))) for sq in range(64))
DIAGONAL_MASKS = _array(_line_mask(sq, ((1, 1), (-1, -1))) for sq in range(64))
ANTI_DIAGONAL_MASKS = _array(_line_mask(sq, ((1, -1), (-1, 1))) for sq in range(64))
ROOK_RAYS = _array(_line_mask(sq, ROOK_DIRECTIONS) for sq in range(64))
BISHOP_RAYS = _array(_line_mask(sq, BISHOP_DIRECTIONS) for sq in range(64))

# FIRST_RANK_ATTACKS[file * 64 + inner]: attacks along rank 1 of a rook on ``file`` when the
# occupancy of files b..g is ``inner`` (6 bits); shifted up to any rank by the caller.
FIRST_RANK_ATTACKS = _array(ray_attacks(file, inner << 1, ((1, 0), (-1, 0)))
                            for file in range(8) for inner in range(64))


def _between(a: int, b: int) -> int:
    """Squares strictly between ``a`` and ``b`` if they share a line, else 0."""
    df, dr = (b & 7) - (a & 7), (b >> 3) - (a >> 3)
    if a == b or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return 0
    step = (df > 0) - (df < 0) + 8 * ((dr > 0) - (dr < 0))
    bits, square = 0, a + step
    while square != b:
        bits |= 1 << square
        square += step
    return bits


# BETWEEN[a * 64 + b]: squares strictly between two aligned squares (0 when not aligned).
BETWEEN = _array(_between(a, b) for a in range(64) for b in range(64))

RANK_1 = 0xFF
RANK_8 = 0xFF << 56
# BACK_RANKS[colour]: the rank a colour's king and castling rooks start on.
BACK_RANKS = _array([RANK_1, RANK_8])

# Zobrist keys from a fixed seed, so hashes are the same in every process and every run.
_generator = np.random.Generator(np.random.PCG64(0x5EED_C4E55))
# PIECE_KEYS[(colour * 6 + piece_type) * 64 + square]
PIECE_KEYS = _generator.integers(0, 2**64 - 1, size=12 * 64, dtype=np.uint64, endpoint=True)
# CASTLING_KEYS[square]: one key per rook square carrying a castling right (back ranks only).
CASTLING_KEYS = _generator.integers(0, 2**64 - 1, size=64, dtype=np.uint64, endpoint=True)
EN_PASSANT_KEYS = _generator.integers(0, 2**64 - 1, size=8, dtype=np.uint64, endpoint=True)
SIDE_KEY = int(_generator.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))

# Piece values (centipawns) and piece-square bonuses for move ordering (the player's
# ``move_order``: MVV-LVA and a quiet move's static preference), from White's side; Black reads
# them with the square flipped vertically (square ^ 56). Fixed, unlike the tuned evaluation.
PIECE_VALUES = np.array([100, 320, 330, 500, 900, 0], dtype=np.int64)


def _centre_bonus(square: int) -> int:
    """0 on the rim up to 3 in the four centre squares."""
    file, rank = square & 7, square >> 3
    return min(file, 7 - file, rank, 7 - rank)


def _piece_square(piece_type: int, square: int) -> int:
    file, rank = square & 7, square >> 3
    centre = _centre_bonus(square)
    if piece_type == 0:  # pawns: advance, central pawns more
        return 0 if rank in (0, 7) else 6 * (rank - 1) + (4 if file in (3, 4) and rank >= 3 else 0)
    if piece_type == 1:  # knights: strongly centralised
        return 10 * centre - 15
    if piece_type == 2:  # bishops: mildly centralised
        return 5 * centre - 5
    if piece_type == 3:  # rooks: seventh rank
        return 15 if rank == 6 else 0
    if piece_type == 4:  # queens: slightly centralised
        return 2 * centre
    return 10 if rank == 0 and file in (1, 2, 6) else -5 * centre  # king: tucked away


PIECE_SQUARE = np.array([_piece_square(t, sq) for t in range(6) for sq in range(64)], dtype=np.int64)
