"""`solver verify` of every chess table of N pieces (default 5), resumable.

Issue 11 asks for 0 errors from ``solver verify`` on every five-piece table built. Verifying
re-derives each entry from its children by forward moves (``retrograde/verify.py``): about
0.4-0.9 us an entry on two cores, several hours for the 45 G entries of the five-piece set.
So each table's result goes as one JSON line to ``--out`` the moment it is known (entries,
errors, seconds, the commit of the code), and a later run skips the tables recorded there.
``--report`` summarises the file. Exit status 1 when any table has an error.

A row also names what it verified: the table's ``content_crc32`` (the checksum of all its
pages, stored in the file) and ``children_crc32`` (one checksum over its child tables'). A
row counts for a table only while both match the files in ``--db``: a table built again with
other contents (or a row from before the checksums were recorded) is verified again, and one
built again identically, on this machine or another, is not.

    python scripts/verify_all.py --db DIR [--out docs/results/verify5.jsonl]
    python scripts/verify_all.py --db DIR --tables KQRvKR KRPvKR
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


def content_crc32(db: str, table: str) -> int:
    """The ``content_crc32`` attribute of ``table``'s file in ``db`` (its pages' checksum)."""
    from databases.location import table_path
    from databases.reader import TableFile

    handle = TableFile(table_path(db, "chess", table), "chess", table)
    try:
        return int(handle.attrs["content_crc32"])
    finally:
        handle.close()


def checksums(db: str, family, table: str) -> dict:
    """``content_crc32`` of ``table`` and ``children_crc32``, one CRC-32 over the names and
    ``content_crc32`` of the tables it depends on (in the family's order)."""
    children = ";".join(f"{child}:{content_crc32(db, child)}"
                        for child in family.dependencies(table))
    return {"content_crc32": content_crc32(db, table),
            "children_crc32": zlib.crc32(children.encode())}


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
    print(f"tables verified: {len(rows)} of {total}; {entries:,} entries in {seconds:,.0f} s "
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
    parser.add_argument("--out", default="docs/results/verify5.jsonl",
                        help="JSON lines, one per table (appended; the run resumes from it)")
    parser.add_argument("--skip-missing", action="store_true",
                        help="verify the tables built so far and pass over the others (a table "
                             "is written only after those it depends on, so this can follow a "
                             "build still running)")
    parser.add_argument("--report", action="store_true",
                        help="summarise --out and stop (with --db: only the rows whose "
                             "checksums match the tables there)")
    args = parser.parse_args()

    from databases.families import get_family
    from databases.location import table_path

    family = get_family("chess")
    every = family.table_names()
    if args.tables:
        unknown = [table for table in args.tables if table not in every]
        if unknown:
            parser.error(f"unknown chess table(s): {' '.join(unknown)}")
        tables = args.tables
    else:
        tables = [t for t in family.table_names(args.pieces) if len(t) - 1 == args.pieces]
    out = Path(args.out)
    rows = [row for row in recorded(out) if row["table"] in tables]
    if args.report and not args.db:  # whatever contents each row verified
        return 1 if report(last_row_of_each_table(rows), len(tables)) else 0
    if not args.db:
        parser.error("--db is needed to verify")
    missing = [t for t in tables if not table_path(args.db, "chess", t).is_file()]
    total = len(tables)
    if missing and args.skip_missing:
        print(f"{len(missing)} table(s) not built yet in {args.db}: passed over", flush=True)
        tables = [t for t in tables if t not in missing]
    elif missing:
        shown = " ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        parser.error(f"not built in {args.db}: {shown}")

    current = {table: checksums(args.db, family, table) for table in tables}
    rows = rows_of_these_contents(rows, current)
    if args.report:
        return 1 if report(rows, total) else 0

    from retrograde.verify import verify_table

    done = {row["table"] for row in rows}
    commit = source_commit()
    for table in tables:
        if table in done:
            continue
        started = time.perf_counter()
        result = verify_table("chess", table, args.db)
        row = result | current[table] | {
            "seconds": round(time.perf_counter() - started, 1), "commit": commit,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        append_row(out, row)
        rows.append(row)
        print(f"{table}: {row['entries']:,} entries, {row['errors']:,} error(s), "
              f"{row['seconds']:.0f} s ({len(rows)}/{total})", flush=True)
    return 1 if report(rows, total) else 0


if __name__ == "__main__":
    sys.exit(main())
