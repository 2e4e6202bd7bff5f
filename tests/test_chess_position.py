"""Position kernels: build_position, in_check, opponent_in_check, piece_count, piece_on."""
from __future__ import annotations

import random

import chess
import numpy as np

import games
from games.chess import build_position, hash_from_scratch, in_check, opponent_in_check, piece_count, piece_on
from games.chess.position import POSITION_WIDTH

GAME = games.get("chess")


def _built(pieces: list[tuple[int, int]], side: int) -> np.ndarray:
    pos = np.full(POSITION_WIDTH, 12345, dtype=np.uint64)  # garbage must be overwritten
    build_position(np.array([p for p, _ in pieces], dtype=np.int8), np.array([s for _, s in pieces], dtype=np.int8),
                   len(pieces), side, pos)
    return pos


def test_build_position_equals_the_parsed_fen():
    rng = random.Random(5)
    for _ in range(300):
        board = chess.Board(None)
        squares = rng.sample(range(64), 5)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2:]:
            board.set_piece_at(square, chess.Piece(rng.choice([2, 3, 4, 5]), rng.choice([True, False])))
        board.turn = rng.choice([True, False])
        if board.was_into_check() or board.kings & chess.BB_RANK_1 & 0:
            continue
        pieces = [((piece.piece_type - 1) + (0 if piece.color else 6), square) for square, piece in board.piece_map().items()]
        built = _built(pieces, 0 if board.turn else 1)
        parsed = GAME.parse_position(board.fen())
        assert np.array_equal(built, parsed), board.fen()
        assert built[10] == hash_from_scratch(built)
        assert piece_count(built) == 5
        assert bool(in_check(built)) == board.is_check()
        for square in range(64):
            piece = board.piece_at(square)
            assert piece_on(built, square) == (-1 if piece is None else piece.piece_type - 1 + (0 if piece.color else 6))


def test_opponent_in_check_flags_impossible_positions():
    white_king, black_king, white_rook = 5, 11, 3
    # Black king a8, White rook a1, White to move: Black (not to move) is in check.
    assert opponent_in_check(_built([(white_king, 7), (black_king, 56), (white_rook, 0)], 0))
    assert not opponent_in_check(_built([(white_king, 7), (black_king, 56), (white_rook, 0)], 1))
    assert in_check(_built([(white_king, 7), (black_king, 56), (white_rook, 0)], 1))
