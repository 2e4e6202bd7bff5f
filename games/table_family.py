"""The table-family contract: how a game splits its positions into retrograde tables.

A family names its tables, says which tables a table's moves can land in (built first), and
provides two kernels over one *index space* per table (a perfect hash of the table's positions;
indices that hold no legal position are allowed and reported invalid):

``unrank(table_id, index, pos) -> boolean``
    Writes the position with ``index`` in table ``table_id`` into ``pos``; False if the index
    holds no legal position (``pos`` is then undefined).

``rank(pos) -> int64``
    ``table_id << TABLE_SHIFT | index`` of the table holding ``pos``, -1 if no table does, or
    ``NEEDS_CHILDREN`` (-2) if the entry of its placement does not give its value (chess: an
    en-passant right) and its value must come from its children.

An index covers the side to move: a table of ``sides`` sides has ``sides * entries_per_side``
indices, side-major. Without un-move generation a family is solved by forward passes.
"""
from __future__ import annotations

import numpy as np
from numba import types

from games.kernels import POSITION

TABLE_SHIFT = 40
NEEDS_CHILDREN = -2
INDEX_MASK = (1 << TABLE_SHIFT) - 1

RANK_SIGNATURE = types.int64(POSITION)
UNRANK_SIGNATURE = types.boolean(types.int64, types.int64, POSITION)
RankKernel = types.FunctionType(RANK_SIGNATURE)
UnrankKernel = types.FunctionType(UNRANK_SIGNATURE)


class TableFamily:
    """A game's tables; subclasses fill in the names, sizes and the two kernels."""

    game = None  # the games.Game these tables belong to
    index_scheme: str = ""
    index_version: int = 1
    sides: int = 1
    rank = None
    unrank = None
    rank_many = None  # optional: a kernel ranking every row of a 2-D array (faster batches)

    def table_names(self, max_pieces: int | None = None) -> list[str]:
        """Every table (up to ``max_pieces`` where that means something), dependencies first."""
        raise NotImplementedError

    def dependencies(self, table: str) -> list[str]:
        """Tables that moves out of ``table`` land in (built before it)."""
        return []

    def table_id(self, table: str) -> int:
        """The number ``rank``/``unrank`` use for ``table``; KeyError if unknown."""
        return self.table_names().index(table)

    def table_name(self, table_id: int) -> str:
        """Inverse of :meth:`table_id`."""
        return self.table_names()[table_id]

    def size(self, table: str) -> int:
        """Number of indices of ``table`` (all sides)."""
        raise NotImplementedError

    def locate(self, position: np.ndarray) -> tuple[str, int]:
        """(table, index) of ``position``; KeyError with a one-line reason if not covered."""
        packed = int(self.rank(position))
        if packed < 0:
            raise KeyError(f"position not covered by any {self.game.name} table")
        return self.table_name(packed >> TABLE_SHIFT), packed & INDEX_MASK

    def needs_children(self, position: np.ndarray) -> bool:
        """Whether the position's value must be read from its children rather than its own
        entry (chess: an en-passant right, which the index does not record)."""
        return False
