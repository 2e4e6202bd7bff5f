"""Proof-number search speed: Pons' Connect Four sets and the chess mate sets.

    SOLVER_ORACLE_DATA=../shared/data python scripts/bench_prove.py [--count N] [--table-mb MB]

Connect Four: each position's value (win/draw/loss) from two df-pn proofs, checked against
the sign of Pons' score. Chess: `win` (checkmate) within the EPD's `dm` depth (2*dm-1 plies),
the key move checked against `bm`. One warm-up search first (numba cache load), then per set the
mean, median and max seconds per position and nodes/s, next to the reference figures of issue 5
(Pons' solver, exact scores, on this machine). When a Stockfish binary is found (PATH or
/usr/games/stockfish), its `go mate N` on the same mate problems is measured in the same run
(one thread, 16 MiB hash, timed from `go` to `bestmove`, start-up excluded) and the ratio of
medians is printed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

import games
from bench_perft import find_stockfish
from proofsearch.dfpn import DfpnSearch
from proofsearch.table import TranspositionTable
from proofsearch.value import solve_value

PONS_MEAN_SECONDS = {"Test_L3_R1": 10e-6, "Test_L2_R1": 0.1e-3, "Test_L2_R2": 8e-3, "Test_L1_R1": 0.5e-3}
STOCKFISH_MEDIAN_SECONDS = 3e-3  # real-game mates in 2-4: median 2-4 ms of engine time


def connect4_set(path: Path, count: int | None, megabytes: float) -> dict:
    """Solve every position of one Pons set; return the figures."""
    game = games.get("connect4")
    search = DfpnSearch(game, TranspositionTable.from_megabytes(megabytes))
    solve_value(search, game.parse_position("4"), max_nodes=1000)  # warm-up
    seconds, nodes, wrong, unsolved = [], 0, 0, 0
    for line in path.read_text().split("\n")[:count]:
        if not line.strip():
            continue
        moves, score = line.split()
        position = game.parse_position(moves)
        started = time.perf_counter()
        value, spent = solve_value(search, position)
        seconds.append(time.perf_counter() - started)
        nodes += spent
        expected = "win" if int(score) > 0 else "loss" if int(score) < 0 else "draw"
        unsolved += value == "unknown"
        wrong += value not in ("unknown", expected)
    return _figures(seconds, nodes, wrong, unsolved)


def chess_set(path: Path, count: int | None, megabytes: float) -> dict:
    """Prove every mate of one EPD set within its dm depth."""
    try:
        import chess  # python-chess, only to read the `bm` SAN moves
    except ImportError:
        chess = None
    game = games.get("chess")
    search = DfpnSearch(game, TranspositionTable.from_megabytes(megabytes))
    seconds, nodes, wrong, unsolved, key_moves = [], 0, 0, 0, 0
    lines = [line for line in path.read_text().split("\n") if line.strip()][:count]
    for index, line in enumerate(lines):
        fields = line.split()
        fen = " ".join(fields[:4])
        ops = dict(op.strip().split(" ", 1) for op in " ".join(fields[4:]).split(";") if op.strip())
        depth = 2 * int(ops["dm"]) - 1
        position = game.parse_position(fen)
        if index == 0:
            search.prove(position, "win", max_nodes=100, max_depth=depth)  # warm-up
        started = time.perf_counter()
        found = search.prove(position, "win", max_depth=depth, seconds=60)
        seconds.append(time.perf_counter() - started)
        nodes += found.nodes
        if found.result != "proven":
            unsolved += 1
            continue
        if chess is not None:
            board = chess.Board(fen + " 0 1")
            keys = {board.parse_san(san).uci() for san in ops.get("bm", "").split()}
            key_moves += game.format_move(position, found.best) in keys
    figures = _figures(seconds, nodes, wrong, unsolved)
    figures["bm"] = key_moves
    return figures


def stockfish_mates(binary: str, path: Path, count: int | None) -> tuple[list[float], int]:
    """(seconds per problem, problems where Stockfish reported a mate within dm) for
    `go mate dm` on every problem of an EPD set, in one engine process."""
    engine = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(command: str) -> None:
        engine.stdin.write(command + "\n")
        engine.stdin.flush()

    def read_until(prefix: str) -> list[str]:
        lines = []
        for line in engine.stdout:
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise RuntimeError(f"stockfish ended before printing {prefix!r}")

    send("uci")
    read_until("uciok")
    send("setoption name Threads value 1")
    send("setoption name Hash value 16")
    seconds, found = [], 0
    for line in [line for line in path.read_text().split("\n") if line.strip()][:count]:
        fields = line.split()
        ops = dict(op.strip().split(" ", 1) for op in " ".join(fields[4:]).split(";") if op.strip())
        moves = int(ops["dm"])
        send("ucinewgame")
        send(f"position fen {' '.join(fields[:4])} 0 1")
        send("isready")
        read_until("readyok")
        started = time.perf_counter()
        send(f"go mate {moves}")
        output = read_until("bestmove")
        seconds.append(time.perf_counter() - started)
        mates = [int(l.split(" score mate ")[1].split()[0]) for l in output if " score mate " in l]
        found += bool(mates) and 0 < mates[-1] <= moves
    send("quit")
    engine.wait()
    return seconds, found


def _figures(seconds: list[float], nodes: int, wrong: int, unsolved: int) -> dict:
    total = sum(seconds)
    return {"positions": len(seconds), "mean": total / len(seconds), "median": statistics.median(seconds),
            "max": max(seconds), "nodes_per_second": nodes / max(total, 1e-9), "wrong": wrong,
            "unsolved": unsolved}


def main() -> None:
    """Run every set and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=None, help="positions per set (default: all)")
    parser.add_argument("--table-mb", type=float, default=64.0)
    parser.add_argument("--only", choices=("connect4", "chess"), default=None)
    args = parser.parse_args()
    data = Path(os.environ.get("SOLVER_ORACLE_DATA", "../shared/data"))
    print(f"{'set':22} {'n':>5} {'mean s':>9} {'median s':>9} {'max s':>8} {'nodes/s':>10} "
          f"{'wrong':>5} {'unsolved':>8}  reference")
    if args.only in (None, "connect4"):
        for name, reference in PONS_MEAN_SECONDS.items():
            f = connect4_set(data / "connect4" / name, args.count, args.table_mb)
            print(f"{'connect4/' + name:22} {f['positions']:>5} {f['mean']:>9.5f} {f['median']:>9.5f} "
                  f"{f['max']:>8.3f} {f['nodes_per_second']:>10,.0f} {f['wrong']:>5} {f['unsolved']:>8}  "
                  f"Pons mean {reference * 1e3:g} ms (exact scores): ours {f['mean'] / reference:,.1f}x", flush=True)
    if args.only in (None, "chess"):
        stockfish = find_stockfish(None)
        for name in ("mate-in-2.epd", "mate-in-3.epd"):
            f = chess_set(data / "chess" / name, args.count, args.table_mb)
            if stockfish:
                times, mates = stockfish_mates(stockfish, data / "chess" / name, args.count)
                reference = statistics.median(times)
                source = f"Stockfish measured: median {reference * 1e3:.2f} ms, mates found {mates}"
            else:
                reference = STOCKFISH_MEDIAN_SECONDS
                source = f"Stockfish median ~{reference * 1e3:g} ms (issue's figure)"
            print(f"{'chess/' + name:22} {f['positions']:>5} {f['mean']:>9.5f} {f['median']:>9.5f} "
                  f"{f['max']:>8.3f} {f['nodes_per_second']:>10,.0f} {f['wrong']:>5} {f['unsolved']:>8}  "
                  f"{source}: ours/Stockfish median {f['median'] / reference:,.2f}x; best = bm in {f['bm']}",
                  flush=True)


if __name__ == "__main__":
    main()
