"""Copy-make: ``play`` writes the child position and updates the Zobrist hash incrementally."""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess.attacks import bishop_attacks, rook_attacks
from games.chess.bitops import lsb
from games.chess.moves import move_origin, move_target, move_promotion
from games.chess.position import (BISHOPS, CASTLING, HASH, KINGS, PAWNS, POSITION_WIDTH, QUEENS, ROOKS, STATE,
                                  STATE_EP_SHIFT, STATE_FULLMOVE_SHIFT, STATE_HALFMOVE_SHIFT)
from games.chess.tables import BACK_RANKS, CASTLING_KEYS, EN_PASSANT_KEYS, PAWN_ATTACKS, PIECE_KEYS, SIDE_KEY

U64 = types.uint64
ONE = types.uint64(1)
SIX_BITS = types.uint64(63)
HALFMOVE_MASK = types.uint64(0xFFFF)


@nb.njit(types.int64(K.POSITION, U64), cache=True)
def piece_type_on(pos, bit):
    """The piece type (0 pawn .. 5 king) on an occupied square ``bit``."""
    if pos[PAWNS] & bit:
        return 0
    if pos[PAWNS + 1] & bit:
        return 1
    if pos[BISHOPS] & bit:
        return 2
    if pos[ROOKS] & bit:
        return 3
    if pos[QUEENS] & bit:
        return 4
    return 5


@nb.njit(types.boolean(K.POSITION, types.int64, types.int64, U64), cache=True)
def en_passant_possible(pos, mover, ep, pushed_bit):
    """Whether ``mover`` (to move in ``pos``) has a legal en-passant capture onto ``ep`` of the
    pawn on ``pushed_bit``: only sliders can attack the king afterwards (the position was legal
    before the double push, and the pushed pawn is gone)."""
    ep_bit = ONE << types.uint64(ep)
    candidates = PAWN_ATTACKS[(1 - mover) * 64 + ep] & pos[PAWNS] & pos[mover]
    if not candidates:
        return False
    king = lsb(pos[KINGS] & pos[mover])
    enemy = pos[1 - mover]
    diagonal = (pos[BISHOPS] | pos[QUEENS]) & enemy
    orthogonal = (pos[ROOKS] | pos[QUEENS]) & enemy
    occupied = pos[0] | pos[1]
    while candidates:
        origin_bit = candidates & (~candidates + ONE)
        candidates &= candidates - ONE
        after = (occupied ^ origin_bit ^ pushed_bit) | ep_bit
        if not (bishop_attacks(after, king) & diagonal) and not (rook_attacks(after, king) & orthogonal):
            return True
    return False


@nb.njit(K.PLAY_SIGNATURE, cache=True)
def play(pos, move, child):
    """Write the position after the legal ``move`` into ``child``."""
    for i in range(POSITION_WIDTH):
        child[i] = pos[i]
    origin = move_origin(move)
    to = move_target(move)
    promotion = move_promotion(move)
    origin_bit = ONE << types.uint64(origin)
    to_bit = ONE << types.uint64(to)
    state = pos[STATE]
    us = np.int64(state & ONE)
    them = 1 - us
    h = pos[HASH] ^ types.uint64(SIDE_KEY)
    old_ep = np.int64((state >> types.uint64(STATE_EP_SHIFT)) & SIX_BITS)
    if old_ep:
        h ^= EN_PASSANT_KEYS[old_ep & 7]
    halfmove = ((state >> types.uint64(STATE_HALFMOVE_SHIFT)) & HALFMOVE_MASK) + ONE
    if halfmove > HALFMOVE_MASK:  # saturate rather than spill into the fullmove number
        halfmove = HALFMOVE_MASK
    new_ep = 0
    castling = pos[CASTLING]
    moved = piece_type_on(pos, origin_bit)
    piece_base = us * 6 * 64

    if moved == 5 and (pos[us] & to_bit):
        # Castling, encoded as the king taking its own rook.
        base = 56 * us
        if to > origin:
            king_to, rook_to = base + 6, base + 5
        else:
            king_to, rook_to = base + 2, base + 3
        king_to_bit = ONE << types.uint64(king_to)
        rook_to_bit = ONE << types.uint64(rook_to)
        child[us] = (pos[us] & ~(origin_bit | to_bit)) | king_to_bit | rook_to_bit
        child[KINGS] = (pos[KINGS] & ~origin_bit) | king_to_bit
        child[ROOKS] = (pos[ROOKS] & ~to_bit) | rook_to_bit
        h ^= (PIECE_KEYS[piece_base + 5 * 64 + origin] ^ PIECE_KEYS[piece_base + 5 * 64 + king_to]
              ^ PIECE_KEYS[piece_base + 3 * 64 + to] ^ PIECE_KEYS[piece_base + 3 * 64 + rook_to])
        castling &= ~BACK_RANKS[us]
    else:
        if pos[them] & to_bit:
            captured = piece_type_on(pos, to_bit)
            child[them] ^= to_bit
            child[PAWNS + captured] ^= to_bit
            h ^= PIECE_KEYS[(them * 6 + captured) * 64 + to]
            halfmove = types.uint64(0)
        child[us] ^= origin_bit | to_bit
        child[PAWNS + moved] ^= origin_bit
        h ^= PIECE_KEYS[piece_base + moved * 64 + origin]
        if promotion:
            child[PAWNS + promotion] |= to_bit
            h ^= PIECE_KEYS[piece_base + promotion * 64 + to]
        else:
            child[PAWNS + moved] |= to_bit
            h ^= PIECE_KEYS[piece_base + moved * 64 + to]
        if moved == 0:
            halfmove = types.uint64(0)
            if old_ep and to == old_ep:
                captured_square = to - 8 if us == 0 else to + 8
                captured_bit = ONE << types.uint64(captured_square)
                child[them] ^= captured_bit
                child[PAWNS] ^= captured_bit
                h ^= PIECE_KEYS[(them * 6) * 64 + captured_square]
            elif to - origin == 16 or origin - to == 16:
                ep = (origin + to) >> 1
                if en_passant_possible(child, them, ep, to_bit):
                    new_ep = ep
                    h ^= EN_PASSANT_KEYS[ep & 7]
        elif moved == 5:
            castling &= ~BACK_RANKS[us]
        castling &= ~(origin_bit | to_bit)

    changed = castling ^ pos[CASTLING]
    if changed:
        child[CASTLING] = castling
        while changed:
            h ^= CASTLING_KEYS[lsb(changed)]
            changed &= changed - ONE
    fullmove = (state >> types.uint64(STATE_FULLMOVE_SHIFT)) + types.uint64(us)
    child[STATE] = (types.uint64(them) | (types.uint64(new_ep) << types.uint64(STATE_EP_SHIFT))
                    | (halfmove << types.uint64(STATE_HALFMOVE_SHIFT))
                    | (fullmove << types.uint64(STATE_FULLMOVE_SHIFT)))
    child[HASH] = h
