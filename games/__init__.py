"""Game rules behind one kernel interface (see :mod:`games.kernels` for the contract).

>>> import games
>>> game = games.get("tictactoe")
>>> game.legal_moves(game.start_position())
[0, 1, 2, 3, 4, 5, 6, 7, 8]
"""
from __future__ import annotations

import importlib

from runtime import compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)
from games.game import Game, Kernels, NotationError, PlayerKernels
from games.kernels import DRAW, LOSS, ONGOING, WIN

# name -> (module, class); imported lazily so that one game's compile cost is not paid by others.
_REGISTRY = {
    "tictactoe": ("games.tictactoe", "TicTacToe"),
    "connect4": ("games.connect4", "ConnectFour"),
    "chess": ("games.chess", "Chess"),
}


class UnknownGameError(ValueError):
    """A game name that is not registered."""


def names() -> list[str]:
    """The registered game names."""
    return sorted(_REGISTRY)


def get(name: str, **options) -> Game:
    """The game registered as ``name`` (options, e.g. a Connect Four board size, go to its
    constructor)."""
    try:
        module_name, class_name = _REGISTRY[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r} (known: {', '.join(names())})") from None
    return getattr(importlib.import_module(module_name), class_name)(**options)


__all__ = ["Game", "Kernels", "NotationError", "PlayerKernels", "UnknownGameError", "get", "names",
           "WIN", "DRAW", "LOSS", "ONGOING"]
