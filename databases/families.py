"""The table family of each game (how its positions split into tables), loaded lazily."""
from __future__ import annotations

import importlib

_FAMILIES = {
    "tictactoe": ("games.tictactoe_tables", "TicTacToeTables"),
    "chess": ("games.chess.endgame_family", "ChessEndgames"),
}
_LOADED: dict = {}


class NoTablesError(LookupError):
    """The game has no table family (it cannot be solved by retrograde analysis here)."""


def family_names() -> list[str]:
    """Games that have tables."""
    return sorted(_FAMILIES)


def get_family(game: str):
    """The table family of ``game`` (a shared instance)."""
    if game not in _LOADED:
        try:
            module_name, class_name = _FAMILIES[game]
        except KeyError:
            raise NoTablesError(f"{game} has no endgame tables (games with tables: "
                                f"{', '.join(family_names())})") from None
        _LOADED[game] = getattr(importlib.import_module(module_name), class_name)()
    return _LOADED[game]
