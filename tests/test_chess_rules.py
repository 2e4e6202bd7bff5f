"""outcome, insufficient material, the 50-move and repetition helpers, evaluate, is_noisy."""
from __future__ import annotations

import random

import chess
import numpy as np

import games
from games.chess import (evaluate, insufficient_material, is_fifty_move_draw, is_noisy, legal_moves,
                         repetition_count)
from games.kernels import DRAW, EVAL_LIMIT, LOSS, ONGOING

GAME = games.get("chess")


def test_mate_stalemate_and_dead_positions():
    assert GAME.outcome(GAME.parse_position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")) == LOSS
    assert GAME.outcome(GAME.parse_position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == DRAW
    for fen in ["8/8/4k3/8/8/3K4/8/8 w - - 0 1", "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
                "8/8/4k3/2b5/8/3KB3/8/8 w - - 0 1"]:
        assert GAME.outcome(GAME.parse_position(fen)) == DRAW, fen
    for fen in ["8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1", "8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", "startpos"]:
        assert GAME.outcome(GAME.parse_position(fen)) == ONGOING, fen


def test_insufficient_material_agrees_with_python_chess():
    rng = random.Random(3)
    pieces = [chess.KNIGHT, chess.BISHOP, chess.BISHOP, chess.BISHOP, chess.ROOK, chess.PAWN]
    for _ in range(500):
        board = chess.Board(None)
        squares = rng.sample(range(8, 56), 6)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2:2 + rng.randint(0, 4)]:
            board.set_piece_at(square, chess.Piece(rng.choice(pieces), rng.choice([True, False])))
        if not board.is_valid():
            continue
        assert insufficient_material(GAME.parse_position(board.fen())) == board.is_insufficient_material(), board.fen()


def test_fifty_move_rule_and_repetitions():
    quiet = GAME.parse_position("8/8/4k3/8/8/3K4/8/R7 w - - 99 80")
    buffer = np.empty(GAME.max_moves, dtype=np.int32)
    assert not is_fifty_move_draw(quiet, legal_moves(quiet, buffer))
    after = GAME.play_moves(quiet, ["a1a2"])
    assert is_fifty_move_draw(after, legal_moves(after, buffer))
    mated = GAME.parse_position("3k4/3Q4/3K4/8/8/8/8/8 b - - 100 90")
    assert not is_fifty_move_draw(mated, legal_moves(mated, buffer))

    position = GAME.start_position()
    hashes = [GAME.hash(position)]
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        position = GAME.play_moves(position, [move])
        hashes.append(GAME.hash(position))
    history = np.array(hashes, dtype=np.uint64)
    assert repetition_count(history, 8, 8) == 3
    assert repetition_count(history, 4, 4) == 2
    assert repetition_count(history, 4, 3) == 1  # the clock says the history is cut
    assert repetition_count(history, 5, 5) == 2


def test_evaluate_is_side_relative_symmetric_and_bounded():
    rng = random.Random(9)
    position = GAME.start_position()
    assert evaluate(position) == 0
    for _ in range(300):
        moves = GAME.legal_moves(position)
        if not moves:
            break
        position = GAME.play(position, rng.choice(moves))
        board = chess.Board(GAME.format_position(position))
        mirrored = GAME.parse_position(board.mirror().fen())
        assert evaluate(position) == evaluate(mirrored)
        assert abs(evaluate(position)) < EVAL_LIMIT
    up_a_queen = GAME.parse_position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert evaluate(up_a_queen) > 800
    assert evaluate(GAME.parse_position("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")) < -800


def test_is_noisy_marks_captures_en_passant_and_promotions():
    position = GAME.parse_position("r3k3/1P6/8/3pP3/8/8/8/R3K2R w KQq d6 0 2")
    noisy = {GAME.format_move(position, m) for m in GAME.legal_moves(position) if is_noisy(position, np.int32(m))}
    assert noisy == {"e5d6", "a1a8", "b7a8q", "b7a8r", "b7a8b", "b7a8n", "b7b8q", "b7b8r", "b7b8b", "b7b8n"}
