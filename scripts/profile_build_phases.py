"""Profile one chess table's build, every metric as `solver build` makes it: wall and CPU
seconds of each step the build calls from Python.

Builds TABLE's DTZ50 table, its pack and its rule-free (DTM) table with the functions `solver
build` runs (its dependencies must be in ``--db``: every metric of them; the table's files
there are rebuilt and replaced, codes unchanged), after a warm-up that loads every kernel
from numba's cache, and times every call of the generators' kernels (``retrograde.chess_dtz50``
and ``retrograde.chess_dtm`` without pawns; with pawns ``solve_slices``, a whole advancement
of slices), of the children's reads, of the pack's steps and of the file writes. A kernel's
time includes what it calls; ``pack_table`` includes its file. CPU over wall near the thread
count means the step keeps every thread busy; lower means it waits or runs on one thread.
Run it on a quiet machine.

    python scripts/profile_build_phases.py KNPvKB --db DIR [--threads 2] [--without-dtm]
"""
from __future__ import annotations

import argparse
import collections
import resource
import tempfile
import time
from pathlib import Path

import numba

# the kernels each generator module's solve() calls, timed under "<stage> <name>" (a step's
# parts, e.g. initialise's seed_captures, are timed inside it as well)
GENERATOR_KERNELS = {
    "chess_dtz50": ("dtz50", ("mark_positions", "initialise", "seed_captures", "find_mates",
                              "side_counts", "spread", "pull_wins", "flag_every_open",
                              "settle", "replace_all", "age_markers", "close", "close_far")),
    "chess_dtz50_pawns": ("dtz50", ("mark_positions", "solve_slices", "merge_codes")),
    "chess_dtm": ("dtm", ("start_words", "initialise", "seed_captures", "finish_words",
                          "mark_candidates", "spread", "pull_wins", "come_due", "settle",
                          "close")),
    "chess_dtm_pawns": ("dtm", ("start_words", "solve_slices")),
}


class Timer:
    """Wall and CPU seconds and calls, by label, of the functions it wraps."""

    def __init__(self):
        self.wall: dict[str, float] = collections.defaultdict(float)
        self.cpu: dict[str, float] = collections.defaultdict(float)
        self.calls: collections.Counter = collections.Counter()

    def wrap(self, owner, name: str, label: str) -> None:
        """Replace ``owner.name`` (a module's or a class's) by a timed call of it."""
        function = getattr(owner, name)

        def timed(*positional, **keywords):
            started, used = time.perf_counter(), time.process_time()
            try:
                return function(*positional, **keywords)
            finally:
                self.wall[label] += time.perf_counter() - started
                self.cpu[label] += time.process_time() - used
                self.calls[label] += 1
        setattr(owner, name, timed)

    def report(self, whole_wall: float, whole_cpu: float) -> None:
        """One line per label in the order first called, then the whole build."""
        for label in self.wall:
            print(f"  {label:32s} wall {self.wall[label]:8.2f} s   cpu {self.cpu[label]:8.2f} s"
                  f"   cpu/wall {self.cpu[label] / max(self.wall[label], 1e-9):4.2f}"
                  f"   calls {self.calls[label]}")
        print(f"  {'whole build':32s} wall {whole_wall:8.2f} s   cpu {whole_cpu:8.2f} s"
              f"   cpu/wall {whole_cpu / max(whole_wall, 1e-9):4.2f}")


def instrument(timer: Timer) -> None:
    """Wrap the build's steps (after the warm-up: the kernels are loaded)."""
    import importlib

    import retrograde.build as build
    import retrograde.pack as pack
    import retrograde.tables as tables

    for module_name, (stage, kernels) in GENERATOR_KERNELS.items():
        module = importlib.import_module(f"retrograde.{module_name}")
        for kernel in kernels:
            timer.wrap(module, kernel, f"{stage} {kernel}")
    timer.wrap(tables.ChildrenByGroup, "__init__", "children by group: first read")
    timer.wrap(tables.ChildrenByGroup, "before_group", "children by group: next group")
    timer.wrap(tables, "load_children", "children read whole")
    timer.wrap(build, "load_children", "children read whole")
    timer.wrap(build, "own_dtz50", "own DTZ50 table read")
    timer.wrap(pack.StoredBytesByGroup, "after_group", "pack: stored bytes by group")
    timer.wrap(pack, "pack_table", "pack: coded and written")
    timer.wrap(build, "write_table", "table files written")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="a chess table name, e.g. KNPvKB")
    parser.add_argument("--db", required=True, help="directory holding its dependencies")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--without-dtm", action="store_true",
                        help="the DTZ50 table and its pack only, as `--metrics wdl50,dtz50` "
                             "builds (the dependencies' DTM tables are not needed)")
    args = parser.parse_args()

    from databases.families import get_family
    from databases.writer import DEFAULT_COMPRESSION
    from retrograde.build import build_dtz50_one, build_one, build_tables, pack_one

    family = get_family("chess")
    if args.table not in family.table_names():
        parser.error(f"unknown chess table {args.table!r}")
    numba.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as scratch:  # warm-up: every kernel from the cache
        build_tables("chess", ["KQvK", "KPvK"], scratch, show_progress=False)
    timer = Timer()
    instrument(timer)
    root = Path(args.db)
    started, used = time.perf_counter(), time.process_time()
    if not build_dtz50_one(family, args.table, root, False, DEFAULT_COMPRESSION, pack=True):
        pack_one(family, args.table, root, False)
    if not args.without_dtm:
        build_one(family, args.table, root, False, DEFAULT_COMPRESSION)
    print(f"{args.table}, {args.threads} threads, "
          f"{'DTZ50 and pack' if args.without_dtm else 'every metric'}")
    timer.report(time.perf_counter() - started, time.process_time() - used)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"  peak resident memory {peak:,} MiB (the warm-up's included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
