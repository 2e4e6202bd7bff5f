"""Fully legal move generation: check masks and pin rays, no make/unmake legality test.

Moves are encoded as :mod:`games.chess.moves` says. UCI text shows standard castling as the
king's two-square move (``e1g1``).

Algorithm per position: the squares the opponent attacks with our king lifted off the board
give the king's moves and castling; if the king is attacked, the checkers give the target mask
(double check: king moves only); pieces pinned to the king move only along their pin ray
(generated while the pins are found); en passant is checked by recomputing slider attacks on the
king with both pawns moved, which covers the horizontal-pin case.

Positions must hold exactly one king per side (the notation and the retrograde builder ensure
it); the kernels do not check, for speed.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess.attacks import bishop_attacks, pawn_attacks_set, rank_attacks, rook_attacks
from games.chess.bitops import lsb
from games.chess.moves import MOVE_SPACE, encode_move, with_promotion  # noqa: F401 (MOVE_SPACE re-exported)
from games.chess.position import (BISHOPS, CASTLING, KINGS, KNIGHTS, PAWNS, QUEENS, ROOKS, STATE,
                                  STATE_EP_SHIFT)
from games.chess.tables import (BACK_RANKS, BETWEEN, BISHOP_RAYS, KING_ATTACKS, KNIGHT_ATTACKS,
                                PAWN_ATTACKS, ROOK_RAYS)

MAX_MOVES = 256  # the most legal moves known in a legal position is 218

U64 = types.uint64
ONE = types.uint64(1)
ZERO = types.uint64(0)
NOT_A_FILE = types.uint64(0xFEFEFEFEFEFEFEFE)
NOT_H_FILE = types.uint64(0x7F7F7F7F7F7F7F7F)
RANK_3 = types.uint64(0xFF << 16)
RANK_6 = types.uint64(0xFF << 40)
LAST_RANKS = types.uint64(0xFF000000000000FF)
EIGHT = types.uint64(8)
SEVEN = types.uint64(7)
NINE = types.uint64(9)


@nb.njit(types.int64(K.MOVE_BUFFER, types.int64, types.int64, U64), cache=True)
def emit_targets(moves, n, origin, targets):
    """Append a move from ``origin`` to every square of ``targets``; return the new count."""
    while targets:
        moves[n] = encode_move(origin, lsb(targets))
        n += 1
        targets &= targets - ONE
    return n


@nb.njit(types.int64(K.MOVE_BUFFER, types.int64, U64, types.int64), cache=True)
def emit_pawn_targets(moves, n, targets, offset):
    """Append pawn moves to ``targets`` from ``target - offset``; last-rank targets get the four
    promotions (queen first)."""
    promotions = targets & LAST_RANKS
    targets &= ~LAST_RANKS
    while targets:
        to = lsb(targets)
        moves[n] = encode_move(to - offset, to)
        n += 1
        targets &= targets - ONE
    while promotions:
        to = lsb(promotions)
        move = encode_move(to - offset, to)
        moves[n] = with_promotion(move, 4)
        moves[n + 1] = with_promotion(move, 3)
        moves[n + 2] = with_promotion(move, 2)
        moves[n + 3] = with_promotion(move, 1)
        n += 4
        promotions &= promotions - ONE
    return n


@nb.njit(types.int64(K.POSITION, K.MOVE_BUFFER, types.int64, types.int64, U64, U64, U64, types.boolean),
         cache=True)
def emit_pinned_piece(pos, moves, n, us, piece_bit, ray, occupied, noisy):
    """Moves of our piece on ``piece_bit``, pinned to our king, restricted to the pin ``ray``
    (the squares between king and pinner, plus the pinner); with ``noisy``, only captures and
    promotions. Knights have none; en passant is handled with the other en-passant captures."""
    square = lsb(piece_bit)
    them_bits = pos[1 - us]
    if pos[PAWNS] & piece_bit:
        if us == 0:
            push = (piece_bit << EIGHT) & ~occupied
            double = ((push & RANK_3) << EIGHT) & ~occupied
            offset = 8
        else:
            push = (piece_bit >> EIGHT) & ~occupied
            double = ((push & RANK_6) >> EIGHT) & ~occupied
            offset = -8
        if noisy:
            n = emit_pawn_targets(moves, n, push & ray & LAST_RANKS, offset)
        else:
            n = emit_pawn_targets(moves, n, push & ray, offset)
            n = emit_pawn_targets(moves, n, double & ray, 2 * offset)
        captures = PAWN_ATTACKS[us * 64 + square] & them_bits & ray
        if captures:  # at most one: the pinner
            n = emit_pawn_targets(moves, n, captures, lsb(captures) - square)
        return n
    targets = ZERO
    if (pos[BISHOPS] | pos[QUEENS]) & piece_bit:
        targets |= bishop_attacks(occupied, square)
    if (pos[ROOKS] | pos[QUEENS]) & piece_bit:
        targets |= rook_attacks(occupied, square)
    if noisy:
        targets &= them_bits
    return emit_targets(moves, n, square, targets & ray)


# No signature: inlined into legal_moves and the player's noisy_moves, never compiled on its own.
@nb.njit(cache=True, inline="always")
def generate(pos, moves, noisy):
    """The legal moves of ``pos`` into ``moves`` (all of them, or with ``noisy`` only the
    captures, en passant included, and promotions, in the same relative order); returns their
    number. Inlined into its two callers with ``noisy`` a constant, so each compiles to a
    generator without the other's branches."""
    state = pos[STATE]
    us = np.int64(state & ONE)
    them = 1 - us
    own = pos[us]
    opp = pos[them]
    occupied = own | opp
    pawns = pos[PAWNS]
    knights = pos[KNIGHTS]
    diagonal = pos[BISHOPS] | pos[QUEENS]
    orthogonal = pos[ROOKS] | pos[QUEENS]
    king_bit = pos[KINGS] & own
    king = lsb(king_bit)

    # 1-2. King moves, and whether we are in check. All moves: from the squares the opponent
    # attacks with our king lifted (so it cannot hide behind itself), a map castling needs too.
    # Noisy moves: only the few squares the king could capture on are tested, one by one.
    lifted = occupied ^ king_bit
    enemy_king = KING_ATTACKS[lsb(pos[KINGS] & opp)]
    danger = ZERO
    checkers = ZERO
    if noisy:
        checkers = ((KNIGHT_ATTACKS[king] & knights) | (PAWN_ATTACKS[us * 64 + king] & pawns)
                    | (bishop_attacks(occupied, king) & diagonal)
                    | (rook_attacks(occupied, king) & orthogonal)) & opp
        checked = checkers != 0
        n = 0
        bits = KING_ATTACKS[king] & opp & ~enemy_king
        while bits:
            to = lsb(bits)
            bits &= bits - ONE
            defenders = ((KNIGHT_ATTACKS[to] & knights) | (PAWN_ATTACKS[us * 64 + to] & pawns)
                         | (bishop_attacks(lifted, to) & diagonal) | (rook_attacks(lifted, to) & orthogonal)) & opp
            if not defenders:
                moves[n] = encode_move(king, to)
                n += 1
    else:
        danger = pawn_attacks_set(pawns & opp, them) | enemy_king
        bits = knights & opp
        while bits:
            danger |= KNIGHT_ATTACKS[lsb(bits)]
            bits &= bits - ONE
        bits = diagonal & opp
        while bits:
            danger |= bishop_attacks(lifted, lsb(bits))
            bits &= bits - ONE
        bits = orthogonal & opp
        while bits:
            danger |= rook_attacks(lifted, lsb(bits))
            bits &= bits - ONE
        n = emit_targets(moves, 0, king, KING_ATTACKS[king] & ~own & ~danger)
        checked = (danger & king_bit) != 0
        if checked:
            checkers = ((KNIGHT_ATTACKS[king] & knights) | (PAWN_ATTACKS[us * 64 + king] & pawns)
                        | (bishop_attacks(occupied, king) & diagonal)
                        | (rook_attacks(occupied, king) & orthogonal)) & opp

    # 3. Checks: double check leaves king moves only; a single check restricts the targets.
    # ``target`` is where pieces may move, ``push_target`` where pawns may push.
    target = opp if noisy else ~own
    push_target = LAST_RANKS if noisy else ~ZERO
    if checked:
        if checkers & (checkers - ONE):
            return n
        evasion = BETWEEN[king * 64 + lsb(checkers)] | checkers
        target &= evasion
        push_target &= evasion

    # 4. Pins: a lone own piece between the king and an enemy slider moves along the ray only
    # (never out of check: the pin ray and the check ray meet only at the king).
    pinned = ZERO
    snipers = ((ROOK_RAYS[king] & orthogonal) | (BISHOP_RAYS[king] & diagonal)) & opp
    while snipers:
        sniper = lsb(snipers)
        snipers &= snipers - ONE
        between = BETWEEN[king * 64 + sniper]
        blockers = between & occupied
        if blockers and not (blockers & (blockers - ONE)) and (blockers & own):
            pinned |= blockers
            if not checked:
                n = emit_pinned_piece(pos, moves, n, us, blockers, between | (ONE << types.uint64(sniper)), occupied,
                                      noisy)

    # 5. Pawns, set-wise.
    free_pawns = pawns & own & ~pinned
    empty = ~occupied
    if us == 0:
        push = (free_pawns << EIGHT) & empty
        double = ((push & RANK_3) << EIGHT) & empty & push_target
        left = ((free_pawns & NOT_A_FILE) << SEVEN) & opp & target
        right = ((free_pawns & NOT_H_FILE) << NINE) & opp & target
        n = emit_pawn_targets(moves, n, push & push_target, 8)
        if not noisy:
            n = emit_pawn_targets(moves, n, double, 16)
        n = emit_pawn_targets(moves, n, left, 7)
        n = emit_pawn_targets(moves, n, right, 9)
    else:
        push = (free_pawns >> EIGHT) & empty
        double = ((push & RANK_6) >> EIGHT) & empty & push_target
        left = ((free_pawns & NOT_A_FILE) >> NINE) & opp & target
        right = ((free_pawns & NOT_H_FILE) >> SEVEN) & opp & target
        n = emit_pawn_targets(moves, n, push & push_target, -8)
        if not noisy:
            n = emit_pawn_targets(moves, n, double, -16)
        n = emit_pawn_targets(moves, n, left, -9)
        n = emit_pawn_targets(moves, n, right, -7)

    # 6. En passant: test the king against the board with both pawns moved.
    ep = np.int64((state >> types.uint64(STATE_EP_SHIFT)) & types.uint64(63))
    if ep:
        ep_bit = ONE << types.uint64(ep)
        captured_bit = (ep_bit >> EIGHT) if us == 0 else (ep_bit << EIGHT)
        candidates = PAWN_ATTACKS[them * 64 + ep] & pawns & own
        while candidates:
            origin = lsb(candidates)
            candidates &= candidates - ONE
            after = (occupied ^ (ONE << types.uint64(origin)) ^ captured_bit) | ep_bit
            attackers = ((bishop_attacks(after, king) & diagonal) | (rook_attacks(after, king) & orthogonal)
                         | (KNIGHT_ATTACKS[king] & knights)
                         | (PAWN_ATTACKS[us * 64 + king] & pawns & ~captured_bit)) & opp
            if not attackers:
                moves[n] = encode_move(origin, ep)
                n += 1

    # 7. Knights, bishops, rooks, queens that are not pinned.
    bits = knights & own & ~pinned
    while bits:
        square = lsb(bits)
        n = emit_targets(moves, n, square, KNIGHT_ATTACKS[square] & target)
        bits &= bits - ONE
    bits = diagonal & own & ~pinned
    while bits:
        square = lsb(bits)
        n = emit_targets(moves, n, square, bishop_attacks(occupied, square) & target)
        bits &= bits - ONE
    bits = orthogonal & own & ~pinned
    while bits:
        square = lsb(bits)
        n = emit_targets(moves, n, square, rook_attacks(occupied, square) & target)
        bits &= bits - ONE

    # 8. Castling: king onto its own rook; the king's path must be empty and unattacked, the
    # rook's path empty, and (Chess960) no rank slider may hide behind the castling rook.
    if not checked and not noisy:
        rights = pos[CASTLING] & BACK_RANKS[us]
        base = 56 * us
        while rights:
            rook = lsb(rights)
            rook_bit = rights & (~rights + ONE)
            rights &= rights - ONE
            if rook > king:
                king_to, rook_to = base + 6, base + 5
            else:
                king_to, rook_to = base + 2, base + 3
            king_path = BETWEEN[king * 64 + king_to] | (ONE << types.uint64(king_to))
            rook_path = BETWEEN[rook * 64 + rook_to] | (ONE << types.uint64(rook_to))
            without = lifted ^ rook_bit
            if (king_path | rook_path) & without:
                continue
            if king_path & danger:
                continue
            if rank_attacks(without, king_to) & orthogonal & opp:
                continue
            moves[n] = encode_move(king, rook)
            n += 1
    return n


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def legal_moves(pos, moves):
    """All legal moves of ``pos`` into ``moves``; returns their number (0: mate or stalemate)."""
    return generate(pos, moves, False)


def __getattr__(name: str):
    """``noisy_moves``, a player kernel, is defined in :mod:`games.chess.player` (loaded on first
    use: counting moves need not compile it)."""
    if name == "noisy_moves":
        from games.chess.player import noisy_moves

        return noisy_moves
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
