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


def reference_noisy_moves(game, position) -> set[str]:
    """The legal moves (as text) that are noisy by the definition in games/kernels.py, computed
    from the notation alone: chess (python-chess) a capture, en passant included, or a
    promotion; Connect Four and tic-tac-toe a move that makes a line for the mover, or fills a
    cell where the opponent would make one."""
    text = game.format_position(position)
    reference = reference_for(game.name)
    if game.name == "chess":
        import chess

        board = chess.Board(text)
        return {m.uci() for m in board.legal_moves if board.is_capture(m) or m.promotion is not None}
    noisy = set()
    for move_text in reference.legal_moves(text):
        cell = int(move_text) - 1
        if game.name == "tictactoe":
            mover = reference.side_to_move(text)
            for mark in (mover, "o" if mover == "x" else "x"):
                noisy |= {move_text} if reference._winner(text[:cell] + mark + text[cell + 1:]) == mark else set()
        elif game.name == "connect4":
            mover = len(text) % 2
            for player in (mover, 1 - mover):
                columns = reference._grid(text)
                columns[cell].append(player)
                noisy |= {move_text} if reference._has_four(columns, player) else set()
        else:
            raise NotImplementedError(game.name)
    return noisy


def test_noisy_moves_match_the_definition(game):
    """``is_noisy`` on every legal move against the rules' definition, and ``noisy_moves``
    (the moves quiescence expands) exactly the legal moves ``is_noisy`` accepts, in order."""
    rng = random.Random(5)
    kinds = set()
    for _ in range(PLAYOUTS // 4):
        for position in random_playout(game, rng):
            legal = game.legal_moves(position)
            noisy = [m for m in legal if game.kernels.is_noisy(position, np.int32(m))]
            expected = reference_noisy_moves(game, position)
            assert {game.format_move(position, m) for m in noisy} == expected, game.format_position(position)
            kinds |= {move in noisy for move in legal}
            if game.player is not None:
                buffer = np.empty(game.max_moves, dtype=np.int32)
                count = game.player.noisy_moves(position, buffer)
                assert buffer[:count].tolist() == noisy, game.format_position(position)
    assert kinds == {True, False}, "the playouts never met both noisy and quiet moves"


def candidate_move_texts(game, position, rng: random.Random, previous=None) -> set[str]:
    """Move strings worth trying in ``position``: the whole notation for Connect Four and
    tic-tac-toe (every column or cell, and digits beside them); for chess, every pseudo-legal
    move that is not legal (python-chess: pinned pieces, the king into check), a sample of the
    legal moves, the other side's moves and the moves of the position before, random from-to
    pairs and promotions, and text that is no move at all."""
    if game.name == "tictactoe":
        return {str(d) for d in range(0, 11)}
    if game.name == "connect4":
        return {str(d) for d in range(0, 9)}
    if game.name != "chess":
        return {"???"}
    import chess

    board = chess.Board(game.format_position(position))
    legal = {m.uci() for m in board.legal_moves}
    texts = {m.uci() for m in board.pseudo_legal_moves} - legal  # pinned pieces, king into check
    others = sorted(legal)
    board.turn = not board.turn
    others += sorted(m.uci() for m in board.pseudo_legal_moves)
    if previous is not None:
        others += [game.format_move(previous, m) for m in game.legal_moves(previous)]
    texts |= set(rng.sample(others, min(len(others), 12)))
    squares = list(chess.SQUARE_NAMES)
    for _ in range(4):
        texts.add(rng.choice(squares) + rng.choice(squares) + rng.choice(["", "q", "n", "k", "p"]))
    texts.add(rng.choice(["a1a1", "e2e4e", "0000", "", "e9e4", "i2i4", "E2E4", "e2-e4"]))
    return texts


def test_illegal_moves_are_refused(game):
    """Every candidate move text is accepted exactly when the reference says it is legal (and
    then names the move it formats to); every other one raises NotationError."""
    rng = random.Random(7)
    reference = reference_for(game.name)
    refused = accepted = 0
    for _ in range(10):
        previous = None
        for position in random_playout(game, rng):
            text = game.format_position(position)
            legal = reference.legal_moves(text) if reference is not None else \
                {game.format_move(position, m) for m in game.legal_moves(position)}
            assert len(legal) == len(game.legal_moves(position)), text
            for move_text in sorted(candidate_move_texts(game, position, rng, previous)):
                if move_text in legal:
                    assert game.format_move(position, game.parse_move(position, move_text)) == move_text
                    accepted += 1
                else:
                    with pytest.raises(games.NotationError):
                        game.parse_move(position, move_text)
                    refused += 1
            previous = position
    assert refused > 100 and accepted > 100, (refused, accepted)
