"""Benchmark: the packed WDL50 (databases.packed) against Syzygy's WDL files, in size and probes.

Sizes: for every table packed under ``--db`` whose Syzygy ``.rtbw`` is in one of ``--syzygy``
directories, our pack file beside Syzygy's, summed by piece count, with the ratio. Probes:
``--positions`` random legal positions of each of ``--tables`` (no en passant, count 0),
probed one at a time from Python by our packs (stored value and exits, every block decoded
from memory) and by python-chess's Syzygy prober, in the same run; the values must agree.
Each side is timed twice: cold (the first pass: our decoded-block cache empty, Syzygy's files
just opened) and warm (the same positions again).

    python scripts/bench_packed.py --db DIR --syzygy ORACLE/chess/syzygy ORACLE/chess/syzygy5
"""
from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import chess
import chess.syzygy

from databases.families import get_family
from databases.location import WDL50, table_path
from databases.packed import PackedTables
from games.chess.notation import parse_fen
from games.chess.random_positions import random_board


def sizes(db: Path, syzygy_dirs: list[Path]) -> None:
    """Print our pack sizes beside Syzygy's .rtbw, by piece count."""
    family = get_family("chess")
    rtbw = {}
    for directory in syzygy_dirs:
        for path in directory.glob("*.rtbw"):
            rtbw[path.stem] = path.stat().st_size
    by_pieces: dict[int, list[int]] = {}
    for table in family.table_names():
        path = table_path(db, "chess", table, WDL50)
        if path.exists() and table in rtbw:
            row = by_pieces.setdefault(len(table) - 1, [0, 0, 0])
            row[0] += 1
            row[1] += path.stat().st_size
            row[2] += rtbw[table]
    print(f"{'pieces':>6} {'tables':>6} {'ours bytes':>12} {'Syzygy bytes':>12} {'ratio':>6}")
    for pieces, (count, ours, theirs) in sorted(by_pieces.items()):
        print(f"{pieces:>6} {count:>6} {ours:>12,} {theirs:>12,} {ours / theirs:>6.2f}")


def probes(db: Path, syzygy_dirs: list[Path], tables: list[str], count: int, seed: int) -> None:
    """Time our packed probes and python-chess's Syzygy probes on the same positions."""
    family = get_family("chess")
    packs = PackedTables(db, family)
    rng = random.Random(seed)
    boards = [random_board(table, rng, en_passant=False) for table in tables for _ in range(count)]
    positions = [parse_fen(board.fen()) for board in boards]
    packs.wdl50(positions[0])  # compiled before the clock starts
    packs.tags[:] = -1
    with chess.syzygy.open_tablebase(str(syzygy_dirs[0])) as tablebase:
        for directory in syzygy_dirs[1:]:
            tablebase.add_directory(str(directory))
        for run in ("cold", "warm"):
            started = time.perf_counter()
            ours = [packs.wdl50(position) for position in positions]
            ours_seconds = time.perf_counter() - started
            started = time.perf_counter()
            theirs = [tablebase.probe_wdl(board) for board in boards]
            theirs_seconds = time.perf_counter() - started
            wrong = sum(a != b for a, b in zip(ours, theirs))
            print(f"{run}: {len(positions)} probes of {', '.join(tables)}: ours "
                  f"{ours_seconds / len(positions) * 1e6:.1f} us, python-chess Syzygy "
                  f"{theirs_seconds / len(positions) * 1e6:.1f} us (ratio "
                  f"{ours_seconds / theirs_seconds:.2f}); {wrong} disagreements")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="database with packed tables")
    parser.add_argument("--syzygy", type=Path, nargs="+", required=True,
                        help="directories of Syzygy .rtbw files")
    parser.add_argument("--tables", nargs="+", default=["KQvKR", "KRvKP", "KBNvK", "KPvKP"])
    parser.add_argument("--positions", type=int, default=5000, help="random positions a table")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"commit {os.popen('git rev-parse --short HEAD').read().strip()}, "
          f"{time.strftime('%Y-%m-%d')}")
    sizes(args.db, args.syzygy)
    probes(args.db, args.syzygy, args.tables, args.positions, args.seed)


if __name__ == "__main__":
    main()
