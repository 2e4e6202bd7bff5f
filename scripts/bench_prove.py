"""Proof-number search speed: Pons' Connect Four sets and the chess mate sets, next to Pascal
Pons' solver and Stockfish measured in the same run.

    SOLVER_ORACLE_DATA=../shared/data python scripts/bench_prove.py [--count N] [--table-mb MB]
        [--pons PATH] [--stockfish PATH] [--check-every N] [--positions MOVES ...] [--no-reference]

Connect Four: each position's value (win/draw/loss) from two df-pn proofs, compared with the
sign of the set's score (Pons'). Chess: `win` (checkmate) within the EPD's `dm` depth (2*dm-1
plies); every problem is a mate in dm (the set's README), so a `disproven` answer is wrong; the
key move is compared with `bm`. Proofs are written out with `extract_proof` and re-checked by
the independent checker (`proofsearch.checker`, as `solver check-proof`): every chess proof,
and every ``--check-every``-th Connect Four position's proofs, found again after the timed pass
(extraction and checking are not timed). An invalid proof counts as wrong. One warm-up search
first (numba cache load), then per set the mean, median and max seconds per position and nodes/s.

References, measured in the same run on the same positions:
- Connect Four: Pascal Pons' solver (``c4solver`` from PascalPons/connect4; ``--pons PATH``,
  default $PONS_SOLVER or ``c4solver`` on PATH), in one process fed one position per line,
  timed from writing the line to reading its answer (start-up and opening book load excluded
  by a first, untimed position); weak mode (``-w``: win/draw/loss, like ours) unless
  ``--pons-exact``. Its answers are checked against the set too.
- Chess: Stockfish's ``go mate N`` (``--stockfish PATH``, default PATH or /usr/games/stockfish;
  one thread, 16 MiB hash, timed from `go` to `bestmove`, start-up excluded).
``--positions`` adds single Connect Four positions (issue 13's ``4453``), each solved with a
fresh table by us and by a fresh Pons process (warmed up on a late-game position), Pons' score
the oracle.
A missing reference stops the script with one line, unless ``--no-reference`` (ours alone, no
ratios).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import games
from common import find_stockfish, oracle_data
from proofsearch.checker import check_document
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import extract_proof
from proofsearch.table import TranspositionTable

CONNECT4_SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1")
CHESS_SETS = ("mate-in-2.epd", "mate-in-3.epd")


def read_pons_set(path: Path, count: int | None) -> list[tuple[str, int]]:
    """(moves, score) lines of one of Pons' sets."""
    lines = [line.split() for line in path.read_text().split("\n") if line.strip()][:count]
    return [(moves, int(score)) for moves, score in lines]


def read_mate_set(path: Path, count: int | None) -> list[tuple[str, dict]]:
    """(FEN's four fields, EPD operations) of one mate set."""
    problems = []
    for line in [line for line in path.read_text().split("\n") if line.strip()][:count]:
        fields = line.split()
        ops = dict(op.strip().split(" ", 1) for op in " ".join(fields[4:]).split(";") if op.strip())
        problems.append((" ".join(fields[:4]), ops))
    return problems


def sign_value(score: int) -> str:
    return "win" if score > 0 else "loss" if score < 0 else "draw"


class Prover:
    """df-pn with timing that leaves out proof extraction and checking."""

    def __init__(self, game, megabytes: float):
        self.game = game
        self.search = DfpnSearch(game, TranspositionTable.from_megabytes(megabytes))
        self.seconds = 0.0
        self.nodes = 0
        self.checked = 0
        self.invalid = 0

    def prove(self, position, goal: str, check: bool, **limits):
        """One timed search; with ``check``, its proof (if solved) extracted and checked."""
        started = time.perf_counter()
        found = self.search.prove(position, goal, **limits)
        self.seconds += time.perf_counter() - started
        self.nodes += found.nodes
        if check and found.result in ("proven", "disproven"):
            document = extract_proof(self.search, position, goal, found.result,
                                     max_depth=limits.get("max_depth"))
            verdict = check_document(self.game, document)
            self.checked += 1
            if not verdict.valid or verdict.nodes != document["size"]:
                self.invalid += 1
                print(f"  invalid proof for {self.game.format_position(position)} ({goal}): "
                      f"{verdict.reason}", file=sys.stderr)
                return found, False
        return found, True


def connect4_set(lines: list[tuple[str, int]], megabytes: float, check_every: int) -> dict:
    """Solve every position of ``lines`` (moves, score: a Pons set, or single positions with
    the score Pons' solver gave); return the figures. The proofs of every ``check_every``-th
    position are found again and checked after the timed pass: checked in between, the
    checker's Python work slowed the searches after it by about 30% on this machine."""
    game = games.get("connect4")
    prover = Prover(game, megabytes)
    prover.search.prove(game.parse_position("4"), "win", max_nodes=1000)  # warm-up
    seconds, wrong, unsolved = [], 0, 0
    for moves, score in lines:
        position = game.parse_position(moves)
        before = prover.seconds
        value = connect4_value(prover, position, check=False)
        seconds.append(prover.seconds - before)
        unsolved += value == "unknown"
        wrong += value not in ("unknown", sign_value(score))
    figures = _figures(seconds, prover, wrong, unsolved)
    if check_every > 0:
        timed = prover.seconds, prover.nodes
        for moves, score in lines[::check_every]:
            value = connect4_value(prover, game.parse_position(moves), check=True)
            figures["wrong"] += value == "invalid"
        prover.seconds, prover.nodes = timed
        figures.update(checked=prover.checked, invalid=prover.invalid)
    return figures


def connect4_value(prover: Prover, position, check: bool) -> str:
    """The value of ``position`` for the side to move from a ``win`` proof and, if that fails,
    a ``draw`` proof: win, draw, loss, unknown, or invalid (a proof the checker rejects)."""
    first, valid = prover.prove(position, "win", check)
    if first.result == "proven":
        value = "win"
    elif first.result == "unknown":
        value = "unknown"
    else:
        second, second_valid = prover.prove(position, "draw", check)
        valid = valid and second_valid
        value = {"proven": "draw", "disproven": "loss"}.get(second.result, "unknown")
    return value if valid else "invalid"


def chess_set(path: Path, count: int | None, megabytes: float) -> dict:
    """Prove every mate of one EPD set within its dm depth; check every proof."""
    import chess  # python-chess, to read the `bm` SAN moves

    game = games.get("chess")
    prover = Prover(game, megabytes)
    seconds, wrong, unsolved, key_moves = [], 0, 0, 0
    for index, (fen, ops) in enumerate(read_mate_set(path, count)):
        depth = 2 * int(ops["dm"]) - 1
        position = game.parse_position(fen)
        if index == 0:
            prover.search.prove(position, "win", max_nodes=100, max_depth=depth)  # warm-up
        before = prover.seconds
        found, valid = prover.prove(position, "win", True, max_depth=depth, seconds=60)
        seconds.append(prover.seconds - before)
        if found.result == "unknown":
            unsolved += 1
            continue
        if found.result != "proven" or not valid:  # the set says: mate in dm
            wrong += 1
            continue
        board = chess.Board(fen + " 0 1")
        keys = {board.parse_san(san).uci() for san in ops.get("bm", "").split()}
        key_moves += game.format_move(position, found.best) in keys
    figures = _figures(seconds, prover, wrong, unsolved)
    figures["bm"] = key_moves
    return figures


def _figures(seconds: list[float], prover: Prover, wrong: int, unsolved: int) -> dict:
    total = sum(seconds)
    return {"positions": len(seconds), "mean": total / len(seconds), "median": statistics.median(seconds),
            "max": max(seconds), "nodes_per_second": prover.nodes / max(total, 1e-9), "wrong": wrong,
            "unsolved": unsolved, "checked": prover.checked, "invalid": prover.invalid}


def pons_times(binary: str, lines: list[tuple[str, int | None]], exact: bool,
               warm_up: str | None = None) -> tuple[list[float], int, list[int]]:
    """(seconds per position, answers disagreeing with the set, the answers) of Pons' solver,
    one process. A score of None is not compared."""
    engine = subprocess.Popen([binary] + ([] if exact else ["-w"]), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1,
                              cwd=os.path.dirname(os.path.abspath(binary)))

    def ask(moves: str) -> int:
        line = "" if moves == "startpos" else moves  # Pons' empty board is the empty line
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        answer = engine.stdout.readline().split()
        if answer[:-1] != line.split() or len(answer) < 1:
            raise RuntimeError(f"Pons' solver answered {answer!r} to {moves!r}")
        return int(answer[-1])

    # Start-up, untimed: a late-game position of the set (an early one such as "4" takes this
    # solver minutes without its opening book, which is not part of its repository).
    ask(warm_up or max(lines, key=lambda line: len(line[0]))[0])
    seconds, wrong, answers = [], 0, []
    for moves, score in lines:
        started = time.perf_counter()
        answer = ask(moves)
        seconds.append(time.perf_counter() - started)
        answers.append(answer)
        if score is not None:
            wrong += answer != score if exact else sign_value(answer) != sign_value(score)
    engine.stdin.close()
    engine.wait()
    return seconds, wrong, answers


def stockfish_mates(binary: str, problems: list[tuple[str, dict]]) -> tuple[list[float], int]:
    """(seconds per problem, problems where Stockfish reported a mate within dm) for
    `go mate dm` on every problem, in one engine process."""
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
    for fen, ops in problems:
        moves = int(ops["dm"])
        send("ucinewgame")
        send(f"position fen {fen} 0 1")
        send("isready")
        read_until("readyok")
        started = time.perf_counter()
        send(f"go mate {moves}")
        output = read_until("bestmove")
        seconds.append(time.perf_counter() - started)
        mates = [int(line.split(" score mate ")[1].split()[0]) for line in output if " score mate " in line]
        found += bool(mates) and 0 < mates[-1] <= moves
    send("quit")
    engine.wait()
    return seconds, found


def find_pons(explicit: str | None) -> str | None:
    """Pons' solver: --pons, else $PONS_SOLVER, else ``c4solver`` on PATH."""
    candidate = explicit or os.environ.get("PONS_SOLVER") or shutil.which("c4solver")
    return candidate if candidate and os.access(candidate, os.X_OK) else None


def load_average() -> str:
    with open("/proc/loadavg") as load:
        return " ".join(load.read().split()[:3])


def main() -> int:
    """Run every set and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=None, help="positions per set (default: all)")
    parser.add_argument("--table-mb", type=float, default=64.0)
    parser.add_argument("--only", choices=("connect4", "chess"), default=None)
    parser.add_argument("--pons", help="Pons' c4solver binary (default $PONS_SOLVER, or c4solver on PATH)")
    parser.add_argument("--pons-exact", action="store_true", help="Pons' exact scores (default: -w, weak)")
    parser.add_argument("--stockfish", help="Stockfish binary (default: PATH, /usr/games/stockfish)")
    parser.add_argument("--check-every", type=int, default=10,
                        help="check the proofs of every N-th Connect Four position (0: none; chess: all)")
    parser.add_argument("--positions", nargs="*", default=[], metavar="MOVES",
                        help="Connect Four positions to time one by one after the sets (e.g. 4453, or "
                             "startpos: a few minutes each side, use --table-mb 4096), each "
                             "with a fresh table and a fresh Pons process; Pons' answer is the oracle")
    parser.add_argument("--no-reference", action="store_true",
                        help="measure ours alone when a reference is missing (no ratios)")
    args = parser.parse_args()
    data = oracle_data()
    do_connect4 = args.only in (None, "connect4")
    do_chess = args.only in (None, "chess")
    pons = find_pons(args.pons) if do_connect4 else None
    stockfish = find_stockfish(args.stockfish) if do_chess else None
    if not args.no_reference:
        if do_connect4 and pons is None:
            print("bench_prove: Pons' solver not found: build c4solver (PascalPons/connect4) and pass "
                  "--pons PATH, or --no-reference to measure ours alone", file=sys.stderr)
            return 2
        if do_chess and stockfish is None:
            print("bench_prove: stockfish not found: install it (Debian: stockfish) or pass --stockfish "
                  "PATH, or --no-reference to measure ours alone", file=sys.stderr)
            return 2
    print(f"machine: {os.cpu_count()} cores, load average {load_average()} at the start")
    print(f"{'set':22} {'n':>5} {'mean s':>9} {'median s':>9} {'max s':>8} {'nodes/s':>10} "
          f"{'wrong':>5} {'unsolved':>8} {'checked':>7} {'invalid':>7}  reference")
    row = ("{name:22} {positions:>5} {mean:>9.5f} {median:>9.5f} {max:>8.3f} {nodes_per_second:>10,.0f} "
           "{wrong:>5} {unsolved:>8} {checked:>7} {invalid:>7}  ")
    if do_connect4:
        for name in CONNECT4_SETS:
            path = data / "connect4" / name
            f = connect4_set(read_pons_set(path, args.count), args.table_mb, args.check_every)
            if pons:
                times, pons_wrong, _ = pons_times(pons, read_pons_set(path, args.count), args.pons_exact)
                mean = statistics.mean(times)
                reference = (f"Pons {'exact' if args.pons_exact else 'weak'} measured: mean {mean * 1e3:.3f} ms, "
                             f"median {statistics.median(times) * 1e3:.3f} ms, wrong {pons_wrong}; "
                             f"ours/Pons mean {f['mean'] / mean:,.1f}x")
            else:
                reference = "Pons not measured (--no-reference)"
            print(row.format(name="connect4/" + name, **f) + reference, flush=True)
        warm_up = read_pons_set(data / "connect4" / CONNECT4_SETS[0], 1)[0][0]
        for moves in args.positions:
            score, reference = None, "Pons not measured (--no-reference)"
            if pons:
                times, _, answers = pons_times(pons, [(moves, None)], args.pons_exact, warm_up)
                score = answers[0]
            f = connect4_set([(moves, score)], args.table_mb, 0)  # (proofs: bench_proof_extraction.py)
            if pons:
                reference = (f"Pons {'exact' if args.pons_exact else 'weak'} measured: {times[0]:.3f} s, "
                             f"score {score}; ours/Pons {f['mean'] / times[0]:,.1f}x")
            print(row.format(name="connect4 " + moves, **f) + reference, flush=True)
    if do_chess:
        for name in CHESS_SETS:
            path = data / "chess" / name
            f = chess_set(path, args.count, args.table_mb)
            if stockfish:
                times, mates = stockfish_mates(stockfish, read_mate_set(path, args.count))
                median = statistics.median(times)
                reference = (f"Stockfish measured: median {median * 1e3:.2f} ms, mates found {mates}; "
                             f"ours/Stockfish median {f['median'] / median:,.2f}x")
            else:
                reference = "Stockfish not measured (--no-reference)"
            print(row.format(name="chess/" + name, **f) + reference + f"; best = bm in {f['bm']}", flush=True)
    print(f"load average {load_average()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
