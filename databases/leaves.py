"""Table leaves: the built tables of one game probed from inside a search kernel.

The one place where a kernel reads the page cache of :mod:`databases` (``database_code``), used
by the prover (:mod:`proofsearch.dfpn`) and the player (:mod:`solver.search.table_leaves`). A
probe whose page is not resident reports it (``PAGE_MISSING``): the caller loads the page and
resumes, or searches on. Without tables, ``no_tables`` and ``empty_leaf_arrays`` stand in.

The error policy, the same for every command: a table whose file turns out damaged (when
opened, or a page later) is dropped with one warning line; its positions are searched instead,
and the other tables keep answering (:class:`DatabaseLeaves`).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numba as nb
import numpy as np
from numba import types

from databases import format as F
from databases.cache import ARENA, DIRECTORY, MISS, probe_resident
from databases.errors import (DatabaseError, MissingTableError, NotCoveredError,
                              UnusableTableError)
from databases.reader import open_database
from games.game import Game
from games.kernels import DRAW, LOSS, POSITION, WIN
from games.table_family import INDEX_MASK, RANK_SIGNATURE, TABLE_SHIFT, RankKernel
from games.value_codes import CODE_DRAW, code_distance, is_win

NOT_COVERED = -1  # no table (or no built table) holds the position: search on
PAGE_MISSING = -2  # a table holds it but its page is not resident: stop, load, resume

BASES = types.Array(types.int64, 1, "C")


@nb.njit(RANK_SIGNATURE, cache=True)
def no_tables(pos):
    """The rank kernel used when the search has no database: nothing is covered."""
    return -1


@nb.njit(types.int64(DIRECTORY, BASES, ARENA, types.int64), cache=True)
def entry_code(directory, bases, arena, entry):
    """The table code (see :mod:`databases.format`) of ``entry`` (``rank(pos)``:
    ``table << TABLE_SHIFT | index``, or negative), ``NOT_COVERED`` or ``PAGE_MISSING`` (its
    page is not resident). Negative entries (no table, or a position whose value is not in its
    own entry, such as chess en passant) and invalid indices count as not covered."""
    if entry < 0:
        return NOT_COVERED
    base = bases[entry >> TABLE_SHIFT]
    if base < 0:
        return NOT_COVERED
    code = probe_resident(directory, base, arena, entry & INDEX_MASK)
    if code == MISS:
        return PAGE_MISSING
    if code == F.INVALID:
        return NOT_COVERED
    return code


@nb.njit(types.int64(RankKernel, DIRECTORY, BASES, ARENA, POSITION), cache=True)
def database_code(rank, directory, bases, arena, pos):
    """:func:`entry_code` of ``pos``, ranked by ``rank`` (for callers that do not have its
    entry already)."""
    return entry_code(directory, bases, arena, rank(pos))


@nb.njit(types.UniTuple(types.int64, 2)(types.int64), cache=True)
def decode_code(code):
    """(WIN/DRAW/LOSS for the side to move, distance to mate in plies) of a table code."""
    if code == CODE_DRAW:
        return np.int64(DRAW), np.int64(0)
    distance = code_distance(code)
    if is_win(code):
        return np.int64(WIN), distance
    return np.int64(LOSS), distance


class DatabaseLeaves:
    """The built tables of one game, ready for the search kernel and for proof files.
    Raises DatabaseError for a bad directory, NoTablesError for a game without tables.

    A table whose file turns out damaged (when opened here, or a page later) is dropped: its
    positions are searched instead, ``unusable`` records why, and ``warn`` (default: one line
    on stderr) hears of it once. The other tables keep answering."""

    def __init__(self, game: Game, directory: str | Path, cache_bytes: int = 256 << 20,
                 warn=None):
        try:
            self.database = open_database(Path(directory).expanduser(), game.name, cache_bytes)
        except DatabaseError as error:
            raise DatabaseError(f"--db {directory}: {error}") from None
        self.warn = warn if warn is not None else warn_on_stderr
        self.unusable: dict[str, str] = {}
        family = self.database.family
        names = family.table_names()
        self.bases = np.full(len(names), -1, dtype=np.int64)
        for table_id, table in enumerate(names):
            if self.database.has_table(table):
                try:
                    self.bases[table_id] = self.database.base(table)  # checks the file
                except UnusableTableError as error:
                    self.drop(table, error)
        self.rank = family.rank

    @property
    def tables(self) -> int:
        """How many tables answer."""
        return int((self.bases >= 0).sum())

    def drop(self, table: str, error: DatabaseError) -> None:
        """Stop using ``table`` (its file is damaged): the kernel sees its positions as not
        covered from now on."""
        self.bases[self.database.family.table_id(table)] = -1
        if table not in self.unusable:
            self.unusable[table] = str(error)
            self.warn(f"{error} (the {table} table is not used: its positions are searched)")

    @property
    def directory(self) -> np.ndarray:
        """The page directory the kernel reads (stable once every table is registered)."""
        return self.database.cache.directory

    @property
    def arena(self) -> np.ndarray:
        """The decoded pages the kernel reads."""
        return self.database.cache.arena

    def load_page_of(self, position: np.ndarray) -> None:
        """Make resident the page holding ``position`` (after the kernel reported it missing);
        a damaged page drops its table instead."""
        entry = int(self.rank(position))
        table = self.database.family.table_name(entry >> TABLE_SHIFT)
        try:
            self.database.load_page(table, (entry & INDEX_MASK) >> F.PAGE_SHIFT)
        except UnusableTableError as error:
            self.drop(table, error)

    def value(self, position: np.ndarray, strict: bool = False) -> tuple[int, int] | None:
        """(WIN/DRAW/LOSS for the side to move, plies to mate) from the tables, or None when no
        usable table covers the position. For proof files and their checker: with ``strict``
        a damaged table that covers it raises its UnusableTableError (a checker cannot tell
        a proof wrong by a table it cannot read)."""
        try:
            table, _ = self.database.locate(position)
        except NotCoveredError:
            return None
        if table in self.unusable:
            if strict:
                raise UnusableTableError(self.unusable[table])
            return None
        try:
            result = self.database.probe(position)
        except (MissingTableError, NotCoveredError):
            return None
        except UnusableTableError as error:  # this table or, by en passant, a child's
            self.drop(error.table or table, error)
            if strict:
                raise
            return None
        return result.wdl, abs(result.dtm)

    def close(self) -> None:
        """Close the table files."""
        self.database.close()


def warn_on_stderr(message: str) -> None:
    """The default warning: one line on stderr."""
    sys.stderr.write(f"solver: warning: {message}\n")


def empty_leaf_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(directory, bases, arena) for a search without a database."""
    return (np.full(1, -1, dtype=np.int32), np.full(1, -1, dtype=np.int64),
            np.zeros((1, 1), dtype=np.uint16))


__all__ = ["DatabaseLeaves", "database_code", "entry_code", "decode_code", "no_tables", "empty_leaf_arrays",
           "NOT_COVERED", "PAGE_MISSING"]
