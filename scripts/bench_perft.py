"""Perft speed: nodes per second for every game, compile time excluded.

    python scripts/bench_perft.py [--repeat N] [--stockfish PATH]

Each case runs once to warm up (compiling or loading the numba cache), then N timed runs; the
best is reported. Perft counts leaves in bulk one ply above the horizon, as Stockfish's does.
For chess, Stockfish's ``go perft`` (one thread) runs on the same positions in the same run, when
a ``stockfish`` binary is found (PATH, /usr/games/stockfish, or --stockfish), and the ratio
ours / Stockfish is printed.
"""
from __future__ import annotations

import argparse
import subprocess
import time

import games
from games.perft import perft

from common import find_stockfish

CASES = [
    # game, position, depth, expected nodes (from the issue or an independent reference)
    ("tictactoe", "startpos", 9, 127872),
    ("connect4", "startpos", 9, 39394572),
    ("connect4", "4453", 9, None),
    ("chess", "startpos", 6, 119060324),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", 5, 193690690),
]
CHESS_NAMES = {"startpos": "startpos", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -": "kiwipete"}


def time_perft(game, position, depth, repeat):
    """(nodes, best seconds) over ``repeat`` timed runs after one warm-up."""
    nodes = perft(game, position, depth)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        perft(game, position, depth)
        best = min(best, time.perf_counter() - started)
    return nodes, best


def time_stockfish(binary: str, fen: str, depth: int, repeat: int) -> tuple[int, float]:
    """(nodes, best seconds) of Stockfish's ``go perft`` over ``repeat`` runs in one process,
    timed from the command to its "Nodes searched" line (start-up excluded), one thread."""
    engine = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(command: str) -> None:
        engine.stdin.write(command + "\n")
        engine.stdin.flush()

    def wait_for(prefix: str) -> str:
        for line in engine.stdout:
            if line.startswith(prefix):
                return line
        raise RuntimeError(f"stockfish ended before printing {prefix!r}")

    position = "startpos" if fen == "startpos" else f"fen {fen}"
    send("uci")
    wait_for("uciok")
    send("setoption name Threads value 1")
    send(f"position {position}")
    send("isready")
    wait_for("readyok")
    best, nodes = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        send(f"go perft {depth}")
        nodes = int(wait_for("Nodes searched").split(":")[1])
        best = min(best, time.perf_counter() - started)
    send("quit")
    engine.wait()
    return nodes, best


def main() -> None:
    """Run every case and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stockfish", help="path of a Stockfish binary for the chess comparison")
    args = parser.parse_args()
    stockfish = find_stockfish(args.stockfish)
    print(f"{'game':10} {'position':10} {'depth':>5} {'nodes':>12} {'seconds':>8} {'nodes/s':>14}")
    chess_rows = []
    for name, text, depth, expected in CASES:
        game = games.get(name)
        nodes, seconds = time_perft(game, game.parse_position(text), depth, args.repeat)
        check = "" if expected is None else ("  ok" if nodes == expected else f"  WRONG (expected {expected})")
        label = CHESS_NAMES.get(text, text) if name == "chess" else text
        print(f"{name:10} {label:10} {depth:>5} {nodes:>12} {seconds:>8.3f} {nodes / seconds:>14,.0f}{check}")
        if name == "chess":
            chess_rows.append((label, text, depth, nodes / seconds))
    if not stockfish:
        print("\nstockfish not found: no chess comparison (install Debian's stockfish or pass --stockfish)")
        return
    print(f"\nchess perft vs Stockfish ({stockfish}, go perft, 1 thread)")
    print(f"{'position':10} {'depth':>5} {'ours nodes/s':>14} {'stockfish nodes/s':>18} {'ratio':>7}")
    for label, text, depth, ours in chess_rows:
        sf_nodes, sf_seconds = time_stockfish(stockfish, text, depth, args.repeat)
        theirs = sf_nodes / sf_seconds
        print(f"{label:10} {depth:>5} {ours:>14,.0f} {theirs:>18,.0f} {ours / theirs:>7.2f}")


if __name__ == "__main__":
    main()
