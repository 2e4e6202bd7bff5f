"""Chess behind the game-kernel interface: bitboards, fully legal move generation, FEN/UCI.

Modules: ``position`` (the position array layout, drawn there, the Zobrist hash, building and
inspecting positions), ``tables`` (attack tables and Zobrist keys), ``attacks`` (sliding and
stepping attacks), ``movegen`` (``legal_moves``; the move encoding is documented there),
``makemove`` (``play``), ``rules`` (``outcome``, ``is_noisy``, draws by rule), ``evaluation``
(the tapered ``evaluate``, linear in the weights of ``eval_weights``, and its
``evaluation_features``), ``player`` (the alpha-beta player's ``play_null``, ``move_order``,
``see``, ``noisy_moves``, ``reversible_plies``), ``notation`` (FEN, UCI, material signatures), ``game`` (the
``Chess`` game object). Importing this package loads what the notation needs (position, attacks,
move generation, ``play``); the rules judgements, the evaluation and the player kernels are loaded
when first used.

Public kernels beyond the contract of :mod:`games.kernels`: ``in_check``, ``opponent_in_check``,
``hash_from_scratch``, ``build_position`` (the retrograde builder's fast constructor),
``piece_count``, ``piece_on``, ``halfmove_clock``, ``insufficient_material``,
``is_fifty_move_draw``, ``repetition_count``, ``see``, ``evaluation_features``.

>>> from games.chess import Chess
>>> game = Chess()
>>> pos = game.parse_position("startpos")
>>> len(game.legal_moves(pos)), game.format_move(pos, game.parse_move(pos, "g1f3"))
(20, 'g1f3')
"""
import importlib

from games.chess.game import Chess
from games.chess.makemove import play
from games.chess.movegen import MAX_MOVES, MOVE_SPACE, legal_moves
from games.chess.notation import STANDARD_START, format_fen, format_uci, material_signature, parse_fen, parse_uci
from games.chess.position import (POSITION_WIDTH, build_position, hash_from_scratch, hash_position, in_check,
                                  opponent_in_check, piece_count, piece_on)

# Kernels the notation does not need, imported on first use (importing a module compiles, or loads
# from numba's cache, every kernel in it): name -> module.
_LAZY = {
    **dict.fromkeys(["evaluate", "evaluation_features"], "games.chess.evaluation"),
    **dict.fromkeys(["gives_check", "move_keys", "move_order", "noisy_moves", "play_null", "reversible_plies",
                     "see"], "games.chess.player"),
    **dict.fromkeys(["insufficient_material", "is_fifty_move_draw", "is_noisy", "outcome", "repetition_count"],
                    "games.chess.rules"),
}


def __getattr__(name: str):
    """The kernels of ``_LAZY``, imported when first asked for."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Chess", "MAX_MOVES", "MOVE_SPACE", "POSITION_WIDTH", "STANDARD_START", "build_position", "evaluate",
           "evaluation_features", "format_fen", "format_uci", "hash_from_scratch", "hash_position", "in_check",
           "insufficient_material", "is_fifty_move_draw", "is_noisy", "legal_moves", "material_signature",
           "gives_check", "move_keys", "move_order", "noisy_moves", "opponent_in_check", "outcome", "parse_fen",
           "parse_uci", "piece_count", "piece_on", "play", "play_null", "repetition_count", "reversible_plies", "see"]
