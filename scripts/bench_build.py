"""Benchmark: building chess tables (WDL + DTM + compressed HDF5), next to Syzygy's rtbgen.

Each build runs in a fresh process (so peak memory is its own), after a warm-up that loads the
compiled kernels from numba's cache; the table's sub-tables are built beforehand, not timed.

    python scripts/bench_build.py                      # KQvKR KRvKP KPvKP KBNvK, 1 and 2 threads
    python scripts/bench_build.py --tables KQvKR --threads 1
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

# rtbgen on this machine, one thread, median of 3 (issue 4): generation only, with compression.
RTBGEN = {"KQvKR": (0.69, 6.2), "KRvKP": (0.92, 17.4), "KPvKP": (0.87, 8.8),
          "KBNvK": (0.51, 7.9), "KQvKQ": (0.26, 2.5)}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["KQvKR", "KRvKP", "KPvKP", "KBNvK"])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--db", help="directory for the tables (default: a temporary one)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return
    from retrograde.build import build_order, build_tables
    from databases.families import get_family

    root = args.db or tempfile.mkdtemp(prefix="bench-build-")
    family = get_family("chess")
    for table in args.tables:  # sub-tables, not timed
        needed = [t for t in build_order(family, [table], None) if t != table]
        build_tables("chess", needed, root, show_progress=False)
    print(f"machine: {os.cpu_count()} cores; tables in {root}")
    print(f"{'table':8} {'thr':>3} {'wall s':>7} {'positions/s':>12} {'peak MiB':>8} "
          f"{'size KiB':>8} {'rtbgen full':>11} {'x full':>6} {'rtbgen gen':>10} {'x gen':>6}")
    for table in args.tables:
        for threads in args.threads:
            output = subprocess.run([sys.executable, __file__, "--child", table, str(threads), root],
                                    check=True, capture_output=True, text=True).stdout
            r = json.loads(output.strip().splitlines()[-1])
            gen, full = RTBGEN.get(table, (float("nan"), float("nan")))
            print(f"{table:8} {threads:>3} {r['wall']:7.2f} {r['positions'] / r['wall']:12,.0f} "
                  f"{r['peak_mib']:8.0f} {r['bytes'] / 1024:8.0f} {full:11.2f} "
                  f"{r['wall'] / full:6.2f} {gen:10.2f} {r['wall'] / gen:6.2f}", flush=True)


if __name__ == "__main__":
    main()
