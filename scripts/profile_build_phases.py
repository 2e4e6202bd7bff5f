"""Profile one table's build: wall and CPU seconds of each pass of the un-move engine.

Builds TABLE with ``retrograde.build.build_one`` (its dependencies must be in ``--db``; the
table there is rebuilt and replaced, codes unchanged) and times every call of the engine's
passes (``retrograde/unmove.py``: initialise, propagate, settle, storage, shifts) and of the
writer. CPU over wall near the thread count means the pass keeps every thread busy; lower
means it waits (reads, serial work). Run it on a quiet machine, after the kernels are in
numba's cache (a first build of any table compiles them).

    python scripts/profile_build_phases.py KNPvKB --db DIR [--threads 2]
"""
from __future__ import annotations

import argparse
import collections
import resource
import time
from pathlib import Path

import numba

PASSES = ("initialise", "propagate", "pull_wins", "settle", "to_storage", "to_byte_storage", "shift_down",
          "_level_masks")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="a chess table name, e.g. KNPvKB")
    parser.add_argument("--db", required=True, help="directory holding its dependencies")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import retrograde.build as build
    import retrograde.unmove as unmove
    from databases.families import get_family
    from databases.writer import DEFAULT_COMPRESSION

    numba.set_num_threads(args.threads)
    wall: dict[str, float] = collections.defaultdict(float)
    cpu: dict[str, float] = collections.defaultdict(float)

    def timed(module, name: str, label: str) -> None:
        function = getattr(module, name)

        def wrapper(*positional, **keywords):
            started, used = time.perf_counter(), time.process_time()
            try:
                return function(*positional, **keywords)
            finally:
                wall[label] += time.perf_counter() - started
                cpu[label] += time.process_time() - used
        setattr(module, name, wrapper)

    for name in PASSES:
        timed(unmove, name, name)
    timed(unmove, "_initialise_all", "initialisation with reads")
    timed(build, "write_table", "write")
    family = get_family("chess")
    if args.table not in family.table_names():
        parser.error(f"unknown chess table {args.table!r}")
    started, used = time.perf_counter(), time.process_time()
    build.build_one(family, args.table, Path(args.db), False, DEFAULT_COMPRESSION)
    wall["whole build"] = time.perf_counter() - started
    cpu["whole build"] = time.process_time() - used
    print(f"{args.table}, {args.threads} threads")
    for label in wall:
        print(f"  {label:28s} wall {wall[label]:8.2f} s   cpu {cpu[label]:8.2f} s   "
              f"cpu/wall {cpu[label] / max(wall[label], 1e-9):4.2f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"  peak resident memory {peak:,} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
