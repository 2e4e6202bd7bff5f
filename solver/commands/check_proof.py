"""`solver check-proof GAME FILE`: re-check a saved proof tree with the rules alone."""
from __future__ import annotations

import argparse

from databases.location import default_database_dir
from solver.commands.common import (Failure, add_game_argument, add_json_flag, load_game,
                                    readable_file_path)
from solver.errors import UsageError
from solver.output import emit


def register(subparsers) -> None:
    """Add the check-proof subcommand."""
    parser = subparsers.add_parser(
        "check-proof",
        help="check a proof tree written by `solver prove --proof`",
        description="Replay the strategy in FILE with the game's rules kernels only (no search "
        "code): at the prover's nodes the named move must be legal, at the opponent's nodes every "
        "legal move must be answered, and every leaf must be a finished game (or a repetition, a "
        "draw) that gives the prover what the file claims. Exit status 0 when valid, 1 when not.",
    )
    add_game_argument(parser)
    parser.add_argument("file", metavar="FILE", help="proof file (JSON, docs/proof-format.md)")
    parser.add_argument("--db", metavar="DIR", default=None,
                        help="database directory, for the proof's database leaves (default: $SOLVER_DB, "
                        "else ~/.local/share/solver/db; opened only when the proof has such leaves)")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check and print the verdict."""
    game = load_game(args.game)
    readable_file_path(args.file, "FILE")
    from proofsearch.checker import check_file

    probe = _explicit_tables(game, args.db) if args.db is not None else _default_tables(game)
    try:
        verdict = check_file(game, args.file, probe)
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror or error}") from None
    result = {"valid": verdict.valid, "nodes": verdict.nodes}
    if not verdict.valid:
        result["reason"] = verdict.reason
    emit(result, args.json,
         lambda r: f"valid proof, {r['nodes']:,} positions checked" if r["valid"]
         else f"INVALID after {r['nodes']:,} positions: {r['reason']}")
    return 0 if verdict.valid else 1


def _strict_value(leaves):
    """The tables' ``value`` for the checker: a damaged table that covers a leaf raises (the
    proof cannot be checked: exit status 1 and why, not INVALID); None without tables."""
    if leaves is None:
        return None
    return lambda position: leaves.value(position, strict=True)


def _quiet(message: str) -> None:
    """Damage found on opening is reported only if the proof needs that table (it raises)."""


def _explicit_tables(game, directory: str):
    """``value`` of the tables under ``--db DIR`` (opened now: a bad DIR is reported at once)."""
    from solver.commands.prove import open_database_leaves

    return _strict_value(open_database_leaves(game, directory, warn=_quiet))


def _default_tables(game):
    """A ``value`` that opens the tables of ``$SOLVER_DB`` (else the user data directory) at the
    first database leaf: a proof without such leaves never loads them."""
    from solver.commands.prove import open_database_leaves

    opened = []

    def value(position):
        if not opened:
            opened.append(_strict_value(open_database_leaves(game, None, warn=_quiet)))
        if opened[0] is None:
            # without the tables the proof cannot be checked: that is not an invalid proof
            raise Failure(f"cannot check: the proof has database leaves and no {game.name} "
                          f"tables were found in {default_database_dir(None)} "
                          f"($SOLVER_DB, else the user data directory); give --db DIR")
        return opened[0](position)
    return value
