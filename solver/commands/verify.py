"""`solver verify GAME [TABLE ...]`: re-check every entry against its successors."""
from __future__ import annotations

import argparse
import sys

from databases.errors import DatabaseError
from retrograde.progress import Progress, Silent
from solver.commands.build import add_db_argument, database_root, load_family
from solver.commands.common import add_game_argument, add_json_flag
from solver.errors import UsageError
from solver.output import emit


def register(subparsers) -> None:
    """Add the verify subcommand."""
    parser = subparsers.add_parser(
        "verify", help="re-check built tables entry by entry",
        description="Re-derive every entry of the named tables (default: every table on disk) "
        "from its successors with forward moves only, and count disagreements. Chess tables "
        "with a DTZ50 table (the 50-move rule, built by solver build) have it checked too, "
        "against the table and against its successors' DTZ50 tables, and their packed WDL50 "
        "(what the search holds in memory), every entry probed as the search probes it "
        "against the DTZ50 table.")
    add_game_argument(parser)
    parser.add_argument("tables", metavar="TABLE", nargs="*", help="tables to verify")
    add_db_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Verify every table and report; exit status 1 if any entry disagrees or any table file
    cannot be used (each such table gets one line on stderr; the others are still verified)."""
    from retrograde.build import UnknownTableError, build_order  # here: they compile the kernels

    family = load_family(args.game)
    root = database_root(args.db)
    try:
        if args.tables:
            build_order(family, args.tables, None)  # rejects unknown names
            tables = list(args.tables)
            missing = [t for t in tables if not (root / args.game / f"{t}.h5").is_file()]
            if missing:
                raise UsageError(f"no {args.game} table {missing[0]} under {root} "
                                 f"({no_table_hint(root, args.game, missing[0])})")
        else:
            tables = [t for t in family.table_names() if (root / args.game / f"{t}.h5").is_file()]
    except UnknownTableError as error:
        raise UsageError(str(error)) from None
    if not tables:
        raise UsageError(f"no {args.game} tables under {root} "
                         f"({no_table_hint(root, args.game, None)})")
    reports, unusable = verify_tables(args, tables, root)
    for table, problem in unusable.items():
        sys.stderr.write(f"solver verify: error: {table}: {problem}\n")
    result = {"tables": len(reports), "entries": sum(r["entries"] for r in reports),
              "errors": sum(r["errors"] for r in reports),
              "per_table": {r["table"]: r["errors"] for r in reports}, "unusable": unusable}
    emit(result, args.json, summary)
    return 0 if result["errors"] == 0 and not unusable else 1


def no_table_hint(root, game: str, table: str | None) -> str:
    """What to do about a missing rule-free table: build it, or, where its DTZ50 table was
    built alone (``--metrics wdl50,dtz50``), build the rule-free one too: verify checks the
    DTZ50 tables against it."""
    from databases.location import DTZ50, table_path

    dtz50_folder = table_path(root, game, table or "KvK", DTZ50).parent
    alone = table_path(root, game, table, DTZ50).is_file() if table else \
        dtz50_folder.is_dir() and any(dtz50_folder.glob("*.h5"))
    if alone:
        return ("only DTZ50 tables were built; verify checks them against the rule-free "
                f"tables: solver build {game} {table or '...'} --metrics dtm")
    return "run solver build first"


def verify_tables(args: argparse.Namespace, tables: list[str], root) -> tuple[list, dict]:
    """(reports of the tables verified, {table: why it could not be} for the others: its file
    or a file it depends on is missing, damaged or of another format)."""
    from databases.location import DTZ50, WDL50, table_path
    from retrograde.build import has_dtz50
    from retrograde.dtz50 import verify_dtz50
    from retrograde.verify import verify_table

    reports, unusable = [], {}
    rule50 = has_dtz50(load_family(args.game))
    packs = []  # every pack, loaded once for the exits of all
    for table in tables:
        progress = Silent() if args.json else Progress(f"{args.game} {table}")
        try:
            reports.append(verify_table(args.game, table, root, progress))
        except DatabaseError as error:
            progress.done()
            unusable[table] = str(error)
            continue
        if not rule50 or not table_path(root, args.game, table, DTZ50).is_file():
            continue
        progress = Silent() if args.json else Progress(f"{args.game} {table} DTZ50")
        try:
            report = verify_dtz50(args.game, table, root, progress)
            reports.append({**report, "table": f"{table} DTZ50"})
        except DatabaseError as error:
            progress.done()
            unusable[f"{table} DTZ50"] = str(error)
            continue
        if table_path(root, args.game, table, WDL50).is_file():
            verify_one_pack(args, table, root, reports, unusable, packs)
    return reports, unusable


def verify_one_pack(args: argparse.Namespace, table: str, root, reports: list,
                    unusable: dict, packs: list) -> None:
    """Probe every entry of ``table``'s WDL50 pack as the search does (exits into the other
    packs, ``packs[0]`` once loaded) against its DTZ50 table: a row ``<table> WDL50 pack``."""
    from databases.packed import PackedTables
    from retrograde.pack import verify_pack

    family = load_family(args.game)
    if not packs:
        packs.append(PackedTables(root, family))
    progress = Silent() if args.json else Progress(f"{args.game} {table} WDL50 pack")
    try:
        report = verify_pack(root, family, table, progress=progress, packs=packs[0])
        progress.done()
        reports.append({"table": f"{table} WDL50 pack", "entries": report["checked"],
                        "errors": report["errors"]})
    except DatabaseError as error:
        progress.done()
        unusable[f"{table} WDL50 pack"] = str(error)


def summary(result: dict) -> str:
    """One line for people."""
    line = (f"verified {result['tables']} table(s), {result['entries']:,} entries: "
            f"{result['errors']} error(s)")
    if result["unusable"]:
        line += f"; {len(result['unusable'])} table(s) could not be verified: " \
                + ", ".join(result["unusable"])
    return line
