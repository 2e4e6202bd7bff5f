"""Packing a table's WDL50 for the search's memory (the format: :mod:`databases.packed`).

A table is packed from its DTZ50 table and its children's, a slice of pages at a time:

1. ``stored_bytes``: each entry's stored byte. An entry whose best move out of the table (a
   capture or a promotion, worth minus its child's WDL50, read from the children's DTZ50
   tables loaded whole: ``best_exit``) achieves its WDL50 may store any value no better (the
   probe takes the better of the two), so it continues the run before it where it can; an
   invalid entry copies its predecessor. A chess table finds its moves out on its storage
   index, into its children's zeroing classes (``chess_stored_bytes``), not by playing every
   move; one with pawns goes one advancement group of its pawn slices at a time, reading its
   promotion children only where the group reaches them (``chess_pawn_stored_bytes``), and
   `solver build` makes those bytes beside the DTZ50 generator as each group is solved, with
   the children it read (``StoredBytesByGroup``), so the pack reads nothing again;
2. the bytes laid out in tiles of the index's three fastest dimensions, one a block
   (:mod:`databases.wdl_encoder`), the table's model counted over them (the initial
   probability of every decision), then each block of ``BLOCK_ENTRIES`` bytes coded with it
   on every thread, decoded back and compared before the file is written.

:func:`verify_pack` probes every entry of a pack the way the search does (stored value and
exits into the other packs) and counts those whose value is not their DTZ50 table's; it goes
block by block of the pack, so each of its blocks is decoded once.
"""
from __future__ import annotations

import time

import numba as nb
import numpy as np
from numba import prange, types

from databases import format as F
from databases.location import DTZ50, WDL50, table_path
from databases.packed import (BLOCK_ENTRIES, CACHE_BLOCKS, NOT_PACKED, PACKS, WDL50_OFFSET,
                              PackedTables, pack_index, probe_packed, to_pack_order,
                              with_own_cache, write_pack)
from databases.reader import TableFile
from databases.wdl_coder import block_count, entry_of_tile, model_dimensions
from databases.wdl_encoder import encode_blocks, encode_bound, table_model, tile_values
from games import kernels as K
from games.table_family import NEEDS_CHILDREN, TABLE_SHIFT, RankKernel, UnrankKernel
from games.value_codes import CODE_DRAW, INVALID, STORE_UNKNOWN, wdl50, zeroing_class
from games.chess import endgames as E
from retrograde.chess_dtz50 import ZEROING_CLASSES, spec_codes
from retrograde.chess_exits import (LEAVING_SHIFT, NO_LEAVING, UNKNOWN_LEAVING,
                                    best_leaving_value, child_plans, final_code)
from runtime.borrow import borrowed

READ_PAGES = 1024  # DTZ50 pages read at a time (16 M entries; whole blocks)
CODE_BLOCKS = 256  # blocks coded at a time (their output buffers: 50 MB)


# best_exit: no move leaves the table (below every WDL50); a child table is not loaded
NO_EXIT, UNKNOWN_EXIT = NO_LEAVING, UNKNOWN_LEAVING
CHUNK = 1 << 14  # entries per parallel task

CODES = types.Array(types.uint16, 1, "C")
OFFSETS = types.Array(types.int64, 1, "C")
BYTES = types.Array(types.uint8, 1, "C")
PLANS = types.Array(types.int64, 2, "C")


@nb.njit(cache=True, inline="always")
def best_exit(legal_moves, play, rank, table_id, pos, child, moves, children, offsets):
    """The best, for the side to move in ``pos``, of its moves that leave the table (a
    capture, a promotion), each worth minus its child's WDL50 (the children's DTZ50 codes in
    ``children`` from ``offsets[table]``): ``NO_EXIT`` when none does, ``UNKNOWN_EXIT`` when a
    child's table is not loaded."""
    best = NO_EXIT
    for m in range(legal_moves(pos, moves)):
        play(pos, moves[m], child)
        entry = rank(child)
        table = entry >> TABLE_SHIFT
        if entry == NEEDS_CHILDREN or (entry >= 0 and table == table_id):
            continue  # stays in the table (probe_packed's rule)
        if entry < 0 or offsets[table] < 0:
            return UNKNOWN_EXIT
        code = children[offsets[table] + (entry & ((1 << TABLE_SHIFT) - 1))]
        if code == INVALID or code == STORE_UNKNOWN:
            return UNKNOWN_EXIT
        value = -wdl50(code)
        if value > best:
            best = value
    return best


NO_VALUE = -1  # stored_value_of: an invalid entry (below every stored byte)


@nb.njit(cache=True, inline="always")
def stored_value_of(code):
    """The byte an entry of DTZ50 code ``code`` stores when nothing lets it store less: its
    WDL50 + WDL50_OFFSET; NO_VALUE for an invalid entry."""
    return NO_VALUE if code == INVALID else wdl50(code) + WDL50_OFFSET


@nb.njit(cache=True, inline="always")
def first_stored(codes, first, stop):
    """The byte the block ``[first, stop)`` starts from: its first valid entry's (leading
    invalid entries copy it), a draw's if it has none."""
    for i in range(first, stop):
        if codes[i] != INVALID:
            return stored_value_of(codes[i])
    return stored_value_of(CODE_DRAW)


@nb.njit(cache=True, inline="always")
def next_stored(previous, value, exit_value):
    """The byte an entry stores after ``previous``: its own ``value`` where that is lower,
    or higher with no move out of the table (best ``exit_value``) that achieves it; else
    ``previous`` again (an invalid entry, or one a move out decides: the probe takes the
    better of the byte and the moves out). ``exit_value`` UNKNOWN_EXIT keeps ``previous``
    (the pack is not made then)."""
    if value == NO_VALUE or value == previous:
        return previous
    if value < previous:
        return value
    if exit_value == UNKNOWN_EXIT or exit_value + WDL50_OFFSET == value:
        return previous
    return value


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, types.int64,
                     CODES, CODES, OFFSETS, types.int64, BYTES, types.int64, types.int64,
                     K.POSITION, K.POSITION, K.MOVE_BUFFER), cache=True)
def stored_bytes_of_block(legal_moves, play, unrank, rank, table_id, codes, children, offsets,
                          start, out, first, stop, pos, child, moves):
    """:func:`stored_bytes` of the block ``[first, stop)`` on one thread, with its own
    positions and move buffer; returns its count of exits into tables not loaded."""
    # Lent (runtime/borrow.py): counting references to them took about a fifth of the time.
    codes, children, offsets, out, pos, child, moves = borrowed(
        (codes, children, offsets, out, pos, child, moves))
    unknown = 0
    previous = first_stored(codes, first, stop)
    for i in range(first, stop):
        value = stored_value_of(codes[i])
        exit_value = NO_EXIT
        if previous < value:  # the only case where the exits matter
            if not unrank(table_id, start + i, pos):
                unknown += 1
                continue
            exit_value = best_exit(legal_moves, play, rank, table_id, pos, child, moves,
                                   children, offsets)
            unknown += exit_value == UNKNOWN_EXIT
        previous = next_stored(previous, value, exit_value)
        out[i] = previous
    return unknown


@nb.njit([types.int64(types.int64, CODES, ZEROING_CLASSES, PLANS, types.int64, BYTES,
                      types.int64, types.int64),
          types.int64(types.int64, BYTES, ZEROING_CLASSES, PLANS, types.int64, BYTES,
                      types.int64, types.int64)], cache=True)
def chess_stored_bytes_of_block(table, codes, children, plans, start, out, first, stop):
    """:func:`stored_bytes_of_block` of a chess table, its moves out of the table found on
    its storage index (:func:`retrograde.chess_exits.best_leaving_value`, the children's
    DTZ50 codes cut to their zeroing classes: what a move out is worth under the rule) rather
    than by playing every move. ``codes``: DTZ50 codes, or their zeroing classes (the same
    WDL50)."""
    codes, children, plans, out = borrowed((codes, children, plans, out))
    n = E.COUNT[table]
    pieces = spec_codes(table)
    squares = np.empty(n, dtype=np.int64)
    unknown = 0
    previous = first_stored(codes, first, stop)
    for i in range(first, stop):
        value = stored_value_of(codes[i])
        exit_value = NO_EXIT
        if previous < value:  # the only case where the exits matter
            exit_value = best_leaving_value(table, start + i, pieces, squares, n, children,
                                            plans)
            unknown += exit_value == UNKNOWN_EXIT
        previous = next_stored(previous, value, exit_value)
        out[i] = previous
    return unknown


@nb.njit(types.int64(types.int64, CODES, ZEROING_CLASSES, PLANS, types.int64, BYTES,
                     types.int64), cache=True, parallel=True)
def chess_stored_bytes(table, codes, children, plans, start, out, block_entries):
    """:func:`stored_bytes` of a chess table (:func:`chess_stored_bytes_of_block`)."""
    blocks = (codes.size + block_entries - 1) // block_entries
    unknown = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        first, stop = block * block_entries, min(codes.size, (block + 1) * block_entries)
        unknown[block] = chess_stored_bytes_of_block(table, codes, children, plans, start, out,
                                                     first, stop)
    return unknown.sum()


@nb.njit(types.int64(types.int64, BYTES, ZEROING_CLASSES, PLANS, BYTES, PLANS), cache=True,
         parallel=True)
def chess_stored_bytes_of_segments(table, classes, children, plans, out, segments):
    """:func:`chess_stored_bytes` of the entries ``segments[s, 0] .. segments[s, 1]`` of a
    whole table, a segment a task (each starts its run afresh); ``classes``: its DTZ50 codes
    cut to their zeroing classes."""
    unknown = np.zeros(segments.shape[0], dtype=np.int64)
    for s in prange(segments.shape[0]):
        unknown[s] = chess_stored_bytes_of_block(table, classes, children, plans, 0, out,
                                                 segments[s, 0], segments[s, 1])
    return unknown.sum()


def segments_of_runs(starts: np.ndarray, length: int, block_entries: int) -> np.ndarray:
    """The runs ``start .. start + length`` cut where a multiple of ``block_entries`` falls
    inside them, as ``(first, stop)`` rows."""
    rows = []
    for start in starts.tolist():
        stop = start + length
        cuts = range((start // block_entries + 1) * block_entries, stop, block_entries)
        edges = [start, *cuts, stop]
        rows.extend(zip(edges[:-1], edges[1:]))
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def chess_pawn_stored_bytes(root, family, table: str, source: TableFile,
                            progress=None) -> np.ndarray:
    """Every entry's stored byte of the chess ``table`` with pawns, one advancement group of
    its pawn slices at a time: its promotion children are read only where a group's slices
    reach them (:class:`retrograde.tables.ChildrenByGroup`), so a run of stored bytes starts
    afresh at each placement of the pawns. Its own DTZ50 codes (``source``) are held whole,
    cut to their zeroing classes (a byte each, every WDL50 kept)."""
    from retrograde.chess_dtz50_pawns import placement_run_length, placement_runs
    from retrograde.chess_promotion_runs import promotion_runs
    from retrograde.dtz50 import to_zeroing_classes
    from retrograde.tables import ChildrenByGroup

    table_id = E.TABLE_IDS[table]
    classes = source.read_all(out=np.empty(source.entries, dtype=np.uint8),
                              convert=to_zeroing_classes)
    children = ChildrenByGroup(root, family, family.dependencies(table), promotion_runs(table),
                               metric=DTZ50, convert=to_zeroing_classes, dtype=np.uint8)
    plans = child_plans(table, children.offsets)
    values = np.empty(source.entries, dtype=np.uint8)
    length = placement_run_length(table)
    runs = placement_runs(table)
    done = 0
    for group in sorted(runs, key=lambda group: -1 if group is None else -group):
        if group is not None:  # (the runs of no slice hold no position)
            children.before_group(group)
        segments = segments_of_runs(runs[group], length, BLOCK_ENTRIES)
        if chess_stored_bytes_of_segments(table_id, classes, children.codes, plans, values,
                                          segments):
            raise RuntimeError(f"{table}: a capture or promotion leads to a table whose "
                               "DTZ50 table is not loaded")
        done += runs[group].size * length
        if progress is not None:
            progress.update("packing: values", done, source.entries)
    return values


@nb.njit(types.int64(types.int64, BYTES, CODES, BYTES, ZEROING_CLASSES, PLANS, PLANS),
         cache=True, parallel=True)
def stored_bytes_of_solved(table, work, far, out, children, plans, segments):
    """:func:`chess_stored_bytes_of_segments` of entries the one-byte DTZ50 generator has
    just decided (``work``, ``far``: :func:`retrograde.chess_exits.final_code`), a segment a
    task. ``out`` holds each legal entry's best move out of the table as the generator's
    initialisation found it (plus LEAVING_SHIFT: ``chess_dtz50_pawns.solve``'s
    ``leaving``), read before the entry's stored byte is written over it; only where the
    initialisation stopped before seeing every move out are they looked at here."""
    n = E.COUNT[table]
    pieces = spec_codes(table)
    unknown = np.zeros(segments.shape[0], dtype=np.int64)
    for s in prange(segments.shape[0]):
        squares = np.empty(n, dtype=np.int64)
        first, stop = segments[s, 0], segments[s, 1]
        previous = stored_value_of(CODE_DRAW)  # (as first_stored: the first valid entry's)
        for i in range(first, stop):
            code = final_code(work, far, i)
            if code != INVALID:
                previous = stored_value_of(zeroing_class(code))
                break
        for i in range(first, stop):
            value = stored_value_of(zeroing_class(final_code(work, far, i)))
            exit_value = NO_EXIT
            if previous < value:  # the only case where the exits matter
                exit_value = np.int64(out[i]) - LEAVING_SHIFT
                if exit_value == UNKNOWN_EXIT:
                    exit_value = best_leaving_value(table, i, pieces, squares, n, children,
                                                    plans)
                    unknown[s] += exit_value == UNKNOWN_EXIT
            previous = next_stored(previous, value, exit_value)
            out[i] = previous
    return unknown.sum()


class StoredBytesByGroup:
    """A chess pawn table's stored bytes made beside its one-byte DTZ50 generator
    (:func:`retrograde.chess_dtz50_pawns.solve`'s ``after_group``): each advancement group's
    entries as soon as the group is solved, with the children the generator read for it
    (``children``: the zeroing classes, as :class:`retrograde.tables.ChildrenByGroup` holds
    them), so the pack reads neither its DTZ50 table nor its children again
    (:func:`pack_table`'s ``values``), and from each entry's best move out as the generator
    found it (``values`` is the generator's ``leaving`` until a group's bytes are written
    over it), so no move is walked again but where the generator stopped short. Runs of
    stored bytes start afresh at each placement of the pawns, as in
    :func:`chess_pawn_stored_bytes`, which gives the same bytes."""

    def __init__(self, table: str, children, entries: int):
        from retrograde.chess_dtz50_pawns import placement_run_length, placement_runs

        self.table_id = E.TABLE_IDS[table]
        self.table = table
        self.children = children
        self.plans = child_plans(table, children.offsets)
        # each legal entry's best move out, written by the generator's initialisation (its
        # ``leaving``), then its stored byte over it
        self.values = np.empty(entries, dtype=np.uint8)
        self.runs = placement_runs(table)
        self.length = placement_run_length(table)
        self.pending = [None]  # the runs of no slice (no position) go with the first group

    def after_group(self, group: int, work: np.ndarray, far: np.ndarray) -> None:
        """The stored bytes of ``group``'s entries, just solved (``work``, ``far``)."""
        starts = np.concatenate([self.runs.get(g, np.zeros(0, dtype=np.int64))
                                 for g in [*self.pending, group]])
        self.pending = []
        segments = segments_of_runs(starts, self.length, BLOCK_ENTRIES)
        far = far if far.size else np.zeros(1, dtype=np.uint16)
        if stored_bytes_of_solved(self.table_id, work, far, self.values, self.children.codes,
                                  self.plans, segments):
            raise RuntimeError(f"{self.table}: a capture or promotion leads to a table whose "
                               "DTZ50 table is not loaded")


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, types.int64,
                     types.int64, types.int64, CODES, CODES, OFFSETS, types.int64, BYTES,
                     types.int64), cache=True, parallel=True)
def stored_bytes(legal_moves, play, unrank, rank, width, max_moves, table_id, codes, children,
                 offsets, start, out, block_entries):
    """``out[i]``: the byte stored for entry ``start + i`` (DTZ50 code ``codes[i]``), block by
    block: its WDL50 + 2, or the byte before it when that is lower and one of its exits
    (:func:`best_exit`) achieves its value (the probe then restores it); an invalid entry
    copies the byte before it (a block's leading invalid entries its first valid value). Exits are generated
    only where that choice arises: where the value rises above the byte before. Returns how
    many entries had an exit into a table not loaded (0, or the pack cannot be made)."""
    blocks = (codes.size + block_entries - 1) // block_entries
    unknown = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        first, stop = block * block_entries, min(codes.size, (block + 1) * block_entries)
        unknown[block] = stored_bytes_of_block(
            legal_moves, play, unrank, rank, table_id, codes, children, offsets, start, out,
            first, stop, np.zeros(width, dtype=np.uint64), np.zeros(width, dtype=np.uint64),
            np.empty(max_moves, dtype=np.int32))
    return unknown.sum()


def stored_bytes_by_pages(root, family, table: str, source: TableFile,
                          progress=None) -> np.ndarray:
    """Every entry's stored byte of ``table`` (its DTZ50 codes: ``source``), its pages read
    in order, its children read whole: chess tables by their storage index
    (:func:`chess_stored_bytes`), others by playing the moves (:func:`stored_bytes`)."""
    from retrograde.tables import load_children

    game = family.game.name
    chess = game == "chess"
    if chess:  # its own exits, on the storage index, into the children's zeroing classes
        from retrograde.dtz50 import load_zeroing_classes

        children, offsets = load_zeroing_classes(root, family, family.dependencies(table))
        plans = child_plans(table, offsets)
    else:
        children, offsets, _ = load_children(root, family, family.dependencies(table),
                                             metric=DTZ50)
    kernels = family.game.kernels
    table_id = family.table_id(table)
    entries = source.entries
    values = np.empty(entries, dtype=np.uint8)  # 1 byte an entry, in index order
    for first in range(0, source.pages, READ_PAGES):
        codes = source.read_pages(first, min(READ_PAGES, source.pages - first)).astype(
            np.uint16, copy=False)
        start = first * F.PAGE_ENTRIES
        out = values[start:start + codes.size]
        if chess:
            unknown = chess_stored_bytes(E.TABLE_IDS[table], codes, children, plans,
                                         start, out, BLOCK_ENTRIES)
        else:
            unknown = stored_bytes(kernels.legal_moves, kernels.play, family.unrank,
                                   family.rank, family.game.position_width,
                                   family.game.max_moves, table_id, codes, children,
                                   offsets, start, out, BLOCK_ENTRIES)
        if unknown:
            raise RuntimeError(f"{table}: a capture or promotion leads to a table "
                               "whose DTZ50 table is not loaded")
        if progress is not None:
            progress.update("packing: values", min(entries, start + codes.size), entries)
    return values


def pack_table(root, family, table: str, *, progress=None, values=None) -> dict:
    """Pack ``table``'s WDL50 from its DTZ50 table and its children's under ``root`` into its
    pack file; returns ``{"table", "entries", "bytes", "seconds"}``. ``values``: its stored
    bytes if already made (:class:`StoredBytesByGroup`, beside the DTZ50 generator): then
    only the DTZ50 table's checksum is read. MissingTableError / UnusableTableError when a
    DTZ50 table is missing or damaged."""
    game = family.game.name
    started = time.perf_counter()
    source = TableFile(table_path(root, game, table, DTZ50), game, table, family)
    try:
        entries = source.entries
        if values is not None:
            if values.size != entries:
                raise ValueError(f"{table}: {values.size} stored bytes for {entries} entries")
        elif game == "chess" and E.PAWNFUL[E.TABLE_IDS[table]]:
            values = chess_pawn_stored_bytes(root, family, table, source, progress)
        else:
            values = stored_bytes_by_pages(root, family, table, source, progress)
        source_crc32 = int(source.attrs["content_crc32"])
    finally:
        source.close()
    dimensions = model_dimensions(family.pack_dimensions(table))
    blocks = block_count(dimensions, entries)
    values = to_pack_order(values, *family.pack_order(table))
    tiled = np.empty(blocks * BLOCK_ENTRIES, dtype=np.uint8)
    tile_values(values, *dimensions, tiled)
    del values
    model = table_model(tiled, dimensions)
    coded: list[bytes] = []
    out = np.empty((min(blocks, CODE_BLOCKS), encode_bound()), dtype=np.uint8)
    sizes = np.empty(out.shape[0], dtype=np.int64)
    for first in range(0, blocks, CODE_BLOCKS):
        count = min(CODE_BLOCKS, blocks - first)
        piece = tiled[first * BLOCK_ENTRIES:(first + count) * BLOCK_ENTRIES]
        if encode_blocks(model, piece, count, out, sizes):
            raise RuntimeError(f"{table}: a coded block does not decode to its entries")
        coded.extend(out[b, :sizes[b]].tobytes() for b in range(count))
        if progress is not None:
            progress.update("packing: coding", first + count, blocks)
    size = write_pack(table_path(root, game, table, WDL50), model, coded, game=game,
                      table=table, dimensions=dimensions, index_scheme=family.index_scheme,
                      index_version=family.index_version, entries=entries,
                      source_crc32=source_crc32)
    return {"table": table, "entries": entries, "bytes": size,
            "seconds": round(time.perf_counter() - started, 3)}


VERIFY_BLOCKS = 128  # the pack's blocks a parallel task verifies (1 M entries)


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, PACKS,
                     types.int64, CODES, K.POSITION, types.int64, types.int64, types.int64,
                     types.int64, types.int64, types.int64, types.int64), cache=True)
def count_pack_disagreements_in(exit_moves, play, unrank, rank, packs, table_id, codes, pos,
                                d0, d1, d2, inner, run, first, stop):
    """:func:`count_pack_disagreements` of the pack's blocks ``first`` to ``stop`` on one
    thread, with packs whose decoded-block cache and scratch rows are its own."""
    # Lent (runtime/borrow.py): counting references to them took about a fifth of the time.
    packs, codes, pos = borrowed((packs, codes, pos))
    errors = 0
    for block in range(first, stop):
        for place in range(BLOCK_ENTRIES):
            entry = entry_of_tile(d0, d1, d2, block, place)
            if entry < 0:
                continue  # (a tile's padding)
            index = pack_index(entry, inner, run)
            if codes[index] == INVALID or not unrank(table_id, index, pos):
                continue
            value = probe_packed(exit_moves, play, rank, packs, pos, 0)
            if value == NOT_PACKED or value != wdl50(codes[index]):
                errors += 1
    return errors


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, PACKS,
                     types.int64, CODES, types.int64, types.int64, types.int64, types.int64,
                     types.int64, types.int64, types.int64), cache=True, parallel=True)
def count_pack_disagreements(exit_moves, play, unrank, rank, packs, table_id, codes, d0, d1,
                             d2, inner, run, start, stop):
    """How many valid entries in blocks ``start`` to ``stop`` of the pack of the table whose
    DTZ50 codes are ``codes`` probe (:func:`probe_packed`, exits and all) to another WDL50
    than their code's. The entries go block by block of the pack, each in its order there,
    so each of the table's own blocks is decoded once, straight through (``d0, d1, d2``: its
    tiles' dimensions; ``inner, run``: its pack order). On every thread, each run of blocks with a
    decoded-block cache and scratch rows of its own (the packs' own are one search's)."""
    positions = packs.positions
    tasks = (stop - start + VERIFY_BLOCKS - 1) // VERIFY_BLOCKS
    errors = np.zeros(tasks, dtype=np.int64)
    for task in prange(tasks):
        own = with_own_cache(packs, CACHE_BLOCKS)
        first = start + task * VERIFY_BLOCKS
        errors[task] = count_pack_disagreements_in(
            exit_moves, play, unrank, rank, own, table_id, codes,
            np.zeros(positions.shape[1], dtype=np.uint64), d0, d1, d2, inner, run, first,
            min(stop, first + VERIFY_BLOCKS))
    return errors.sum()


def verify_pack(root, family, table: str, progress=None,
                packs: PackedTables | None = None) -> dict:
    """``{"table", "checked", "errors"}``: every entry of ``table``'s pack probed as the
    search probes it (the other tables' packs, ``packs`` if given, loaded for its exits)
    against its DTZ50 table. MissingTableError / UnusableTableError when a file is missing
    or damaged."""
    from databases.packed import read_pack
    from retrograde.tables import read_codes

    read_pack(root, family, table)  # this table's pack itself: missing or damaged is said so
    packs = packs if packs is not None else PackedTables(root, family)
    if table in packs.unusable:
        from databases.errors import DamagedTableError

        raise DamagedTableError(packs.unusable[table])
    codes = read_codes(root, family.game.name, table, metric=DTZ50)
    dimensions = model_dimensions(family.pack_dimensions(table))
    inner, run = family.pack_order(table)
    blocks = block_count(dimensions, codes.size)
    errors, step = 0, 32 * VERIFY_BLOCKS  # (blocks between progress lines)
    for first in range(0, blocks, step):
        stop = min(blocks, first + step)
        errors += int(count_pack_disagreements(
            family.game.player.noisy_moves, family.game.kernels.play, family.unrank,
            family.rank, packs.kernel_tuple(), family.table_id(table), codes, *dimensions,
            inner, run, first, stop))
        if progress is not None:
            progress.update("verify WDL50 pack", stop, blocks)
    return {"table": table, "checked": int(codes.size), "errors": errors}


def pack_is_current(root, family, table: str) -> bool:
    """Whether ``table``'s pack exists, reads, and was packed from its DTZ50 table as it is."""
    from databases.errors import DatabaseError
    from databases.packed import read_pack

    game = family.game.name
    try:
        _, _, attrs = read_pack(root, family, table)
        source = TableFile(table_path(root, game, table, DTZ50), game, table, family)
    except DatabaseError:
        return False
    try:
        return int(source.attrs["content_crc32"]) == attrs["source_crc32"]
    finally:
        source.close()


__all__ = ["pack_table", "pack_is_current", "verify_pack", "best_exit", "stored_bytes"]
