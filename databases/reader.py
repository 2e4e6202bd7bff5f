"""Reading tables: ``open_database(path)`` in the style of python-chess's ``chess.syzygy``::

    with open_database("~/.local/share/solver/db", "tictactoe") as db:
        db.probe_wdl("startpos")                    # 0: tic-tac-toe is a draw
        db.probe_dtm("xx.oo....")                   # 1: x wins at once

    with open_database("~/.local/share/solver/db", "chess") as db:
        db.probe("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1")  # ProbeResult(wdl=1, dtm=17)
        db.probe_wdl(board)                         # a chess.Board: anything with .fen()
        db.probe_batch(["7k/8/6Q1/8/8/8/8/K7 b - - 0 1", board])  # (wdl, dtm) arrays

Positions are strings in the game's notation (chess: FEN), objects with a ``fen()`` method
(python-chess's ``chess.Board``; python-chess is not needed otherwise), or position arrays from
``db.game.parse_position``. ``probe_wdl`` gives 1 (the side to move wins), 0 (draw) or -1 (it
loses); ``probe_dtm`` gives the distance to the end of the game in plies, positive when the side
to move wins, negative when it loses, 0 for a draw or a position already lost (python-chess's
Gaviota convention).

Under the 50-move rule (chess, from the DTZ50 tables ``solver build`` writes beside the
others): ``probe_wdl50`` gives python-chess's Syzygy WDL (2 win, 1 cursed win, 0 draw, -1
blessed loss, -2 loss) and ``probe_dtz`` its DTZ (signed plies to the next capture, pawn move
or mate; -1 for a mated position), ours exact where Syzygy's may be one ply short::

    with open_database("~/.local/share/solver/db", "chess") as db:
        db.probe_wdl50("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1")   # 2
        db.probe_dtz("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1")     # 17

Every table file is checked when first opened and every page when read; a damaged file raises
an :class:`~databases.errors.UnusableTableError` naming it and spoils only its own table.
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
from databases.cache import MISS, PageCache, gather_resident, probe_resident
from databases.errors import (DamagedPageError, DamagedTableError, DatabaseError, FormatError,
                              MissingTableError, NotCoveredError, OldIndexError,
                              UnusableTableError)
from databases.families import get_family
from databases.location import DTM, DTZ50, table_path
from games.kernels import DRAW, LOSS, WIN
from games.table_family import INDEX_MASK, NEEDS_CHILDREN, TABLE_SHIFT, RankKernel
from games.value_codes import (better, code_distance, is_win, parent_code, python_chess_dtz, terminal_code,
                               wdl50, zeroing_value)

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
def probe_ranked_resident(entries, directory, bases, arena, wdl, dtm):
    """The warm batch path in one pass over ranked positions (``table << TABLE_SHIFT | index``):
    look up the resident page, decode. Returns the number of rows it could not answer (page
    not resident, table not registered, position not covered or needing its children); those
    rows are left unset."""
    missing = 0
    for row in range(entries.shape[0]):
        key = entries[row]
        if key < 0:
            missing += 1
            continue
        base = bases[key >> TABLE_SHIFT]
        index = key & INDEX_MASK
        if base < 0:
            missing += 1
            continue
        code = probe_resident(directory, base, arena, index)
        if code == MISS:
            missing += 1
            continue
        if code == F.INVALID:
            missing += 1
        elif code == F.CODE_DRAW:
            wdl[row] = 0
            dtm[row] = 0
        else:
            distance = code_distance(code)
            if is_win(code):
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
    """One open table file, checked on opening against the game's table family (format
    version, game, table, index scheme and version, size, page layout and, from format version
    2, the page checksums); pages are read whole and checked on every read.

    A file that cannot be used raises an :class:`~databases.errors.UnusableTableError` naming
    it: :class:`FormatError` for another format, game or index, :class:`DamagedTableError`
    (:class:`DamagedPageError` for one page) for damage or truncation."""

    def __init__(self, path: Path, game: str, table: str, family=None):
        self.path = Path(path)
        self.family = family if family is not None else get_family(game)
        self.handle = self._open(game, table)
        try:
            self._load(game, table)
        except DatabaseError:
            self.handle.close()
            raise
        except Exception as error:  # h5py raises KeyError, RuntimeError, ... on damaged metadata
            self.handle.close()
            raise DamagedTableError(f"{self.path}: damaged table file ({_first_line(error)})") \
                from None

    def _open(self, game: str, table: str):
        """The h5py handle, or MissingTableError / UnusableTableError."""
        try:
            # No HDF5 chunk cache: pages are read whole, decoded and kept by the page cache
            # (databases.cache), within --cache-mb; HDF5's own would hold more, uncounted.
            return h5py.File(self.path, "r", rdcc_nbytes=0)
        except FileNotFoundError:
            raise MissingTableError(f"missing table {game}/{table} (no file {self.path})") from None
        except PermissionError:
            raise UnusableTableError(f"{self.path}: cannot read the table file (permission "
                                     "denied)") from None
        except IsADirectoryError:
            raise UnusableTableError(f"{self.path}: a directory where a table file should "
                                     "be") from None
        except Exception as error:  # OSError mostly: truncated, or no HDF5 signature
            raise DamagedTableError(f"{self.path}: not a readable table file, damaged or "
                                    f"truncated ({_first_line(error)})") from None

    def _load(self, game: str, table: str) -> None:
        """Read and check the attributes, the dataset's layout and the page checksums."""
        self.attrs = {key: F.read_attribute(value)
                      for key, value in self.handle.attrs.items()}
        self._validate(game, table)
        if self.attrs.get("compression") == "zstd":
            import hdf5plugin  # noqa: F401  (registers the Zstd filter with HDF5)
        self.entries = self._integer("entries")
        self.pages = -(-self.entries // F.PAGE_ENTRIES)
        self.dataset = self._dataset(F.DATASET, (self.entries,), STORED_DTYPES)
        if self.dataset.chunks != (min(F.PAGE_ENTRIES, self.entries),):
            raise DamagedTableError(f"{self.path}: damaged page layout (chunks "
                                    f"{self.dataset.chunks})")
        self._decoded_here = None  # see _decodes_here
        self._places = None  # where the chunks are stored: chunks.chunk_places, when read
        if self.version >= 2:
            # Each page is checked against its own checksum, seeded with its number, on every
            # read: a page the index hides reads as zeros, one filed under another number as
            # another page, and either fails it. No walk of the whole index at opening (it
            # costs about 2 us a page: 0.1 s for a five-piece pawn table, paid again each time
            # the LRU of open files reopens it).
            self.checksums = self._page_checksums()
        else:
            self._check_page_index()
            self.checksums = None

    def _check_page_index(self) -> None:
        """Every page stored once, under its own number, with its Fletcher-32 checksum (files
        of format version 1, which have no page checksums). A damaged chunk index can
        otherwise hide a page (HDF5 then reads zeros, which no checksum covers) or mark the
        checksum filter as skipped."""
        found = []
        chunks = self.dataset.id
        if hasattr(chunks, "chunk_iter"):  # h5py >= 3.8: one pass, about 2 us a page
            chunks.chunk_iter(lambda info: found.append((info.chunk_offset[0], info.filter_mask)))
        else:
            for i in range(chunks.get_num_chunks()):
                info = chunks.get_chunk_info(i)
                found.append((info.chunk_offset[0], info.filter_mask))
        # optional filters (lzf, ...) may be skipped for a page they do not shrink; not this one
        checksum_bit = 1 << self._filter_position(h5py.h5z.FILTER_FLETCHER32)
        if sorted(offset for offset, _ in found) != [page * F.PAGE_ENTRIES
                                                     for page in range(self.pages)] \
                or any(mask & checksum_bit for _, mask in found):
            raise DamagedTableError(f"{self.path}: damaged page index")

    def _filter_position(self, code: int) -> int:
        """Where filter ``code`` sits in the dataset's filter pipeline (DamagedTableError if it
        is not there: every page of a table carries a checksum)."""
        pipeline = self.dataset.id.get_create_plist()
        for position in range(pipeline.get_nfilters()):
            if pipeline.get_filter(position)[0] == code:
                return position
        raise DamagedTableError(f"{self.path}: pages without checksums (damaged filter list)")

    def _validate(self, game: str, table: str) -> None:
        """Format version, game, table name, index scheme and version, size, page size."""
        self.version = version = self.attrs.get("format_version")
        if version not in F.READABLE_VERSIONS:
            raise FormatError(f"{self.path}: format version {version}, this reader reads "
                              f"version{'s' * (len(F.READABLE_VERSIONS) > 1)} "
                              f"{', '.join(map(str, F.READABLE_VERSIONS))}")
        if self.attrs.get("game") != game:
            raise FormatError(f"{self.path}: a table of game {self.attrs.get('game')!r}, "
                              f"expected {game!r}")
        if self.attrs.get("table") != table:
            raise FormatError(f"{self.path}: holds table {self.attrs.get('table')!r}, "
                              f"expected {table!r}")
        family = self.family
        scheme, index_version = self.attrs.get("index_scheme"), self.attrs.get("index_version")
        if scheme != family.index_scheme:
            raise FormatError(f"{self.path}: indexed by {scheme}, this version reads "
                              f"{family.index_scheme}")
        if not family.indexed_alike(table, index_version):
            raise OldIndexError(f"{self.path}: indexed by {scheme} version {index_version}, "
                                f"this version reads version {family.index_version} "
                                f"(solver build rebuilds it)")
        try:
            expected = family.size(table)
        except KeyError:
            raise FormatError(f"{self.path}: {table} is not a {game} table") from None
        if self._integer("entries") != expected:
            raise FormatError(f"{self.path}: {self._integer('entries')} entries, the index "
                              f"scheme gives {expected}")
        if self._integer("page_entries") != F.PAGE_ENTRIES:
            raise FormatError(f"{self.path}: page layout not readable by this version")

    def _integer(self, name: str) -> int:
        """An integer attribute, or DamagedTableError."""
        value = self.attrs.get(name)
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise DamagedTableError(f"{self.path}: attribute {name} is missing or damaged")
        return int(value)

    def _dataset(self, name: str, shape: tuple, dtypes: tuple) -> h5py.Dataset:
        """The dataset ``name``, checked for its shape and data type."""
        dataset = self.handle.get(name)
        if not isinstance(dataset, h5py.Dataset):
            raise DamagedTableError(f"{self.path}: no {name} dataset (damaged)")
        if dataset.shape != shape or dataset.dtype not in dtypes:
            raise DamagedTableError(f"{self.path}: damaged {name} dataset (shape "
                                    f"{dataset.shape}, type {dataset.dtype})")
        return dataset

    def _page_checksums(self) -> np.ndarray:
        """The stored page checksums, checked against the ``content_crc32`` attribute."""
        dataset = self._dataset(F.CHECKSUMS, (self.pages,), (np.dtype("<u4"),))
        try:
            checksums = np.asarray(dataset[...], dtype=np.uint32)
        except Exception as error:
            raise DamagedTableError(f"{self.path}: damaged page checksums "
                                    f"({_first_line(error)})") from None
        if F.content_checksum(checksums) != self._integer("content_crc32"):
            raise DamagedTableError(f"{self.path}: damaged page checksums (content_crc32 "
                                    "differs)")
        return checksums

    def read_pages(self, first: int, count: int = 1) -> np.ndarray:
        """The decoded codes of ``count`` pages from ``first``, every page checked (HDF5's
        Fletcher-32 on the stored bytes, then the page checksum on the codes). Many pages of
        a Zstandard table at once are decoded here, on every core (:mod:`databases.chunks`);
        others by HDF5."""
        if count > 1 and self._decodes_here():
            from databases import chunks

            if self._places is None:  # (one walk of the chunk index, at the first bulk read)
                self._places = chunks.chunk_places(self.dataset)
            try:
                return chunks.read_pages(self.dataset, first, count, self._check_page,
                                         self._places)
            except chunks.DamagedChunkError as error:
                raise DamagedPageError(f"{self.path}: page {error.page} is damaged "
                                       f"({error.why})") from None
        start = first * F.PAGE_ENTRIES
        stop = min((first + count) * F.PAGE_ENTRIES, self.entries)
        try:
            codes = self.dataset[start:stop]
        except Exception as error:  # OSError (checksum, decompression), ValueError, ...
            if count > 1:  # find the page to name
                for page in range(first, first + count):
                    self.read_pages(page)
            raise DamagedPageError(f"{self.path}: page {first} is damaged "
                                   f"({_first_line(error)})") from None
        if codes.shape != (stop - start,):
            raise DamagedPageError(f"{self.path}: page {first} is damaged (short read)")
        for page in range(first, first + count):
            offset = (page - first) * F.PAGE_ENTRIES
            self._check_page(page, codes[offset:offset + F.PAGE_ENTRIES])
        return codes

    def _decodes_here(self) -> bool:
        """Whether this file's pages can be decoded here rather than by HDF5 (Zstandard
        tables, found out at the first read of many pages: probes never load the module)."""
        if self._decoded_here is None:
            from databases import chunks

            self._decoded_here = chunks.can_write_directly(self.dataset)
        return self._decoded_here

    def _check_page(self, page: int, codes: np.ndarray) -> None:
        """DamagedPageError unless ``codes`` (page ``page`` as read) match its checksum. HDF5
        reads a page its damaged index cannot find as zeros (the fill value) without a word:
        an all-zero page of a version 1 file (no checksums) must be found in the index."""
        if self.checksums is not None:
            if F.page_checksum(page, codes) != self.checksums[page]:
                raise DamagedPageError(f"{self.path}: page {page} is damaged (its checksum "
                                       "differs)")
        elif not codes.any():
            try:
                self.dataset.id.read_direct_chunk((page * F.PAGE_ENTRIES,))
            except Exception as error:
                raise DamagedPageError(f"{self.path}: page {page} is damaged (not found: "
                                       f"{_first_line(error)})") from None

    def read_page(self, page: int) -> np.ndarray:
        """The decoded codes of ``page`` (checked)."""
        return self.read_pages(page)

    def read_all(self, pages_per_read: int = 64, keep: bool = True,
                 out: np.ndarray | None = None, convert=None) -> np.ndarray | None:
        """Every code as uint16 (every page checked), into ``out`` if given (``entries`` long:
        no second copy of a large table); with ``keep`` False only the check. ``convert``
        (uint16 codes -> ``out``'s values), if given, is applied to each chunk as it is read:
        a table stored smaller than its codes never exists as uint16 whole."""
        codes = (out if out is not None else np.empty(self.entries, dtype=np.uint16)) \
            if keep else None
        self._read_pages_into(codes, 0, self.pages, pages_per_read, convert)
        return codes

    def read_range(self, out: np.ndarray, start: int, stop: int,
                   pages_per_read: int = 64, convert=None) -> None:
        """The codes of entries ``start..stop`` (and the rest of the pages holding them) into
        ``out`` (``entries`` long) at their own indices, every page read checked; the other
        entries of ``out`` are left as they are. ``convert``: as :meth:`read_all`."""
        if start < stop:
            last = (min(stop, self.entries) - 1) >> F.PAGE_SHIFT
            self._read_pages_into(out, start >> F.PAGE_SHIFT, last + 1, pages_per_read,
                                  convert)

    def _read_pages_into(self, out, first_page: int, stop_page: int,
                         pages_per_read: int, convert=None) -> None:
        """Pages ``first_page..stop_page`` read (and checked) into ``out`` at their own
        indices, through ``convert`` if given; only checked when ``out`` is None."""
        for first in range(first_page, stop_page, pages_per_read):
            chunk = self.read_pages(first, min(pages_per_read, stop_page - first))
            if out is not None:
                start = first * F.PAGE_ENTRIES
                out[start:start + chunk.size] = chunk if convert is None else convert(chunk)

    def close(self) -> None:
        """Close the file."""
        self.handle.close()


def _first_line(error: BaseException) -> str:
    """``Type: first line`` of an exception's message, for one-line reports."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


STORED_DTYPES = (np.dtype("<u1"), np.dtype("<u2"))


class Database:
    """The tables of one game under a database directory, probed through a page cache.

    Files are opened lazily and kept in a bounded LRU of handles; decoded pages live in a
    :class:`~databases.cache.PageCache` of ``cache_bytes`` bytes.

    Not thread-safe: the page cache and the open files are this object's state. Give each
    thread a Database of its own (they share nothing but the files, which h5py reads under
    its own lock); the server probes from one thread.
    """

    def __init__(self, root: str | os.PathLike, game: str, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 max_open: int = 64, metric: str = DTM):
        self.root = Path(root)
        self.metric = metric  # DTM: the rule-free tables; DTZ50: their 50-move-rule tables
        self._rule50: Database | None = None
        self.family = get_family(game)
        self.game = self.family.game
        self.game_name = game
        self.cache = PageCache(cache_bytes)
        self.cache_bytes = cache_bytes
        self.max_open = max_open
        self._files: OrderedDict[str, TableFile] = OrderedDict()
        self._bases: dict[str, int] = {}
        self._pages: dict[str, int] = {}
        self._unusable: dict[str, UnusableTableError] = {}
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
        if self._rule50 is not None:
            self._rule50.close()

    @property
    def rule50(self) -> "Database":
        """The DTZ50 tables beside these (opened on first use, with a page cache of the same
        budget): what :meth:`probe_dtz` and :meth:`probe_wdl50` read."""
        if self.metric == DTZ50:
            return self
        if self._rule50 is None:
            self._rule50 = Database(self.root, self.game_name, self.cache_bytes,
                                    self.max_open, DTZ50)
        return self._rule50

    # --- tables and pages ----------------------------------------------------------------
    def path(self, table: str) -> Path:
        """Where ``table`` lives."""
        return table_path(self.root, self.game_name, table, self.metric)

    def has_table(self, table: str) -> bool:
        """Whether the table's file exists (not whether it is valid)."""
        return self.path(table).is_file()

    def table_file(self, table: str) -> TableFile:
        """The open, checked file of ``table`` (MissingTableError, or an UnusableTableError
        remembered for the life of this object: a damaged file spoils only its own table)."""
        handle = self._files.get(table)
        if handle is not None:
            self._files.move_to_end(table)
            return handle
        if table in self._unusable:
            raise self._unusable[table]
        try:
            handle = TableFile(self.path(table), self.game_name, table, self.family)
        except UnusableTableError as error:
            error.table = table
            self._unusable[table] = error
            raise
        self._files[table] = handle
        if len(self._files) > self.max_open:
            self._files.popitem(last=False)[1].close()
        return handle

    @property
    def open_files(self) -> int:
        """How many table files are open now (at most ``max_open``)."""
        return len(self._files)

    def unusable_tables(self) -> dict[str, str]:
        """Tables found damaged or of another format so far, with the reason."""
        return {table: str(error) for table, error in self._unusable.items()}

    def base(self, table: str) -> int:
        """The table's first directory entry in the page cache (registering it if new)."""
        base = self._bases.get(table)
        if base is None:
            pages = self.table_file(table).pages
            base = self._bases[table] = self.cache.register(pages)
            self._pages[table] = pages
        return base

    def load_page(self, table: str, page: int) -> None:
        """Make one page of ``table`` resident (a damaged page raises DamagedPageError and
        stays out; the table's other pages still answer)."""
        try:
            codes = self.table_file(table).read_page(page)
        except UnusableTableError as error:
            error.table = table
            raise
        self.cache.load(self.base(table), page, codes)

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
        code = probe_resident(cache.directory, base, cache.arena, index)
        if code == MISS:
            self.load_page(table, index >> F.PAGE_SHIFT)
            code = probe_resident(cache.directory, base, cache.arena, index)
        return int(code)

    # --- probing positions -----------------------------------------------------------------
    def position(self, position) -> np.ndarray:
        """``position`` as the game's position array: a string in the game's notation (chess:
        FEN, also ``startpos``), an object with a ``fen()`` method (a python-chess
        ``chess.Board``), or an array from ``game.parse_position``. NotationError for a string
        that does not parse, TypeError for anything else."""
        if isinstance(position, np.ndarray):
            return self._position_array(position)
        if isinstance(position, bytes):
            position = position.decode("utf-8", errors="replace")
        if isinstance(position, str):
            return self.game.parse_position(position.strip())
        fen = getattr(position, "fen", None)
        if callable(fen):
            return self.game.parse_position(fen())
        raise TypeError(f"expected a {self.game_name} position: a string in the game's notation"
                        f"{' (FEN)' if self.game_name == 'chess' else ''}, an object with a fen() "
                        f"method such as chess.Board, or an array from game.parse_position; got "
                        f"{type(position).__name__}")

    def _position_array(self, array: np.ndarray) -> np.ndarray:
        """A position array checked for its shape and converted to contiguous uint64."""
        width = self.game.position_width
        if array.shape != (width,) or array.dtype.kind not in "ui":
            raise TypeError(f"expected a {self.game_name} position array of {width} unsigned "
                            f"64-bit words (game.parse_position), got shape {array.shape} of "
                            f"{array.dtype}")
        return np.ascontiguousarray(array, dtype=np.uint64)

    def positions(self, positions) -> np.ndarray:
        """A 2-D array of positions (one per row) from a 2-D array or any iterable of the
        positions :meth:`position` accepts."""
        width = self.game.position_width
        if isinstance(positions, np.ndarray) and positions.ndim == 2 \
                and positions.dtype.kind in "ui":
            if positions.shape[1] != width:
                raise TypeError(f"expected rows of {width} words (game.parse_position), got "
                                f"shape {positions.shape}")
            return np.ascontiguousarray(positions, dtype=np.uint64)
        if isinstance(positions, (str, bytes)) or not hasattr(positions, "__iter__"):
            raise TypeError("expected positions: a 2-D array (one position per row) or a list "
                            "of positions (strings in the game's notation, chess.Boards, arrays)")
        rows = [self.position(position) for position in positions]
        return np.stack(rows) if rows else np.empty((0, width), dtype=np.uint64)

    def locate(self, position) -> tuple[str, int]:
        """(table, index) of a position; NotCoveredError if no table holds it."""
        position = self.position(position)
        try:
            return self.family.locate(position)
        except KeyError as error:
            raise NotCoveredError(str(error.args[0]) if error.args else "not covered") from None

    def _code(self, position: np.ndarray) -> int:
        entry = int(self.family.rank(position))
        if entry == NEEDS_CHILDREN:
            return self._code_from_children(position)
        if entry < 0:
            self.locate(position)  # raises NotCoveredError with the reason
            raise NotCoveredError("position not covered by the tables")
        table = self._table_names[entry >> TABLE_SHIFT]
        index = entry & INDEX_MASK
        code = self.probe_code(table, index)
        if code == F.INVALID:
            raise NotCoveredError(f"{table}: index {index} holds no legal position")
        return code

    def _code_from_children(self, position: np.ndarray) -> int:
        """A position whose entry does not tell its value: one ply of search over children."""
        game = self.game
        if not game.legal_moves(position):
            code = int(terminal_code(game.kernels.outcome(position, 0)))
            return code if code >= 0 else F.CODE_DRAW
        return self._best_child(position)[1]

    def _best_child(self, position: np.ndarray) -> tuple[int | None, int | None]:
        """One ply of minimax over the stored codes of the children: (the best move, the code
        it gives ``position``), (None, None) without moves. DTZ50 tables count a capture or pawn
        move afresh."""
        game = self.game
        best_move, best = None, None
        for move in game.legal_moves(position):
            child = game.play(position, move)
            code = int(self._code(child))
            if self.metric == DTZ50 and game.player.reversible_plies(child) == 0:
                mine = int(zeroing_value(code))
            else:
                mine = int(parent_code(code))
            if best is None or better(mine, best):
                best_move, best = move, mine
        return best_move, best

    def probe(self, position) -> ProbeResult:
        """WDL and DTM of ``position`` (anything :meth:`position` accepts: a FEN, a
        ``chess.Board``, a position array); MissingTableError, NotCoveredError, or an
        UnusableTableError for a damaged table."""
        code = self._code(self.position(position))
        value, _ = F.decode(code)
        return ProbeResult(int(value), F.signed_dtm(code))

    def probe_wdl(self, position) -> int:
        """1 if the side to move wins, 0 for a draw, -1 if it loses."""
        return self.probe(position).wdl

    def probe_dtm(self, position) -> int:
        """Signed distance to mate in plies (see the module docstring)."""
        return self.probe(position).dtm

    def probe_dtz50_code(self, position) -> int:
        """The DTZ50 code of ``position`` (:mod:`games.value_codes`), from the DTZ50 tables;
        MissingTableError naming the file when they are not built."""
        return self.rule50._code(self.position(position))

    def probe_wdl50(self, position) -> int:
        """python-chess's Syzygy WDL under the 50-move rule, counted from a zeroing move: 2
        win, 1 cursed win (drawn by the rule), 0 draw, -1 blessed loss, -2 loss."""
        return wdl50(self.probe_dtz50_code(position))

    def probe_dtz(self, position) -> int:
        """python-chess's Syzygy DTZ: plies to the next capture, pawn move or mate, positive
        when the side to move wins, negative when it loses, 0 for a draw, -1 for a mated
        position; above 100 (below -100) for a cursed win (blessed loss). Exact (Syzygy's may
        be one ply longer than the truth away from the 100-ply edge; python-chess allows it)."""
        return python_chess_dtz(self.probe_dtz50_code(position))

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

    def probe_batch(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised probe of a 2-D array of positions (one per row), or of a list of positions
        as :meth:`probe` takes them: ``(wdl, dtm)`` arrays (int8 values 1/0/-1 and signed int16
        distances as in :meth:`probe`). Positions no table holds raise NotCoveredError;
        positions whose entry does not tell their value (chess: an en-passant right) are probed
        one by one."""
        positions = self.positions(positions)
        bases = np.full(len(self._table_names), -1, dtype=np.int64)
        for table, base in self._bases.items():
            bases[self.family.table_id(table)] = base
        wdl = np.empty(positions.shape[0], dtype=np.int8)
        dtm = np.empty(positions.shape[0], dtype=np.int16)
        if self.family.rank_many is not None:
            entries = self.family.rank_many(positions)
        else:
            entries = rank_rows(self.family.rank, positions)
        if probe_ranked_resident(entries, self.cache.directory, bases, self.cache.arena,
                                 wdl, dtm) == 0:
            return wdl, dtm
        entries = entries.copy()
        codes = np.empty(entries.size, dtype=np.uint16)
        special = np.flatnonzero(entries == NEEDS_CHILDREN)
        if np.any(entries[entries != NEEDS_CHILDREN] < 0):
            raise NotCoveredError("a position in the batch is not covered by any table")
        tables = entries >> TABLE_SHIFT
        tables[special] = -1
        for table_id in np.unique(tables[tables >= 0]):
            rows = np.flatnonzero(tables == table_id)
            codes[rows] = self.probe_codes(self.family.table_name(int(table_id)),
                                           entries[rows] & INDEX_MASK)
        for row in special:
            codes[row] = self._code(positions[row])
        if np.any(codes == F.INVALID):
            raise NotCoveredError("a position in the batch holds no legal position's index")
        return F.decode_arrays(codes)

    def best_move(self, position) -> int | None:
        """A move keeping the value: for a win the quickest mate, for a loss the slowest, for
        a draw a drawing move (an int: ``game.format_move`` gives its notation). None when the
        game is over."""
        return self._best_child(self.position(position))[0]




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
