"""Benchmark: the packed WDL50 files' size against Syzygy's WDL files, table by table.

    python scripts/pack_sizes.py --db DIR [--rtbgen-rows docs/results/rtbgen5.jsonl] [--rtbgen-dir DIR]

Issue 73's bar: the packs of every 3-5-piece table under 1 GB, beside Syzygy's 378 MB of WDL
files for the same set. Syzygy's sizes come from rtbgen's own builds here, whose ``.rtbw`` files
equal the published ones byte for byte: the ``wdl_bytes`` of ``scripts/rtbgen_all.py``'s rows
(``--rtbgen-rows``), or the ``.rtbw`` files of a directory (``--rtbgen-dir``). Every table with a
pack in ``DIR/chess/wdl50`` and a Syzygy size is compared; the ratio of the sums is then applied
to Syzygy's whole set, as an estimate until every table is built (the line says how many are).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from common import REPOSITORY

SYZYGY_SET_BYTES = 378_000_000  # the published 3-4-5-piece WDL files (syzygy-tables.info)
SET_TABLES = 145  # 3-5-piece tables but KvK: 5 + 30 + 110


def syzygy_sizes(rows: Path | None, directory: Path | None) -> dict[str, int]:
    """Syzygy's WDL file size per table, from rtbgen's rows and/or its output directory."""
    sizes: dict[str, int] = {}
    if rows and rows.exists():
        for line in rows.read_text().splitlines():
            row = json.loads(line)
            if row.get("wdl_bytes"):
                sizes[row["table"]] = int(row["wdl_bytes"])
    if directory:
        for path in directory.glob("*.rtbw"):
            sizes[path.stem] = path.stat().st_size
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="the database directory")
    parser.add_argument("--rtbgen-rows", type=Path, default=REPOSITORY / "docs/results/rtbgen5.jsonl",
                        help="scripts/rtbgen_all.py's JSON lines (wdl_bytes per table)")
    parser.add_argument("--rtbgen-dir", type=Path, help="a directory of rtbgen's .rtbw files")
    parser.add_argument("--tables", action="store_true", help="print every table's line")
    args = parser.parse_args()
    packs_dir = args.db / "chess" / "wdl50"
    if not packs_dir.is_dir():
        parser.error(f"no packs in {packs_dir}")
    ours = {path.stem: path.stat().st_size for path in packs_dir.glob("*.h5") if path.stem != "KvK"}
    syzygy = syzygy_sizes(args.rtbgen_rows, args.rtbgen_dir)
    both = sorted((t for t in ours if t in syzygy), key=lambda t: (len(t), t))
    if not both:
        print(f"{len(ours)} packs, none with a Syzygy size to compare")
        return 1
    if args.tables:
        print(f"{'table':8s} {'ours':>12s} {'Syzygy':>12s} {'x':>6s}")
        for table in both:
            print(f"{table:8s} {ours[table]:12,d} {syzygy[table]:12,d} {ours[table] / syzygy[table]:6.2f}")
    for pieces in (3, 4, 5):
        group = [t for t in both if len(t) - 1 == pieces]
        if group:
            mine, theirs = sum(ours[t] for t in group), sum(syzygy[t] for t in group)
            print(f"{pieces} pieces: {len(group)} tables, ours {mine / 1e6:,.1f} MB against "
                  f"Syzygy's {theirs / 1e6:,.1f} MB: {mine / theirs:.2f}x")
    mine, theirs = sum(ours[t] for t in both), sum(syzygy[t] for t in both)
    ratio = mine / theirs
    print(f"all compared: {len(both)} of the set's {SET_TABLES} tables ({len(ours)} packs built), "
          f"ours {mine / 1e6:,.1f} MB against {theirs / 1e6:,.1f} MB: {ratio:.2f}x")
    built = "every table built" if len(ours) >= SET_TABLES else "an estimate until every table is built"
    print(f"the whole set at that ratio: {ratio * SYZYGY_SET_BYTES / 1e6:,.0f} MB against Syzygy's "
          f"{SYZYGY_SET_BYTES / 1e6:,.0f} MB ({built}; bar: under 1,000 MB)")
    if len(ours) >= SET_TABLES:
        print(f"the packs on disk: {sum(ours.values()) / 1e6:,.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
