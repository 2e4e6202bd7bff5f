"""The chess ``Game`` object: FEN positions, UCI moves, and the compiled kernels."""
from __future__ import annotations

import numpy as np

from games.chess import notation
from games.chess.makemove import play
from games.chess.movegen import MAX_MOVES, MOVE_SPACE, legal_moves
from games.chess.position import POSITION_WIDTH, hash_position, in_check
from games.game import Game, Kernels, PlayerKernels

# Kernels named here are loaded on first use: parsing positions and counting moves (what the
# notation imports above) compile none of the rules judgements, evaluation or player kernels.
RULES = "games.chess.rules:"
EVALUATION = "games.chess.evaluation:"
PLAYER = "games.chess.player:"


class Chess(Game):
    """Chess: positions in FEN (or ``startpos``), moves in UCI long algebraic notation.

    ``chess960=True`` accepts Chess960 castling rights (X-FEN / Shredder-FEN letters) and writes
    castling moves as the king taking its rook (``e1h1``), as UCI_Chess960 does; the kernels
    are the same.
    """

    name = "chess"
    position_width = POSITION_WIDTH
    max_moves = MAX_MOVES
    move_space = MOVE_SPACE
    # The longest possible game under the 50-move rule (claimed each time) is 8848.5 moves.
    max_game_length = 17697
    fifty_move_plies = 100
    kernels = Kernels(legal_moves, play, RULES + "outcome", hash_position, EVALUATION + "evaluate",
                      RULES + "is_noisy")
    player = PlayerKernels(in_check, PLAYER + "gives_check", PLAYER + "play_null", PLAYER + "move_keys",
                           PLAYER + "noisy_moves", PLAYER + "reversible_plies", PLAYER + "piece_to",
                           "games.chess.legality:is_legal")

    piece_to_space = 2 * 6 * 64  # side, piece, target square

    def __init__(self, chess960: bool = False):
        self.chess960 = chess960

    def parse_position(self, text: str) -> np.ndarray:
        """Parse a FEN (6 fields, or 4 as in EPD) or ``startpos``; NotationError says what is wrong."""
        return notation.parse_fen(text, self.chess960)

    def format_position(self, position: np.ndarray) -> str:
        """The FEN of ``position``."""
        return notation.format_fen(position, self.chess960)

    def parse_move(self, position: np.ndarray, text: str) -> int:
        """Parse a UCI move; NotationError unless it is legal in ``position``."""
        return notation.parse_uci(position, text, self.chess960)

    def format_move(self, position: np.ndarray, move: int) -> str:
        """The UCI text of a legal move."""
        return notation.format_uci(position, move, self.chess960)

    def material_signature(self, position: np.ndarray) -> str:
        """Syzygy-style material name, stronger side first, e.g. ``KQvKR``."""
        return notation.material_signature(position)
