"""Random legal chess positions of a table's material (python-chess boards): samples for the
oracle checks in tests/ and the benchmarks in scripts/."""
from __future__ import annotations

import random

import chess

from games.chess import endgames as E


def random_board(table: str, rng: random.Random, en_passant: bool = True) -> chess.Board:
    """A random legal position with the table's material (either colour stronger, either side
    to move); with ``en_passant``, for tables with pawns on both sides, one in ten has an
    en-passant right."""
    white, black = E.sides_of(table)
    if en_passant and "P" in white and "P" in black and rng.random() < 0.1:
        board = en_passant_board(table, rng)
        if board is not None:
            return board
    pieces = [("K", True), ("K", False)] + [(p, True) for p in white] + [(p, False) for p in black]
    if rng.random() < 0.5:
        pieces = [(p, not c) for p, c in pieces]
    while True:
        board = chess.Board(None)
        for (letter, colour), square in zip(pieces, rng.sample(range(64), len(pieces))):
            board.set_piece_at(square, chess.Piece(chess.PIECE_SYMBOLS.index(letter.lower()), colour))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            return board


def en_passant_board(table: str, rng: random.Random) -> chess.Board | None:
    """A random position of the table just after a double pawn push that can be taken en
    passant (None if the random placement does not allow it)."""
    white, black = E.sides_of(table)
    mover = rng.random() < 0.5  # the side to move, who may capture en passant
    pusher = not mover
    file = rng.randrange(8)
    side_file = file + rng.choice([-1, 1])
    if not 0 <= side_file < 8:
        return None
    rank = 3 if pusher == chess.WHITE else 4
    step = 8 if pusher == chess.WHITE else -8
    pushed = chess.square(file, rank)
    board = chess.Board(None)
    board.set_piece_at(pushed, chess.Piece(chess.PAWN, pusher))
    board.set_piece_at(chess.square(side_file, rank), chess.Piece(chess.PAWN, mover))
    rest = [("K", True), ("K", False)] + [(p, True) for p in white] + [(p, False) for p in black]
    rest.remove(("P", True))
    rest.remove(("P", False))
    free = [sq for sq in range(64) if board.piece_at(sq) is None
            and sq not in (pushed - step, pushed - 2 * step)]
    for (letter, colour), square in zip(rest, rng.sample(free, len(rest))):
        board.set_piece_at(square, chess.Piece(chess.PIECE_SYMBOLS.index(letter.lower()), colour))
    board.turn = mover
    board.ep_square = pushed - step
    if board.is_valid() and board.has_legal_en_passant():
        return board
    return None
