"""Search speed: `solver bench` nodes/s next to Stockfish's `bench` nodes/s, in the same run.

    python scripts/bench_search.py [--rounds N] [--depth D] [--stockfish PATH] [--sf-depth D]

Both are the engines' own bench commands, one thread each, run alternately ``--rounds`` times
(default 3) so that a change in the machine's load hits both; the best round of each is
reported with the ratio ours / Stockfish. Stockfish 15.1's bench searches its 47 positions to
``--sf-depth`` (default 13, its own default) with NNUE; ours searches the 16 positions of
solver/search/bench_positions.py to ``--depth``. The compile (or cache load) before our first
search is not timed. Also prints the load average before and after, to be quoted with the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

from common import find_stockfish


def ours(depth: int) -> dict:
    """One `solver bench` run: its JSON result."""
    done = subprocess.run([sys.executable, "-m", "solver", "bench", "--depth", str(depth), "--json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def stockfish(binary: str, depth: int) -> dict:
    """One `stockfish bench 16 1 DEPTH default depth` run: nodes and nodes/s from its report."""
    done = subprocess.run([binary, "bench", "16", "1", str(depth), "default", "depth"],
                          capture_output=True, text=True, check=True)
    report = done.stdout + done.stderr
    nodes = int(re.search(r"Nodes searched\s*:\s*(\d+)", report).group(1))
    nps = int(re.search(r"Nodes/second\s*:\s*(\d+)", report).group(1))
    return {"nodes": nodes, "nps": nps}


def main() -> int:
    """Run both benches alternately and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--depth", type=int, default=None, help="our bench depth (default: solver bench's)")
    parser.add_argument("--sf-depth", type=int, default=13)
    parser.add_argument("--stockfish", default=None)
    args = parser.parse_args()
    binary = find_stockfish(args.stockfish)
    if binary is None:
        sys.exit("bench_search: no stockfish binary (apt-get install stockfish, or --stockfish PATH)")
    if args.depth is None:
        from solver.commands.bench import DEFAULT_DEPTH

        args.depth = DEFAULT_DEPTH
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    ours(1)  # load or compile the search before the timed rounds
    best_ours, best_sf = None, None
    for round_number in range(1, args.rounds + 1):
        mine = ours(args.depth)
        theirs = stockfish(binary, args.sf_depth)
        print(f"round {round_number}: solver bench depth {args.depth}: {mine['nodes']:,} nodes, "
              f"{mine['nps']:,} nodes/s | stockfish bench depth {args.sf_depth}: {theirs['nodes']:,} nodes, "
              f"{theirs['nps']:,} nodes/s | ratio {mine['nps'] / theirs['nps']:.2f}")
        best_ours = mine if best_ours is None or mine["nps"] > best_ours["nps"] else best_ours
        best_sf = theirs if best_sf is None or theirs["nps"] > best_sf["nps"] else best_sf
    print(f"best: solver {best_ours['nps']:,} nodes/s (signature {best_ours['nodes']} nodes), "
          f"stockfish {best_sf['nps']:,} nodes/s; ratio {best_ours['nps'] / best_sf['nps']:.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
