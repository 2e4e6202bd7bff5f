"""Benchmark: building chess tables (WDL + DTM + compressed HDF5, or with ``--metric dtz50``
their DTZ50 tables), next to Syzygy's rtbgen measured in the same run.

Each build runs in a fresh process (so peak memory is its own), after a warm-up that loads the
compiled kernels from numba's cache; the table's sub-tables are built (and checked) beforehand,
not timed: the clock covers the table's build as `solver build` runs it (``build_one``).
The reference is Syzygy's generator (syzygy1/tb: ``rtbgen`` for pawnless tables, ``rtbgenp``
for tables with pawns) from ``--rtbgen DIR`` (default $RTBGEN_DIR, or ``rtbgen`` on PATH),
run as ``rtbgen -t THREADS TABLE`` in a scratch directory where it has generated the
sub-tables first (not timed; RTBWDIR/RTBZDIR point there): its wall time covers WDL and DTZ
generation, compression and writing ("full"); ``rtbgen -g`` (generation alone, nothing
written) is timed too. ``--reference-threads N`` runs rtbgen on N threads whatever ours use
(issue 11's bar: ours within rtbgen's full time on one thread). Without rtbgen the script
stops with one line, unless ``--no-reference`` (ours alone, no ratios).

``--metric dtz50`` times the DTZ50 table's build instead (``build_dtz50_one``: the one-byte
generators), its sub-tables' DTZ50 tables built beforehand, untimed: the metric rtbgen makes
(its ``-g`` generates WDL50 and DTZ50). ``--metric all`` times every file of the table, as
`solver build` makes them: its DTZ50 table, its packed WDL50 and its rule-free table (WDL and
DTM, which rtbgen does not make).

    python scripts/bench_build.py --rtbgen DIR         # KQvKR KRvKP KPvKP KBNvK, 1 and 2 threads
    python scripts/bench_build.py --rtbgen DIR --tables KQRvKR KRPvKR --threads 2 --reference-threads 1
    python scripts/bench_build.py --tables KQvKR --threads 1 --no-reference
    python scripts/bench_build.py --rtbgen DIR --rtbgen-tables RTB5 --tables KBPPvK --threads 2 --reference-threads 1
    python scripts/bench_build.py --rtbgen DIR --metric dtz50 --tables KQvKR KQRvKR --threads 1 2
    python scripts/bench_build.py --rtbgen DIR --metric all --tables KQRvKR KRPvKR --threads 2
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import peak_resident_mib, reset_peak_resident

ALL = "all"  # --metric: every file of a table


def child(table: str, threads: int, root: str, metric: str) -> None:
    """Time one build in this process and print a JSON line."""
    import h5py
    import numba

    from databases.families import get_family
    from databases.location import DTM, DTZ50, WDL50, table_path
    from databases.writer import DEFAULT_COMPRESSION
    from retrograde.build import build_dtz50_one, build_one, build_tables, pack_one

    numba.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as scratch:  # warm-up: load every kernel from the cache
        build_tables("chess", ["KQvK"], scratch, show_progress=False, pack=metric == ALL)
        build_tables("chess", ["KPvK"], scratch, show_progress=False, pack=metric == ALL)
    # The table's build as `solver build` runs it once it has checked the directory (the
    # parent built and checked the sub-tables), as scripts/bench_build_all.py times it.
    family = get_family("chess")
    reset_peak_resident()  # the peak of this build, not of the warm-up
    started, cpu_started = time.perf_counter(), time.process_time()
    packed = False  # a table with pawns is packed by its DTZ50 build, as `solver build` does
    if metric in (DTZ50, ALL):
        packed = build_dtz50_one(family, table, Path(root), False, DEFAULT_COMPRESSION,
                                 pack=metric == ALL)
    if metric == ALL and not packed:
        pack_one(family, table, Path(root), False)
    if metric in (DTM, ALL):
        build_one(family, table, Path(root), False, DEFAULT_COMPRESSION)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    files = [table_path(root, "chess", table, m) for m in ((DTM, DTZ50, WDL50) if metric == ALL
                                                            else (metric,))]
    with h5py.File(files[0], "r") as handle:
        attrs = handle.attrs
        positions = int(sum(attrs["wins"]) + sum(attrs["draws"]) + sum(attrs["losses"]))
    size = sum(os.path.getsize(path) for path in files)
    peak = peak_resident_mib()
    print(json.dumps({"table": table, "threads": threads, "wall": wall, "cpu": cpu,
                      "positions": positions, "peak_mib": peak, "bytes": size}))


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


def run_rtbgen(directory: str, table: str, threads: int, scratch: str,
               generation_only: bool = False) -> float:
    """Wall seconds of one rtbgen/rtbgenp run generating ``table`` into ``scratch`` (with
    ``generation_only``: ``-g``, WDL/DTZ generation without compression or files)."""
    binary = os.path.join(directory, "rtbgenp" if "P" in table else "rtbgen")
    env = {**os.environ, "RTBWDIR": scratch, "RTBZDIR": scratch}
    command = [binary, "-t", str(threads)] + (["-g"] if generation_only else []) + [table]
    started = time.perf_counter()
    subprocess.run(command, cwd=scratch, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def rtbgen_times(directory: str, tables: list[str], threads_list: list[int], repeat: int,
                 dependencies: dict[str, list[str]], kept: str | None = None
                 ) -> dict[tuple[str, int, bool], float]:
    """Median wall seconds of rtbgen per (table, threads, generation only); sub-tables
    generated first, untimed, into a temporary directory, or into ``kept`` (where those
    already there are used, and the new ones stay)."""
    scratch = kept or tempfile.mkdtemp(prefix="bench-rtbgen-")
    try:
        done: set[str] = {name for name in sum(dependencies.values(), [])
                          if kept and all(os.path.exists(os.path.join(kept, name + suffix))
                                          for suffix in (".rtbw", ".rtbz"))}
        times = {}
        for table in tables:
            for needed in syzygy_tables(dependencies[table]):
                if needed not in done:
                    run_rtbgen(directory, needed, max(threads_list), scratch)
                    done.add(needed)
            for threads in threads_list:
                for generation_only in (True, False):
                    times[table, threads, generation_only] = statistics.median(
                        run_rtbgen(directory, table, threads, scratch, generation_only)
                        for _ in range(repeat))
            done.add(table)
        return times
    finally:
        if not kept:
            shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", nargs="+", default=["KQvKR", "KRvKP", "KPvKP", "KBNvK"])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="runs per build (the median is shown)")
    parser.add_argument("--db", help="directory for the tables (default: a temporary one)")
    parser.add_argument("--rtbgen", help="directory of Syzygy's rtbgen and rtbgenp binaries")
    parser.add_argument("--reference-threads", type=int,
                        help="threads for rtbgen (default: the same as ours in each row)")
    parser.add_argument("--rtbgen-tables", metavar="DIR",
                        help="rtbgen's sub-tables already generated there (e.g. by "
                             "scripts/rtbgen_all.py --scratch DIR); missing ones are generated "
                             "into it and kept (default: a temporary directory)")
    parser.add_argument("--no-reference", action="store_true",
                        help="measure ours alone when rtbgen is missing (no ratios)")
    parser.add_argument("--metric", choices=["dtm", "dtz50", ALL], default="dtm",
                        help="the table timed: the rule-free one (WDL and DTM, the default), "
                             "its DTZ50 table, or all: DTZ50, the packed WDL50 and the rule-free "
                             "table, as `solver build` makes a table (against rtbgen's full "
                             "build: WDL50 and DTZ50 files)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2], args.child[3])
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
    for table in args.tables:  # sub-tables, not timed (and the table itself, for its DTZ50)
        dependencies[table] = [t for t in build_order(family, [table], None) if t != table]
        build_tables("chess", dependencies[table], root, show_progress=False, pack=False)
        if args.metric == "dtz50":
            build_tables("chess", [table], root, show_progress=False, dtz50=False)

    with open("/proc/loadavg") as load:
        print(f"machine: {os.cpu_count()} cores, load average {' '.join(load.read().split()[:3])}; "
              f"tables in {root}; rtbgen: {rtbgen or 'not measured (--no-reference)'}")
    reference_threads = [args.reference_threads] if args.reference_threads else args.threads
    if args.rtbgen_tables and not os.path.isdir(args.rtbgen_tables):
        print(f"bench_build: --rtbgen-tables {args.rtbgen_tables}: not a directory", file=sys.stderr)
        return 2
    reference = rtbgen_times(rtbgen, args.tables, reference_threads, args.repeat,
                             dependencies, args.rtbgen_tables) if rtbgen else {}
    print(f"metric: {args.metric}")
    print(f"{'table':8} {'thr':>3} {'wall s':>7} {'cpu s':>7} {'positions/s':>12} {'peak MiB':>8} "
          f"{'size KiB':>8} {'rtb thr':>7} {'rtb full':>8} {'x full':>6} {'rtb -g':>7} {'x -g':>6}")
    for table in args.tables:
        for threads in args.threads:
            runs = []
            for _ in range(args.repeat):
                output = subprocess.run([sys.executable, __file__, "--child", table, str(threads),
                                         root, args.metric],
                                        check=True, capture_output=True, text=True).stdout
                runs.append(json.loads(output.strip().splitlines()[-1]))
            r = runs[0] | {"wall": statistics.median(run["wall"] for run in runs)}
            theirs_threads = args.reference_threads or threads
            full = reference.get((table, theirs_threads, False), float("nan"))
            generation = reference.get((table, theirs_threads, True), float("nan"))
            print(f"{table:8} {threads:>3} {r['wall']:7.2f} {r['cpu']:7.2f} "
                  f"{r['positions'] / r['wall']:12,.0f} "
                  f"{r['peak_mib']:8.0f} {r['bytes'] / 1024:8.0f} {theirs_threads:>7} {full:8.2f} "
                  f"{r['wall'] / full:6.2f} {generation:7.2f} {r['wall'] / generation:6.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
