"""Whether one move is legal, without generating the others: the player's ``is_legal`` kernel.

The search asks it of the transposition table's move before it generates any move (a stored
move may come from another position that shares the hash key, so any integer may be asked).
Ordinary moves are checked directly: the piece is ours, it reaches the target square on this
board, the target is not ours, the promotion field fits the move, and after the move no enemy
piece attacks our king. Castling and en passant, rare as stored moves and intricate to check,
are looked up in the full move list instead.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess.attacks import bishop_attacks, rook_attacks
from games.chess.bitops import lsb
from games.chess.makemove import piece_type_on
from games.chess.movegen import MAX_MOVES, generate
from games.chess.moves import MOVE_SPACE, move_origin, move_promotion, move_target
from games.chess.position import KINGS, STATE, STATE_EP_SHIFT, attackers_of
from games.chess.tables import KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS

ONE = types.uint64(1)
SIX_BITS = types.uint64(63)
LAST_RANKS = types.uint64(0xFF000000000000FF)
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5


@nb.njit(types.boolean(K.POSITION, types.int32), cache=True)
def in_move_list(pos, move):
    """Whether ``move`` is among the generated legal moves (for the rare special moves)."""
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    count = generate(pos, moves, False)
    for i in range(count):
        if moves[i] == move:
            return True
    return False


@nb.njit(cache=True, inline="always")
def reaches(piece, origin, to, occupied):
    """Whether a non-pawn ``piece`` on ``origin`` attacks ``to`` on this board."""
    to_bit = ONE << types.uint64(to)
    if piece == KNIGHT:
        return (KNIGHT_ATTACKS[origin] & to_bit) != 0
    if piece == KING:
        return (KING_ATTACKS[origin] & to_bit) != 0
    targets = types.uint64(0)
    if piece == BISHOP or piece == QUEEN:
        targets |= bishop_attacks(occupied, origin)
    if piece == ROOK or piece == QUEEN:
        targets |= rook_attacks(occupied, origin)
    return (targets & to_bit) != 0


@nb.njit(K.IS_LEGAL_SIGNATURE, cache=True)
def is_legal(pos, move):
    """Whether ``move`` (any integer) is a legal move of ``pos``."""
    if move < 0 or move >= MOVE_SPACE:
        return False
    origin = move_origin(move)
    to = move_target(move)
    promotion = move_promotion(move)
    state = pos[STATE]
    us = np.int64(state & ONE)
    own = pos[us]
    opp = pos[1 - us]
    origin_bit = ONE << types.uint64(origin)
    to_bit = ONE << types.uint64(to)
    if not own & origin_bit:
        return False
    piece = piece_type_on(pos, origin_bit)
    if own & to_bit:
        # Only castling (the king onto its own rook) lands on an own piece.
        return piece == KING and promotion == 0 and in_move_list(pos, move)
    occupied = own | opp
    if piece == PAWN:
        ep = np.int64((state >> types.uint64(STATE_EP_SHIFT)) & SIX_BITS)
        if (promotion != 0) != ((to_bit & LAST_RANKS) != 0):
            return False
        forward = 8 if us == 0 else -8
        if to - origin == forward:
            if occupied & to_bit:
                return False
        elif to - origin == 2 * forward:
            start_rank = 1 if us == 0 else 6
            middle_bit = ONE << types.uint64(origin + forward)
            if origin // 8 != start_rank or (occupied & (to_bit | middle_bit)):
                return False
        elif PAWN_ATTACKS[us * 64 + origin] & to_bit:
            if not opp & to_bit:
                return ep != 0 and to == ep and in_move_list(pos, move)  # en passant
        else:
            return False
    elif promotion != 0 or not reaches(piece, origin, to, occupied):
        return False
    # The king must not stand attacked once the move is made (the captured piece is gone).
    king = to if piece == KING else lsb(pos[KINGS] & own)
    after = (occupied ^ origin_bit) | to_bit
    return (attackers_of(pos, king, after) & opp & ~to_bit) == 0
