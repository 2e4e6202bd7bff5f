"""Loading finished tables whole (as the children of a table being built or verified), and
deciding whether a table on disk can be trusted as built."""
from __future__ import annotations

import mmap
from typing import Iterator, Mapping, Protocol

import numpy as np

from databases import format as F
from databases.errors import MissingTableError, OldIndexError, UnusableTableError
from databases.location import DTM, table_path
from databases.reader import TableFile
from games.value_codes import longest_distance

MISSING = "missing"
OLD_INDEX = "built with an older index"  # table_problem: an older build's file (OldIndexError)
MIN_PART_PAGES = 64  # a part of a child table too large for a group: at least 1 M entries
READ_PAGES = 64  # pages read at a time


def read_codes(root, game: str, table: str, out: np.ndarray | None = None,
               entries: tuple[int, int] | None = None, metric: str = DTM,
               convert=None) -> np.ndarray:
    """Every code of a table, as uint16 (header and every page read checked), into ``out`` if
    given (UnusableTableError if its size differs); with ``entries`` = ``(start, stop)`` only
    the pages holding those entries are read into ``out`` (required then). MissingTableError
    or UnusableTableError (damaged, another format or index) naming the file. ``metric``:
    the rule-free table or its DTZ50 table (:mod:`databases.location`); ``convert``: applied
    to the codes page by page as they are read (:meth:`TableFile.read_all`)."""
    handle = TableFile(table_path(root, game, table, metric), game, table)
    try:
        if out is not None and out.size != handle.entries:
            raise UnusableTableError(f"{game}/{table}: {handle.entries} entries, expected "
                                     f"{out.size}")
        if entries is None:
            return handle.read_all(out=out, convert=convert)
        handle.read_range(out, *entries, convert=convert)
        return out
    finally:
        handle.close()


def table_problem(root, family, table: str, metric: str = DTM) -> str | None:
    """None when the file of ``table`` can be trusted as built: it opens and validates (format,
    game, name, index scheme and version, size) and every page reads back and matches its
    checksums. Else :data:`MISSING`, :data:`OLD_INDEX` (a file of an older build), or why the
    file cannot be used (naming it)."""
    game = family.game.name
    try:
        handle = TableFile(table_path(root, game, table, metric), game, table, family)
    except MissingTableError:
        return MISSING
    except OldIndexError:
        return OLD_INDEX
    except UnusableTableError as error:
        return str(error)
    try:
        handle.read_all(keep=False)
    except UnusableTableError as error:
        return str(error)
    finally:
        handle.close()
    return None


def is_built(root, family, table: str) -> bool:
    """Whether a valid file for ``table`` exists (see :func:`table_problem`)."""
    return table_problem(root, family, table) is None


def load_children(root, family, tables: list[str],
                  ranges: Mapping[str, tuple[int, int]] | None = None, metric: str = DTM,
                  extra: int = 0, convert=None,
                  dtype=np.uint16) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of ``tables`` concatenated (``dtype``), offsets by table id (-1 when absent),
    and their longest distance. Each table is read straight into its place (no second copy of
    any of them); of a table in ``ranges`` only the pages holding its index range
    ``(start, stop)`` are read, the other entries are 0 and cost no memory. ``metric``: the
    rule-free tables or their DTZ50 tables. ``extra`` entries (0) are reserved after them,
    for codes the caller adds without a copy of the others. ``convert`` (uint16 codes ->
    ``dtype`` values) is applied page by page as they are read (the longest distance is then
    that of the converted codes)."""
    names = family.table_names()
    offsets = np.full(max(1, len(names)), -1, dtype=np.int64)
    sizes = [family.size(table) for table in tables]
    merged = zeroed(max(1, sum(sizes) + extra), dtype)
    total, longest = 0, 0
    for table, size in zip(tables, sizes):
        start, stop = (ranges or {}).get(table, (0, size))
        read_codes(root, family.game.name, table, out=merged[total:total + size],
                   entries=(start, stop), metric=metric, convert=convert)
        offsets[family.table_id(table)] = total
        top = int(merged[total + start:total + stop].max()) if stop > start else 0
        longest = max(longest, longest_distance(top))
        total += size
    return merged, offsets, longest


def zeroed(count: int, dtype) -> np.ndarray:
    """``count`` zeros of ``dtype`` in memory of their own (a private anonymous mapping): a
    page costs memory only once written, and :func:`release_entries` gives pages back."""
    mapping = mmap.mmap(-1, count * np.dtype(dtype).itemsize,
                        flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(mapping, dtype=dtype, count=count)


def release_entries(array: np.ndarray, start: int, stop: int) -> None:
    """Give the memory of entries ``start..stop`` of ``array`` (made by :func:`zeroed`) back
    to the system; they read 0 again. The pages only partly inside keep their entries."""
    size = array.itemsize
    low = -(-start * size // mmap.PAGESIZE) * mmap.PAGESIZE
    high = stop * size // mmap.PAGESIZE * mmap.PAGESIZE
    if high > low:
        array.base.obj.madvise(mmap.MADV_DONTNEED, low, high - low)


class ChildrenByGroup:
    """A pawn table's children for a generator that solves it one advancement group of
    slices at a time (:mod:`retrograde.chess_dtm_pawns`, :mod:`retrograde.chess_dtz50_pawns`):
    read whole at the start but for the tables in ``runs``, of which only the runs of entries
    a group reaches are read, just before it (:meth:`before_group`), and released when the
    next group starts. ``runs``: per group, per child table, ``(start, stop)`` ranges
    (:func:`retrograde.chess_promotion_runs.promotion_runs`). ``codes`` and ``offsets`` are
    the same arrays throughout (the kernels hold them); other arguments as
    :func:`load_children`."""

    def __init__(self, root, family, tables: list[str],
                 runs: Mapping[int, Mapping[str, list[tuple[int, int]]]], metric: str = DTM,
                 convert=None, dtype=np.uint16):
        self.root, self.family, self.metric, self.convert = root, family, metric, convert
        self.runs = runs
        self.grouped = sorted({table for by_table in runs.values() for table in by_table})
        self.codes, self.offsets, _ = load_children(
            root, family, tables, ranges={table: (0, 0) for table in self.grouped},
            metric=metric, convert=convert, dtype=dtype)
        self.entries_read = 0  # of the grouped tables, over every group so far

    def span(self, table: str) -> tuple[int, int]:
        """Where ``table``'s codes lie in ``codes``."""
        offset = int(self.offsets[self.family.table_id(table)])
        return offset, offset + self.family.size(table)

    def before_group(self, group: int) -> None:
        """Release the runs read for the group before and read those ``group`` reaches."""
        for table in self.grouped:
            release_entries(self.codes, *self.span(table))
        game = self.family.game.name
        for table, ranges in self.runs.get(group, {}).items():
            start, stop = self.span(table)
            handle = TableFile(table_path(self.root, game, table, self.metric), game, table)
            try:
                for first, last in ranges:
                    handle.read_range(self.codes[start:stop], first, last, READ_PAGES,
                                      self.convert)
                    self.entries_read += last - first
            finally:
                handle.close()


class ChildSource(Protocol):
    """Where a generator gets a table's child tables: :class:`ChildCodes` (loaded already) or
    :class:`ChildLoader` (read from disk when asked for, in groups)."""

    def load_all(self) -> "ChildCodes":
        """Every child at once."""

    def groups(self, budget_bytes: int, first: tuple[str, ...] = (),
               ranges: Mapping[str, tuple[int, int]] | None = None) -> Iterator["ChildCodes"]:
        """The children in groups of at most ``budget_bytes`` of codes where the source can
        split them, the tables ``first`` forming the first group; of a table in ``ranges``
        only its index range ``(start, stop)`` is needed."""


class ChildCodes:
    """A table's child tables for a generator (:func:`load_children`'s ``codes`` and
    ``offsets``), held in one place so the generator can let the codes go (:meth:`release`)
    once it no longer reads them. A :class:`ChildSource` of one group."""

    def __init__(self, codes: np.ndarray, offsets: np.ndarray):
        self.codes = np.ascontiguousarray(codes, dtype=np.uint16)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)

    @classmethod
    def load(cls, root, family, tables: list[str],
             ranges: Mapping[str, tuple[int, int]] | None = None, metric: str = DTM,
             prepare=None) -> "ChildCodes":
        """The children ``tables`` read from ``root`` (see :func:`load_children`), passed
        through ``prepare(codes)`` (in place) if given."""
        codes, offsets, _ = load_children(root, family, tables, ranges, metric)
        if prepare is not None:
            prepare(codes)
        return cls(codes, offsets)

    def release(self) -> None:
        """Drop the codes (the offsets stay); what reads them afterwards sees none."""
        self.codes = np.zeros(1, dtype=np.uint16)

    def load_all(self) -> "ChildCodes":
        """These codes (loaded already)."""
        return self

    def groups(self, budget_bytes: int, first: tuple[str, ...] = (),
               ranges: Mapping[str, tuple[int, int]] | None = None) -> Iterator["ChildCodes"]:
        """The codes as groups to use one after another (see :class:`ChildLoader`): these are
        loaded already, so one group, whatever the budget, ``first`` and ``ranges``."""
        yield self


class ChildLoader:
    """A :class:`ChildSource`: the child tables of a table being built, read from ``root``
    only when asked for, in groups (:meth:`groups`): a generator that can fold the moves into
    each group in turn holds one group at a time, not every child (a five-piece pawn table's
    promotions lead to four five-piece tables, 2.3 GB of codes; 1.1 GB of them reachable)."""

    def __init__(self, root, family, tables: list[str], metric: str = DTM, prepare=None):
        self.root, self.family, self.tables = root, family, list(tables)
        self.metric = metric  # the children's rule-free tables, or their DTZ50 tables
        self.prepare = prepare  # applied in place to each group's codes once read

    def load_all(self) -> ChildCodes:
        """Every child at once."""
        return ChildCodes.load(self.root, self.family, self.tables, metric=self.metric,
                               prepare=self.prepare)

    def groups(self, budget_bytes: int, first: tuple[str, ...] = (),
               ranges: Mapping[str, tuple[int, int]] | None = None) -> Iterator[ChildCodes]:
        """The children as :class:`ChildCodes`: the tables ``first`` (if any) as a group of
        their own, then the others smallest first, each group within ``budget_bytes`` of codes;
        a table larger than that comes alone, in parts (:meth:`parts`), unless it is the first
        group. Of a table in ``ranges`` only its index range ``(start, stop)`` is read and
        counted. A group is released before the next one is read. Offsets of the tables
        outside a group are -1."""
        ranges = ranges or {}

        def needed(table: str) -> tuple[int, int]:
            return ranges.get(table, (0, self.family.size(table)))

        def load(tables: list[str]) -> ChildCodes:
            return ChildCodes.load(self.root, self.family, tables, ranges, self.metric,
                                   self.prepare)

        started = bool(first)  # whether the first group (never in parts) was yielded
        if first:
            yield load(list(first))
        by_size = sorted((table for table in self.tables if table not in first),
                         key=lambda table: needed(table)[1] - needed(table)[0])
        group: list[str] = []
        held = 0
        for table in by_size:
            start, stop = needed(table)
            size = 2 * (stop - start)
            if group and held + size > budget_bytes:
                yield load(group)
                group, held, started = [], 0, True
            if size > budget_bytes and started:
                yield from self.parts(table, budget_bytes, start, stop)
                continue
            group.append(table)
            held += size
        if group or not (self.tables or first):
            yield load(group)

    def parts(self, table: str, budget_bytes: int, start: int = 0,
              stop: int | None = None) -> Iterator[ChildCodes]:
        """Entries ``start..stop`` of ``table`` (all by default), alone, in parts of at most
        ``budget_bytes`` of codes (whole pages, at least ``MIN_PART_PAGES``): each part is the
        whole table's array with only the part's entries read, the others 0 (INVALID, which
        no move's child holds: the kernels leave such a move to the part that holds it). The
        untouched entries cost no memory."""
        handle = TableFile(table_path(self.root, self.family.game.name, table, self.metric),
                           self.family.game.name, table)
        try:
            stop = handle.entries if stop is None else min(stop, handle.entries)
            per_part = max(MIN_PART_PAGES, budget_bytes // (2 * F.PAGE_ENTRIES))
            offsets = np.full(max(1, len(self.family.table_names())), -1, dtype=np.int64)
            offsets[self.family.table_id(table)] = 0
            last_page = (stop - 1) >> F.PAGE_SHIFT
            for first in range(start >> F.PAGE_SHIFT, last_page + 1, per_part):
                count = min(per_part, last_page + 1 - first)
                codes = np.zeros(handle.entries, dtype=np.uint16)  # untouched pages: no memory
                handle.read_range(codes, first * F.PAGE_ENTRIES,
                                  (first + count) * F.PAGE_ENTRIES, READ_PAGES)
                if self.prepare is not None:
                    self.prepare(codes)
                yield ChildCodes(codes, offsets)
                del codes
        finally:
            handle.close()
