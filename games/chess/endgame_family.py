"""The chess table family (:class:`games.table_family.TableFamily`): the tables and their
index from :mod:`games.chess.endgames`, the un-move generation from
:mod:`games.chess.retrograde_kernels`, loaded on first use (probing never compiles it).

Imports go one way: the kernels need the index, this module needs both, neither needs it.
"""
from __future__ import annotations

import numpy as np

from games.chess.endgames import (INDEX_SCHEME, INDEX_VERSION, MAX_PIECES, PAWNLESS_UNCHANGED_SINCE,
                                  TABLE_IDS, TABLES, dependencies_of, has_pawns, index_dimensions,
                                  pack_dimensions, pawn_placements, per_side_size, rank, rank_children, rank_ignoring_en_passant,
                                  rank_many, tables_up_to, unrank)
from games.chess.position import BLACK, CASTLING, STATE, WHITE
from games.table_family import TABLE_SHIFT, TableFamily


class ChessEndgames(TableFamily):
    """Every chess ending of up to five pieces (KvK, 5 three-piece, 30 four-piece and the
    five-piece tables)."""

    index_scheme = INDEX_SCHEME
    index_version = INDEX_VERSION
    sides = 2

    def __init__(self):
        import games

        self.game = games.get("chess")
        self.rank = rank
        self.rank_many = rank_many
        self.rank_children = rank_children
        self.rank_entry = rank_ignoring_en_passant
        self.unrank = unrank

    def table_names(self, max_pieces=None):
        """All tables (dependencies first), or those of at most ``max_pieces`` pieces."""
        return list(TABLES) if max_pieces is None else tables_up_to(max_pieces)

    def table_id(self, table):
        """Position of ``table`` in :data:`TABLES`."""
        return TABLE_IDS[table]

    def table_name(self, table_id):
        """Inverse of :meth:`table_id`."""
        return TABLES[table_id]

    def dependencies(self, table):
        """Captures and promotions out of ``table``."""
        return dependencies_of(table)

    def size(self, table):
        """Storage indices of ``table`` (both sides to move)."""
        return 2 * per_side_size(table)

    def pack_order(self, table):
        """The pawns' digits fastest in the pack (in the index they are slowest, so that a
        pawn slice is one run for the generators): a pawn's moves are the neighbours the
        coder predicts best from (KQBPvK's pack is a third smaller than in the index's order)."""
        placements = pawn_placements(table)
        return placements, per_side_size(table) // placements

    def pack_dimensions(self, table):
        """The pack's dimensions, fastest first (:func:`endgames.pack_dimensions`)."""
        return pack_dimensions(table)

    def indexed_alike(self, table, version):
        """This version's index, or for a table without pawns any since
        ``PAWNLESS_UNCHANGED_SINCE`` (only the pawns' place in the index changed since)."""
        if not has_pawns(table) and isinstance(version, (int, np.integer)):
            return PAWNLESS_UNCHANGED_SINCE <= version <= INDEX_VERSION
        return version == INDEX_VERSION

    def index_dimensions(self, table):
        """The storage index's dimensions, fastest first (:func:`endgames.index_dimensions`)."""
        return index_dimensions(table)

    def locate(self, position):
        """(table, index), or KeyError saying why the position is not covered."""
        if int(position[CASTLING]):
            raise KeyError("positions with castling rights are not covered by the tables")
        entry = int(rank_ignoring_en_passant(position))
        if entry < 0:
            pieces = bin(int(position[WHITE] | position[BLACK])).count("1")
            raise KeyError(f"no table for this material ({pieces} pieces; tables go up to "
                           f"{MAX_PIECES})")
        return TABLES[entry >> TABLE_SHIFT], entry & ((1 << TABLE_SHIFT) - 1)

    def zeroing_moves_leave(self, table):
        """Without pawns, the only zeroing moves are captures, and they leave the table."""
        return "P" not in table

    def needs_children(self, position):
        """A position with an en-passant right is valued by looking at its moves."""
        return bool((int(position[STATE]) >> 8) & 63)

    @property
    def unmoves(self):
        """Un-move generation (loaded on first use: probing does not need it)."""
        from games.chess.retrograde_kernels import UNMOVE_KERNELS
        return UNMOVE_KERNELS
