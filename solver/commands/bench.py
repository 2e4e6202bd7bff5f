"""`solver bench`: a fixed set of chess positions searched to a fixed depth: the node count is a
signature of the search (it changes only when the search does), the speed its nodes/s."""
from __future__ import annotations

import argparse
import sys
import time

from solver.commands.common import add_json_flag, add_switch_argument, bounded_int, disabled_switches, megabytes
from solver.output import emit

DEFAULT_DEPTH = 11


def register(subparsers) -> None:
    """Add the bench subcommand."""
    parser = subparsers.add_parser(
        "bench",
        help="search fixed positions to a fixed depth: node signature and nodes/s",
        description="Searches each of the fixed chess positions of solver/search/bench_positions.py "
        f"to --depth plies (default {DEFAULT_DEPTH}) with a fresh transposition table, on one thread. "
        "The total node count changes only when the search does; nodes/s measures its speed "
        "(the compile or cache load before the first search is not timed).",
    )
    parser.add_argument("--depth", type=_depth, default=DEFAULT_DEPTH, metavar="D", help="plies per position")
    parser.add_argument("--hash", type=megabytes, default=16.0, metavar="MB",
                        help="transposition table size in MiB (default 16)")
    add_switch_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


_depth = bounded_int(1, 30)


def run(args: argparse.Namespace) -> int:
    """Search every bench position; print the totals."""
    switches = disabled_switches(args)
    import games
    from solver.search.bench_positions import CHESS
    from solver.search.player import Limits, Player

    game = games.get("chess")
    player = Player(game, hash_mb=args.hash, switches=switches)
    player.search(game.start_position(), Limits(depth=1))  # load (or compile) before timing
    verbose = not args.json and sys.stderr.isatty()
    nodes, seconds = 0, 0.0
    for index, fen in enumerate(CHESS, 1):
        player.new_game()
        position = game.parse_position(fen)
        started = time.perf_counter()
        result = player.search(position, Limits(depth=args.depth))
        seconds += time.perf_counter() - started
        nodes += result.nodes
        if verbose:
            sys.stderr.write(f"position {index:>2}/{len(CHESS)}: best {game.format_move(position, result.best)}, "
                             f"{result.nodes:,} nodes\n")
    emit({"nodes": nodes, "nps": int(nodes / seconds) if seconds else 0, "seconds": round(seconds, 6),
          "positions": len(CHESS), "depth": args.depth}, args.json,
         lambda r: f"bench: {r['positions']} positions to depth {r['depth']}: {r['nodes']} nodes, "
                   f"{r['seconds']:.2f} s, {r['nps']:,} nodes/s")
    return 0
