"""Move ordering: the transposition-table move, then noisy moves by the game's key, killers,
quiet moves by history, and last the moves the game ranks below every quiet move.

Sort keys (higher first), one int32 per move in ``keys[ply]``::

    TT_MOVE                      the transposition table's move
    >= ORDER_NOISY               the game's good noisy moves (chess: captures that do not lose
                                 material, by MVV-LVA; queen promotions)
    KILLER_1, KILLER_2           the two quiet moves that last caused a cutoff at this ply
    COUNTER_MOVE                 the quiet move that last refuted the opponent's previous move
    (-ORDER_NOISY, ORDER_NOISY)  quiet moves: the game's static key plus the history score
    <= -ORDER_NOISY              the game's bad noisy moves (chess: captures losing material)

Continuation history (switch ``continuation_history``): ``continuation[k, context, piece_to]``
scores a quiet move by what it does (``piece_to``, a game kernel) after the move ``k + 1`` plies
before it (``context``, that move's ``piece_to``); it is added to the quiet move's key.

History scores live in ``history[ply & 1, move]`` (the side to move at a ply alternates from the
root's) and stay within ``+-HISTORY_LIMIT`` by a gravity update, so the bands never overlap.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K

TT_MOVE = np.int32(1 << 30)
KILLER_1 = np.int32(K.ORDER_NOISY - 1024)
KILLER_2 = np.int32(K.ORDER_NOISY - 2048)
COUNTER_MOVE = np.int32(K.ORDER_NOISY - 3072)
HISTORY_LIMIT = 1 << 14
HISTORY_BONUS_LIMIT = 1200
TAKEN = np.int32(-(1 << 31))  # a key for moves already picked

INT32_2D = types.Array(types.int32, 2, "C")
INT32_3D = types.Array(types.int32, 3, "C")


@nb.njit(cache=True, inline="always")
def is_quiet_key(key):
    """Whether a ``move_keys`` key is a quiet move's (for killers, history and reductions)."""
    return -K.ORDER_NOISY < key < K.ORDER_NOISY


@nb.njit(types.int64(K.MoveKeysKernel, K.PieceToKernel, K.POSITION, K.MOVE_BUFFER, K.MOVE_BUFFER, types.int64,
                     types.int64, INT32_2D, INT32_2D, INT32_3D, types.int64, types.int64, types.int64, types.int64),
         cache=True)
def score_moves(move_keys, piece_to, pos, moves, keys, count, tt_move, killers, history, continuation, ply,
                counter, context_1, context_2):
    """Fill ``keys[:count]`` with the sort keys of ``moves[:count]`` at ``ply`` (``counter``:
    the counter-move to try after the killers; ``context_1``, ``context_2``: the ``piece_to`` of
    the moves one and two plies back, for the continuation history; -1 for none); return the
    game's own key of the TT move (0 when it is not among the moves)."""
    move_keys(pos, moves, count, keys)
    side = ply & 1
    tt_key = np.int64(0)
    for i in range(count):
        move = moves[i]
        key = np.int64(keys[i])
        if move == tt_move:
            tt_key = key
            keys[i] = TT_MOVE
        elif is_quiet_key(key):
            if move == killers[ply, 0]:
                keys[i] = KILLER_1
            elif move == killers[ply, 1]:
                keys[i] = KILLER_2
            elif move == counter:
                keys[i] = COUNTER_MOVE
            else:
                key += history[side, move]
                if context_1 >= 0 or context_2 >= 0:
                    index = piece_to(pos, move)
                    if context_1 >= 0:
                        key += continuation[0, context_1, index]
                    if context_2 >= 0:
                        key += continuation[1, context_2, index]
                keys[i] = np.int32(key)
    return tt_key


@nb.njit(cache=True, inline="always")
def pick_next(moves, keys, start, count):
    """Swap the best remaining move into ``start`` (a selection sort, one step at a time: most
    nodes cut off after a move or two) and return it."""
    best = start
    for i in range(start + 1, count):
        if keys[i] > keys[best]:
            best = i
    if best != start:
        moves[start], moves[best] = moves[best], moves[start]
        keys[start], keys[best] = keys[best], keys[start]
    return np.int64(moves[start])


@nb.njit(types.void(INT32_2D, INT32_2D, INT32_2D, types.int64, types.int64, types.int64, types.int64,
                    K.MOVE_BUFFER, types.int64), cache=True)
def reward_quiet_cutoff(killers, history, counter_moves, ply, move, previous, depth, tried_quiets,
                        tried_count):
    """A quiet ``move`` failed high at ``ply``: make it a killer and the counter-move of the
    opponent's ``previous`` move (-1: none), raise its history, and lower the history of the
    quiet moves tried before it without success."""
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    side = ply & 1
    if previous >= 0:
        counter_moves[side, previous] = move
    bonus = min(depth * depth, HISTORY_BONUS_LIMIT)
    history[side, move] += bonus - history[side, move] * bonus // HISTORY_LIMIT
    for i in range(tried_count):
        other = tried_quiets[i]
        history[side, other] -= bonus + history[side, other] * bonus // HISTORY_LIMIT


@nb.njit(types.void(K.PieceToKernel, K.POSITION, INT32_3D, types.int64, types.int64, types.int64, types.int64,
                    K.MOVE_BUFFER, types.int64), cache=True)
def reward_continuation(piece_to, pos, continuation, context_1, context_2, move, depth, tried_quiets,
                        tried_count):
    """A quiet ``move`` failed high in ``pos``: raise its continuation history after the moves
    one and two plies back (``context_1``, ``context_2``; -1 for none), lower that of the quiet
    moves tried before it."""
    bonus = min(depth * depth, HISTORY_BONUS_LIMIT)
    for k in range(2):
        context = context_1 if k == 0 else context_2
        if context < 0:
            continue
        index = piece_to(pos, np.int32(move))
        continuation[k, context, index] += bonus - continuation[k, context, index] * bonus // HISTORY_LIMIT
        for i in range(tried_count):
            index = piece_to(pos, tried_quiets[i])
            continuation[k, context, index] -= bonus + continuation[k, context, index] * bonus // HISTORY_LIMIT
