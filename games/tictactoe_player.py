"""Tic-tac-toe's kernels for the engines that search it, loaded on first use (the rules in
:mod:`games.tictactoe` do not import this module): ``evaluate`` and ``is_noisy`` of the kernel
contract and the player kernels ``move_keys`` and ``noisy_moves``.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import popcount
from games.tictactoe import has_line, legal_moves, mover_and_opponent


@nb.njit(K.EVALUATE_SIGNATURE, cache=True)
def evaluate(pos):
    """Lines still open for the side to move minus those open for the opponent."""
    mover, opponent = mover_and_opponent(pos)
    score = 0
    for line in (0x7, 0x38, 0x1C0, 0x49, 0x92, 0x124, 0x111, 0x54):
        line = types.uint64(line)
        if opponent & line == 0:
            score += 1 + popcount(mover & line)
        if mover & line == 0:
            score -= 1 + popcount(opponent & line)
    return np.int32(score)


@nb.njit(K.IS_NOISY_SIGNATURE, cache=True)
def is_noisy(pos, move):
    """A move that completes a line for either player (a win, or a block of one)."""
    mover, opponent = mover_and_opponent(pos)
    bit = types.uint64(1) << types.uint64(move)
    return has_line(mover | bit) or has_line(opponent | bit)


# --- Player kernels (games.kernels, "Player kernels") --------------------------------------

@nb.njit(types.int32(K.POSITION, types.int32), cache=True)
def move_order(pos, move):
    """Wins and blocks first (noisy); then the centre, the corners, the edges."""
    if is_noisy(pos, move):
        mover, opponent = mover_and_opponent(pos)
        wins = has_line(mover | (types.uint64(1) << types.uint64(move)))
        return np.int32(K.ORDER_NOISY + (2 if wins else 1))
    return np.int32(2 if move == 4 else (1 if move in (0, 2, 6, 8) else 0))


@nb.njit(K.MOVE_KEYS_SIGNATURE, cache=True)
def move_keys(pos, moves, count, keys):
    """``move_order`` of each of ``moves[:count]`` into ``keys``."""
    for i in range(count):
        keys[i] = move_order(pos, moves[i])


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def noisy_moves(pos, moves):
    """The legal moves that complete a line for either player."""
    count = legal_moves(pos, moves)
    kept = 0
    for i in range(count):
        if is_noisy(pos, moves[i]):
            moves[kept] = moves[i]
            kept += 1
    return kept


@nb.njit(K.IS_LEGAL_SIGNATURE, cache=True)
def is_legal(pos, move):
    """Whether cell ``move`` is on the board and empty, and no line is made yet."""
    if move < 0 or move >= 9 or has_line(pos[0]) or has_line(pos[1]):
        return False
    return not (pos[0] | pos[1]) & (types.uint64(1) << types.uint64(move))
