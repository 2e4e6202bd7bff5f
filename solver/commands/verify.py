"""`solver verify GAME [TABLE ...]`: re-check every entry against its successors."""
from __future__ import annotations

import argparse

from databases.errors import DatabaseError
from databases.location import default_database_dir
from retrograde.progress import Progress, Silent
from solver.commands.build import add_db_argument, load_family
from solver.commands.common import add_game_argument, add_json_flag
from solver.errors import UsageError
from solver.output import emit


def register(subparsers) -> None:
    """Add the verify subcommand."""
    parser = subparsers.add_parser(
        "verify", help="re-check built tables entry by entry",
        description="Re-derive every entry of the named tables (default: every table on disk) "
        "from its successors with forward moves only, and count disagreements.")
    add_game_argument(parser)
    parser.add_argument("tables", metavar="TABLE", nargs="*", help="tables to verify")
    add_db_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Verify and report; exit status 1 if any entry disagrees."""
    from retrograde.build import UnknownTableError, build_order  # here: they compile the kernels
    from retrograde.verify import verify_table

    family = load_family(args.game)
    root = default_database_dir(args.db)
    try:
        if args.tables:
            build_order(family, args.tables, None)  # rejects unknown names
            tables = list(args.tables)
        else:
            tables = [t for t in family.table_names() if (root / args.game / f"{t}.h5").is_file()]
    except UnknownTableError as error:
        raise UsageError(str(error)) from None
    if not tables:
        raise UsageError(f"no {args.game} tables under {root} (run solver build first)")
    reports = []
    try:
        for table in tables:
            progress = Silent() if args.json else Progress(f"{args.game} {table}")
            reports.append(verify_table(args.game, table, root, progress))
    except DatabaseError as error:
        raise UsageError(str(error)) from None
    result = {"tables": len(reports), "entries": sum(r["entries"] for r in reports),
              "errors": sum(r["errors"] for r in reports),
              "per_table": {r["table"]: r["errors"] for r in reports}}
    emit(result, args.json, lambda r: f"verified {r['tables']} table(s), {r['entries']:,} entries: "
                                      f"{r['errors']} error(s)")
    return 0 if result["errors"] == 0 else 1
