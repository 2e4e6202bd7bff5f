"""`solver build GAME [TABLE ...]`: build endgame tables and the tables they depend on."""
from __future__ import annotations

import argparse

from databases.location import default_database_dir
from databases.writer import COMPRESSIONS, DEFAULT_COMPRESSION
from solver.commands.common import add_game_argument, add_json_flag, load_game, non_negative_int
from solver.errors import UsageError
from solver.output import emit


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """The --db option shared by build, probe and verify."""
    parser.add_argument("--db", metavar="DIR",
                        help="database directory (default: $SOLVER_DB, else ~/.local/share/solver/db)")


def load_family(name: str):
    """The game's table family, or a UsageError."""
    from databases.families import NoTablesError, get_family

    load_game(name)
    try:
        return get_family(name)
    except NoTablesError as error:
        raise UsageError(str(error)) from None


def register(subparsers) -> None:
    """Add the build subcommand."""
    parser = subparsers.add_parser(
        "build", help="build endgame tables by retrograde analysis",
        description="Build the tables of GAME (all of them, the named TABLEs, or every table up "
        "to --pieces N) and the tables they depend on, into <db>/<game>/<table>.h5. Tables "
        "already built and valid are skipped. With --scheduler, independent tables build at "
        "the same time on the workers of a dask cluster.")
    add_game_argument(parser)
    parser.add_argument("tables", metavar="TABLE", nargs="*", help="tables to build (chess: KQvKR)")
    parser.add_argument("--pieces", type=non_negative_int, metavar="N",
                        help="build every table with at most N pieces (chess)")
    add_db_argument(parser)
    parser.add_argument("--workers", type=non_negative_int, metavar="N",
                        help="threads to use; with --scheduler, threads per table task (default: "
                        "the cores shared out among local:N processes, or all of a remote "
                        "worker's cores). Results do not depend on it")
    parser.add_argument("--scheduler", metavar="ADDR",
                        help="build on a dask.distributed cluster, one task per table, each "
                        "after the tables it depends on: a scheduler address (tcp://host:8786), "
                        "or local[:N] for N worker processes on this machine (default: one per "
                        "core). The --db directory must be a path every worker sees (a shared "
                        "filesystem). Needs the 'distributed' extra")
    parser.add_argument("--force", action="store_true", help="rebuild tables already built")
    parser.add_argument("--compression", choices=COMPRESSIONS, default=DEFAULT_COMPRESSION,
                        help=f"page compression (default {DEFAULT_COMPRESSION})")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build and print what was built and skipped."""
    from retrograde.build import UnknownTableError, build_tables  # here: it compiles the builder

    load_family(args.game)
    if args.workers == 0:
        raise UsageError("--workers must be at least 1")
    root = default_database_dir(args.db)
    options = dict(max_pieces=args.pieces, workers=args.workers,
                   show_progress=False if args.json else None, force=args.force,
                   compression=args.compression)
    try:
        if args.scheduler:
            result = build_on_cluster(args.game, args.tables or None, root, args.scheduler, options)
        else:
            result = build_tables(args.game, args.tables or None, root, **options)
    except UnknownTableError as error:
        raise UsageError(str(error)) from None
    except ValueError as error:
        raise UsageError(str(error)) from None
    where = f" on {args.scheduler}" if args.scheduler else ""
    emit(result, args.json,
         lambda r: f"built {len(r['built'])} table(s), skipped {len(r['skipped'])} already built, "
                   f"in {r['seconds']:.1f} s ({root}){where}")
    return 0


def build_on_cluster(game: str, tables, root, scheduler: str, options: dict) -> dict:
    """A distributed build (retrograde.distributed, which imports dask only now); the result
    has the keys of a local build plus ``scheduler``."""
    from retrograde.distributed import DistributedBuildError, build_tables_distributed

    try:
        result = build_tables_distributed(game, tables, root, scheduler=scheduler, **options)
    except DistributedBuildError as error:
        raise UsageError(str(error)) from None
    del result["tasks"]
    return result
