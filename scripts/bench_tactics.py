"""Tactical test suites: how many key moves the engine finds at a fixed time per position, next
to Stockfish in the same run.

    python scripts/bench_tactics.py SUITE.epd [--seconds 1] [--limit N] [--stockfish PATH]

SUITE is EPD with ``bm`` (best move: solved when the engine plays one of them) and/or ``am``
(avoid move: solved when it plays none of them), as the classic suites (WAC, ECM, STS, the
mate sets in $SOLVER_ORACLE_DATA/chess) are written. Both engines run through UCI
(python-chess), one thread each, ``go movetime`` per position, a new game before each.
"""
from __future__ import annotations

import argparse
import sys
import time

import chess
import chess.engine

from common import find_stockfish


def load_suite(path: str, limit: int | None) -> list[tuple[chess.Board, dict]]:
    """(board, operations) of every EPD line with a bm or am."""
    cases = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        board, operations = chess.Board.from_epd(line)
        if "bm" in operations or "am" in operations:
            cases.append((board, operations))
    return cases[:limit] if limit else cases


def solved(move: chess.Move, operations: dict) -> bool:
    """Whether ``move`` satisfies the position's bm/am."""
    if "bm" in operations and move not in operations["bm"]:
        return False
    return not ("am" in operations and move in operations["am"])


def run(command: list[str], cases, seconds: float, options: dict) -> tuple[int, float]:
    """(solved, seconds spent) for one engine over the suite."""
    engine = chess.engine.SimpleEngine.popen_uci(command)
    try:
        engine.configure({name: value for name, value in options.items() if name in engine.options})
        engine.play(chess.Board(), chess.engine.Limit(time=0.1))  # load before timing
        count, started = 0, time.monotonic()
        for board, operations in cases:
            result = engine.play(board, chess.engine.Limit(time=seconds), game=object())
            count += solved(result.move, operations)
        return count, time.monotonic() - started
    finally:
        engine.quit()


def main() -> int:
    """Run the suite with both engines and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions")
    parser.add_argument("--stockfish", default=None)
    args = parser.parse_args()
    cases = load_suite(args.suite, args.limit)
    if not cases:
        sys.exit(f"bench_tactics: no position with bm or am in {args.suite}")
    ours, ours_seconds = run([sys.executable, "-m", "solver", "uci"], cases, args.seconds, {"Hash": 64})
    print(f"solver: {ours}/{len(cases)} = {100 * ours / len(cases):.1f}% at {args.seconds:g} s a position "
          f"({ours_seconds:.0f} s)")
    binary = find_stockfish(args.stockfish)
    if binary:
        theirs, theirs_seconds = run([binary], cases, args.seconds, {"Hash": 64, "Threads": 1})
        print(f"stockfish: {theirs}/{len(cases)} = {100 * theirs / len(cases):.1f}% ({theirs_seconds:.0f} s); "
              f"ratio solved {ours / max(theirs, 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
