"""Benchmark: `solver build chess --pieces N` into a fresh directory, locally in one process
against `--scheduler local:W` (W worker processes of a dask LocalCluster, one table task each).

Every configuration runs as its own `solver` process (start-up, numba cache loads and, for the
cluster, worker start-up included), so the wall times are what a user waits. The local build is
the reference: each ratio is a local wall / the distributed wall (above 1: the cluster is
faster). A calibration first measures how much parallel speed the machine offers right now (other
jobs on the cores take it away).

    python scripts/bench_build_distributed.py                 # --pieces 4, 1 and 2 threads, local:2
    python scripts/bench_build_distributed.py --pieces 3 --threads 1 --repeat 3

Named tables instead of a piece count: ``--tables`` with ``--smaller DIR``, a directory where
every table they depend on is built already (every metric); those files are hard-linked into
each fresh directory, so only the named tables are built and timed.

    python scripts/bench_build_distributed.py --tables KQRvKR KBPvKR KBNvKR --smaller DB --threads 2
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages (other jobs on the machine skew the figures)."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


SPIN = "import time; t = time.perf_counter(); sum(range(40_000_000)); print(time.perf_counter() - t)"


def parallel_capacity(processes: int) -> float:
    """How much faster ``processes`` CPU-bound processes finish together than one after the
    other, right now (``processes`` on an idle machine with that many cores; about 1 when
    other work holds the other cores)."""
    def spin(count: int) -> list[float]:
        running = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True)
                   for _ in range(count)]
        return [float(process.communicate()[0]) for process in running]

    alone = spin(1)[0]
    together = max(spin(processes))
    return processes * alone / together


def link_smaller_tables(smaller: str, root: str, named: list[str]) -> None:
    """Hard-link every table file under ``smaller`` (each metric's folder) but those of the
    ``named`` tables into ``root``."""
    source = os.path.join(smaller, "chess")
    for folder, _, files in os.walk(source):
        target = os.path.join(root, "chess", os.path.relpath(folder, source))
        os.makedirs(target, exist_ok=True)
        for name in files:
            if name.endswith(".h5") and name[:-3] not in named:
                os.link(os.path.join(folder, name), os.path.join(target, name))


def timed_build(what: list[str], extra: list[str], smaller: str | None = None
                ) -> tuple[float, dict, dict]:
    """Wall seconds, JSON answer and each table's build seconds (its file's attribute) of one
    `solver build chess WHAT` into a fresh temporary directory (holding the tables of
    ``smaller`` but the named ones, if given)."""
    import h5py

    with tempfile.TemporaryDirectory() as root:
        if smaller:
            link_smaller_tables(smaller, root, what)
        command = [sys.executable, "-m", "solver.cli", "build", "chess", *what,
                   "--db", root, "--json", *extra]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed: {done.stderr.strip()}")
        answer = json.loads(done.stdout)
        seconds = {}  # solving each table: its rule-free and DTZ50 files' build seconds
        for table in answer["built"]:
            seconds[table] = 0.0
            for folder in ("", "dtz50"):
                path = os.path.join(root, "chess", folder, f"{table}.h5")
                if os.path.exists(path):
                    with h5py.File(path, "r") as handle:
                        seconds[table] += float(handle.attrs["build_seconds"])
    return wall, answer, seconds


def ideal_wall(order: list[str], seconds: dict, workers: int) -> float:
    """When the build would end on ``workers`` free cores if every table took ``seconds`` and
    started, in dependency order, once its prerequisites were done and a worker was free."""
    from databases.families import get_family
    from retrograde.distributed import prerequisites

    family = get_family("chess")
    free_at = [0.0] * workers
    finished = {}
    for table in order:
        ready = max((finished[name] for name in prerequisites(family, table) if name in finished),
                    default=0.0)
        worker = min(range(workers), key=lambda index: max(free_at[index], ready))
        finished[table] = max(free_at[worker], ready) + seconds[table]
        free_at[worker] = finished[table]
    return max(finished.values(), default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--tables", nargs="+", metavar="TABLE",
                        help="build these tables instead of every table up to --pieces")
    parser.add_argument("--smaller", metavar="DIR",
                        help="with --tables: a directory holding every table they depend on")
    parser.add_argument("--local-workers", type=int, default=2,
                        help="worker processes of the LocalCluster (default 2)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="numba threads of the local single-process builds (default 1 2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (median)")
    args = parser.parse_args()
    if args.tables and not args.smaller:
        parser.error("--tables needs --smaller DIR (the tables they depend on, built)")
    what = args.tables or ["--pieces", str(args.pieces)]

    distributed = f"--scheduler local:{args.local_workers}"
    configurations = [(f"local, 1 process, {threads} thread(s)", ["--workers", str(threads)])
                      for threads in args.threads]
    configurations.append((distributed, ["--scheduler", f"local:{args.local_workers}"]))
    print(f"solver build chess {' '.join(what)}, fresh directory each run; "
          f"{os.cpu_count()} cores; load average before: {load_average()}")
    print(f"  {args.local_workers} CPU-bound processes run {parallel_capacity(args.local_workers):.2f}x "
          "as fast as one after the other on this machine now (the most local:N can gain)")
    walls, table_seconds = {}, {}
    for label, extra in configurations:
        runs = [timed_build(what, extra, args.smaller) for _ in range(args.repeat)]
        walls[label] = statistics.median(wall for wall, _, _ in runs)
        _, answer, table_seconds[label] = runs[-1]
        print(f"  {label:<36} {walls[label]:8.1f} s wall  ({len(answer['built'])} tables, "
              f"build {answer['seconds']:.1f} s)", flush=True)
    for label, wall in walls.items():
        if label != distributed:
            print(f"  ratio ({label}) / ({distributed}): {wall / walls[distributed]:.2f}x")
    single = table_seconds[configurations[0][0]]  # the first local build's per-table times
    serial = ideal_wall(answer["built"], single, 1)
    best = ideal_wall(answer["built"], single, args.local_workers)
    print(f"  solving the tables (rule-free and DTZ50 files' build seconds, no packs) takes "
          f"{serial:.1f} s one after the other ({configurations[0][0]}); on "
          f"{args.local_workers} free cores with these dependencies at best {best:.1f} s "
          f"({serial / best:.2f}x), before start-up costs")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
