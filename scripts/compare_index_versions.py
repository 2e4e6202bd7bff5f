"""Check: tables built on index version 2 (the king pairs that can stand: 462, 1,806 with
pawns) hold, position by position, the codes an earlier build wrote on index version 1 (640
and 2,048 pairs: ``triangle(wk) * 64 + bk``, with pawns ``(rank * 4 + file)(wk) * 64 + bk``).

"Values must not move": every entry of each new file is mapped to the entry of the same
placement in the old file (the like-piece groups and the side to move keep their digits;
only the king pair's changes) and the codes compared; every old entry that no new one maps
to (kings side by side, the diagonal mirror, kings on one square) must hold INVALID. The old
files are read with h5py (the reader refuses their index version). Prints a line per table
and metric and exits 1 if any entry differs.

    python scripts/compare_index_versions.py --old OLD --new NEW --metrics dtm dtz50 KQRvKR
    python scripts/compare_index_versions.py --old OLD --new NEW --pieces 4
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import h5py
import numpy as np

from databases import format as F
from databases.errors import DatabaseError
from databases.location import DTM, DTZ50, table_path
from games.chess import endgames as E
from retrograde.tables import read_codes

OLD_VERSION, NEW_VERSION = 1, 2
CHUNK = 1 << 25  # new entries mapped at a time


def old_king_pairs(pawnful: bool) -> np.ndarray:
    """Per version-2 king pair, its number in version 1."""
    squares = E.KING_PAIR_SQUARES[int(pawnful), :E.KING_PAIRS[int(pawnful)]]
    white, black = squares[:, 0], squares[:, 1]
    if pawnful:
        return ((white >> 3) * 4 + (white & 7)) * 64 + black
    return E.TRIANGLE[white] * 64 + black


def read_old(root: Path, table: str, metric: str) -> np.ndarray:
    """Every code of an index-version-1 file, as the file holds them."""
    with h5py.File(table_path(root, "chess", table, metric), "r") as handle:
        version = int(handle.attrs["index_version"])
        if version != OLD_VERSION:
            raise SystemExit(f"{handle.filename}: index version {version}, not {OLD_VERSION}")
        return handle[F.DATASET][...]


def compare(old_root: Path, new_root: Path, table: str, metric: str) -> int:
    """Print the comparison of one table's file in both directories; its differences."""
    started = time.perf_counter()
    table_id = E.TABLE_IDS[table]
    pawnful = bool(E.PAWNFUL[table_id])
    try:
        new = read_codes(new_root, "chess", table, metric=metric)  # checks version 2
    except DatabaseError as error:
        raise SystemExit(f"{table} {metric}: {error}") from None
    old = read_old(old_root, table, metric)
    per_side = int(E.PER_SIDE[table_id])
    pairs = E.KING_PAIRS[int(pawnful)]
    inner = per_side // pairs  # the like-piece groups' digits
    old_per_side = old.size // 2
    old_pairs = old_king_pairs(pawnful)
    mapped = np.zeros(old.size, dtype=bool)
    differing, first = 0, []
    for start in range(0, new.size, CHUNK):
        index = np.arange(start, min(new.size, start + CHUNK), dtype=np.int64)
        side, rest = np.divmod(index, per_side)
        pair, digits = np.divmod(rest, inner)
        old_index = side * old_per_side + old_pairs[pair] * inner + digits
        mapped[old_index] = True
        bad = np.flatnonzero(new[index] != old[old_index])
        differing += bad.size
        first += [(int(index[k]), int(new[index[k]]), int(old[old_index[k]]))
                  for k in bad[:5 - len(first)]]
    stray = np.flatnonzero(~mapped & (old != 0))
    seconds = time.perf_counter() - started
    print(f"{table:8s} {metric:5s} {new.size:>13,} new entries ({old.size:,} old) "
          f"{differing:,} differ, {stray.size:,} old entries with no new one hold a code "
          f"({seconds:.1f} s){'  first (index, new, old): ' + str(first) if first else ''}",
          flush=True)
    return differing + stray.size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*")
    parser.add_argument("--old", type=Path, required=True, help="tables of index version 1")
    parser.add_argument("--new", type=Path, required=True, help="tables of index version 2")
    parser.add_argument("--metrics", nargs="+", choices=(DTM, DTZ50), default=[DTM, DTZ50])
    parser.add_argument("--pieces", type=int, help="also every table of at most this many pieces")
    args = parser.parse_args()
    tables = list(args.tables) + (E.tables_up_to(args.pieces) if args.pieces else [])
    if not tables:
        parser.error("name tables or give --pieces")
    failures = 0
    for table in tables:
        for metric in args.metrics:
            missing = [root for root in (args.old, args.new)
                       if not table_path(root, "chess", table, metric).exists()]
            if missing:
                print(f"{table:8s} {metric:5s} not in {missing[0]}: skipped")
                continue
            failures += compare(args.old, args.new, table, metric) > 0
    print("every entry equal" if not failures else f"{failures} tables differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
