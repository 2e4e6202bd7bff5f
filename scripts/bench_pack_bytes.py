"""Benchmark: the packer's stored bytes of chess tables, found on the table's own index
(``retrograde.pack.chess_stored_bytes``) next to the generic way measured in the same run
(``stored_bytes``: unrank each entry whose value rises above the byte before, play every
move, rank the children), with the check that both give the same bytes.

The tables and their children's DTZ50 tables must be in ``--db`` (``solver build chess
TABLE --metrics wdl50,dtz50``). Prints a line per table: entries, seconds of each way, the
ratio, and the entries whose bytes differ (0, or the chess way is wrong).

    python scripts/bench_pack_bytes.py --db DIR KQRvKR KRPvKR
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="+", metavar="TABLE")
    parser.add_argument("--db", required=True, help="directory holding the DTZ50 tables")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import numba

    from databases.families import get_family
    from databases.location import DTZ50
    from databases.packed import BLOCK_ENTRIES
    from games.chess import endgames as E
    from retrograde.chess_exits import child_plans
    from retrograde.dtz50 import load_zeroing_classes
    from retrograde.pack import chess_stored_bytes, stored_bytes
    from retrograde.tables import load_children, read_codes

    numba.set_num_threads(args.threads)
    family = get_family("chess")
    kernels = family.game.kernels
    print(f"{'table':8} {'entries':>13} {'chess s':>8} {'generic s':>9} {'x':>6} differing")
    differing_tables = 0
    for table in args.tables:
        codes = read_codes(args.db, "chess", table, metric=DTZ50)
        dependencies = family.dependencies(table)
        children, offsets, _ = load_children(args.db, family, dependencies, metric=DTZ50)
        generic = np.empty(codes.size, dtype=np.uint8)
        started = time.perf_counter()
        stored_bytes(kernels.legal_moves, kernels.play, family.unrank, family.rank,
                     family.game.position_width, family.game.max_moves, family.table_id(table),
                     codes, children, offsets, 0, generic, BLOCK_ENTRIES)
        generic_seconds = time.perf_counter() - started
        del children
        classes, offsets = load_zeroing_classes(args.db, family, dependencies)
        ours = np.empty(codes.size, dtype=np.uint8)
        started = time.perf_counter()
        chess_stored_bytes(E.TABLE_IDS[table], codes, classes, child_plans(table, offsets), 0,
                           ours, BLOCK_ENTRIES)
        chess_seconds = time.perf_counter() - started
        differing = int((ours != generic).sum())
        differing_tables += differing > 0
        print(f"{table:8} {codes.size:>13,} {chess_seconds:>8.2f} {generic_seconds:>9.2f} "
              f"{generic_seconds / chess_seconds:>6.1f} {differing}", flush=True)
    return 1 if differing_tables else 0


if __name__ == "__main__":
    sys.exit(main())
