"""Benchmark: probing the chess tables from Python, single and batch, cold and warm cache,
next to python-chess probing the Syzygy WDL tables on the same positions.

    python scripts/bench_probe.py [--db DIR] [--syzygy DIR] [--positions N]

The tables come from ``--db`` (default: $SOLVER_DB or ~/.local/share/solver/db); missing
3-4 piece tables are built first (several minutes). Syzygy files come from ``--syzygy``
(default: $SOLVER_ORACLE_DATA/chess/syzygy).
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
import numpy as np

from databases import default_database_dir, open_database
from games.chess import endgames as E

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' position generator
from tests.chess_positions import random_board  # noqa: E402

TABLES = ["KRvK", "KQvKR", "KRvKP", "KPvKP", "KBNvK"]


def rate(count: int, seconds: float) -> float:
    return count / max(seconds, 1e-9)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database directory")
    parser.add_argument("--syzygy", help="Syzygy directory")
    parser.add_argument("--positions", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=2_000_000)
    parser.add_argument("--pages", action="store_true",
                        help="also measure file size and cold probe cost per page size")
    args = parser.parse_args()
    root = default_database_dir(args.db)
    syzygy_dir = args.syzygy or os.path.join(os.environ.get("SOLVER_ORACLE_DATA", ""), "chess", "syzygy")
    missing = [t for t in E.TABLES if not (root / "chess" / f"{t}.h5").is_file()]
    if missing:
        from retrograde.build import build_tables

        print(f"building {len(missing)} missing tables into {root} ...", file=sys.stderr)
        build_tables("chess", None, root, max_pieces=4)
    total = sum(f.stat().st_size for f in (root / "chess").glob("*.h5") if f.stem in E.TABLES)
    print(f"machine: {os.cpu_count()} cores; tables: {root}")
    print(f"total size of all {len(E.TABLES)} 3-4 piece tables: {total / 2**20:.1f} MiB "
          f"({total:,} bytes)")
    syzygy = chess.syzygy.open_tablebase(syzygy_dir)
    print(f"{'table':7} {'py-chess WDL/s':>14} {'single cold/s':>13} {'single warm/s':>13} "
          f"{'x warm':>7} {'batch warm/s':>13} {'by index/s':>12}")
    rng = random.Random(1)
    for table in TABLES:
        boards = [random_board(table, rng, en_passant=False) for _ in range(args.positions)]
        started = time.perf_counter()
        for board in boards:
            syzygy.probe_wdl(board)
        reference = rate(len(boards), time.perf_counter() - started)
        with open_database(root, "chess") as db:
            positions = [db.game.parse_position(board.fen()) for board in boards]
            started = time.perf_counter()
            for position in positions:
                db.probe_wdl(position)
            cold = rate(len(positions), time.perf_counter() - started)
            started = time.perf_counter()
            for position in positions:
                db.probe_wdl(position)
            warm = rate(len(positions), time.perf_counter() - started)
            many = np.tile(np.array(positions), (max(1, args.batch // len(positions)), 1))
            db.probe_batch(many[:len(positions)])
            started = time.perf_counter()
            db.probe_batch(many)
            batch = rate(many.shape[0], time.perf_counter() - started)
            indices = np.array([db.family.locate(p)[1] for p in positions], dtype=np.int64)
            indices = np.tile(indices, max(1, args.batch // len(indices)))
            started = time.perf_counter()
            db.probe_codes(table, indices)
            by_index = rate(indices.size, time.perf_counter() - started)
        print(f"{table:7} {reference:14,.0f} {cold:13,.0f} {warm:13,.0f} {warm / reference:7.1f} "
              f"{batch:13,.0f} {by_index:12,.0f}", flush=True)
    print("bars: single >= 10x python-chess's Syzygy WDL rate; batch >= 5,000,000/s warm")
    if args.pages:
        page_sizes(root)


if __name__ == "__main__":
    main()
