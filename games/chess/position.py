"""The chess position array, its Zobrist hash, and kernels to build and inspect positions.

Position layout: ``POSITION_WIDTH = 11`` uint64 words (88 bytes, copied whole by ``play``)::

    word  name       contents
    ----  ---------  ------------------------------------------------------------------------
     0    WHITE      bitboard of White's pieces
     1    BLACK      bitboard of Black's pieces            (word[side] = that side's pieces)
     2    PAWNS      bitboard of pawns of both colours     (word[2 + piece_type])
     3    KNIGHTS    bitboard of knights
     4    BISHOPS    bitboard of bishops
     5    ROOKS      bitboard of rooks
     6    QUEENS     bitboard of queens
     7    KINGS      bitboard of kings
     8    CASTLING   bitboard of the rooks that still carry a castling right (ranks 1 and 8
                     only; one bit per right, so Chess960 rights fit the same word)
     9    STATE      packed fields, see below
    10    HASH       Zobrist hash, updated incrementally by ``play``

    STATE word:
     63                  32 31             16 15 14 13      8 7          1   0
    +----------------------+-----------------+-----+---------+------------+-----+
    |   fullmove number    | halfmove clock  | 0 0 |  ep sq  |  0 ... 0   | stm |
    +----------------------+-----------------+-----+---------+------------+-----+
    stm: side to move, 0 = White, 1 = Black.  ep sq: the en-passant target square (0..63),
    0 = none (a1 can never be one). The square is stored only when an en-passant capture is
    legal, so equal positions have equal arrays (apart from the counters) and equal hashes.
    The halfmove clock saturates at 65535 (FENs with a larger one are refused).

Bitboards (one bit per square, bit i = square i, little-endian rank-file)::

    rank 8 | 56 57 58 59 60 61 62 63
    rank 7 | 48 49 50 51 52 53 54 55
    rank 6 | 40 41 42 43 44 45 46 47
    rank 5 | 32 33 34 35 36 37 38 39
    rank 4 | 24 25 26 27 28 29 30 31
    rank 3 | 16 17 18 19 20 21 22 23
    rank 2 |  8  9 10 11 12 13 14 15
    rank 1 |  0  1  2  3  4  5  6  7
           +------------------------
              a  b  c  d  e  f  g  h

Pieces: ``piece_type`` 0..5 = pawn, knight, bishop, rook, queen, king; a coloured ``piece``
code is ``colour * 6 + piece_type`` (0..5 White, 6..11 Black), as ``build_position`` takes them.

Hash: XOR of ``PIECE_KEYS[piece * 64 + square]`` over the pieces, ``CASTLING_KEYS[square]``
over the castling rooks, ``EN_PASSANT_KEYS[file]`` when an en-passant square is set and
``SIDE_KEY`` when Black is to move. The clocks are not hashed.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess.attacks import bishop_attacks, pawn_attacks, rook_attacks
from games.chess.bitops import lsb, popcount
from games.chess.tables import CASTLING_KEYS, EN_PASSANT_KEYS, KING_ATTACKS, KNIGHT_ATTACKS, PIECE_KEYS, SIDE_KEY

POSITION_WIDTH = 11
WHITE, BLACK = 0, 1
PAWNS, KNIGHTS, BISHOPS, ROOKS, QUEENS, KINGS = 2, 3, 4, 5, 6, 7
CASTLING, STATE, HASH = 8, 9, 10
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5
PIECE_SYMBOLS = "PNBRQKpnbrqk"  # indexed by piece code

STATE_EP_SHIFT = 8
STATE_HALFMOVE_SHIFT = 16
STATE_FULLMOVE_SHIFT = 32

U64 = types.uint64
ONE = types.uint64(1)
PIECE_CODES = types.Array(types.int8, 1, "C")
SQUARES = types.Array(types.int8, 1, "C")


@nb.njit(U64(K.POSITION), cache=True)
def hash_from_scratch(pos):
    """The Zobrist hash recomputed from the pieces, castling rooks, ep square and side."""
    h = types.uint64(0)
    for colour in range(2):
        for piece_type in range(6):
            bits = pos[colour] & pos[PAWNS + piece_type]
            while bits:
                h ^= PIECE_KEYS[(colour * 6 + piece_type) * 64 + lsb(bits)]
                bits &= bits - ONE
    bits = pos[CASTLING]
    while bits:
        h ^= CASTLING_KEYS[lsb(bits)]
        bits &= bits - ONE
    state = pos[STATE]
    ep = (state >> types.uint64(STATE_EP_SHIFT)) & types.uint64(63)
    if ep:
        h ^= EN_PASSANT_KEYS[ep & types.uint64(7)]
    if state & ONE:
        h ^= types.uint64(SIDE_KEY)
    return h


@nb.njit(K.HASH_SIGNATURE, cache=True)
def hash_position(pos):
    """The incrementally maintained Zobrist hash (equal to ``hash_from_scratch``)."""
    return pos[HASH]


@nb.njit(U64(K.POSITION, types.int64, U64), cache=True)
def attackers_of(pos, square, occupied):
    """Pieces of both colours attacking ``square`` given the ``occupied`` squares."""
    knights = pos[KNIGHTS]
    kings = pos[KINGS]
    bishops = pos[BISHOPS] | pos[QUEENS]
    rooks = pos[ROOKS] | pos[QUEENS]
    pawns = pos[PAWNS]
    return ((KNIGHT_ATTACKS[square] & knights) | (KING_ATTACKS[square] & kings)
            | (bishop_attacks(occupied, square) & bishops) | (rook_attacks(occupied, square) & rooks)
            | (pawn_attacks(WHITE, square) & pawns & pos[BLACK])
            | (pawn_attacks(BLACK, square) & pawns & pos[WHITE]))


@nb.njit(types.boolean(K.POSITION, types.int64), cache=True)
def king_attacked(pos, colour):
    """Whether the king of ``colour`` is attacked by the other side."""
    king = pos[KINGS] & pos[colour]
    if not king:
        return False
    occupied = pos[WHITE] | pos[BLACK]
    return (attackers_of(pos, lsb(king), occupied) & pos[1 - colour]) != 0


@nb.njit(types.boolean(K.POSITION), cache=True)
def in_check(pos):
    """Whether the side to move is in check."""
    return king_attacked(pos, np.int64(pos[STATE] & ONE))


@nb.njit(types.boolean(K.POSITION), cache=True)
def opponent_in_check(pos):
    """Whether the side *not* to move is in check: such a position cannot arise in a game."""
    return king_attacked(pos, np.int64((pos[STATE] & ONE) ^ ONE))


@nb.njit(types.int64(K.POSITION), cache=True)
def piece_count(pos):
    """Number of pieces on the board, kings included."""
    return popcount(pos[WHITE] | pos[BLACK])


@nb.njit(cache=True, inline="always")
def clear_position(pos):
    """Empty ``pos``: no pieces, White to move (see :func:`set_side_to_move`), hash 0."""
    for i in range(POSITION_WIDTH):
        pos[i] = 0


@nb.njit(cache=True, inline="always")
def place_piece(pos, piece, square):
    """Put ``piece`` (code 0..11) on the empty ``square`` of ``pos``, hash included."""
    bit = ONE << types.uint64(square)
    colour = 1 if piece >= 6 else 0
    pos[colour] |= bit
    pos[PAWNS + piece - 6 * colour] |= bit
    pos[HASH] ^= PIECE_KEYS[piece * 64 + square]


@nb.njit(cache=True, inline="always")
def set_side_to_move(pos, side_to_move):
    """Finish a position built with :func:`place_piece` on a cleared one: ``side_to_move`` (0
    White, 1 Black) to move, halfmove clock 0, fullmove 1."""
    if side_to_move:
        pos[HASH] ^= types.uint64(SIDE_KEY)
    pos[STATE] = types.uint64(side_to_move) | (ONE << types.uint64(STATE_FULLMOVE_SHIFT))


@nb.njit(types.void(PIECE_CODES, SQUARES, types.int64, types.int64, K.POSITION), cache=True)
def build_position(pieces, squares, count, side_to_move, pos):
    """Write into ``pos`` the position with ``pieces[i]`` (codes 0..11) on ``squares[i]`` for
    ``i < count``, ``side_to_move`` (0 White, 1 Black) to move, no castling rights, no en-passant
    square, halfmove clock 0, fullmove 1, and its hash. Nothing is validated (see
    ``opponent_in_check`` and the notation module for that): it is the retrograde builder's
    fast path, no allocation."""
    clear_position(pos)
    for i in range(count):
        place_piece(pos, np.int64(pieces[i]), np.int64(squares[i]))
    set_side_to_move(pos, side_to_move)


@nb.njit(types.int64(K.POSITION, types.int64), cache=True)
def piece_on(pos, square):
    """The piece code (0..11) on ``square``, or -1 when it is empty."""
    bit = ONE << types.uint64(square)
    if not (pos[WHITE] | pos[BLACK]) & bit:
        return -1
    colour = 0 if pos[WHITE] & bit else 1
    for piece_type in range(6):
        if pos[PAWNS + piece_type] & bit:
            return colour * 6 + piece_type
    return -1


@nb.njit(types.int64(K.POSITION), cache=True)
def halfmove_clock(pos):
    """Plies since the last capture or pawn move (for the 50-move rule)."""
    return np.int64((pos[STATE] >> types.uint64(STATE_HALFMOVE_SHIFT)) & types.uint64(0xFFFF))


@nb.njit(types.int64(K.POSITION), cache=True)
def side_to_move(pos):
    """0 when White is to move, 1 when Black is."""
    return np.int64(pos[STATE] & ONE)


@nb.njit(types.int64(K.POSITION), cache=True)
def en_passant_square(pos):
    """The en-passant target square, or 0 when there is none."""
    return np.int64((pos[STATE] >> types.uint64(STATE_EP_SHIFT)) & types.uint64(63))
