"""The chess kernels of the alpha-beta player (see "Player kernels" in :mod:`games.kernels`):
``play_null``, ``gives_check``, ``move_keys`` (``move_order`` for each move, with the static
exchange evaluation ``see``), ``noisy_moves`` (the move generator of :mod:`games.chess.movegen`
keeping captures and promotions) and ``reversible_plies``; ``in_check`` lives in
:mod:`games.chess.position`. The game object names these without importing this module, so
that commands which do not play compile none of them.

Move-order keys (``ORDER_NOISY`` = 2**20)::

    key                                   moves
    ORDER_NOISY + 8 * gain + 7 - attacker captures with SEE >= 0 and queen promotions;
                                          gain = victim value + promotion gain (MVV-LVA)
    -64 .. 64                             quiet moves: the piece-square gain of the move
    -ORDER_NOISY + SEE (SEE < 0)          captures losing material, best first
    -ORDER_NOISY - 8192 - {N 0, R 1, B 2} under-promotions, also capturing ones

Quiescence skips keys <= -ORDER_NOISY, so it never tries an under-promotion.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess.attacks import bishop_attacks, rook_attacks
from games.chess.bitops import lsb
from games.chess.makemove import piece_type_on
from games.chess.movegen import generate
from games.chess.moves import move_origin, move_target, move_promotion
from games.chess.position import (BISHOPS, HASH, KINGS, PAWNS, POSITION_WIDTH, QUEENS, ROOKS, STATE,
                                  STATE_EP_SHIFT, STATE_FULLMOVE_SHIFT, STATE_HALFMOVE_SHIFT, attackers_of,
                                  halfmove_clock, in_check)
from games.chess.tables import EN_PASSANT_KEYS, KNIGHT_ATTACKS, PAWN_ATTACKS, PIECE_SQUARE, PIECE_VALUES, SIDE_KEY

U64 = types.uint64
ONE = types.uint64(1)
SIX_BITS = types.uint64(63)
HALFMOVE_MASK = types.uint64(0xFFFF)
# Exchange values: the king's is large so that a king "captured" in the swap ends it badly.
SEE_VALUES = np.array([100, 320, 330, 500, 900, 20000], dtype=np.int64)
UNDER_PROMOTION_KEY = -K.ORDER_NOISY - 8192
SEE_INFINITY = 1 << 30


@nb.njit(K.PLAY_NULL_SIGNATURE, cache=True)
def play_null(pos, child):
    """Write into ``child`` the position with the side to move passing (side flipped, no
    en-passant square, halfmove clock + 1) and return True; return False instead when the
    side to move is in check or has nothing but king and pawns (zugzwang danger)."""
    us = np.int64(pos[STATE] & ONE)
    if not (pos[us] & ~(pos[PAWNS] | pos[KINGS])):
        return False
    if in_check(pos):
        return False
    for i in range(POSITION_WIDTH):
        child[i] = pos[i]
    state = pos[STATE]
    h = pos[HASH] ^ types.uint64(SIDE_KEY)
    ep = (state >> types.uint64(STATE_EP_SHIFT)) & SIX_BITS
    if ep:
        h ^= EN_PASSANT_KEYS[ep & types.uint64(7)]
    halfmove = ((state >> types.uint64(STATE_HALFMOVE_SHIFT)) & HALFMOVE_MASK) + ONE
    if halfmove > HALFMOVE_MASK:
        halfmove = HALFMOVE_MASK
    fullmove = (state >> types.uint64(STATE_FULLMOVE_SHIFT)) + types.uint64(us)
    child[STATE] = ((types.uint64(us) ^ ONE) | (halfmove << types.uint64(STATE_HALFMOVE_SHIFT))
                    | (fullmove << types.uint64(STATE_FULLMOVE_SHIFT)))
    child[HASH] = h
    return True


@nb.njit(types.int32(K.POSITION, types.int32), cache=True)
def see(pos, move):
    """Static exchange evaluation of the legal ``move``: the material (centipawns, pawn 100,
    knight 320, bishop 330, rook 500, queen 900) the side to move wins on the target square
    when both sides keep recapturing with their least valuable attacker, each free to stop
    (x-rays through sliders included, pins ignored, a king never recaptures into an attack).
    A quiet move scores what it loses if the piece can be won there; castling scores 0."""
    origin = move_origin(move)
    to = move_target(move)
    promotion = move_promotion(move)
    origin_bit = ONE << types.uint64(origin)
    to_bit = ONE << types.uint64(to)
    us = np.int64(pos[STATE] & ONE)
    if pos[us] & to_bit:
        return np.int32(0)  # castling: the king onto its own rook
    occupied = (pos[0] | pos[1]) ^ origin_bit
    balance = 0
    if pos[1 - us] & to_bit:
        balance = SEE_VALUES[piece_type_on(pos, to_bit)]
    moved = piece_type_on(pos, origin_bit)
    if moved == 0 and not balance and (to - origin) % 8 != 0:
        # En passant: the captured pawn leaves its square (maybe opening a line onto ``to``).
        balance = SEE_VALUES[0]
        occupied ^= (to_bit >> types.uint64(8)) if us == 0 else (to_bit << types.uint64(8))
    on_square = SEE_VALUES[moved]
    if promotion:
        balance += SEE_VALUES[promotion] - SEE_VALUES[0]
        on_square = SEE_VALUES[promotion]
    diagonal = pos[BISHOPS] | pos[QUEENS]
    orthogonal = pos[ROOKS] | pos[QUEENS]
    attackers = attackers_of(pos, to, occupied) & occupied
    # The exchange as a forward alpha-beta: the value lies in [low, high]; the side to recapture
    # may instead stop with ``balance`` (its best option if it has no capture that improves it).
    low = -SEE_INFINITY
    high = SEE_INFINITY
    side = 1 - us
    while True:
        if side == us:
            if balance >= high:
                return np.int32(high)
            low = max(low, balance)
        else:
            if balance <= low:
                return np.int32(low)
            high = min(high, balance)
        mine = attackers & pos[side]
        if not mine:
            break
        piece = 0
        while not (mine & pos[PAWNS + piece]):
            piece += 1
        if piece == 5 and (attackers & pos[1 - side]):
            break  # the king may not capture into an attack
        bits = mine & pos[PAWNS + piece]
        occupied ^= bits & (~bits + ONE)
        if piece == 0 or piece == 2 or piece >= 4:
            attackers |= bishop_attacks(occupied, to) & diagonal
        if piece >= 3:
            attackers |= rook_attacks(occupied, to) & orthogonal
        attackers &= occupied
        if side == us:
            balance += on_square
        else:
            balance -= on_square
        on_square = SEE_VALUES[piece]
        side = 1 - side
    return np.int32(min(max(balance, low), high))


@nb.njit(types.int32(K.POSITION, types.int32), cache=True)
def move_order(pos, move):
    """The static ordering key of the legal ``move`` (bands in the module docstring): winning
    and equal captures and queen promotions by MVV-LVA above ``ORDER_NOISY``, losing captures
    by SEE below ``-ORDER_NOISY``, under-promotions below those, quiet moves near 0."""
    origin = move_origin(move)
    to = move_target(move)
    promotion = move_promotion(move)
    origin_bit = ONE << types.uint64(origin)
    to_bit = ONE << types.uint64(to)
    state = pos[STATE]
    us = np.int64(state & ONE)
    if promotion and promotion != 4:
        return np.int32(UNDER_PROMOTION_KEY - (0 if promotion == 1 else (1 if promotion == 3 else 2)))
    moved = piece_type_on(pos, origin_bit)
    gain = 0
    capture = False
    if pos[1 - us] & to_bit:
        gain = PIECE_VALUES[piece_type_on(pos, to_bit)]
        capture = True
    elif moved == 0 and to == np.int64((state >> types.uint64(STATE_EP_SHIFT)) & SIX_BITS) and (to - origin) % 8:
        gain = PIECE_VALUES[0]
        capture = True
    if promotion:
        gain += PIECE_VALUES[4] - PIECE_VALUES[0]
    elif not capture:
        if pos[us] & to_bit:
            return np.int32(0)  # castling
        flip = 56 * us
        return np.int32(PIECE_SQUARE[moved * 64 + (to ^ flip)] - PIECE_SQUARE[moved * 64 + (origin ^ flip)])
    # A capture by a less valuable piece (or a queen promotion capturing) cannot lose by SEE
    # unless the piece is lost afterwards; only then is the exchange worked out.
    if capture and not promotion and SEE_VALUES[moved] > gain:
        value = see(pos, move)
        if value < 0:
            return np.int32(-K.ORDER_NOISY + value)
    return np.int32(K.ORDER_NOISY + 8 * gain + 7 - moved)


@nb.njit(K.MOVE_KEYS_SIGNATURE, cache=True)
def move_keys(pos, moves, count, keys):
    """The player's ordering keys (``move_order``) of ``moves[:count]`` into ``keys``."""
    for i in range(count):
        keys[i] = move_order(pos, moves[i])


@nb.njit(K.GIVES_CHECK_SIGNATURE, cache=True)
def gives_check(pos, move):
    """Whether the legal ``move`` checks the opponent's king: directly (the moved or promoted
    piece, or the castling rook, attacks it) or by discovery (a slider of ours behind the origin
    square, or behind a pawn taken en passant)."""
    us = np.int64(pos[STATE] & ONE)
    them = 1 - us
    king_bit = pos[KINGS] & pos[them]
    king = lsb(king_bit)
    origin = move_origin(move)
    to = move_target(move)
    promotion = move_promotion(move)
    origin_bit = ONE << types.uint64(origin)
    to_bit = ONE << types.uint64(to)
    occupied = pos[0] | pos[1]
    moved = piece_type_on(pos, origin_bit)
    if moved == 5 and pos[us] & to_bit:
        # Castling: the king lands on the g- or c-file, the rook beside it; only the rook checks.
        base = 56 * us
        king_to, rook_to = (base + 6, base + 5) if to > origin else (base + 2, base + 3)
        after = (occupied ^ origin_bit ^ to_bit) | (ONE << types.uint64(king_to)) | (ONE << types.uint64(rook_to))
        return (rook_attacks(after, rook_to) & king_bit) != 0
    after = (occupied ^ origin_bit) | to_bit
    if moved == 0 and not (pos[them] & to_bit) and (to - origin) % 8 != 0:
        after ^= (to_bit >> types.uint64(8)) if us == 0 else (to_bit << types.uint64(8))  # en passant
    piece = promotion if promotion else moved
    if piece == 0:
        direct = PAWN_ATTACKS[us * 64 + to]
    elif piece == 1:
        direct = KNIGHT_ATTACKS[to]
    elif piece == 2:
        direct = bishop_attacks(after, to)
    elif piece == 3:
        direct = rook_attacks(after, to)
    elif piece == 4:
        direct = bishop_attacks(after, to) | rook_attacks(after, to)
    else:
        direct = types.uint64(0)
    if direct & king_bit:
        return True
    ours = pos[us] & ~origin_bit
    diagonal = (pos[BISHOPS] | pos[QUEENS]) & ours
    orthogonal = (pos[ROOKS] | pos[QUEENS]) & ours
    return ((bishop_attacks(after, king) & diagonal) | (rook_attacks(after, king) & orthogonal)) != 0


@nb.njit(K.PIECE_TO_SIGNATURE, cache=True)
def piece_to(pos, move):
    """The side to move, the piece ``move`` moves (before any promotion) and its target
    square, as one index in [0, 768): the continuation history's key."""
    origin_bit = ONE << types.uint64(move_origin(move))
    us = np.int64(pos[STATE] & ONE)
    return (us * 6 + piece_type_on(pos, origin_bit)) * 64 + move_target(move)


@nb.njit(K.REVERSIBLE_PLIES_SIGNATURE, cache=True)
def reversible_plies(pos):
    """Plies since the last capture or pawn move: the halfmove clock."""
    return halfmove_clock(pos)


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def noisy_moves(pos, moves):
    """The legal captures (en passant included) and promotions (all four pieces) of ``pos``
    into ``moves``, in ``legal_moves`` order: exactly the legal moves ``is_noisy`` accepts,
    also in check (then the noisy evasions). Returns their number."""
    return generate(pos, moves, True)
