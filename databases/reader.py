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
import numpy as np

from databases import format as F
from databases.cache import PageCache, gather_resident
from databases.errors import (DamagedPageError, DatabaseError, FormatError, MissingTableError,
                              NotCoveredError)
from databases.families import get_family
from databases.location import table_path
from games.kernels import DRAW, LOSS, WIN

DEFAULT_CACHE_BYTES = 64 << 20


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
        if self.family.needs_children(position):
            return self._code_from_children(position)
        table, index = self.locate(position)
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
