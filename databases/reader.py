"""Reading tables: ``open_database(path)`` in the style of python-chess's ``chess.syzygy``::

    with open_database("~/.local/share/solver/db", "tictactoe") as db:
        db.probe_wdl(db.game.start_position())      # 0: tic-tac-toe is a draw

``probe_wdl`` gives 1 (the side to move wins), 0 (draw) or -1 (it loses); ``probe_dtm`` gives
the distance to the end of the game in plies, positive when the side to move wins, negative
when it loses, 0 for a draw or a position already lost (python-chess's Gaviota convention).
"""
from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import h5py
import numba as nb
import numpy as np
from numba import types

from databases import format as F
from databases.cache import PageCache, gather_resident
from databases.errors import (DamagedPageError, DatabaseError, FormatError, MissingTableError,
                              NotCoveredError)
from databases.families import get_family
from databases.location import table_path
from games.kernels import DRAW, LOSS, POSITION, WIN
from games.table_family import INDEX_MASK, NEEDS_CHILDREN, TABLE_SHIFT, RankKernel

DEFAULT_CACHE_BYTES = 64 << 20


@nb.njit(types.Array(types.int64, 1, "C")(RankKernel, types.Array(types.uint64, 2, "C")),
         cache=True)
def rank_rows(rank, positions):
    """``rank`` of every row of ``positions``."""
    out = np.empty(positions.shape[0], dtype=np.int64)
    for row in range(positions.shape[0]):
        out[row] = rank(positions[row])
    return out


@nb.njit(types.int64(types.Array(types.int64, 1, "C"), types.Array(types.int32, 1, "C"),
                     types.Array(types.int64, 1, "C"), types.Array(types.uint16, 2, "C"),
                     types.Array(types.int8, 1, "C"), types.Array(types.int16, 1, "C")),
         cache=True)
def probe_packed_resident(packed, directory, bases, arena, wdl, dtm):
    """The warm batch path in one pass over ranked positions (``table << TABLE_SHIFT | index``):
    look up the resident page, decode. Returns the number of rows it could not answer (page
    not resident, table not registered, position not covered or needing its children); those
    rows are left unset."""
    missing = 0
    for row in range(packed.shape[0]):
        key = packed[row]
        if key < 0:
            missing += 1
            continue
        base = bases[key >> TABLE_SHIFT]
        index = key & INDEX_MASK
        if base < 0:
            missing += 1
            continue
        slot = directory[base + (index >> F.PAGE_SHIFT)]
        if slot < 0:
            missing += 1
            continue
        code = np.int64(arena[slot, index & F.PAGE_MASK])
        if code < 2:
            if code == 0:
                missing += 1
                continue
            wdl[row] = 0
            dtm[row] = 0
        else:
            distance = (code - 2) >> 1
            if code & 1:
                wdl[row] = 1
                dtm[row] = distance
            else:
                wdl[row] = -1
                dtm[row] = -distance
    return missing


@dataclass(frozen=True)
class ProbeResult:
    """A probed value: ``wdl`` (1 win, 0 draw, -1 loss for the side to move) and ``dtm``
    (signed plies as in :func:`databases.format.signed_dtm`)."""

    wdl: int
    dtm: int

    @property
    def value(self) -> str:
        """``win``, ``draw`` or ``loss`` for the side to move."""
        return {WIN: "win", DRAW: "draw", LOSS: "loss"}[self.wdl]


class TableFile:
    """One open table file, validated on opening; pages are read whole."""

    def __init__(self, path: Path, game: str, table: str):
        self.path = path
        try:
            self.handle = h5py.File(path, "r")
        except FileNotFoundError:
            raise MissingTableError(f"missing table {game}/{table} (no file {path})") from None
        except OSError as error:
            raise FormatError(f"{path}: not a readable table file ({error})") from None
        try:
            self.attrs = dict(self.handle.attrs)
            self._validate(game, table)
            if self.attrs.get("compression") == "zstd":
                import hdf5plugin  # noqa: F401  (registers the Zstd filter with HDF5)
            self.dataset = self.handle[F.DATASET]
        except Exception:
            self.handle.close()
            raise
        self.entries = int(self.attrs["entries"])
        self.pages = -(-self.entries // F.PAGE_ENTRIES)

    def _validate(self, game: str, table: str) -> None:
        version = self.attrs.get("format_version")
        if version != F.FORMAT_VERSION:
            raise FormatError(f"{self.path}: format version {version}, this reader reads "
                              f"version {F.FORMAT_VERSION}")
        if self.attrs.get("game") != game:
            raise FormatError(f"{self.path}: a table of game {self.attrs.get('game')!r}, "
                              f"expected {game!r}")
        if self.attrs.get("table") != table:
            raise FormatError(f"{self.path}: holds table {self.attrs.get('table')!r}, "
                              f"expected {table!r}")
        if int(self.attrs.get("page_entries", 0)) != F.PAGE_ENTRIES or F.DATASET not in self.handle:
            raise FormatError(f"{self.path}: page layout not readable by this version")

    def read_page(self, page: int) -> np.ndarray:
        """The decoded codes of ``page`` (checksum verified by HDF5)."""
        start = page * F.PAGE_ENTRIES
        try:
            return self.dataset[start:min(start + F.PAGE_ENTRIES, self.entries)]
        except (OSError, ValueError) as error:
            raise DamagedPageError(f"{self.path}: page {page} is damaged "
                                   f"({str(error).splitlines()[0]})") from None

    def close(self) -> None:
        """Close the file."""
        self.handle.close()


class Database:
    """The tables of one game under a database directory, probed through a page cache.

    Files are opened lazily and kept in a bounded LRU of handles; decoded pages live in a
    :class:`~databases.cache.PageCache` of ``cache_bytes`` bytes.
    """

    def __init__(self, root: str | os.PathLike, game: str, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 max_open: int = 64):
        self.root = Path(root)
        self.family = get_family(game)
        self.game = self.family.game
        self.game_name = game
        self.cache = PageCache(cache_bytes)
        self.max_open = max_open
        self._files: OrderedDict[str, TableFile] = OrderedDict()
        self._bases: dict[str, int] = {}
        self._pages: dict[str, int] = {}
        self._table_names = self.family.table_names()

    # --- context manager -----------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        """Close every open file (the page cache is kept)."""
        while self._files:
            self._files.popitem()[1].close()

    # --- tables and pages ----------------------------------------------------------------
    def path(self, table: str) -> Path:
        """Where ``table`` lives."""
        return table_path(self.root, self.game_name, table)

    def has_table(self, table: str) -> bool:
        """Whether the table's file exists (not whether it is valid)."""
        return self.path(table).is_file()

    def table_file(self, table: str) -> TableFile:
        """The open, validated file of ``table`` (MissingTableError / FormatError)."""
        handle = self._files.get(table)
        if handle is None:
            handle = TableFile(self.path(table), self.game_name, table)
            expected = self.family.size(table)
            if handle.entries != expected:
                handle.close()
                raise FormatError(f"{handle.path}: {handle.entries} entries, the index scheme "
                                  f"gives {expected}")
            self._files[table] = handle
            if len(self._files) > self.max_open:
                self._files.popitem(last=False)[1].close()
        else:
            self._files.move_to_end(table)
        return handle

    def base(self, table: str) -> int:
        """The table's first directory entry in the page cache (registering it if new)."""
        base = self._bases.get(table)
        if base is None:
            pages = self.table_file(table).pages
            base = self._bases[table] = self.cache.register(pages)
            self._pages[table] = pages
        return base

    def load_page(self, table: str, page: int) -> None:
        """Make one page of ``table`` resident."""
        self.cache.load(self.base(table), page, self.table_file(table).read_page(page))

    def preload(self, table: str) -> None:
        """Make as many of the table's pages resident as the cache holds (for kernel probes)."""
        base = self.base(table)
        for page in range(min(self._pages[table], self.cache.slots)):
            if self.cache.directory[base + page] < 0:
                self.load_page(table, page)

    # --- probing by index ----------------------------------------------------------------
    def probe_codes(self, table: str, indices) -> np.ndarray:
        """Codes (see :mod:`databases.format`) at ``indices`` of ``table``: the vectorised probe."""
        indices = np.ascontiguousarray(indices, dtype=np.int64)
        out = np.empty(indices.size, dtype=np.uint16)
        base = self.base(table)
        if indices.size and (indices.min() < 0 or indices.max() >= self.table_file(table).entries):
            raise IndexError(f"index out of range for table {table}")
        cache = self.cache
        misses = gather_resident(cache.directory, base, cache.arena, cache.last_used, cache.tick(),
                                 indices, out)
        if misses:
            missing = np.flatnonzero(out == F.UNKNOWN)
            pages = np.unique(indices[missing] >> F.PAGE_SHIFT)
            # Load in groups that fit the cache, gathering after each group.
            group = max(1, cache.slots // 2)
            for start in range(0, pages.size, group):
                for page in pages[start:start + group]:
                    self.load_page(table, int(page))
                sub = missing[out[missing] == F.UNKNOWN]
                part = np.empty(sub.size, dtype=np.uint16)
                gather_resident(cache.directory, base, cache.arena, cache.last_used, cache.tick(),
                                indices[sub], part)
                out[sub] = part
        return out

    def probe_code(self, table: str, index: int) -> int:
        """The code of one entry."""
        base = self._bases.get(table)
        if base is None:
            base = self.base(table)
        cache = self.cache
        slot = cache.directory[base + (index >> F.PAGE_SHIFT)]
        if slot < 0:
            self.load_page(table, index >> F.PAGE_SHIFT)
            slot = cache.directory[base + (index >> F.PAGE_SHIFT)]
        return int(cache.arena[slot, index & F.PAGE_MASK])

    # --- probing positions -----------------------------------------------------------------
    def locate(self, position: np.ndarray) -> tuple[str, int]:
        """(table, index) of a position; NotCoveredError if no table holds it."""
        try:
            return self.family.locate(position)
        except KeyError as error:
            raise NotCoveredError(str(error.args[0]) if error.args else "not covered") from None

    def _code(self, position: np.ndarray) -> int:
        packed = int(self.family.rank(position))
        if packed == NEEDS_CHILDREN:
            return self._code_from_children(position)
        if packed < 0:
            self.locate(position)  # raises NotCoveredError with the reason
            raise NotCoveredError("position not covered by the tables")
        table = self._table_names[packed >> TABLE_SHIFT]
        index = packed & INDEX_MASK
        code = self.probe_code(table, index)
        if code == F.INVALID:
            raise NotCoveredError(f"{table}: index {index} holds no legal position")
        return code

    def _code_from_children(self, position: np.ndarray) -> int:
        """A position whose entry does not tell its value: one ply of search over children."""
        game = self.game
        moves = game.legal_moves(position)
        if not moves:
            from games.kernels import LOSS as L
            result = game.kernels.outcome(position, 0)
            return F.encode(int(result), 0) if result in (WIN, DRAW, L) else F.CODE_DRAW
        best = None
        for move in moves:
            child = self._code(game.play(position, move))
            mine = _code_from_child(child)
            if best is None or _better(mine, best):
                best = mine
        return best

    def probe(self, position: np.ndarray) -> ProbeResult:
        """WDL and DTM of ``position``; MissingTableError, NotCoveredError or DamagedPageError."""
        code = self._code(position)
        value, _ = F.decode(code)
        return ProbeResult(int(value), F.signed_dtm(code))

    def probe_wdl(self, position: np.ndarray) -> int:
        """1 if the side to move wins, 0 for a draw, -1 if it loses."""
        return self.probe(position).wdl

    def probe_dtm(self, position: np.ndarray) -> int:
        """Signed distance to mate in plies (see the module docstring)."""
        return self.probe(position).dtm

    def get_wdl(self, position: np.ndarray, default=None):
        """Like :meth:`probe_wdl`, but ``default`` when the position is not in the tables."""
        try:
            return self.probe_wdl(position)
        except (MissingTableError, NotCoveredError):
            return default

    def get_dtm(self, position: np.ndarray, default=None):
        """Like :meth:`probe_dtm`, but ``default`` when the position is not in the tables."""
        try:
            return self.probe_dtm(position)
        except (MissingTableError, NotCoveredError):
            return default

    def probe_batch(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised probe of a 2-D array of positions (one per row): ``(wdl, dtm)`` arrays
        (int8 values 1/0/-1 and signed int16 distances as in :meth:`probe`). Positions no table
        holds raise NotCoveredError; positions whose entry does not tell their value (chess:
        an en-passant right) are probed one by one."""
        positions = np.ascontiguousarray(positions, dtype=np.uint64)
        bases = np.full(len(self._table_names), -1, dtype=np.int64)
        for table, base in self._bases.items():
            bases[self.family.table_id(table)] = base
        wdl = np.empty(positions.shape[0], dtype=np.int8)
        dtm = np.empty(positions.shape[0], dtype=np.int16)
        if self.family.rank_many is not None:
            packed = self.family.rank_many(positions)
        else:
            packed = rank_rows(self.family.rank, positions)
        if probe_packed_resident(packed, self.cache.directory, bases, self.cache.arena,
                                 wdl, dtm) == 0:
            return wdl, dtm
        packed = packed.copy()
        codes = np.empty(packed.size, dtype=np.uint16)
        special = np.flatnonzero(packed == NEEDS_CHILDREN)
        if np.any(packed[packed != NEEDS_CHILDREN] < 0):
            raise NotCoveredError("a position in the batch is not covered by any table")
        tables = packed >> TABLE_SHIFT
        tables[special] = -1
        for table_id in np.unique(tables[tables >= 0]):
            rows = np.flatnonzero(tables == table_id)
            codes[rows] = self.probe_codes(self.family.table_name(int(table_id)),
                                           packed[rows] & INDEX_MASK)
        for row in special:
            codes[row] = self._code(positions[row])
        if np.any(codes == F.INVALID):
            raise NotCoveredError("a position in the batch holds no legal position's index")
        return F.decode_arrays(codes)

    def best_move(self, position: np.ndarray) -> int | None:
        """A move keeping the value: for a win the quickest mate, for a loss the slowest, for
        a draw a drawing move. None when the game is over."""
        game = self.game
        best_move, best_code = None, None
        for move in game.legal_moves(position):
            mine = _code_from_child(self._code(game.play(position, move)))
            if best_code is None or _better(mine, best_code):
                best_move, best_code = move, mine
        return best_move


def _code_from_child(child_code: int) -> int:
    """The parent's code if it plays into a child with ``child_code``."""
    value, dtm = F.decode(child_code)
    if value == DRAW:
        return F.CODE_DRAW
    return F.encode(-value, dtm + 1)


def _rank_code(code: int) -> tuple[int, int]:
    """Sort key: higher is better for the side to move."""
    value, dtm = F.decode(code)
    if value == WIN:
        return (2, -dtm)
    if value == DRAW:
        return (1, 0)
    return (0, dtm)


def _better(a: int, b: int) -> bool:
    return _rank_code(a) > _rank_code(b)


def open_database(path: str | os.PathLike, game: str | None = None,
                  cache_bytes: int = DEFAULT_CACHE_BYTES) -> Database:
    """Open the tables of ``game`` under the database directory ``path`` (or, without
    ``game``, ``path`` is the game's own directory ``<db>/<game>``). Use as a context manager."""
    path = Path(path).expanduser()
    if game is None:
        game, path = path.name, path.parent
    if not path.is_dir():
        raise DatabaseError(f"no database directory {path}")
    return Database(path, game, cache_bytes)
