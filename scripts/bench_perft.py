"""Perft speed: nodes per second for every game, compile time excluded.

    python scripts/bench_perft.py [--repeat N]

Each case runs once to warm up (compiling or loading the numba cache), then N timed runs; the
best is reported. Perft counts leaves in bulk one ply above the horizon, as Stockfish's does.
"""
from __future__ import annotations

import argparse
import time

import games
from games.perft import perft

CASES = [
    # game, position, depth, expected nodes (from the issue or an independent reference)
    ("tictactoe", "startpos", 9, 127872),
    ("connect4", "startpos", 9, 39394572),
    ("connect4", "4453", 9, None),
]


def time_perft(game, position, depth, repeat):
    """(nodes, best seconds) over ``repeat`` timed runs after one warm-up."""
    nodes = perft(game, position, depth)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        perft(game, position, depth)
        best = min(best, time.perf_counter() - started)
    return nodes, best


def main() -> None:
    """Run every case and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'game':10} {'position':10} {'depth':>5} {'nodes':>12} {'seconds':>8} {'nodes/s':>14}")
    for name, text, depth, expected in CASES:
        game = games.get(name)
        nodes, seconds = time_perft(game, game.parse_position(text), depth, args.repeat)
        check = "" if expected is None else ("  ok" if nodes == expected else f"  WRONG (expected {expected})")
        print(f"{name:10} {text:10} {depth:>5} {nodes:>12} {seconds:>8.3f} {nodes / seconds:>14,.0f}{check}")


if __name__ == "__main__":
    main()
