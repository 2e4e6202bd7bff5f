"""Benchmark: building chess tables (WDL + DTM + compressed HDF5), next to Syzygy's rtbgen
measured in the same run.

Each build runs in a fresh process (so peak memory is its own), after a warm-up that loads the
compiled kernels from numba's cache; the table's sub-tables are built beforehand, not timed.
The reference is Syzygy's generator (syzygy1/tb: ``rtbgen`` for pawnless tables, ``rtbgenp``
for tables with pawns) from ``--rtbgen DIR`` (default $RTBGEN_DIR, or ``rtbgen`` on PATH),
run as ``rtbgen -t THREADS TABLE`` in a scratch directory where it has generated the
sub-tables first (not timed; RTBWDIR/RTBZDIR point there): its wall time covers WDL and DTZ
generation, compression and writing. Without it the script stops with one line, unless
``--no-reference`` (ours alone, no ratios).

    python scripts/bench_build.py --rtbgen DIR         # KQvKR KRvKP KPvKP KBNvK, 1 and 2 threads
    python scripts/bench_build.py --tables KQvKR --threads 1 --no-reference
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def peak_resident_mib() -> float:
    """This process's peak resident memory. Linux's ``ru_maxrss`` survives ``exec`` (a child
    started by a big parent reports the parent's peak), so read ``VmHWM``, which does not."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(table: str, threads: int, root: str) -> None:
    """Time one build in this process and print a JSON line."""
    import h5py
    import numba

    from retrograde.build import build_tables

    numba.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as scratch:  # warm-up: load every kernel from the cache
        build_tables("chess", ["KQvK"], scratch, show_progress=False)
        build_tables("chess", ["KPvK"], scratch, show_progress=False)
    started = time.perf_counter()
    build_tables("chess", [table], root, show_progress=False, force=True, workers=threads)
    wall = time.perf_counter() - started
    with h5py.File(os.path.join(root, "chess", f"{table}.h5"), "r") as handle:
        attrs = handle.attrs
        positions = int(sum(attrs["wins"]) + sum(attrs["draws"]) + sum(attrs["losses"]))
        size = os.path.getsize(handle.filename)
    peak = peak_resident_mib()
    print(json.dumps({"table": table, "threads": threads, "wall": wall, "positions": positions,
                      "peak_mib": peak, "bytes": size}))


def find_rtbgen(explicit: str | None) -> str | None:
    """The directory holding ``rtbgen`` and ``rtbgenp``: --rtbgen, $RTBGEN_DIR, or PATH."""
    if explicit or os.environ.get("RTBGEN_DIR"):
        directory = explicit or os.environ["RTBGEN_DIR"]
    else:
        found = shutil.which("rtbgen")
        directory = os.path.dirname(found) if found else None
    if directory and all(os.access(os.path.join(directory, name), os.X_OK) for name in ("rtbgen", "rtbgenp")):
        return directory
    return None


def syzygy_tables(tables: list[str]) -> list[str]:
    """Syzygy names of ``tables`` (ours are named alike; Syzygy has no bare-kings table)."""
    return [t for t in tables if t != "KvK"]


def run_rtbgen(directory: str, table: str, threads: int, scratch: str) -> float:
    """Wall seconds of one rtbgen/rtbgenp run generating ``table`` into ``scratch``."""
    binary = os.path.join(directory, "rtbgenp" if "P" in table else "rtbgen")
    env = {**os.environ, "RTBWDIR": scratch, "RTBZDIR": scratch}
    started = time.perf_counter()
    subprocess.run([binary, "-t", str(threads), table], cwd=scratch, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def rtbgen_times(directory: str, tables: list[str], threads_list: list[int], repeat: int,
                 dependencies: dict[str, list[str]]) -> dict[tuple[str, int], float]:
    """Median wall seconds of rtbgen per (table, threads); sub-tables generated first, untimed."""
    scratch = tempfile.mkdtemp(prefix="bench-rtbgen-")
    try:
        done: set[str] = set()
        times = {}
        for table in tables:
            for needed in syzygy_tables(dependencies[table]):
                if needed not in done:
                    run_rtbgen(directory, needed, max(threads_list), scratch)
                    done.add(needed)
            for threads in threads_list:
                times[table, threads] = statistics.median(
                    run_rtbgen(directory, table, threads, scratch) for _ in range(repeat))
            done.add(table)
        return times
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["KQvKR", "KRvKP", "KPvKP", "KBNvK"])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="runs per build (the median is shown)")
    parser.add_argument("--db", help="directory for the tables (default: a temporary one)")
    parser.add_argument("--rtbgen", help="directory of Syzygy's rtbgen and rtbgenp binaries")
    parser.add_argument("--no-reference", action="store_true",
                        help="measure ours alone when rtbgen is missing (no ratios)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    rtbgen = find_rtbgen(args.rtbgen)
    if rtbgen is None and not args.no_reference:
        print("bench_build: rtbgen not found: build rtbgen and rtbgenp (syzygy1/tb) and pass --rtbgen DIR, "
              "or --no-reference to measure ours alone", file=sys.stderr)
        return 2
    from retrograde.build import build_order, build_tables
    from databases.families import get_family

    root = args.db or tempfile.mkdtemp(prefix="bench-build-")
    family = get_family("chess")
    dependencies = {}
    for table in args.tables:  # sub-tables, not timed
        dependencies[table] = [t for t in build_order(family, [table], None) if t != table]
        build_tables("chess", dependencies[table], root, show_progress=False)
    with open("/proc/loadavg") as load:
        print(f"machine: {os.cpu_count()} cores, load average {' '.join(load.read().split()[:3])}; "
              f"tables in {root}; rtbgen: {rtbgen or 'not measured (--no-reference)'}")
    reference = rtbgen_times(rtbgen, args.tables, args.threads, args.repeat, dependencies) if rtbgen else {}
    print(f"{'table':8} {'thr':>3} {'wall s':>7} {'positions/s':>12} {'peak MiB':>8} "
          f"{'size KiB':>8} {'rtbgen s':>8} {'x rtbgen':>8}")
    for table in args.tables:
        for threads in args.threads:
            runs = []
            for _ in range(args.repeat):
                output = subprocess.run([sys.executable, __file__, "--child", table, str(threads), root],
                                        check=True, capture_output=True, text=True).stdout
                runs.append(json.loads(output.strip().splitlines()[-1]))
            r = runs[0] | {"wall": statistics.median(run["wall"] for run in runs)}
            theirs = reference.get((table, threads), float("nan"))
            print(f"{table:8} {threads:>3} {r['wall']:7.2f} {r['positions'] / r['wall']:12,.0f} "
                  f"{r['peak_mib']:8.0f} {r['bytes'] / 1024:8.0f} {theirs:8.2f} "
                  f"{r['wall'] / theirs:8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
