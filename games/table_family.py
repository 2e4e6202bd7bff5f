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

Optional: ``rank_children(pos, moves, count, child, ranks)``
    ``ranks[i] = rank(position after moves[i])`` for the first ``count`` legal moves of
    ``pos`` (``child`` is scratch). What a verify does for every position; a family can do it
    faster than playing and ranking each move (chess: a quiet move changes one square of the
    parent's placement, so the child's index needs no position and no material look-up).

An index covers the side to move: a table of ``sides`` sides has ``sides * entries_per_side``
indices, side-major.

Optional: un-move generation (``TableFamily.unmoves``, an :class:`UnmoveKernels`)
    Lets :mod:`retrograde.unmove` solve a table level by level from the decided positions
    backwards, instead of re-examining every unresolved position in each forward pass
    (:mod:`retrograde.forward`). Without it a family is solved by forward passes: correct,
    but every pass looks at every unresolved position (chess would take hours instead of
    seconds). The kernels work in a *generation index* of the game's choice (where moves and
    un-moves are cheap arithmetic), described per table by two arrays, ``params`` (int64) and
    ``aux`` (uint64), and map it to the storage index at the end. Every position holds a
    one-byte value code (:mod:`games.value_codes`; ``GEN_UNKNOWN`` while unresolved) and three
    one-byte *levels* summarising its moves out of the table (captures, promotions), read from
    the child tables once: ``exit_win`` (the level at which one of them wins; ``NO_LEVEL`` if
    none), ``exit_floor`` (the level from which they no longer stop the position from being
    lost) and ``wake`` (another level at which the position must be looked at again; chess:
    when an en-passant answer becomes known). Level ``d`` decides the positions won or lost in
    ``d`` plies.

    *Distances beyond one byte.* Codes and levels are counted from an ``offset`` (0 at first):
    a code's distance and every level mean ``offset +`` that many plies. When the levels
    approach the one-byte range, the engine writes what is decided to storage, then moves the
    offset up and shifts every code and level down (those already past floored at distance 0:
    decided long ago). The kernels see relative levels and codes only; an absolute code read
    from a child table is made relative with ``shifted(code, offset)``.

    ``initialise(params, aux, start, stop, codes, exit_win, exit_floor, wake, child_codes,
    child_offsets, first) -> int64``
        For every index in ``[start, stop)``: code 0 if no legal position, the final code of a
        finished game, else ``GEN_UNKNOWN`` and the three levels (``wake`` is empty, and left
        alone, when the space says it has none). Returns the latest level set. The child
        tables may come in groups (those absent have offset -1; their moves are left out):
        the first call (``first``) does all of the above, later ones only fold the moves into
        the tables now present into the levels of the positions still unresolved. Instead of
        ``GEN_UNKNOWN`` an entry may get ``count_code(c)``, ``c`` its legal moves inside the
        table, if ``mark_predecessors`` decrements it exactly once for each of them (a
        family whose index holds each position once, or whose un-moves reach every node a
        move reaches as often). A later
        group may hold a large table in parts: its entries outside the part read 0
        (``INVALID``, which the child of a legal move never is), and such moves are left to
        the part that holds them.
    ``mark_predecessors(params, aux, entries, count, codes, exit_floor, wins, touched) -> int64``
        For each of ``entries[:count]`` (positions just decided, at level ``d - 1``), its
        unresolved predecessors (un-moves of the side that just moved, inside the table): with
        ``wins``, those whose value is exactly the entry's (the entry is lost) become won in
        ``d`` (code ``3 + 2d``); without, every other one is flagged (``GEN_UNKNOWN`` becomes
        ``GEN_FLAGGED``) or, if it keeps a count of its moves not known won for the opponent
        (``count_code``), has it decremented with :func:`games.bits.atomic_decrement` once per
        move that leads to the entry; the one that reaches 0 is lost in ``d`` if its
        ``exit_floor`` allows (at most ``d``; else the engine decides it at that level).
        Every position whose code it writes is recorded with :func:`touch` (``touched`` has
        one byte per ``TOUCH_BLOCK`` positions: the engine's scans visit only the blocks
        written at the level before). Returns how many were won, or lost. The engine runs the
        two kinds in separate passes, so threads that meet at a predecessor write the same
        code, and a count's last decrement is the same whichever thread makes it.
    ``evaluate(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
    child_codes, child_offsets, results, offset) -> None``
        For each of ``entries[:count]`` (flagged, or unresolved at one of its levels): its
        code at level ``d`` into ``results``, or ``GEN_UNKNOWN``, or (a space with ``wake``)
        ``revisit_at(level)``: unresolved, and to be looked at again at that later level
        (chess: an en-passant answer decided, but known only at its own level). Children
        count as known only when decided below distance ``d``, so the result never depends on
        the order in which entries are evaluated. ``hints`` is one byte per position the
        kernel may use to resume its scan of a position's moves, or empty (the engine lends
        their memory to storage codes when distances pass the byte): every look then starts
        afresh.
    ``wins_by_moves(params, aux, entries, count, d, codes, results) -> None`` (optional)
        The wins of level ``d`` seen from the other end: for each of ``entries[:count]``
        (unresolved) ``win_code(d)`` into ``results`` if one of its moves inside the table
        leads to a position lost in ``d - 1``, else ``GEN_UNKNOWN``. Used in place of the
        wins pass of ``mark_predecessors`` when few positions are left unresolved and many
        were lost at ``d - 1``, in the tables whose space says ``wins_by_moves``.
    ``with_children(space, child_codes, child_offsets) -> aux`` (optional, Python)
        Called once the child tables are loaded: the ``aux`` the kernels get from then on
        (the space's, extended with whatever is cheaper to look up than to compute per
        position; chess: the child codes of every capture, indexed by the squares left).
    ``to_storage(params, aux, start, stop, codes, out, offset) -> None``
        Storage codes of indices ``[start, stop)`` into ``out[0:stop - start]`` (a slice the
        engine chooses) from the generation codes counted from ``offset``
        (``stored_code``: ``GEN_UNKNOWN`` are draws until a later pass decides them; an entry
        floored to distance 0 by an earlier shift keeps what an earlier pass wrote).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numba as nb
import numpy as np
from numba import types

from games.kernels import MOVE_BUFFER, POSITION
from games.value_codes import GEN_FLAGGED, GEN_UNKNOWN  # noqa: F401  (the generators' open codes)

TABLE_SHIFT = 40
NEEDS_CHILDREN = -2
INDEX_MASK = (1 << TABLE_SHIFT) - 1

RANK_SIGNATURE = types.int64(POSITION)
UNRANK_SIGNATURE = types.boolean(types.int64, types.int64, POSITION)
RANK_CHILDREN_SIGNATURE = types.void(POSITION, MOVE_BUFFER, types.int64, POSITION,
                                     types.Array(types.int64, 1, "C"))
RankKernel = types.FunctionType(RANK_SIGNATURE)
UnrankKernel = types.FunctionType(UNRANK_SIGNATURE)
RankChildrenKernel = types.FunctionType(RANK_CHILDREN_SIGNATURE)


NO_LEVEL = 255
GEN_PARAMS = types.Array(types.int64, 1, "C")
GEN_AUX = types.Array(types.uint64, 1, "C")
BYTES = types.Array(types.uint8, 1, "C")
CHILD_CODES = types.Array(types.uint16, 1, "C")
INT64S = types.Array(types.int64, 1, "C")
GEN_INITIALISE_SIGNATURE = types.int64(GEN_PARAMS, GEN_AUX, types.int64, types.int64, BYTES,
                                       BYTES, BYTES, BYTES, CHILD_CODES, INT64S, types.boolean)
GEN_MARK_SIGNATURE = types.int64(GEN_PARAMS, GEN_AUX, INT64S, types.int64, BYTES, BYTES,
                                 types.boolean, BYTES)
GEN_EVALUATE_SIGNATURE = types.void(GEN_PARAMS, GEN_AUX, INT64S, types.int64, types.int64, BYTES,
                                    BYTES, BYTES, BYTES, CHILD_CODES, INT64S, INT64S, types.int64)
GEN_WINS_BY_MOVES_SIGNATURE = types.void(GEN_PARAMS, GEN_AUX, INT64S, types.int64, types.int64,
                                         BYTES, INT64S)
GEN_STORE_SIGNATURE = types.void(GEN_PARAMS, GEN_AUX, types.int64, types.int64, BYTES,
                                 CHILD_CODES, types.int64)


TOUCH_SHIFT = 13  # a block of 8 KiB of one-byte codes: the unit the engine's scans skip or visit
TOUCH_BLOCK = 1 << TOUCH_SHIFT


REVISIT_SHIFT = 8  # an evaluate result above a byte: GEN_UNKNOWN, and the level to look again


@nb.njit(cache=True, inline="always")
def revisit_at(level):
    """An ``evaluate`` result: still unresolved, to be looked at again at ``level`` (its
    ``wake`` level becomes that)."""
    return GEN_UNKNOWN | (level << REVISIT_SHIFT)


@nb.njit(cache=True, inline="always")
def touch(touched, index):
    """Record that the code of position ``index`` was written (see ``mark_predecessors``)."""
    touched[index >> TOUCH_SHIFT] = 1


@dataclass(frozen=True)
class GenerationSpace:
    """One table's generation index: ``size`` positions, described to the kernels by
    ``params`` and ``aux``; ``storage_size`` is the table's storage index size."""

    size: int
    storage_size: int
    params: np.ndarray
    aux: np.ndarray
    wake: bool = True  # False: no position has a wake level; the kernels get an empty array
    # True: ``wins_by_moves`` finds exactly the positions the wins pass of ``mark_predecessors``
    # would (chess: tables without en passant), so the engine may use either.
    wins_by_moves: bool = False
    # The child tables ``evaluate`` reads during the levels (chess: those en passant leads
    # to), kept while they run; None: every child. The others are read by ``initialise`` only.
    children_read_later: tuple[str, ...] | None = None
    # The storage index range ``(start, stop)`` of a child table that moves reach, where it is
    # not the whole table (chess: the half with the side to move after them); the rest of
    # that table is never read.
    child_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class UnmoveKernels:
    """A family's un-move generation: ``space(table)`` gives a :class:`GenerationSpace`; the
    four kernels have the ``GEN_*_SIGNATURE`` signatures described in the module docstring."""

    space: Callable[[str], GenerationSpace]
    initialise: object
    mark_predecessors: object
    evaluate: object
    to_storage: object
    with_children: Callable | None = None
    wins_by_moves: object = None
    # ``zeroing_space(table)``: the space in which the same kernels solve the DTZ50 table of
    # a table whose zeroing moves stay inside it (chess: pawn moves), those moves made exits
    # valued from the table's own DTZ50 codes, given uncut as a child table: the kernels
    # cut each to its rule class (``value_codes.rule_class``) as they read it (retrograde.dtz50)
    zeroing_space: Callable | None = None


class TableFamily:
    """A game's tables; subclasses fill in the names, sizes and the two kernels."""

    game = None  # the games.Game these tables belong to
    index_scheme: str = ""
    index_version: int = 1
    sides: int = 1
    rank = None
    unrank = None
    rank_many = None  # optional: a kernel ranking every row of a 2-D array (faster batches)
    rank_children = None  # optional: a kernel ranking every child of a position (faster verify)
    # optional: ``rank`` of the entry that holds a NEEDS_CHILDREN position's placement (chess:
    # the position without its en-passant right), for generators that value it from there
    rank_entry = None
    unmoves: UnmoveKernels | None = None  # optional: solve by un-move generation

    def indexed_alike(self, table: str, version) -> bool:
        """Whether a file of ``table`` written by ``version`` of :attr:`index_scheme` keeps
        its entries where this version looks for them."""
        return version == self.index_version

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

    def index_dimensions(self, table: str) -> list[int]:
        """The sizes of the dimensions whose product is ``table``'s index, the fastest-varying
        first (entries one step apart in a dimension hold neighbouring positions: the packed
        WDL50's coder predicts from them). Without it, one dimension: the whole index."""
        return [self.size(table)]

    def pack_order(self, table: str) -> tuple[int, int]:
        """``(inner, run)``: the packed WDL50 keeps the index's entries in another order when
        the index is ``[sides, inner, run]`` (slowest first) and the pack's ``[sides, run,
        inner]`` (entry ``(s * inner + i) * run + r`` is the pack's ``(s * run + r) * inner
        + i``), so that :meth:`pack_dimensions` are its fastest. ``(1, 1)``: the same order."""
        return 1, 1

    def pack_dimensions(self, table: str) -> list[int]:
        """:meth:`index_dimensions` in the pack's order (:meth:`pack_order`)."""
        return self.index_dimensions(table)

    def locate(self, position: np.ndarray) -> tuple[str, int]:
        """(table, index) of ``position``; KeyError with a one-line reason if not covered."""
        entry = int(self.rank(position))
        if entry < 0:
            raise KeyError(f"position not covered by any {self.game.name} table")
        return self.table_name(entry >> TABLE_SHIFT), entry & INDEX_MASK

    def zeroing_moves_leave(self, table: str) -> bool:
        """Whether every move that resets the game's reversible-move count (chess: captures
        and pawn moves) leaves ``table``: then its DTZ50 table is solved like the table itself,
        with those moves as its exits (:mod:`retrograde.dtz50`)."""
        return False

    def needs_children(self, position: np.ndarray) -> bool:
        """Whether the position's value must be read from its children rather than its own
        entry (chess: an en-passant right, which the index does not record)."""
        return False
