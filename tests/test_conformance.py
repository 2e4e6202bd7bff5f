"""Conformance tests run on every registered game: random playouts check the kernels against
each other and against a naive reference implementation of the rules (tests/reference_games.py;
python-chess for chess)."""
from __future__ import annotations

import random

import numpy as np
import pytest

import games
from games.kernels import DRAW, EVAL_LIMIT, LOSS, ONGOING, WIN
from tests.reference_games import reference_for

PLAYOUTS = 60
ALL_GAMES = games.names()


@pytest.fixture(params=ALL_GAMES)
def game(request):
    return games.get(request.param)


def random_playout(game, rng: random.Random, max_plies: int = 200):
    """Positions along one random game from the start (including the start and the end)."""
    position = game.start_position()
    trail = [position]
    for _ in range(max_plies):
        moves = game.legal_moves(position)
        if not moves:
            break
        position = game.play(position, rng.choice(moves))
        trail.append(position)
    return trail


def identity(game, position) -> str:
    """What makes two positions the same for search: the notation, less chess's move counters
    (the halfmove clock and move number are not part of a position's identity)."""
    text = game.format_position(position)
    return " ".join(text.split()[:4]) if game.name == "chess" else text


def test_game_declares_its_shape(game):
    assert game.name in ALL_GAMES
    assert game.position_width > 0 and game.max_moves > 0 and game.move_space > 0
    start = game.start_position()
    assert start.dtype == np.uint64 and start.shape == (game.position_width,)


def test_moves_are_within_bounds_and_distinct(game):
    rng = random.Random(1)
    for _ in range(PLAYOUTS):
        for position in random_playout(game, rng):
            moves = game.legal_moves(position)
            assert len(moves) == len(set(moves)) <= game.max_moves
            assert all(0 <= m < game.move_space for m in moves)


def test_hash_is_a_function_of_the_position(game):
    rng = random.Random(2)
    seen: dict[bytes, int] = {}
    for _ in range(PLAYOUTS):
        for position in random_playout(game, rng):
            key = identity(game, position)
            h = game.hash(position)
            assert seen.setdefault(key, h) == h, f"two hashes for {key}"
    # and different positions should (practically) never collide
    assert len(set(seen.values())) == len(seen)


def test_notation_round_trips(game):
    rng = random.Random(3)
    for _ in range(PLAYOUTS):
        for position in random_playout(game, rng):
            text = game.format_position(position)
            again = game.parse_position(text)
            assert np.array_equal(again, position), text
            assert game.format_position(again) == text
            moves = game.legal_moves(position)
            for move in rng.sample(moves, min(len(moves), 4)):
                assert game.parse_move(position, game.format_move(position, move)) == move


def test_outcome_is_consistent_with_move_generation(game):
    rng = random.Random(4)
    for _ in range(PLAYOUTS):
        for position in random_playout(game, rng):
            result = game.outcome(position)
            assert result in (WIN, DRAW, LOSS, ONGOING)
            if not game.legal_moves(position):
                assert result != ONGOING, game.format_position(position)


def test_evaluation_is_within_bounds(game):
    rng = random.Random(5)
    for _ in range(PLAYOUTS // 4):
        for position in random_playout(game, rng):
            assert -EVAL_LIMIT < int(game.kernels.evaluate(position)) < EVAL_LIMIT
            for move in game.legal_moves(position):
                assert game.kernels.is_noisy(position, np.int32(move)) in (True, False)


def test_agrees_with_the_naive_reference(game):
    reference = reference_for(game.name)
    if reference is None:
        pytest.skip(f"no reference implementation for {game.name}")
    rng = random.Random(6)
    for _ in range(PLAYOUTS):
        position = game.start_position()
        text = game.format_position(position)
        for _ in range(200):  # chess games can go on forever (bare kings)
            ours = {game.format_move(position, m) for m in game.legal_moves(position)}
            assert ours == reference.legal_moves(text), text
            assert game.outcome(position) == reference.outcome(text), text
            if not ours:
                break
            move_text = rng.choice(sorted(ours))
            position = game.play(position, game.parse_move(position, move_text))
            text = reference.play(text, move_text)
            assert game.parse_position(text).tolist() == position.tolist(), text


def test_illegal_moves_are_refused(game):
    rng = random.Random(7)
    reference = reference_for(game.name)
    for _ in range(10):
        for position in random_playout(game, rng):
            legal = set(game.legal_moves(position))
            for move in range(min(game.move_space, 64)):
                if move not in legal:
                    with pytest.raises(games.NotationError):
                        game.parse_move(position, _move_text_guess(game, position, move))
                    break
            if reference is not None:
                assert len(legal) == len(reference.legal_moves(game.format_position(position)))


def _move_text_guess(game, position, move):
    """Notation for a move that is not legal here (games that cannot format it get garbage)."""
    try:
        return game.format_move(position, move)
    except Exception:  # a game may refuse to format an impossible move
        return "???"
