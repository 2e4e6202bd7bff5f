"""Results and judgements over positions: outcome, draws by rule, noisy moves.

The contract's ``evaluate`` is the tapered evaluation of :mod:`games.chess.evaluation`."""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess.bitops import popcount
from games.chess.moves import move_origin, move_target, move_promotion
from games.chess.position import BISHOPS, KNIGHTS, PAWNS, QUEENS, ROOKS, STATE, STATE_EP_SHIFT, halfmove_clock, in_check

ONE = types.uint64(1)
DARK_SQUARES = types.uint64(0xAA55AA55AA55AA55)
HASHES = types.Array(types.uint64, 1, "C")


@nb.njit(types.boolean(K.POSITION), cache=True)
def insufficient_material(pos):
    """Neither side can ever mate: no pawns, rooks or queens, and either at most one minor piece
    on the board or only bishops, all on squares of one colour."""
    if pos[PAWNS] | pos[ROOKS] | pos[QUEENS]:
        return False
    minors = pos[KNIGHTS] | pos[BISHOPS]
    if popcount(minors) <= 1:
        return True
    if pos[KNIGHTS]:
        return False
    bishops = pos[BISHOPS]
    return not (bishops & DARK_SQUARES) or not (bishops & ~DARK_SQUARES)


@nb.njit(K.OUTCOME_SIGNATURE, cache=True)
def outcome(pos, n_legal):
    """Checkmate is a LOSS for the side to move, stalemate and insufficient material a DRAW.
    Repetitions and the 50-move rule are left to the engines (see ``is_fifty_move_draw`` and
    ``repetition_count``)."""
    if n_legal == 0:
        return K.LOSS if in_check(pos) else K.DRAW
    if insufficient_material(pos):
        return K.DRAW
    return K.ONGOING


@nb.njit(types.boolean(K.POSITION, types.int64), cache=True)
def is_fifty_move_draw(pos, n_legal):
    """Whether a draw can be claimed by the 50-move rule (100 plies without capture or pawn
    move), unless the position is checkmate."""
    if halfmove_clock(pos) < 100:
        return False
    return not (n_legal == 0 and in_check(pos))


@nb.njit(types.int64(HASHES, types.int64, types.int64), cache=True)
def repetition_count(hashes, ply, halfmove):
    """How many times the position ``hashes[ply]`` occurred in ``hashes[0..ply]`` (itself
    included), looking back only ``halfmove`` plies (a capture or pawn move cuts the history)
    and only at positions with the same side to move."""
    count = 1
    earliest = max(0, ply - halfmove)
    back = ply - 2
    while back >= earliest:
        if hashes[back] == hashes[ply]:
            count += 1
        back -= 2
    return count


@nb.njit(K.IS_NOISY_SIGNATURE, cache=True)
def is_noisy(pos, move):
    """Captures (en passant included) and promotions."""
    if move_promotion(move):
        return True
    to = move_target(move)
    to_bit = ONE << types.uint64(to)
    if pos[1 - np.int64(pos[STATE] & ONE)] & to_bit:
        return True
    ep = np.int64((pos[STATE] >> types.uint64(STATE_EP_SHIFT)) & types.uint64(63))
    origin_bit = ONE << types.uint64(move_origin(move))
    return ep != 0 and to == ep and (pos[PAWNS] & origin_bit) != 0
