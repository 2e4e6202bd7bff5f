"""The categories of a position's value in the server's answers, one type for every game (as
lila-tablebase's ``Category``): what the side to move gets, under the 50-move rule where it
applies, in Lichess's words.

A ``Category`` is a ``str`` (``enum.StrEnum``): it goes into JSON as its Lichess name.
"""
from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    """A value for the side to move, in Lichess's order, worst first (``rank``). ``UNKNOWN``
    sorts between a loss and anything better (a pessimist's choice: an unknown move is never
    preferred to a known draw). We never answer the syzygy ones (our DTZ is not rounded), but
    they keep their place in the order."""

    LOSS = "loss"
    UNKNOWN = "unknown"
    SYZYGY_LOSS = "syzygy-loss"
    MAYBE_LOSS = "maybe-loss"  # a rule-free loss: no DTZ50 table says whether the rule saves it
    BLESSED_LOSS = "blessed-loss"  # lost, but the 50-move rule draws it
    DRAW = "draw"
    CURSED_WIN = "cursed-win"  # won, but the 50-move rule draws it
    MAYBE_WIN = "maybe-win"  # a rule-free win: no DTZ50 table says whether the rule draws it
    SYZYGY_WIN = "syzygy-win"
    WIN = "win"

    @property
    def rank(self) -> int:
        """Its place in Lichess's order, worst first."""
        return _RANK[self]

    @property
    def is_positive(self) -> bool:
        """Whether the side to move wins (cursed, maybe or outright)."""
        return self.rank > _RANK[Category.DRAW]

    def opposite(self) -> Category:
        """The same value seen from the other side."""
        return _OPPOSITE[self]


_RANK = {category: rank for rank, category in enumerate(Category)}
_PAIRS = ((Category.LOSS, Category.WIN), (Category.SYZYGY_LOSS, Category.SYZYGY_WIN),
          (Category.MAYBE_LOSS, Category.MAYBE_WIN), (Category.BLESSED_LOSS, Category.CURSED_WIN),
          (Category.DRAW, Category.DRAW), (Category.UNKNOWN, Category.UNKNOWN))
_OPPOSITE = {one: other for pair in _PAIRS for one, other in (pair, pair[::-1])}
