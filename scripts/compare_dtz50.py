"""Check: the one-byte DTZ50 generators against DTZ50 tables already on disk, entry by entry.

"Values must not move": a generator that replaces another must give every table the codes the
other gave. Point ``--db`` at a directory whose DTZ50 tables an earlier version built (the
tables and their children); each named table's DTZ50 codes are computed afresh, in this
process, from its children's files there (``retrograde.chess_dtz50``, or
``retrograde.chess_dtz50_pawns`` for a table with pawns), and compared with its own file. Prints
a line per table (entries, seconds, differences and the first few) and exits 1 if any differ.

    python scripts/compare_dtz50.py --db OLD KQRvKR KRPvKR KBBvKN
    python scripts/compare_dtz50.py --db OLD --pieces 4     # every 3-4-piece table there
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

CHUNK = 1 << 26  # entries compared at a time (the tables may be gigabytes)


def compare(root: str, table: str) -> int:
    """Print the comparison of ``table`` and return its number of differences."""
    from databases.families import get_family
    from databases.location import DTZ50
    from retrograde import chess_dtz50, chess_dtz50_pawns
    from retrograde.progress import Silent
    from retrograde.dtz50 import load_zeroing_classes
    from retrograde.tables import read_codes

    family = get_family("chess")
    children, offsets = load_zeroing_classes(root, family, family.dependencies(table))
    generator = chess_dtz50_pawns if "P" in table else chess_dtz50
    started = time.perf_counter()
    ours = generator.solve(table, children, offsets, Silent())
    seconds = time.perf_counter() - started
    del children
    theirs = read_codes(root, "chess", table, metric=DTZ50)
    differing = []
    for start in range(0, ours.size, CHUNK):
        a = ours[start:start + CHUNK].astype(np.int32)
        b = theirs[start:start + CHUNK].astype(np.int32)
        differing.extend((start + np.flatnonzero(a != b)).tolist())
    print(f"{table}: {ours.size:,} entries, {seconds:.1f} s, {len(differing)} differences"
          + (f" (first: {', '.join(f'{i}: {theirs[i]} -> {ours[i]}' for i in differing[:5])})"
             if differing else ""), flush=True)
    return len(differing)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*", metavar="TABLE")
    parser.add_argument("--db", required=True, help="a directory of DTZ50 tables to compare with")
    parser.add_argument("--pieces", type=int, help="every table of at most N pieces in --db")
    args = parser.parse_args()
    from databases.families import get_family
    from databases.location import DTZ50, table_path

    family = get_family("chess")
    tables = list(args.tables)
    if args.pieces:
        tables += [t for t in family.table_names(args.pieces)
                   if t != "KvK" and table_path(args.db, "chess", t, DTZ50).is_file()]
    if not tables:
        parser.error("name tables or give --pieces")
    unknown = [t for t in tables if t not in family.table_names()]
    if unknown:
        parser.error(f"unknown table {unknown[0]}")
    missing = [t for t in tables if not table_path(args.db, "chess", t, DTZ50).is_file()]
    if missing:
        parser.error(f"{missing[0]}: no DTZ50 table under {args.db}")
    return 1 if sum(compare(args.db, table) for table in tables) else 0


if __name__ == "__main__":
    sys.exit(main())
