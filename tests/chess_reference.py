"""python-chess as the chess reference for the conformance tests (positions as FEN, moves UCI)."""
from __future__ import annotations

import chess

WIN, DRAW, LOSS, ONGOING = 1, 0, -1, 2


class ChessReference:
    """Answers through python-chess, an implementation independent of ours."""

    def legal_moves(self, fen: str) -> set[str]:
        """UCI strings of the legal moves."""
        return {move.uci() for move in chess.Board(fen).legal_moves}

    def play(self, fen: str, move: str) -> str:
        """FEN after the move."""
        board = chess.Board(fen)
        board.push_uci(move)
        return board.fen()

    def outcome(self, fen: str) -> int:
        """Checkmate is a loss for the side to move; stalemate and dead positions draw."""
        board = chess.Board(fen)
        if board.is_checkmate():
            return LOSS
        if board.is_stalemate() or board.is_insufficient_material():
            return DRAW
        return ONGOING
