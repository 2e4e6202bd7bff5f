"""`solver build GAME [TABLE ...]`: build endgame tables and the tables they depend on."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from databases.location import default_database_dir
from databases.writer import COMPRESSIONS, DEFAULT_COMPRESSION
from solver.commands.common import (add_game_argument, add_json_flag, bounded_int, load_game,
                                    named_directory, non_negative_int, shown)
from solver.errors import UsageError
from solver.output import emit

MOST_WORKERS = 1024  # threads per build or per cluster task: more is a typing slip


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """The --db option shared by build, probe and verify."""
    parser.add_argument("--db", metavar="DIR",
                        help="database directory (default: $SOLVER_DB, else ~/.local/share/solver/db)")


def database_root(option: str | None) -> Path:
    """The --db directory (default: $SOLVER_DB, else the user data directory); a UsageError
    for an empty name (which would otherwise mean the default), and for a name, on the command
    line or in $SOLVER_DB, of something that is not a directory (a missing one is the
    command's business)."""
    if option is not None:
        if not option.strip():
            raise UsageError("--db: empty directory name")
        return default_database_dir(named_directory(option, "--db"))
    root = default_database_dir(None)
    variable = os.environ.get("SOLVER_DB")
    if variable and root.exists() and not root.is_dir():
        raise UsageError(f"SOLVER_DB={shown(variable)}: not a directory")
    return root


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
        "already built and valid (every page read back and checked) are skipped; a damaged "
        "file is rebuilt, and temporary files left by killed builds are removed. With "
        "--scheduler, independent tables build at the same time on the workers of a dask "
        "cluster. Exit status 2 for bad input, 1 when the directory cannot be written or a "
        "table file cannot be read.")
    add_game_argument(parser)
    parser.add_argument("tables", metavar="TABLE", nargs="*", help="tables to build (chess: KQvKR)")
    parser.add_argument("--pieces", type=non_negative_int, metavar="N",
                        help="build every table with at most N pieces (chess: 2 to 5)")
    add_db_argument(parser)
    parser.add_argument("--workers", type=bounded_int(1, MOST_WORKERS), metavar="N",
                        help="threads to use; with --scheduler, threads per table task (default: "
                        "the cores shared out among local:N processes, or all of a remote "
                        "worker's cores). Results do not depend on it")
    parser.add_argument("--scheduler", metavar="ADDR",
                        help="build on a dask.distributed cluster, one task per table, each "
                        "after the tables it depends on, in a local build's order (chess: the "
                        "DTZ50 tables, the packs, then the rule-free tables): a scheduler address (tcp://host:8786), "
                        "or local[:N] for N worker processes on this machine (default: one per "
                        "core). The --db directory must be a path every worker sees (a shared "
                        "filesystem). Needs the 'distributed' extra")
    parser.add_argument("--force", action="store_true", help="rebuild tables already built")
    parser.add_argument("--no-dtz50", dest="dtz50", action="store_false",
                        help="chess: skip the DTZ50 tables (the 50-move rule: distance to the "
                        "next capture or pawn move, cursed wins and blessed losses), built by "
                        "default into <db>/chess/dtz50/ after the tables they belong to")
    parser.add_argument("--no-pack", dest="pack", action="store_false",
                        help="chess: skip the packed WDL50 (each table's result under the "
                        "50-move rule, compressed for the search's memory: what --db and the "
                        "UCI DatabasePath load), packed by default into <db>/chess/wdl50/ from "
                        "the DTZ50 tables")
    parser.add_argument("--metrics", metavar="LIST", type=metrics_list,
                        default=",".join(METRICS),
                        help="chess: what to build, comma-separated (default all): dtz50 (the "
                        "DTZ50 tables, built first), wdl50 (their packs: needs dtz50), dtm (the "
                        "rule-free tables with the distance to mate, built last); e.g. "
                        "--metrics wdl50,dtz50 leaves the distance to mate out")
    parser.add_argument("--compression", choices=COMPRESSIONS, default=DEFAULT_COMPRESSION,
                        help=f"page compression (default {DEFAULT_COMPRESSION})")
    add_json_flag(parser)
    parser.set_defaults(run=run)


METRICS = ("dtz50", "wdl50", "dtm")


def metrics_list(text: str) -> frozenset:
    """``--metrics``: a comma-separated subset of METRICS (argparse's type)."""
    chosen = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(chosen - set(METRICS))
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"{text!r}: choose among {', '.join(METRICS)}")
    if "wdl50" in chosen and "dtz50" not in chosen:
        raise argparse.ArgumentTypeError("wdl50: the packs are made from the DTZ50 tables; "
                                         "add dtz50")
    return chosen


def environment_failure(command: str, message: str) -> int:
    """Report a damaged or unusable environment (a damaged table, a directory that cannot be
    written): one line on stderr, exit status 1."""
    sys.stderr.write(f"solver {command}: error: {message}\n")
    return 1


class UnwritableDirectoryError(OSError):
    """The database directory exists (or can be created) but cannot be written."""


def prepare_directory(root: Path, game: str) -> Path:
    """``<root>/<game>``, created if needed: UsageError when ``root`` (or a parent) is not a
    directory, UnwritableDirectoryError when it cannot be created or written."""
    directory = root / game
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"--db {root}: not a directory") from None
    except OSError as error:
        raise UnwritableDirectoryError(f"cannot create {directory}: "
                                       f"{error.strerror or error}") from None
    if not directory.is_dir():
        raise UsageError(f"--db {root}: {directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):  # also false on a read-only filesystem
        raise UnwritableDirectoryError(f"cannot write to {directory} (read-only or permission "
                                       "denied)")
    return directory


def run(args: argparse.Namespace) -> int:
    """Build and print what was built and skipped."""
    from databases.errors import UnusableTableError
    from retrograde.build import UnknownTableError, build_order  # here: they compile the builder

    family = load_family(args.game)
    chess_only = chess_only_options(args)
    if chess_only and args.game != "chess":
        raise UsageError(f"{', '.join(chess_only)}: for chess tables only")
    root = database_root(args.db)
    try:
        build_order(family, args.tables or None, args.pieces)  # bad requests before any work
        prepare_directory(root, args.game)
        result = build(args, root)
    except (UnknownTableError, ValueError) as error:  # ValueError: BuildRequestError, local:N
        raise UsageError(str(error)) from None
    except UnusableTableError as error:  # a file damaged while the build ran
        return environment_failure("build", str(error))
    except OSError as error:  # a directory that cannot be written, a full disk
        return environment_failure("build", str(error) if isinstance(
            error, UnwritableDirectoryError) else f"writing under {root}: {one_line(error)}")
    for key in ("rebuilt", "removed"):  # in the JSON only when something happened
        if not result.get(key):
            result.pop(key, None)
    where = f" on {args.scheduler}" if args.scheduler else ""
    emit(result, args.json,
         lambda r: f"built {len(r['built'])} table(s)"
                   + replaced_text(r.get("rebuilt", {}))
                   + f", skipped {len(r['skipped'])} already built"
                   + (f", {len(r['dtz50_built'])} DTZ50 table(s)" if r.get("dtz50_built") else "")
                   + (f", {len(r['packed'])} WDL50 pack(s)" if r.get("packed") else "")
                   + f", in {r['seconds']:.1f} s ({root}){where}")
    return 0


def chosen_metrics(args: argparse.Namespace) -> frozenset:
    """``--metrics`` as a set (argparse converts a given value, a caller may pass the text)."""
    return metrics_list(args.metrics) if isinstance(args.metrics, str) else args.metrics


def chess_only_options(args: argparse.Namespace) -> list[str]:
    """The chess-only options given (--metrics other than all of them, --no-dtz50, --no-pack)."""
    given = [] if chosen_metrics(args) == frozenset(METRICS) else ["--metrics"]
    return given + [name for name, kept in (("--no-dtz50", args.dtz50), ("--no-pack", args.pack)) if not kept]


def replaced_text(rebuilt: dict) -> str:
    """The summary's note on the tables built over unusable files: damaged, or of an older
    index (``rebuilt``: table -> why)."""
    from retrograde.tables import OLD_INDEX

    older = sum(why == OLD_INDEX for why in rebuilt.values())
    parts = [f"{len(rebuilt) - older} replacing damaged files"] if len(rebuilt) > older else []
    parts += [f"{older} replacing tables of an older index"] if older else []
    return f" ({', '.join(parts)})" if parts else ""


def build(args: argparse.Namespace, root: Path) -> dict:
    """Run the build, locally or on a cluster; notices go to stderr as single lines."""
    from retrograde.build import build_tables

    def notify(line: str) -> None:
        sys.stderr.write(f"solver build: {line}\n")

    options = dict(max_pieces=args.pieces, workers=args.workers,
                   show_progress=False if args.json else None, force=args.force,
                   compression=args.compression, notify=notify)
    metrics = chosen_metrics(args)
    args.dtz50 = args.dtz50 and "dtz50" in metrics
    args.pack = args.pack and "wdl50" in metrics
    dtm = "dtm" in metrics
    if not args.scheduler:
        import numba

        if args.workers and args.workers > numba.config.NUMBA_NUM_THREADS:
            notify(f"--workers {args.workers}: this machine runs "
                   f"{numba.config.NUMBA_NUM_THREADS} threads; using that many")
        return build_tables(args.game, args.tables or None, root, dtz50=args.dtz50,
                            pack=args.pack, dtm=dtm, **options)
    from retrograde.distributed import DistributedBuildError, build_on_cluster

    try:
        return build_on_cluster(args.game, args.tables or None, root, scheduler=args.scheduler,
                                dtz50=args.dtz50, pack=args.pack, dtm=dtm, **options)
    except DistributedBuildError as error:
        raise UsageError(str(error)) from None


def one_line(error: OSError) -> str:
    """An OSError as one line: its reason and the file it names."""
    text = str(error).strip()
    reason = error.strerror or (text.splitlines()[0] if text else type(error).__name__)
    return f"{reason}: {error.filename}" if error.filename else reason
