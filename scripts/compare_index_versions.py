"""Check: tables built on the current index (version 3: with pawns, the pawns' groups outside
the king pair) hold, position by position, the codes an earlier build wrote on index version 2
(the pawns' groups among the others, in spec order) or 1 (640 and 2,048 king pairs:
``triangle(wk) * 64 + bk``, with pawns ``(rank * 4 + file)(wk) * 64 + bk``).

"Values must not move": every entry of each new file is mapped to the entry of the same
placement in the old file (its digits, the groups' and the king pair's, taken apart and put
together in the old order) and the codes compared; every old entry that no new one maps to
(version 1: kings side by side, the diagonal mirror, kings on one square) must hold INVALID.
The old files are read with h5py (the reader refuses their index version). Prints a line per
table and metric and exits 1 if any entry differs.

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

OLD_VERSIONS = (1, 2)
CHUNK = 1 << 25  # new entries mapped at a time


def old_king_pairs(pawnful: bool, version: int) -> np.ndarray:
    """Per current king pair, its number in index ``version``."""
    squares = E.KING_PAIR_SQUARES[int(pawnful), :E.KING_PAIRS[int(pawnful)]]
    white, black = squares[:, 0], squares[:, 1]
    if version >= 2:
        return np.arange(squares.shape[0], dtype=np.int64)
    if pawnful:
        return ((white >> 3) * 4 + (white & 7)) * 64 + black
    return E.TRIANGLE[white] * 64 + black


def read_old(root: Path, table: str, metric: str) -> tuple[np.ndarray, int]:
    """Every code of an old file, as the file holds them, and its index version."""
    with h5py.File(table_path(root, "chess", table, metric), "r") as handle:
        version = int(handle.attrs["index_version"])
        if version not in OLD_VERSIONS:
            raise SystemExit(f"{handle.filename}: index version {version}, not one of "
                             f"{OLD_VERSIONS}")
        return handle[F.DATASET][...], version


def old_indices(table_id: int, index: np.ndarray, old_per_side: int,
                old_pairs: np.ndarray) -> np.ndarray:
    """The old index (versions 1-2: per side, the king pair, then the groups in spec order)
    of each current ``index`` of table ``table_id``."""
    per_side = int(E.PER_SIDE[table_id])
    side, rest = np.divmod(index, per_side)
    pairs = E.KING_PAIRS[int(E.PAWNFUL[table_id])]
    old = old_pairs[(rest // int(E.KINGS_STRIDE[table_id])) % pairs]
    for g in range(E.MAX_GROUPS):
        count, values = int(E.GROUPS[table_id, g, 1]), int(E.GROUPS[table_id, g, 2])
        if count:
            old = old * values + (rest // int(E.GROUP_STRIDE[table_id, g])) % values
    return side * old_per_side + old


def compare(old_root: Path, new_root: Path, table: str, metric: str) -> int:
    """Print the comparison of one table's file in both directories; its differences."""
    started = time.perf_counter()
    table_id = E.TABLE_IDS[table]
    pawnful = bool(E.PAWNFUL[table_id])
    try:
        new = read_codes(new_root, "chess", table, metric=metric)  # checks the version
    except DatabaseError as error:
        raise SystemExit(f"{table} {metric}: {error}") from None
    old, version = read_old(old_root, table, metric)
    old_per_side = old.size // 2
    old_pairs = old_king_pairs(pawnful, version)
    mapped = np.zeros(old.size, dtype=bool)
    differing, first = 0, []
    for start in range(0, new.size, CHUNK):
        index = np.arange(start, min(new.size, start + CHUNK), dtype=np.int64)
        old_index = old_indices(table_id, index, old_per_side, old_pairs)
        mapped[old_index] = True
        bad = np.flatnonzero(new[index] != old[old_index])
        differing += bad.size
        first += [(int(index[k]), int(new[index[k]]), int(old[old_index[k]]))
                  for k in bad[:5 - len(first)]]
    stray = np.flatnonzero(~mapped & (old != 0))
    seconds = time.perf_counter() - started
    print(f"{table:8s} {metric:5s} {new.size:>13,} new entries ({old.size:,} old, version "
          f"{version}) "
          f"{differing:,} differ, {stray.size:,} old entries with no new one hold a code "
          f"({seconds:.1f} s){'  first (index, new, old): ' + str(first) if first else ''}",
          flush=True)
    return differing + stray.size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*")
    parser.add_argument("--old", type=Path, required=True, help="tables of index version 1 or 2")
    parser.add_argument("--new", type=Path, required=True, help="tables of the current index version")
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
