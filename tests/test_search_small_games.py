"""The player on the small games: tic-tac-toe against exact minimax on every reachable
position; Connect Four with the value-changing features off against a naive negamax."""
from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest

import games
from games import kernels as K
from solver.search.player import PLAIN, Limits, Player
from solver.search.scores import MATE, mate_in_plies

TICTACTOE = games.get("tictactoe")
CONNECT4 = games.get("connect4")


def _children(game, position):
    return [(move, game.play(position, move)) for move in game.legal_moves(position)]


def _reachable(game, position, seen):
    key = game.hash(position)
    if key in seen:
        return
    seen[key] = position
    if game.outcome(position) == K.ONGOING:
        for _, child in _children(game, position):
            _reachable(game, child, seen)


@lru_cache(maxsize=None)
def _minimax_plies(board: str) -> int:
    """Exact value as signed plies to the end: > 0 the mover wins in that many plies (the fastest),
    < 0 it loses (the slowest), 0 a draw (shortest wins, longest losses)."""
    position = TICTACTOE.parse_position(board)
    result = TICTACTOE.outcome(position)
    if result == K.LOSS:
        return -0  # the game is over: lost now
    if result == K.DRAW:
        return 0
    best = None
    for _, child in _children(TICTACTOE, position):
        child_board = TICTACTOE.format_position(child)
        child_result = TICTACTOE.outcome(child)
        value = _child_value(child_board, child_result)
        if best is None or _better(value, best):
            best = value
    return best


def _child_value(child_board: str, child_result: int) -> int:
    if child_result == K.LOSS:  # our move made a line: win in one ply
        return 1
    inner = _minimax_plies(child_board)
    if inner > 0:
        return -(inner + 1)
    if inner < 0 or (inner == 0 and TICTACTOE.outcome(TICTACTOE.parse_position(child_board)) == K.LOSS):
        return -inner + 1
    return 0


def _better(a: int, b: int) -> bool:
    """Order of signed-plies values for the mover: quick wins > slow wins > draws > slow losses."""
    def rank(v):
        return (2, -v) if v > 0 else ((0, -v) if v < 0 else (1, 0))
    return rank(a) > rank(b)


# The default switches, and multi-cut on beside them (off by default: it measured a loss, but
# stays selectable).
WITH_MULTI_CUT = {"multi_cut": True}


@pytest.mark.parametrize("switches", [None, WITH_MULTI_CUT], ids=["defaults", "multi-cut"])
def test_tictactoe_search_equals_minimax_on_every_reachable_position(switches):
    seen = {}
    _reachable(TICTACTOE, TICTACTOE.start_position(), seen)
    assert len(seen) == 5478
    player = Player(TICTACTOE, hash_mb=1, switches=switches)
    checked = 0
    for position in seen.values():
        if TICTACTOE.outcome(position) != K.ONGOING:
            assert player.search(position, Limits(depth=9)).best is None
            continue
        board = TICTACTOE.format_position(position)
        expected = _minimax_plies(board)
        result = player.search(position, Limits(depth=9))
        got = mate_in_plies(result.score) if abs(result.score) > MATE - 100 else 0
        assert got == expected, board
        # The move played achieves that value.
        child = TICTACTOE.play(position, result.best)
        assert _child_value(TICTACTOE.format_position(child), TICTACTOE.outcome(child)) == expected, board
        checked += 1
    assert checked == 4520


def _terminal(result: int, ply: int) -> int:
    return -(MATE - ply) if result == K.LOSS else (MATE - ply if result == K.WIN else 0)


def _naive_quiescence(game, position, ply):
    """Stand pat or any noisy move, no pruning of any kind (Connect Four has no checks)."""
    result = int(game.kernels.outcome(position, -1))
    if result != K.ONGOING:
        return _terminal(result, ply)
    best = int(game.kernels.evaluate(position))
    buffer = np.empty(game.max_moves, dtype=np.int32)
    count = game.player.noisy_moves(position, buffer)
    for move in buffer[:count]:
        best = max(best, -_naive_quiescence(game, game.play(position, int(move)), ply + 1))
    return best


def _naive_negamax(game, position, depth, ply=0):
    if depth <= 0 and ply > 0:
        return _naive_quiescence(game, position, ply)
    moves = game.legal_moves(position)
    result = int(game.kernels.outcome(position, len(moves)))
    if result != K.ONGOING:
        return _terminal(result, ply)
    return max(-_naive_negamax(game, game.play(position, m), depth - 1, ply + 1) for m in moves)


def _random_connect4_positions(count, seed):
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        position = CONNECT4.start_position()
        for _ in range(rng.randrange(0, 30)):
            moves = CONNECT4.legal_moves(position)
            if not moves:
                break
            position = CONNECT4.play(position, rng.choice(moves))
        if CONNECT4.outcome(position) == K.ONGOING:
            positions.append(position)
    return positions


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_connect4_plain_alpha_beta_equals_naive_negamax(depth):
    player = Player(CONNECT4, hash_mb=1, switches=PLAIN)
    for position in _random_connect4_positions(25, seed=depth):
        expected = _naive_negamax(CONNECT4, position, depth)
        result = player.search(position, Limits(depth=depth))
        assert result.score == expected, CONNECT4.format_position(position)
        # The move it chose has that value too.
        child = CONNECT4.play(position, result.best)
        assert -_naive_negamax(CONNECT4, child, depth - 1, 1) == expected


def test_connect4_full_search_keeps_the_value_of_an_immediate_win_and_block():
    player = Player(CONNECT4, hash_mb=1)
    win = CONNECT4.parse_position("445566")  # the side to move (first player) completes 4 in a row
    result = player.search(win, Limits(depth=6))
    assert CONNECT4.format_move(win, result.best) in ("3", "7") and result.mate == 1
    block = CONNECT4.parse_position("11223")  # the second player must block at 4
    result = player.search(block, Limits(depth=6))
    assert CONNECT4.format_move(block, result.best) == "4"


@pytest.mark.parametrize("name", ["connect4", "tictactoe"])
def test_is_legal_is_membership_in_the_move_list(name):
    game = games.get(name)
    rng = random.Random(3)
    asked = 0
    for _ in range(30):
        position = game.start_position()
        while True:
            legal = set(game.legal_moves(position))
            for move in range(-2, game.move_space + 2):
                assert bool(game.player.is_legal(position, np.int32(move))) == (move in legal)
                asked += 1
            if not legal:
                break
            position = game.play(position, rng.choice(sorted(legal)))
    assert asked > 500
