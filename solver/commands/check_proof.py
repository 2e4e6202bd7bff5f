"""`solver check-proof GAME FILE`: re-check a saved proof tree with the rules alone."""
from __future__ import annotations

import argparse

from solver.commands.common import add_game_argument, add_json_flag, load_game
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
    parser.add_argument("--db", metavar="DIR", default=None, help="database directory, for database leaves")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check and print the verdict."""
    game = load_game(args.game)
    from proofsearch.checker import check_file

    from solver.commands.prove import open_database_leaves

    database = open_database_leaves(game, args.db)
    try:
        verdict = check_file(game, args.file, database.value if database is not None else None)
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror or error}") from None
    result = {"valid": verdict.valid, "nodes": verdict.nodes}
    if not verdict.valid:
        result["reason"] = verdict.reason
    emit(result, args.json,
         lambda r: f"valid proof, {r['nodes']:,} positions checked" if r["valid"]
         else f"INVALID after {r['nodes']:,} positions: {r['reason']}")
    return 0 if verdict.valid else 1
