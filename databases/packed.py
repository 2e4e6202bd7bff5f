"""The packed WDL50: every table's result under the 50-move rule, compressed in memory, for a
search that must never wait for a page.

A table's DTZ50 entries cut to python-chess's five values (2 win, 1 cursed win, 0 draw, -1
blessed loss, -2 loss, for the side to move, counted from a zeroing move) compress far better
than the distances. Two things make them smaller still:

* **Exits decided at probe time** (Syzygy's idea for its WDL files). A move out of the table (a
  capture or a promotion) is a zeroing move, so it is worth exactly minus its child's WDL50,
  and the child lies in another packed table. The probe plays those moves and takes the best
  of them and the stored value: ``value = max(stored, -child for every exit)``. Where an exit
  already achieves the value, the stored byte only has to be no better than it, so the packer
  picks whatever continues the run before it. Positions with a good capture, a large share of
  most tables, cost almost nothing.
* **Invalid indices** (no legal position has them) copy their neighbour.

The packer (:mod:`retrograde.pack`) stores each table in blocks of ``BLOCK_ENTRIES`` entries
(the stored value + 2 each), each block a tile of the index's three fastest dimensions, coded
by :mod:`databases.wdl_coder` (an adaptive range coder whose contexts are an entry's
neighbours in the index, from the table's own model at the head of its stream);
:class:`PackedTables` loads every packed table of a database into one byte array, and
kernels read it with :func:`probe_packed`, which decodes a block into a small direct-mapped
cache of decoded blocks (only as far as the probe needs: a later probe of the block resumes
the decoder where it stopped) and follows exits into the other tables' packs (a chain
of at most ``MOST_EXITS`` captures and promotions). Nothing is read from disk after loading.

File ``<db>/<game>/wdl50/<table>.h5`` (:data:`databases.location.WDL50`)::

    attributes  format "packed-wdl50", pack_version, game, table, index_scheme,
                index_version, entries, block_entries, dimensions (the index's three
                fastest: the blocks' tiles),
                source_crc32 (the DTZ50 table's content checksum: a rebuilt DTZ50 table
                makes the pack stale)
    stream      uint8: the table's model (wdl_coder.MODEL_BYTES), then the blocks' codes one
                after the other (HDF5 chunks with Fletcher-32 checksums: damage is found
                when the file is loaded)
    block_bytes uint16, one a block: the length of its code (gzip-compressed; where each
                block starts follows, the first at MODEL_BYTES)
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import h5py
import numba as nb
import numpy as np
from numba import prange, types

from databases import format as F
from databases.errors import DamagedTableError, FormatError, MissingTableError, UnusableTableError
from databases.location import WDL50, table_path
from databases.wdl_coder import (BLOCK_SHIFT, CONTEXTS, DECODED, DECODER_WORDS, MODEL_BYTES, PLACES,
                                 block_count, decode_until, model_dimensions, read_dimensions,
                                 start_decoding, tile_of)
from games import kernels as K
from games.kernels import POSITION
from games.value_codes import WDL50_WIN
from games.table_family import INDEX_MASK, NEEDS_CHILDREN, TABLE_SHIFT, RankKernel
import runtime.recursion_typing  # noqa: F401  (probe_packed_entry calls itself: typed by its signature)

PACK_FORMAT = "packed-wdl50"
PACK_VERSION = 2  # 1: blocks in raw DEFLATE (2.6-3.0x Syzygy's WDL files; 2026-11-27)
BLOCK_ENTRIES = 1 << BLOCK_SHIFT
STREAM = "stream"
BLOCK_BYTES = "block_bytes"
STREAM_CHUNK = 1 << 20  # bytes of stream per HDF5 chunk (one checksum each)
CACHE_BLOCKS = 2048  # decoded blocks kept by the kernels (16 MiB, their decoders 3.4 MiB); a power of two

NOT_PACKED = -128  # probe_packed: no packed table holds the position (or one of its exits)
WDL50_OFFSET = 2  # a stored byte is the WDL50 value + 2
BEST_WDL50 = WDL50_WIN
MOST_EXITS = 8  # captures and promotions followed from one probe (five pieces need at most 6)

BYTES = types.Array(types.uint8, 1, "C")
I64_1D = types.Array(types.int64, 1, "C")


class PackArrays(NamedTuple):
    """The arrays the probing kernels read (:meth:`PackedTables.kernel_tuple`), by name: numba
    types a named tuple by its class, so kernels read each member by its name (``packs.cache``)
    and no two arrays of one type can be swapped by their position."""

    stream: np.ndarray  # uint8: every packed table's model, then its blocks' codes
    offsets: np.ndarray  # int64: where each block's code starts in ``stream`` (one past: the end)
    first_block: np.ndarray  # int64 per table id: its first block, -1 when it is not packed
    cache: np.ndarray  # uint8 [slot, place]: the decoded-block cache (direct-mapped)
    tags: np.ndarray  # int64 per slot: the block the slot holds, -1 none
    positions: np.ndarray  # uint64 [depth, word]: scratch, a child position per exit followed
    moves: np.ndarray  # int32 [depth, move]: scratch, a move list per exit followed
    decoders: np.ndarray  # int64 [slot, word]: each slot's decoder (DECODER_WORDS)
    probabilities: np.ndarray  # uint16 [slot, context * place]: each slot's block's model
    orders: np.ndarray  # int64 [table id, 2]: its pack order, TableFamily.pack_order's (inner, run)


PACKS = types.NamedTuple((BYTES, I64_1D, I64_1D, types.Array(types.uint8, 2, "C"), I64_1D,
                          types.Array(types.uint64, 2, "C"), types.Array(types.int32, 2, "C"),
                          types.Array(types.int64, 2, "C"), types.Array(types.uint16, 2, "C"),
                          types.Array(types.int64, 2, "C")), PackArrays)


@nb.njit(cache=True, inline="always")
def is_packed(packs, entry):
    """Whether the table of ``entry`` (``table << TABLE_SHIFT | index``) is packed."""
    first_block = packs.first_block
    table_id = entry >> TABLE_SHIFT
    return entry >= 0 and table_id < first_block.shape[0] and first_block[table_id] >= 0


@nb.njit(cache=True, inline="always")
def pack_place(index, inner, run):
    """Where entry ``index`` of an index ``[sides, inner, run]`` stands in a pack ordered
    ``[sides, run, inner]`` (``TableFamily.pack_order``)."""
    outer = index // run
    return ((outer // inner) * run + index % run) * inner + outer % inner


@nb.njit(cache=True, inline="always")
def pack_index(place, inner, run):
    """The index entry at ``place`` of a pack (inverse of :func:`pack_place`)."""
    step = place // inner
    outer = (step // run) * inner + place % inner
    return outer * run + step % run


def to_pack_order(values: np.ndarray, inner: int, run: int) -> np.ndarray:
    """A table's entries (index order) in its pack's order (:func:`pack_place`)."""
    if inner == 1:
        return values
    out = np.empty_like(values)
    transpose_runs(values, inner, run, out)
    return out


TRANSPOSED_RUNS = 1 << 14


@nb.njit(cache=True, parallel=True)  # (no signature: compiled by the packer only, when used)
def transpose_runs(values, inner, run, out):
    """``out``: ``values`` seen as ``(outer, inner, run)`` with its last two axes swapped,
    ``TRANSPOSED_RUNS`` of a slab's runs a task (its part of ``out`` one stretch), on every
    thread."""
    parts = (run + TRANSPOSED_RUNS - 1) // TRANSPOSED_RUNS
    for task in prange(values.shape[0] // (inner * run) * parts):
        base = task // parts * inner * run
        first = task % parts * TRANSPOSED_RUNS
        stop = min(run, first + TRANSPOSED_RUNS)
        for tile in range(first, stop, 64):  # 64 runs at a time: a cache line of each row
            for i in range(inner):
                for r in range(tile, min(stop, tile + 64)):
                    out[base + r * inner + i] = values[base + i * run + r]


@nb.njit(types.int64(PACKS, types.int64), cache=True, nogil=True)
def stored_value(packs, entry):
    """The stored WDL50 of ``entry`` (``table << TABLE_SHIFT | index``), without its
    exits, or ``NOT_PACKED``."""
    stream, offsets, cache, tags = packs.stream, packs.offsets, packs.cache, packs.tags
    decoders, probabilities = packs.decoders, packs.probabilities
    if not is_packed(packs, entry):
        return NOT_PACKED
    table_id = entry >> TABLE_SHIFT
    first = packs.first_block[table_id]
    model = offsets[first] - MODEL_BYTES  # at the head of the table's stream
    d0, d1, d2 = read_dimensions(stream, model)
    block, place = tile_of(d0, d1, d2, pack_place(entry & INDEX_MASK, packs.orders[table_id, 0],
                                                  packs.orders[table_id, 1]))
    block += first
    slot = block & (cache.shape[0] - 1)
    if tags[slot] != block:
        tags[slot] = -1  # until its decoder is started
        if start_decoding(stream, model, offsets[block], offsets[block + 1], probabilities[slot],
                          decoders[slot]) < 0:
            return NOT_PACKED  # cannot happen to a stream that passed its checksums
        tags[slot] = block
    # A block is decoded only as far as a probe needs (entries come in place order), and a
    # later probe further in resumes where the last stopped: a block the search touches a few
    # times is decoded only up to its furthest probe.
    if decoders[slot, DECODED] <= place:
        if decode_until(stream, offsets[block + 1], probabilities[slot], decoders[slot],
                        cache[slot], place + 1) < 0:
            tags[slot] = -1
            return NOT_PACKED
    return np.int64(cache[slot, place]) - WDL50_OFFSET


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, RankKernel, PACKS, POSITION, types.int64, types.int64),
         cache=True, nogil=True)
def probe_packed_entry(exit_moves, play, rank, packs, pos, entry, depth):
    """:func:`probe_packed` for a caller that has already ranked ``pos``: ``entry`` is
    ``rank(pos)`` (the search ranks every node once and passes the entry on)."""
    best = stored_value(packs, entry)
    if best == NOT_PACKED or best == BEST_WDL50:
        return best
    if depth >= MOST_EXITS:
        return NOT_PACKED
    positions, moves = packs.positions, packs.moves
    child = positions[depth]
    table_id = entry >> TABLE_SHIFT
    count = exit_moves(pos, moves[depth])
    for i in range(count):
        play(pos, moves[depth, i], child)
        child_entry = rank(child)
        if child_entry == NEEDS_CHILDREN or (child_entry >= 0
                                             and child_entry >> TABLE_SHIFT == table_id):
            continue  # stays in the table (an en-passant right: a double push): stored
        value = probe_packed_entry(exit_moves, play, rank, packs, child, child_entry, depth + 1)
        if value == NOT_PACKED:
            return NOT_PACKED
        if -value > best:
            best = -value
            if best == BEST_WDL50:
                break
    return best


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, RankKernel, PACKS, POSITION, types.int64),
         cache=True, nogil=True)
def probe_packed(exit_moves, play, rank, packs, pos, depth):
    """The WDL50 of ``pos`` (-2..2, for the side to move, from a zeroing move) from the packed
    tables, or ``NOT_PACKED``: the stored value, bettered by the moves that leave the table
    (each worth minus its child's WDL50, probed the same way; ``depth`` counts those followed,
    0 for a first probe, and picks the scratch rows). ``exit_moves`` generates legal moves
    among which are all that leave a table: the game's ``legal_moves``, or (faster, the same
    value) its ``noisy_moves``, since only captures and promotions change the material.
    Callable from other kernels; a block not in the decoded cache is decoded from memory,
    never read from disk."""
    return probe_packed_entry(exit_moves, play, rank, packs, pos, rank(pos), depth)


@nb.njit(PACKS(PACKS, types.int64), cache=True)
def with_own_cache(packs, slots):
    """``packs`` with a decoded-block cache of ``slots`` blocks (their decoders too) and
    scratch rows of its own: for a probe on another thread."""
    return PackArrays(packs.stream, packs.offsets, packs.first_block,
                      np.zeros((slots, packs.cache.shape[1]), dtype=np.uint8),
                      np.full(slots, -1, dtype=np.int64), np.zeros_like(packs.positions),
                      np.zeros_like(packs.moves), np.zeros((slots, packs.decoders.shape[1]), dtype=np.int64),
                      np.zeros((slots, packs.probabilities.shape[1]), dtype=np.uint16), packs.orders)


def no_packs() -> PackArrays:
    """The kernels' packs when no table is packed."""
    return PackArrays(stream=np.zeros(1, dtype=np.uint8), offsets=np.zeros(1, dtype=np.int64),
                      first_block=np.full(1, -1, dtype=np.int64), cache=np.zeros((1, 1), dtype=np.uint8),
                      tags=np.full(1, -1, dtype=np.int64), positions=np.zeros((1, 1), dtype=np.uint64),
                      moves=np.zeros((1, 1), dtype=np.int32),
                      decoders=np.zeros((1, DECODER_WORDS), dtype=np.int64),
                      probabilities=np.zeros((1, 1), dtype=np.uint16), orders=np.ones((1, 2), dtype=np.int64))


def scratch_rows(game) -> tuple[np.ndarray, np.ndarray]:
    """A probe's scratch: one child position and one move list per exit followed."""
    return (np.zeros((MOST_EXITS, game.position_width), dtype=np.uint64),
            np.zeros((MOST_EXITS, game.max_moves), dtype=np.int32))


def write_pack(path: str | os.PathLike, model: np.ndarray, blocks: list[bytes], *, game: str,
               table: str, dimensions, index_scheme: str, index_version: int, entries: int,
               source_crc32: int) -> int:
    """Write a table's ``model`` and coded ``blocks`` as its pack file, atomically (the file
    appears under its name only once complete); returns the file's size in bytes."""
    from databases.writer import write_atomically, write_attributes

    path = Path(path)
    lengths = np.array([len(block) for block in blocks], dtype=np.uint16)  # < encode_bound()
    stream = np.frombuffer(model.tobytes() + b"".join(blocks), dtype=np.uint8)
    attributes = {"format": PACK_FORMAT, "pack_version": PACK_VERSION, "game": game,
                  "table": table, "index_scheme": index_scheme, "index_version": index_version,
                  "entries": int(entries), "block_entries": BLOCK_ENTRIES,
                  "dimensions": np.asarray(dimensions, dtype=np.int64),
                  "source_crc32": int(source_crc32)}

    def fill(handle) -> None:
        handle.create_dataset(STREAM, data=stream, chunks=(max(1, min(STREAM_CHUNK, stream.size)),),
                              fletcher32=True)
        handle.create_dataset(BLOCK_BYTES, data=lengths, chunks=(max(1, min(1 << 16, lengths.size)),),
                              compression="gzip", shuffle=True, fletcher32=True)
        write_attributes(handle, attributes)

    write_atomically(path, fill)
    return path.stat().st_size


def read_pack(root, family, table: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """(stream, offsets, attributes) of a table's pack, checked: MissingTableError when it is
    not packed, UnusableTableError (naming the file) when damaged or of another format or
    index."""
    game = family.game.name
    path = table_path(root, game, table, WDL50)
    try:
        handle = h5py.File(path, "r", rdcc_nbytes=0)  # read once, whole: no chunk cache
    except FileNotFoundError:
        raise MissingTableError(f"{table} is not packed (no file {path})") from None
    except Exception as error:  # OSError: truncated, not HDF5, permission
        raise DamagedTableError(f"{path}: not a readable pack file ({_first_line(error)})") from None
    try:
        with handle:
            attrs = {key: F.read_attribute(value) for key, value in handle.attrs.items()}
            _check_attributes(path, attrs, family, table)
            stream = handle[STREAM][...]
            lengths = handle[BLOCK_BYTES][...]
    except UnusableTableError:
        raise
    except Exception as error:  # a checksum, a missing dataset, damaged metadata
        raise DamagedTableError(f"{path}: damaged pack file ({_first_line(error)})") from None
    blocks = block_count(attrs.get("dimensions", ()), attrs["entries"])
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    offsets[0] = MODEL_BYTES
    offsets[1:] = MODEL_BYTES + np.cumsum(lengths, dtype=np.int64)
    if stream.dtype != np.uint8 or stream.ndim != 1 or lengths.shape != (blocks,) \
            or offsets[-1] != stream.size:
        raise DamagedTableError(f"{path}: damaged pack file (block lengths)")
    return np.ascontiguousarray(stream), offsets.astype(np.int64), attrs


class OutdatedPackError(FormatError):
    """A pack file of another ``pack_version`` or index version (``solver build`` repacks
    it)."""


def _check_attributes(path: Path, attrs: dict, family, table: str) -> None:
    """FormatError unless ``attrs`` describe this table's pack, in this version's layout."""
    if attrs.get("format") != PACK_FORMAT or attrs.get("pack_version") != PACK_VERSION:
        if attrs.get("format") == PACK_FORMAT:
            raise OutdatedPackError(f"{path}: a pack of version {attrs.get('pack_version')}, "
                                    f"not {PACK_VERSION} (solver build repacks it)")
        raise FormatError(f"{path}: not a pack file")
    if attrs.get("game") != family.game.name or attrs.get("table") != table:
        raise FormatError(f"{path}: holds {attrs.get('game')}/{attrs.get('table')}, expected "
                          f"{family.game.name}/{table}")
    if attrs.get("index_scheme") == family.index_scheme \
            and not family.indexed_alike(table, attrs.get("index_version")):
        raise OutdatedPackError(f"{path}: indexed by version {attrs.get('index_version')}, "
                                f"not {family.index_version} (solver build repacks it)")
    if attrs.get("index_scheme") != family.index_scheme \
            or attrs.get("entries") != family.size(table) \
            or attrs.get("block_entries") != BLOCK_ENTRIES \
            or tuple(np.asarray(attrs.get("dimensions", ())).tolist()) \
            != model_dimensions(family.pack_dimensions(table)):
        raise FormatError(f"{path}: another index or block layout (rebuild it with solver "
                          "build --force)")


class PackedTables:
    """Every packed table of a database, in memory, for :func:`probe_packed`. Tables whose
    pack is damaged or stale are left out and listed in ``unusable`` (table: why), those
    whose pack is of another pack version in ``outdated``.

    Thread safety: once loaded, the compressed streams are only read, but :meth:`wdl50` and
    :meth:`kernel_tuple`'s arrays hold one decoded-block cache and one set of scratch rows,
    so they serve one thread. Every other thread probes through a tuple of its own,
    ``with_own_cache(tables.kernel_tuple(), slots)``, which shares the streams and nothing
    else (the probing kernels release the GIL: such threads probe in parallel)."""

    def __init__(self, root, family, cache_blocks: int = CACHE_BLOCKS):
        self.family = family
        names = family.table_names()
        self.first_block = np.full(len(names), -1, dtype=np.int64)
        self.orders = np.ones((max(1, len(names)), 2), dtype=np.int64)
        self.unusable: dict[str, str] = {}
        self.outdated: list[str] = []
        streams, offsets, start, blocks = [], [np.zeros(1, dtype=np.int64)], 0, 0
        for table_id, table in enumerate(names):
            try:
                stream, table_offsets, _ = read_pack(root, family, table)
            except MissingTableError:
                continue
            except OutdatedPackError:
                self.outdated.append(table)
                continue
            except UnusableTableError as error:
                self.unusable[table] = str(error)
                continue
            streams.append(stream)
            offsets.append(table_offsets[1:] + start)
            self.first_block[table_id] = blocks
            self.orders[table_id] = family.pack_order(table)
            # The table's model heads its stream: the block before it (another table's
            # last) takes it into its extent, which keeps the offsets one array (a decoder
            # stops at the end of its own code), and its first block starts after it.
            offsets[-2][-1] = start + MODEL_BYTES
            start += stream.size
            blocks += table_offsets.size - 1
        self.stream = np.concatenate(streams) if streams else np.zeros(1, dtype=np.uint8)
        self.offsets = np.concatenate(offsets)
        self.cache = np.zeros((cache_blocks, BLOCK_ENTRIES), dtype=np.uint8)
        self.tags = np.full(cache_blocks, -1, dtype=np.int64)
        self.decoders = np.zeros((cache_blocks, DECODER_WORDS), dtype=np.int64)
        self.probabilities = np.zeros((cache_blocks, CONTEXTS * PLACES), dtype=np.uint16)
        self.positions, self.moves = scratch_rows(family.game)

    @property
    def tables(self) -> int:
        """How many tables are packed here."""
        return int((self.first_block >= 0).sum())

    @property
    def nbytes(self) -> int:
        """Memory held: the compressed streams, their offsets and the decoded-block cache (with
        its decoders' states)."""
        return int(self.stream.nbytes + self.offsets.nbytes + self.cache.nbytes
                   + self.decoders.nbytes + self.probabilities.nbytes)

    def kernel_tuple(self) -> PackArrays:
        """The arrays :func:`probe_packed` reads."""
        return PackArrays(stream=self.stream, offsets=self.offsets, first_block=self.first_block,
                          cache=self.cache, tags=self.tags, positions=self.positions, moves=self.moves,
                          decoders=self.decoders, probabilities=self.probabilities, orders=self.orders)

    def wdl50(self, position: np.ndarray) -> int | None:
        """The WDL50 of ``position`` (python-chess's values), or None when no pack holds it
        (or one of the tables its captures and promotions lead to)."""
        game = self.family.game
        value = int(probe_packed(game.player.noisy_moves, game.kernels.play, self.family.rank,
                                 self.kernel_tuple(), position, 0))
        return None if value == NOT_PACKED else value


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


__all__ = ["PackedTables", "OutdatedPackError", "probe_packed", "probe_packed_entry", "stored_value", "is_packed", "no_packs", "with_own_cache", "scratch_rows", "write_pack", "read_pack", "PACKS", "PackArrays",
           "NOT_PACKED", "BLOCK_ENTRIES"]
