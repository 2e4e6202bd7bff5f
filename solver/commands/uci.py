"""`solver uci`: the chess engine on stdin/stdout for GUIs and match runners."""
from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    """Add the uci subcommand."""
    parser = subparsers.add_parser(
        "uci",
        help="run as a UCI chess engine on stdin/stdout",
        description="Speaks the UCI protocol on stdin/stdout, for chess GUIs and match runners "
        "(e.g. cutechess-cli, fastchess: -engine cmd=solver arg=uci). Options: Hash, Move "
        "Overhead, Ponder, UCI_Chess960, Clear Hash, DatabasePath (a directory of built tables, "
        "probed in the search and played from at the root), DatabaseCache (MiB of table pages), "
        "ProverNodes (df-pn nodes at the root between iterations; 0 = off), and one switch per "
        "search feature "
        "(NullMove, MultiCut, LateMoveReductions, ReverseFutility, Futility, CheckExtension, QuiescenceSEE, "
        "AspirationWindows, TTCutoffs). The search is loaded (or compiled, on a cold cache) in the "
        "background while the engine already answers. 'go mate N' is answered by df-pn.",
    )
    parser.add_argument("--db", metavar="DIR", default="",
                        help="database directory: the initial value of DatabasePath")
    parser.add_argument("--json", action="store_true",
                        help="accepted for uniformity with the other commands; UCI is a text "
                        "protocol, so the output is the same")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve UCI until quit or the end of input."""
    from solver.uci import UciEngine

    return UciEngine(sys.stdout, sys.stderr, database_path=args.db).run(sys.stdin)
