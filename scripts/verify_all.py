"""`solver verify` of every chess table of N pieces (default 5), resumable.

Issue 11 asks for 0 errors from ``solver verify`` on every five-piece table built, issue 40 the
same of their DTZ50 tables and WDL50 packs. Verifying re-derives each entry from its children
by forward moves (``retrograde/verify.py``, ``retrograde/dtz50.py``; a pack is probed entry by
entry as the search probes it, ``retrograde/pack.py``): about 0.4-0.9 us an entry on two cores,
about 12 hours for the 58 G entries of the five-piece rule-free tables alone. So each result
goes as one JSON line to ``--out`` the moment it is known (entries, errors, seconds, the commit
of the code), and a later run skips what is recorded there. ``--report`` summarises the file.
Exit status 1 when anything has an error.

Each table has up to three things to verify (``--metrics``), each its own row, named as
``solver verify`` names them: the rule-free table (``KQRvKR``), its DTZ50 table (``KQRvKR
DTZ50``) and its WDL50 pack (``KQRvKR WDL50 pack``). A row also names what it verified:
``content_crc32``, the checksum of the file's contents (for a table, of all its pages, stored
in the file; for a pack, of the file's bytes), and ``children_crc32``, one checksum over what
the check read besides (the child tables of the same kind; for DTZ50 also its own rule-free
table). A row counts only while both match the files in ``--db``: a file built again with
other contents (or a row from before the checksums were recorded) is verified again, and one
built again identically, on this machine or another, is not.

    python scripts/verify_all.py --db DIR [--out docs/results/verify5.jsonl]
    python scripts/verify_all.py --db DIR --tables KQRvKR KRPvKR --metrics dtz50 pack
    python scripts/verify_all.py --out docs/results/verify5.jsonl --report [--db DIR]
    python scripts/verify_all.py --db DIR --skip-missing   # beside a build still running
"""
from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

from results_log import append_row, recorded, source_commit


METRICS = ("rule-free", "dtz50", "pack")
ROW_SUFFIX = {"rule-free": "", "dtz50": " DTZ50", "pack": " WDL50 pack"}


def file_path(db: str, table: str, metric: str) -> Path:
    """Where ``table``'s file of ``metric`` lives under ``db``."""
    from databases.location import DTZ50, WDL50, table_path

    if metric == "rule-free":
        return Path(table_path(db, "chess", table))
    return Path(table_path(db, "chess", table, DTZ50 if metric == "dtz50" else WDL50))


def content_crc32(db: str, table: str, metric: str, cache: dict) -> int:
    """The checksum of ``table``'s file of ``metric``: a table's ``content_crc32`` attribute
    (its pages' checksum), a pack's CRC-32 over its bytes; remembered in ``cache``."""
    from databases.reader import TableFile

    key = (table, metric)
    if key not in cache:
        path = file_path(db, table, metric)
        if metric == "pack":
            cache[key] = zlib.crc32(path.read_bytes())
        else:
            handle = TableFile(path, "chess", table)
            try:
                cache[key] = int(handle.attrs["content_crc32"])
            finally:
                handle.close()
    return cache[key]


def checksums(db: str, family, table: str, metric: str, cache: dict) -> dict:
    """``content_crc32`` of ``table``'s file of ``metric`` and ``children_crc32``, one CRC-32
    over the names and checksums of the files its check reads besides (module docstring)."""
    inputs = [(child, metric) for child in family.dependencies(table)]
    if metric == "dtz50":
        inputs.append((table, "rule-free"))
    # For a rule-free table the same string as rows written before DTZ50 existed.
    read = ";".join(f"{name}:{content_crc32(db, name, kind, cache)}" for name, kind in inputs)
    return {"content_crc32": content_crc32(db, table, metric, cache),
            "children_crc32": zlib.crc32(read.encode())}


def verify(db: str, family, table: str, metric: str, packs: list) -> dict:
    """``{"entries", "errors"}`` of ``table``'s file of ``metric`` (``packs[0]``: every pack,
    loaded on the first pack verified)."""
    if metric == "rule-free":
        from retrograde.verify import verify_table

        result = verify_table("chess", table, db)
    elif metric == "dtz50":
        from retrograde.dtz50 import verify_dtz50

        result = verify_dtz50("chess", table, db)
    else:
        from databases.packed import PackedTables
        from retrograde.pack import verify_pack

        if not packs:
            packs.append(PackedTables(db, family))
        result = verify_pack(db, family, table, packs=packs[0])
        result["entries"] = result.pop("checked")
    return {"entries": int(result["entries"]), "errors": int(result["errors"])}


def last_row_of_each_table(rows: list[dict]) -> list[dict]:
    """The latest of the rows of each table (a table verified twice counts once)."""
    return list({row["table"]: row for row in rows}.values())


def rows_of_these_contents(rows: list[dict], current: dict[str, dict]) -> list[dict]:
    """The last row of each table in ``current`` whose checksums are the table's now: a row
    of other contents (or without checksums) does not verify the table on disk."""
    return last_row_of_each_table([row for row in rows if row["table"] in current
                                   and current[row["table"]].items() <= row.items()])


def report(rows: list[dict], total: int) -> int:
    """Print the summary of ``rows``; returns how many errors they hold."""
    errors = sum(row["errors"] for row in rows)
    entries = sum(row["entries"] for row in rows)
    seconds = sum(row["seconds"] for row in rows)
    print(f"verified: {len(rows)} of {total}; {entries:,} entries in {seconds:,.0f} s "
          f"({seconds / 3600:.2f} h); errors: {errors:,}")
    for row in rows:
        if row["errors"]:
            print(f"  {row['table']}: {row['errors']:,} error(s)")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="directory holding the tables (needed but for --report)")
    parser.add_argument("--pieces", type=int, default=5)
    parser.add_argument("--tables", nargs="+", metavar="TABLE",
                        help="these tables instead of every one of --pieces")
    parser.add_argument("--metrics", nargs="+", choices=METRICS, default=list(METRICS),
                        help="what of each table to verify (default: all three)")
    parser.add_argument("--out", default="docs/results/verify5.jsonl",
                        help="JSON lines, one per table and metric (appended; the run resumes from it)")
    parser.add_argument("--skip-missing", action="store_true",
                        help="verify the files built so far and pass over the others (a file "
                             "is written only after those it depends on, so this can follow a "
                             "build still running)")
    parser.add_argument("--report", action="store_true",
                        help="summarise --out and stop (with --db: only the rows whose "
                             "checksums match the files there)")
    args = parser.parse_args()

    from databases.families import get_family

    family = get_family("chess")
    every = family.table_names()
    if args.tables:
        unknown = [table for table in args.tables if table not in every]
        if unknown:
            parser.error(f"unknown chess table(s): {' '.join(unknown)}")
        tables = args.tables
    else:
        tables = [t for t in family.table_names(args.pieces) if len(t) - 1 == args.pieces]
    metrics = [metric for metric in METRICS if metric in args.metrics]
    items = {table + ROW_SUFFIX[metric]: (table, metric) for table in tables for metric in metrics}
    out = Path(args.out)
    rows = [row for row in recorded(out) if row["table"] in items]
    if args.report and not args.db:  # whatever contents each row verified
        return 1 if report(last_row_of_each_table(rows), len(items)) else 0
    if not args.db:
        parser.error("--db is needed to verify")
    missing = [name for name, (table, metric) in items.items() if not file_path(args.db, table, metric).is_file()]
    total = len(items)
    if missing and args.skip_missing:
        print(f"{len(missing)} of {total} file(s) not built yet in {args.db}: passed over", flush=True)
        items = {name: item for name, item in items.items() if name not in missing}
    elif missing:
        shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        parser.error(f"not built in {args.db}: {shown} (--skip-missing passes over them)")

    cache: dict = {}
    current = {name: checksums(args.db, family, table, metric, cache) for name, (table, metric) in items.items()}
    rows = rows_of_these_contents(rows, current)
    if args.report:
        return 1 if report(rows, total) else 0

    done = {row["table"] for row in rows}
    commit = source_commit()
    packs: list = []
    for name, (table, metric) in items.items():
        if name in done:
            continue
        started = time.perf_counter()
        row = {"table": name} | verify(args.db, family, table, metric, packs) | current[name] | {
            "seconds": round(time.perf_counter() - started, 1), "commit": commit,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        append_row(out, row)
        rows.append(row)
        print(f"{name}: {row['entries']:,} entries, {row['errors']:,} error(s), "
              f"{row['seconds']:.0f} s ({len(rows)}/{total})", flush=True)
    return 1 if report(rows, total) else 0


if __name__ == "__main__":
    sys.exit(main())
