"""Benchmark: start-up of each `solver` command on a small case, cold and warm.

    python scripts/bench_startup.py [--warm-runs N] [--only NAME ...] [--json]

Cold: the command runs with ``NUMBA_CACHE_DIR`` set to a new, empty directory, so that every
kernel it uses is compiled. Warm: it runs again (``--warm-runs`` times, the fastest kept) with
that directory, now filled, so that the kernels are loaded from numba's cache. Each run is a
subprocess ``python -m solver ...`` (the installed ``solver`` script adds its launcher's time).

Columns: wall seconds; CPU seconds (user + system of the subprocess: on a loaded machine the
wall time grows with the load, the CPU time much less); ``kernels``, the kernels the cold run
wrote to the cache (numba index files, one per compiled function), i.e. what the command
compiles or loads (``--kernels`` lists them). The UCI case times the answers to ``uci`` and ``isready`` and the first
``bestmove`` of ``go depth 4`` from the start of the process. The machine's load average is
printed with the table: quote it with the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
TIMEOUT = 3600  # seconds for one run (a cold chess search compiles for minutes on a loaded machine)
UCI_SESSION = [("uci", "uciok"), ("isready", "readyok"), ("position startpos\ngo depth 4", "bestmove")]


@dataclass
class Case:
    """One command line; ``{db}`` stands for a fresh directory (build) or the built tic-tac-toe
    tables (probe)."""

    name: str
    arguments: list[str]
    fresh_db: bool = False


CASES = [
    Case("help: solver --help", ["--help"]),
    Case("perft tictactoe startpos 5", ["perft", "tictactoe", "startpos", "5"]),
    Case("perft connect4 startpos 6", ["perft", "connect4", "startpos", "6"]),
    Case("perft chess startpos 3", ["perft", "chess", "startpos", "3"]),
    Case("build tictactoe", ["build", "tictactoe", "--db", "{db}"], fresh_db=True),
    Case("probe tictactoe startpos", ["probe", "tictactoe", "startpos", "--db", "{db}"]),
    Case("prove connect4 (7 nodes)", ["prove", "connect4", "52753311433677442422121"]),
    Case("prove tictactoe --goal draw", ["prove", "tictactoe", "startpos", "--goal", "draw"]),
    Case("search chess startpos --depth 4", ["search", "chess", "startpos", "--depth", "4"]),
    Case("search connect4 startpos --depth 6", ["search", "connect4", "startpos", "--depth", "6"]),
    Case("uci", ["uci"]),
]


def children_cpu() -> float:
    """CPU seconds (user + system) of the subprocesses waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command(arguments: list[str]) -> list[str]:
    """The subprocess command line for ``solver ARGUMENTS``."""
    return [sys.executable, "-m", "solver", *arguments]


def environment(cache: Path) -> dict[str, str]:
    """This environment with numba's cache directory set to ``cache``."""
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache)}


def run_command(arguments: list[str], cache: Path) -> dict[str, float]:
    """Run one command to its end: ``{"wall": s, "cpu": s}``; RuntimeError with its last line
    of stderr if it fails."""
    cpu = children_cpu()
    started = time.perf_counter()
    result = subprocess.run(command(arguments), env=environment(cache), cwd=REPOSITORY,
                            capture_output=True, text=True, timeout=TIMEOUT)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"exit status {result.returncode}: {last}")
    return {"wall": wall, "cpu": children_cpu() - cpu}


def run_uci(cache: Path) -> dict[str, float]:
    """A UCI session: the seconds from the start to each expected answer, and the CPU time."""
    cpu = children_cpu()
    started = time.perf_counter()
    engine = subprocess.Popen(command(["uci"]), env=environment(cache), cwd=REPOSITORY, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    times = {}
    try:
        for sent, expected in UCI_SESSION:
            engine.stdin.write(sent + "\n")
            engine.stdin.flush()
            for line in engine.stdout:
                if line.startswith(expected):
                    times[expected] = time.perf_counter() - started
                    break
            else:
                raise RuntimeError(f"the engine ended before answering {sent!r} with {expected!r}")
        engine.stdin.write("quit\n")
        engine.stdin.close()
        engine.wait(timeout=TIMEOUT)
    finally:
        if engine.poll() is None:
            engine.kill()
            engine.wait()
    return {"wall": times["bestmove"], "cpu": children_cpu() - cpu, **times}


def run_case(case: Case, cache: Path, db: Path, scratch: Path) -> dict[str, float]:
    """One run of ``case`` with numba's cache in ``cache``."""
    if case.name == "uci":
        return run_uci(cache)
    target = Path(tempfile.mkdtemp(dir=scratch)) if case.fresh_db else db
    return run_command([argument.replace("{db}", str(target)) for argument in case.arguments], cache)


def cached_kernels(cache: Path) -> list[str]:
    """The functions numba cached under ``cache`` (one index file each, named
    ``module.function-line.pyXY.nbi``), as ``module.function``."""
    return sorted(path.name.split("-")[0] for path in cache.rglob("*.nbi"))


def measure(case: Case, db: Path, scratch: Path, warm_runs: int) -> dict:
    """Cold and warm figures of one case."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    cold = run_case(case, cache, db, scratch)
    kernels = cached_kernels(cache)
    warm = [run_case(case, cache, db, scratch) for _ in range(warm_runs)]
    best = min(warm, key=lambda figures: figures["wall"])
    return {"case": case.name, "cold": cold, "warm": best, "kernels": len(kernels), "names": kernels}


def build_tables(db: Path, scratch: Path) -> None:
    """The tic-tac-toe tables the probe case reads."""
    run_command(["build", "tictactoe", "--db", str(db)], Path(tempfile.mkdtemp(prefix="cache-", dir=scratch)))


def format_row(row: dict) -> list[str]:
    """Table lines of one measured case (the UCI case: one line per answer)."""
    if "error" in row:
        return [f"| {row['case']} | failed: {row['error']} | | | | |"]
    cold, warm = row["cold"], row["warm"]
    if row["case"] != "uci":
        return [f"| {row['case']} | {cold['wall']:.2f} | {cold['cpu']:.2f} | {warm['wall']:.2f} | "
                f"{warm['cpu']:.2f} | {row['kernels']} |"]
    lines = []
    for _, answer in UCI_SESSION:
        last = answer == "bestmove"
        label = "uci: bestmove (go depth 4)" if last else f"uci: {answer}"
        cpu_cold, cpu_warm, kernels = ((f"{cold['cpu']:.2f}", f"{warm['cpu']:.2f}", str(row["kernels"]))
                                       if last else ("", "", ""))
        lines.append(f"| {label} | {cold[answer]:.2f} | {cpu_cold} | {warm[answer]:.2f} | {cpu_warm} | {kernels} |")
    return lines


def print_table(rows: list[dict], load: tuple[float, float]) -> None:
    """The markdown table, with the load average before and after."""
    print(f"load average (1 min): {load[0]:.2f} before, {load[1]:.2f} after; {os.cpu_count()} CPUs")
    print("| command | cold wall s | cold CPU s | warm wall s | warm CPU s | kernels |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print("\n".join(format_row(row)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm-runs", type=int, default=3, help="warm runs per case, the fastest kept")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="cases whose name starts with NAME")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--kernels", action="store_true", help="list the kernels each command compiled")
    args = parser.parse_args()
    cases = [case for case in CASES if not args.only or any(case.name.startswith(n) for n in args.only)]
    scratch = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    load_before = os.getloadavg()[0]
    try:
        db = scratch / "db"
        if any(case.name.startswith("probe") for case in cases):
            build_tables(db, scratch)
        rows = []
        for case in cases:
            try:
                rows.append(measure(case, db, scratch, args.warm_runs))
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                rows.append({"case": case.name, "error": str(error)})
            print(f"done: {case.name}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print_table(rows, (load_before, os.getloadavg()[0]))
    if args.kernels:
        for row in rows:
            print(f"{row['case']}: {' '.join(row.get('names', []))}")
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
