"""Attack sets: sliding pieces by hyperbola quintessence (files, diagonals) and a first-rank
table (ranks), plus "who attacks this square" queries. All kernels are small and inline."""
import numba as nb
from numba import types

from games.chess.bitops import bswap
from games.chess.tables import (ANTI_DIAGONAL_MASKS, DIAGONAL_MASKS, FILE_MASKS, FIRST_RANK_ATTACKS,
                                KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS)

U64 = types.uint64
ONE = types.uint64(1)
SIX_BITS = types.uint64(63)


@nb.njit(U64(U64, U64, U64), cache=True)
def line_attacks(occupied, line, square_bit):
    """Attacks along one ``line`` (a file or diagonal through the square, square excluded):
    ``o - 2s`` finds the first blocker upwards, the same on the byte-swapped board downwards."""
    inner = occupied & line
    upward = inner - (square_bit << ONE)
    downward = bswap(bswap(inner) - (bswap(square_bit) << ONE))
    return (upward ^ downward) & line


@nb.njit(U64(U64, types.int64), cache=True)
def rank_attacks(occupied, square):
    """Attacks along the rank of ``square``: look up the six inner squares of that rank."""
    rank_shift = types.uint64(square & 56)
    inner = (occupied >> (rank_shift + ONE)) & SIX_BITS
    return FIRST_RANK_ATTACKS[(square & 7) * 64 + inner] << rank_shift


@nb.njit(U64(U64, types.int64), cache=True)
def rook_attacks(occupied, square):
    """Squares a rook on ``square`` attacks (up to and including the first blocker each way)."""
    return line_attacks(occupied, FILE_MASKS[square], ONE << types.uint64(square)) | rank_attacks(occupied, square)


@nb.njit(U64(U64, types.int64), cache=True)
def bishop_attacks(occupied, square):
    """Squares a bishop on ``square`` attacks."""
    square_bit = ONE << types.uint64(square)
    return (line_attacks(occupied, DIAGONAL_MASKS[square], square_bit)
            | line_attacks(occupied, ANTI_DIAGONAL_MASKS[square], square_bit))


@nb.njit(U64(U64, types.int64), cache=True)
def queen_attacks(occupied, square):
    """Squares a queen on ``square`` attacks."""
    return rook_attacks(occupied, square) | bishop_attacks(occupied, square)


@nb.njit(U64(types.int64), cache=True)
def knight_attacks(square):
    """Squares a knight on ``square`` attacks."""
    return KNIGHT_ATTACKS[square]


@nb.njit(U64(types.int64), cache=True)
def king_attacks(square):
    """Squares a king on ``square`` attacks."""
    return KING_ATTACKS[square]


@nb.njit(U64(types.int64, types.int64), cache=True)
def pawn_attacks(colour, square):
    """Squares a pawn of ``colour`` (0 white, 1 black) on ``square`` attacks."""
    return PAWN_ATTACKS[colour * 64 + square]


@nb.njit(U64(U64, types.int64), cache=True)
def pawn_attacks_set(pawns, colour):
    """Squares attacked by all ``pawns`` of ``colour`` at once."""
    not_a = types.uint64(0xFEFEFEFEFEFEFEFE)
    not_h = types.uint64(0x7F7F7F7F7F7F7F7F)
    if colour == 0:
        return ((pawns & not_a) << types.uint64(7)) | ((pawns & not_h) << types.uint64(9))
    return ((pawns & not_a) >> types.uint64(9)) | ((pawns & not_h) >> types.uint64(7))
