"""What each search feature is worth: nodes and time to depth on the bench, and (optionally)
Elo from fixed-node self-play with the feature off against the default engine.

    python scripts/bench_features.py [--depth 10] [--features multi_cut,null_move,...]
                                     [--games 0] [--nodes 20000] [--pgn-dir DIR]

Part 1 runs `solver bench --depth D` with every feature on, then once with each feature off,
and prints nodes and seconds relative to all-on (a feature that prunes well makes the search
reach the depth in fewer nodes; a ratio above 1 means the feature saves that factor). Part 2,
with ``--games N``, plays N games (pairs from the opening book) at ``--nodes`` per move between
`solver uci` with the feature off (engine A) and with it on, through scripts/match.py; a
negative Elo for A means the feature is worth that much. Features off by default
(solver.search.switches.DEFAULTS) are switched on for the comparison.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from solver.search.switches import DEFAULTS, NAMES

FEATURES = tuple(name for name in NAMES if name != "tt_cutoffs") + ("tt_cutoffs",)  # TT cutoffs last
UCI_OPTION = {"multi_cut": "MultiCut", "null_move": "NullMove", "lmr": "LateMoveReductions",
              "reverse_futility": "ReverseFutility", "futility": "Futility", "check_extension": "CheckExtension",
              "quiescence_see": "QuiescenceSEE", "aspiration": "AspirationWindows", "tt_cutoffs": "TTCutoffs"}
HERE = Path(__file__).resolve().parent


def bench(depth: int, disabled: list[str]) -> dict:
    """One `solver bench` run with ``disabled`` features off and every other one on."""
    command = [sys.executable, "-m", "solver", "bench", "--depth", str(depth), "--json"]
    for name in disabled:
        command += ["--disable", name]
    for name in NAMES:
        if not DEFAULTS[name] and name not in disabled:
            command += ["--enable", name]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def self_play(feature: str, games: int, nodes: int, pgn_dir: Path) -> dict:
    """Feature off (A) against the default (B) at fixed nodes; match.py's JSON summary."""
    summary = pgn_dir / f"{feature}.json"
    off = f"cmd={sys.executable} -m solver uci,name={feature}-off,option.{UCI_OPTION[feature]}=false"
    on = f"cmd={sys.executable} -m solver uci,name={feature}-on,option.{UCI_OPTION[feature]}=true"
    subprocess.run([sys.executable, str(HERE / "match.py"), "--engine", off, "--engine", on, "--games", str(games),
                    "--nodes", str(nodes), "--seed", "7", "--pgn", str(pgn_dir / f"{feature}.pgn"), "--resume",
                    "--json", str(summary), "--concurrency", str(max(1, (os.cpu_count() or 2) // 2))],
                   check=True)
    return json.loads(summary.read_text())


def main() -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--features", default=",".join(FEATURES))
    parser.add_argument("--games", type=int, default=0)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--pgn-dir", type=Path, default=Path("feature-games"))
    args = parser.parse_args()
    features = [name for name in args.features.split(",") if name]
    unknown = sorted(set(features) - set(FEATURES))
    if unknown:
        sys.exit(f"bench_features: unknown feature {unknown[0]!r} (known: {', '.join(FEATURES)})")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    bench(1, [])  # load the search
    base = bench(args.depth, [])
    print(f"every feature on: {base['nodes']:,} nodes, {base['seconds']:.2f} s to depth {args.depth}")
    plain_depth = min(args.depth, 6)  # with nothing pruned, deeper takes hours
    pruned, plain = bench(plain_depth, []), bench(plain_depth, list(FEATURES[:-1]))
    print(f"depth {plain_depth}: every pruning, reduction and extension off (TT cutoffs kept): "
          f"{plain['nodes']:,} nodes against {pruned['nodes']:,} ({plain['nodes'] / pruned['nodes']:.1f}x)")
    for name in features:
        off = bench(args.depth, [name])
        print(f"{name} off: {off['nodes']:,} nodes ({off['nodes'] / base['nodes']:.2f}x), "
              f"{off['seconds']:.2f} s ({off['seconds'] / base['seconds']:.2f}x)")
    if args.games:
        args.pgn_dir.mkdir(parents=True, exist_ok=True)
        for name in features:
            result = self_play(name, args.games, args.nodes, args.pgn_dir)
            print(f"{name} off vs default, {args.games} games at {args.nodes} nodes/move: "
                  f"{json.dumps(result.get('elo', result))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
