"""Benchmark: probing the chess tables, single and batch, cold and warm, against python-chess.

Our probes from Python next to python-chess probing the Syzygy WDL tables on the same
positions, in the same run.

    python scripts/bench_probe.py [--db DIR] [--syzygy DIR] [--positions N] [--batch N]
        [--tables KRvK KQRvKR ...] [--cold-pages N] [--cache-mib N]

The tables come from ``--db`` (default: $SOLVER_DB or ~/.local/share/solver/db); missing
3-4 piece tables are built first (several minutes); five-piece tables named in ``--tables``
must be built already. Syzygy files come from ``--syzygy`` (default:
$SOLVER_ORACLE_DATA/chess/syzygy) and ``--syzygy5`` (default: its ``syzygy5`` sibling, which
holds KQRvKR, KRRvKR, KRBvKR, KRNvKR and KRPvKR). What each column measures:

* python-chess: ``probe_wdl`` on ``--positions`` random legal positions (``chess.Board``s),
  second pass (the first, untimed, opens the files and faults their pages in), so that its
  rate and ours in *single warm* are measured alike; "(no table)" when the Syzygy
  directories lack the table.
* single cold: one ``Database.probe_wdl`` call per position, on a fresh ``Database`` (no page
  read yet by this process) after the table's file was evicted from the OS page cache with
  ``posix_fadvise(POSIX_FADV_DONTNEED)``; the file is opened (header and page checksums read)
  before the clock starts; then one position on each page of the table (a random valid index
  of the page, pages in random order; at most ``--cold-pages`` pages, drawn at random), so
  every timed probe reads and decodes a page that is on disk only. The bytes this process
  read from the disk during the timed probes (``/proc/self/io`` ``read_bytes``) are printed
  beside it.
* single warm: the same ``--positions`` random positions as python-chess, second pass (every
  page resident).
* batch warm: ``Database.probe_batch`` on ``--batch`` distinct positions (random distinct
  valid indices, unranked; all valid positions when the table has fewer), each probed once
  in the timed call, after an untimed call that made the pages resident.
* by index: ``probe_codes`` on the indices of those same distinct positions, warm.
* opening the directory: a fresh ``Database`` over ``--db``, one probe in each of its tables
  (the first, untimed, probe compiles nothing new: the kernels are loaded before), with the
  files opened lazily and at most ``max_open`` of them open at once.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import chess
import chess.syzygy
import numba as nb
import numpy as np
from numba import types

from databases import default_database_dir, open_database
from databases import format as F
from games.chess import endgames as E
from games.kernels import POSITION
from games.table_family import UnrankKernel

from games.chess.random_positions import random_board
from common import oracle_data

TABLES = ["KRvK", "KQvKR", "KRvKP", "KPvKP", "KBNvK"]
WARM_CACHE_BYTES = 1 << 30  # room for every page of the largest 4-piece table


@nb.njit(types.int64(UnrankKernel, types.int64, types.Array(types.int64, 1, "C"),
                     types.Array(types.uint64, 2, "C"), types.Array(types.int64, 1, "C"), POSITION))
def unrank_valid(unrank, table_id, indices, positions, kept_indices, scratch):
    """Unrank ``indices`` into ``positions`` rows, keeping only the valid ones; their number."""
    kept = 0
    for i in range(indices.size):
        if unrank(table_id, indices[i], scratch):
            positions[kept, :] = scratch
            kept_indices[kept] = indices[i]
            kept += 1
    return kept


def distinct_positions(family, table: str, count: int, rng: np.random.Generator):
    """Up to ``count`` distinct valid positions of ``table`` (random indices; every valid one
    when the table has fewer) and their indices."""
    size = family.size(table)
    table_id = family.table_id(table)
    width = family.game.position_width
    scratch = np.zeros(width, dtype=np.uint64)
    if size <= 4 * count:
        batches = [rng.permutation(size).astype(np.int64)]
    else:  # distinct random indices, drawn until enough of them are valid
        batches = []
    seen = np.empty(0, dtype=np.int64)
    kept_rows, kept_indices, kept = [], [], 0
    while kept < count:
        if batches:
            indices = batches.pop()
        elif size > 4 * count:
            fresh = np.setdiff1d(np.unique(rng.integers(0, size, 2 * count, dtype=np.int64)), seen)
            if fresh.size == 0:
                break
            seen = np.union1d(seen, fresh)
            indices = rng.permutation(fresh)
        else:
            break
        positions = np.zeros((indices.size, width), dtype=np.uint64)
        valid = np.zeros(indices.size, dtype=np.int64)
        found = unrank_valid(family.unrank, table_id, indices, positions, valid, scratch)
        take = min(found, count - kept)
        kept_rows.append(positions[:take])
        kept_indices.append(valid[:take])
        kept += take
    return np.ascontiguousarray(np.concatenate(kept_rows)), np.concatenate(kept_indices)


def one_position_per_page(family, table: str, rng: np.random.Generator, most: int,
                          tries: int = 200):
    """One valid position on each page of ``table`` that has one (a random index of the page),
    pages in random order; at most ``most`` pages, drawn at random."""
    size = family.size(table)
    table_id = family.table_id(table)
    scratch = np.zeros(family.game.position_width, dtype=np.uint64)
    positions = []
    for page in rng.permutation(-(-size // F.PAGE_ENTRIES))[:most]:
        first = int(page) * F.PAGE_ENTRIES
        candidates = rng.integers(first, min(first + F.PAGE_ENTRIES, size), tries, dtype=np.int64)
        for index in candidates:
            if family.unrank(table_id, int(index), scratch):
                positions.append(scratch.copy())
                break
    return positions


def evict_from_page_cache(path: Path) -> None:
    """Drop the file's pages from the OS page cache (clean pages; the tables are not written)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


def disk_read_bytes() -> int:
    """Bytes this process has caused to be read from storage (``/proc/self/io``)."""
    with open("/proc/self/io") as io:
        for line in io:
            if line.startswith("read_bytes:"):
                return int(line.split()[1])
    return 0


def rate(count: int, seconds: float) -> float:
    return count / max(seconds, 1e-9)


def python_chess_rate(syzygy: chess.syzygy.Tablebase, boards: list) -> float | None:
    """python-chess's ``probe_wdl`` rate on ``boards``, timed on a second pass (the first opens
    its files lazily and faults their pages in); None when it has no Syzygy file for them."""
    try:
        for board in boards:
            syzygy.probe_wdl(board)
    except chess.syzygy.MissingTableError:
        return None
    started = time.perf_counter()
    for board in boards:
        syzygy.probe_wdl(board)
    return rate(len(boards), time.perf_counter() - started)


def page_sizes(root: Path, table: str = "KQvKR") -> None:
    """The measurement behind the page size: file size and the cost of a cold random probe
    (read and decode one page) for several page sizes and compressions."""
    import tempfile

    import h5py

    from databases.writer import write_table
    from retrograde.tables import read_codes

    codes = read_codes(root, "chess", table)
    rng = np.random.default_rng(1)
    print(f"page size measurement on {table} ({codes.size:,} entries)")
    print(f"{'compression':11} {'entries/page':>12} {'file KiB':>9} {'cold probe us':>13}")
    for compression in ("zstd", "gzip", "lzf"):
        for page in (1024, 4096, 16384, 65536):
            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "t.h5"
                write_table(path, codes, game="chess", table=table, index_scheme="x",
                            index_version=1, sides=2, generator="bench", generator_version="0",
                            settings={}, build_seconds=0, compression=compression,
                            page_entries=page)
                import hdf5plugin  # noqa: F401
                with h5py.File(path, "r") as handle:
                    dataset = handle["entries"]
                    starts = rng.integers(0, codes.size // page, 2000) * page
                    started = time.perf_counter()
                    for start in starts:
                        dataset[start:start + page]
                    cost = (time.perf_counter() - started) / starts.size * 1e6
                print(f"{compression:11} {page:12,} {path.stat().st_size / 1024:9.0f} {cost:13.0f}")


def open_every_table(root: Path) -> None:
    """Print how long a fresh ``Database`` over ``root`` takes to answer one probe in each of
    its chess tables (files opened lazily, at most ``max_open`` open at once)."""
    with open_database(root, "chess") as db:
        family = db.family
        names = [table for table in family.table_names() if db.has_table(table)]
        scratch = np.zeros(family.game.position_width, dtype=np.uint64)
        positions = []
        for table in names:  # a valid position of each table, found before the clock starts
            table_id = family.table_id(table)
            index = 0
            while not family.unrank(table_id, index, scratch):
                index += 1
            positions.append(scratch.copy())
    started = time.perf_counter()
    with open_database(root, "chess") as db:
        opened = time.perf_counter() - started
        for position in positions:
            db.probe_wdl(position)
        open_now = db.open_files
        limit = db.max_open
    seconds = time.perf_counter() - started
    print(f"opening the directory: {len(names)} tables; a fresh Database {1000 * opened:.1f} ms, "
          f"and one probe in each: {seconds:.2f} s ({1000 * seconds / max(1, len(names)):.1f} ms "
          f"per table: its file opened, one page read; "
          f"{open_now} files open at the end, at most {limit})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="database directory")
    parser.add_argument("--syzygy", help="Syzygy directory (3-4 pieces)")
    parser.add_argument("--syzygy5", help="Syzygy directory of five-piece tables")
    parser.add_argument("--tables", nargs="+", default=TABLES, metavar="TABLE",
                        help=f"tables to probe (default: {' '.join(TABLES)})")
    parser.add_argument("--positions", type=int, default=20000,
                        help="random positions for python-chess and the warm single probes")
    parser.add_argument("--batch", type=int, default=2_000_000,
                        help="distinct positions for the batch and by-index probes")
    parser.add_argument("--cold-pages", type=int, default=5000,
                        help="pages probed cold per table (at most; drawn at random)")
    parser.add_argument("--cache-mib", type=int, default=WARM_CACHE_BYTES >> 20,
                        help="page cache for the warm probes, MiB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pages", action="store_true",
                        help="also measure file size and cold probe cost per page size")
    args = parser.parse_args()
    root = default_database_dir(args.db)
    oracle = str(oracle_data())
    syzygy_dir = args.syzygy or os.path.join(oracle, "chess", "syzygy")
    syzygy5_dir = args.syzygy5 or os.path.join(oracle, "chess", "syzygy5")
    unknown = [t for t in args.tables if t not in E.TABLE_IDS]
    if unknown:
        sys.exit(f"bench_probe.py: unknown table(s): {' '.join(unknown)}")
    missing = [t for t in E.tables_up_to(4) if not (root / "chess" / f"{t}.h5").is_file()]
    if missing:
        from retrograde.build import build_tables

        print(f"building {len(missing)} missing tables into {root} ...", file=sys.stderr)
        build_tables("chess", None, root, max_pieces=4)
    absent = [t for t in args.tables if not (root / "chess" / f"{t}.h5").is_file()]
    if absent:
        sys.exit(f"bench_probe.py: not built in {root}: {' '.join(absent)} "
                 f"(solver build chess {' '.join(absent)} --db {root})")
    with open("/proc/loadavg") as load:
        print(f"machine: {os.cpu_count()} cores, load average {' '.join(load.read().split()[:3])}; "
              f"tables: {root}")
    small = E.tables_up_to(4)
    for label, names in (("2-4 piece", small),
                         ("5-piece", [t for t in E.tables_up_to(5) if t not in small])):
        present = [root / "chess" / f"{t}.h5" for t in names]
        present = [f for f in present if f.is_file()]
        total = sum(f.stat().st_size for f in present)
        print(f"total size of {len(present)} of {len(names)} {label} tables: "
              f"{total / 2**20:,.1f} MiB ({total:,} bytes)")
    print(f"single warm and python-chess: {args.positions:,} random positions per table; single cold: "
          f"one position per page (at most {args.cold_pages:,} pages), file evicted from the OS "
          f"page cache (posix_fadvise DONTNEED), fresh page cache; batch and by index: up to "
          f"{args.batch:,} distinct positions, each once; warm page cache {args.cache_mib:,} MiB")
    syzygy = chess.syzygy.open_tablebase(syzygy_dir)
    if os.path.isdir(syzygy5_dir):
        syzygy.add_directory(syzygy5_dir)
    print(f"{'table':7} {'py-chess WDL/s':>14} {'cold probes':>11} {'disk MiB':>8} {'single cold/s':>13} "
          f"{'single warm/s':>13} {'x warm':>7} {'distinct':>10} {'batch warm/s':>13} {'by index/s':>12}")
    rng = random.Random(args.seed)
    generator = np.random.default_rng(args.seed)
    with open_database(root, "chess") as db:  # warm-up, untimed: imports, compiled kernels
        db.probe_wdl(db.game.parse_position("8/8/8/8/8/2k5/8/KQ6 w - - 0 1"))
        db.probe_batch([db.game.parse_position("8/8/8/8/8/2k5/8/KQ6 b - - 0 1")])
        db.probe_codes("KQvK", np.arange(10, dtype=np.int64))
    for table in args.tables:
        boards = [random_board(table, rng, en_passant=False) for _ in range(args.positions)]
        reference = python_chess_rate(syzygy, boards)
        with open_database(root, "chess") as db:
            family = db.family
            cold_positions = one_position_per_page(family, table, generator, args.cold_pages)
        path = root / "chess" / f"{table}.h5"
        evict_from_page_cache(path)
        with open_database(root, "chess") as db:  # fresh: no page read yet
            db.base(table)  # opens the file (header, page checksums), untimed; no page is read
            before = disk_read_bytes()
            started = time.perf_counter()
            for position in cold_positions:
                db.probe_wdl(position)
            cold = rate(len(cold_positions), time.perf_counter() - started)
            disk = (disk_read_bytes() - before) / 2**20
        with open_database(root, "chess", cache_bytes=args.cache_mib << 20) as db:
            positions = [db.game.parse_position(board.fen()) for board in boards]
            for position in positions:
                db.probe_wdl(position)
            started = time.perf_counter()
            for position in positions:
                db.probe_wdl(position)
            warm = rate(len(positions), time.perf_counter() - started)
            many, indices = distinct_positions(family, table, args.batch, generator)
            db.probe_batch(many)  # untimed: makes the pages resident
            started = time.perf_counter()
            db.probe_batch(many)
            batch = rate(many.shape[0], time.perf_counter() - started)
            started = time.perf_counter()
            db.probe_codes(table, indices)
            by_index = rate(indices.size, time.perf_counter() - started)
        ratio = f"{warm / reference:7.1f}" if reference else f"{'-':>7}"
        reference_text = f"{reference:14,.0f}" if reference else f"{'(no table)':>14}"
        print(f"{table:7} {reference_text} {len(cold_positions):11,} {disk:8.1f} {cold:13,.0f} "
              f"{warm:13,.0f} {ratio} {many.shape[0]:10,} {batch:13,.0f} {by_index:12,.0f}",
              flush=True)
    print("bars: single >= 10x python-chess's Syzygy WDL rate; batch >= 5,000,000/s warm")
    open_every_table(root)
    if args.pages:
        page_sizes(root)


if __name__ == "__main__":
    main()
