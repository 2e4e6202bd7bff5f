"""`solver perft GAME POSITION DEPTH`: count leaf nodes, a check of the move generator."""
from __future__ import annotations

import argparse
import time

from solver.commands.common import add_game_argument, add_json_flag, bounded_int, load_game, load_position
from solver.output import emit

# games.perft.MAX_DEPTH, repeated here so that --help compiles nothing (a test keeps them equal).
MAX_DEPTH = 1000


def register(subparsers) -> None:
    """Add the perft subcommand."""
    parser = subparsers.add_parser(
        "perft",
        help="count the leaf nodes of the game tree to a depth",
        description="Count the positions reached after exactly DEPTH plies from POSITION "
        "(finished games have no moves). Used to check move generators against known counts. "
        "Ctrl-C stops it (exit status 130).",
    )
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, or startpos")
    parser.add_argument("depth", metavar="DEPTH", type=bounded_int(0, MAX_DEPTH),
                        help=f"plies to count (0 to {MAX_DEPTH})")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Count and print."""
    game = load_game(args.game)
    position = load_position(game, args.position)
    from games.perft import perft  # here, not at the top: other commands need not load it

    started = time.perf_counter()
    nodes = perft(game, position, args.depth)
    seconds = time.perf_counter() - started
    emit({"nodes": nodes, "seconds": round(seconds, 6)}, args.json,
         lambda r: f"perft {args.depth}: {r['nodes']} nodes in {r['seconds']:.3f} s "
                   f"({r['nodes'] / max(r['seconds'], 1e-9):,.0f} nodes/s)")
    return 0
