"""Check: the level generators against tables already on disk, entry by entry: the one-byte
DTZ50 generators (``--metric dtz50``, the default) or the two-byte DTM ones (``--metric dtm``).

"Values must not move": a generator that replaces another must give every table the codes the
other gave. Point ``--db`` at a directory whose tables an earlier version built (the tables and
their children); each named table's codes are computed afresh, in this process, from its
children's files there (``retrograde.chess_dtz50`` / ``chess_dtz50_pawns``, or
``retrograde.chess_dtm`` / ``chess_dtm_pawns`` for DTM, from the table's DTZ50 table too where
there is one, as ``solver build`` runs them), and compared with its own file. Prints
a line per table (entries, seconds, differences and the first few) and exits 1 if any differ.

    python scripts/compare_generators.py --db OLD KQRvKR KRPvKR KBBvKN
    python scripts/compare_generators.py --metric dtm --db OLD --pieces 4   # every 3-4-piece table
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

CHUNK = 1 << 26  # entries compared at a time (the tables may be gigabytes)


def generate(root: str, table: str, metric: str) -> np.ndarray:
    """The codes of ``table`` in ``metric`` by its level generator, from its children in
    ``root``."""
    from databases.families import get_family
    from databases.location import DTZ50
    from retrograde import chess_dtm, chess_dtm_pawns, chess_dtz50, chess_dtz50_pawns
    from retrograde.build import own_dtz50
    from retrograde.dtz50 import load_zeroing_classes
    from retrograde.progress import Silent
    from retrograde.tables import load_children

    family = get_family("chess")
    dependencies = family.dependencies(table)
    pawns = "P" in table
    if metric == DTZ50:
        children, offsets = load_zeroing_classes(root, family, dependencies)
        generator = chess_dtz50_pawns if pawns else chess_dtz50
    else:
        children, offsets, _ = load_children(root, family, dependencies)
        generator = chess_dtm_pawns if pawns else chess_dtm
        # from the table's DTZ50 table where there is one, as `solver build` does
        return generator.solve(table, children, offsets, Silent(), own_dtz50(root, table))
    return generator.solve(table, children, offsets, Silent())


def compare(root: str, table: str, metric: str) -> int:
    """Print the comparison of ``table`` and return its number of differences."""
    from retrograde.tables import read_codes

    started = time.perf_counter()
    ours = generate(root, table, metric)
    seconds = time.perf_counter() - started
    theirs = read_codes(root, "chess", table, metric=metric)
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
    from databases.location import DTM, DTZ50

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*", metavar="TABLE")
    parser.add_argument("--db", required=True, help="a directory of tables to compare with")
    parser.add_argument("--metric", choices=[DTZ50, DTM], default=DTZ50,
                        help="the DTZ50 tables (default) or the rule-free ones (WDL and DTM)")
    parser.add_argument("--pieces", type=int, help="every table of at most N pieces in --db")
    args = parser.parse_args()
    from databases.families import get_family
    from databases.location import table_path

    family = get_family("chess")
    tables = list(args.tables)
    if args.pieces:
        tables += [t for t in family.table_names(args.pieces)
                   if t != "KvK" and table_path(args.db, "chess", t, args.metric).is_file()]
    if not tables:
        parser.error("name tables or give --pieces")
    unknown = [t for t in tables if t not in family.table_names()]
    if unknown:
        parser.error(f"unknown table {unknown[0]}")
    missing = [t for t in tables if not table_path(args.db, "chess", t, args.metric).is_file()]
    if missing:
        parser.error(f"{missing[0]}: no {args.metric} table under {args.db}")
    return 1 if sum(compare(args.db, table, args.metric) for table in tables) else 0


if __name__ == "__main__":
    sys.exit(main())
