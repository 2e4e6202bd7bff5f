"""Benchmark: the search in endings with the endgame tables at its leaves against the same search
without them, in the same run: nodes/s and depth reached in a fixed time.

    python scripts/bench_table_search.py --db DIR [--seconds 1] [--positions 16] [--max-men 6]
                                         [--cache-blocks N]

The positions are the first ``--positions`` of the endgame suite (``docs/results/
endgame-suite.epd``) with at most ``--max-men`` men: there most lines reach a table within the
horizon. Each is searched for ``--seconds`` by both players in turn (tables first, a fresh
transposition table each), so that a change in the machine's load hits both. The tables' player
probes the packed WDL50 (and any table without a pack from its pages); ``--cache-blocks`` sets
its decoded-block cache (default ``databases.packed.CACHE_BLOCKS``). A node with tables does
more work (the probe) but the tree is smaller where a probe ends a line, so depth is printed
beside nodes/s. The compile (or cache load) before the first search is not timed.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent / "docs" / "results" / "endgame-suite.epd"


def suite_positions(count: int, max_men: int) -> list[str]:
    """The first ``count`` FENs of the endgame suite with at most ``max_men`` men."""
    fens = []
    for line in SUITE.read_text().splitlines():
        board = line.split(" c0")[0].strip()
        if board and sum(c.isalpha() for c in board.split()[0]) <= max_men:
            fens.append(board + " 0 1")
    return fens[:count]


def main() -> int:
    """Search each position with tables and without, and print both and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="the table directory (as `solver build --db`)")
    parser.add_argument("--seconds", type=float, default=1.0, help="search time per position and player")
    parser.add_argument("--positions", type=int, default=16)
    parser.add_argument("--max-men", type=int, default=6)
    parser.add_argument("--cache-blocks", type=int, default=None,
                        help="decoded blocks the packed probe caches (a power of two)")
    args = parser.parse_args()
    import games
    import databases.packed as packed
    from solver.search.player import Limits, Player
    from solver.search.table_leaves import EndgameTables

    if args.cache_blocks is not None:
        if args.cache_blocks < 1 or args.cache_blocks & (args.cache_blocks - 1):
            sys.exit("bench_table_search: --cache-blocks must be a power of two")
        packed.PackedTables.__init__.__defaults__ = (args.cache_blocks,)
    game = games.get("chess")
    fens = suite_positions(args.positions, args.max_men)
    if not fens:
        sys.exit(f"bench_table_search: no suite position has at most {args.max_men} men")
    players = {"tables": Player(game, hash_mb=16, tables=EndgameTables(game, args.db)),
               "none": Player(game, hash_mb=16)}
    for player in players.values():  # compile or load the search before the timed ones
        player.search(game.parse_position(fens[0]), Limits(depth=3))
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    totals = {name: [0, 0.0, 0] for name in players}
    for fen in fens:
        row = [fen]
        for name, player in players.items():
            player.new_game()
            result = player.search(game.parse_position(fen), Limits(time=args.seconds))
            total = totals[name]
            total[0] += result.nodes
            total[1] += result.seconds
            total[2] += result.depth
            row.append(f"{name}: depth {result.depth} {result.nps / 1e6:.2f} M nodes/s tbhits {result.tbhits}")
        print("  ".join(row), flush=True)
    nps = {name: nodes / seconds for name, (nodes, seconds, _) in totals.items()}
    depth = {name: plies / len(fens) for name, (_, _, plies) in totals.items()}
    for name in players:
        print(f"{name:>6}: {nps[name] / 1e6:.2f} M nodes/s, mean depth {depth[name]:.1f}")
    print(f"tables / none: nodes/s {nps['tables'] / nps['none']:.2f}, "
          f"depth {depth['tables'] - depth['none']:+.1f} plies ({len(fens)} positions, {args.seconds:g} s each)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
