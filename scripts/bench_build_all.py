"""Benchmark: every chess table of N pieces (default 5) built one after the other, resumable.

Issue 11's bar is the whole 5-piece set built on this 2-core machine within 3 hours, each
table within 4 GiB. That takes hours, so each table is built in a fresh process (its peak
memory is its own; the compiled kernels come from numba's cache, loaded before the clock
starts) and its figures are appended as one JSON line to ``--out``; a later run skips the
tables already recorded there, so the benchmark resumes where it stopped. Tables of fewer
pieces that the set depends on are built first, in one timed step of their own (``solver
build chess --pieces N-1``, recorded as the row ``SMALLER``). Each row also holds the CPU
seconds of its build (over ``seconds``: how busy it kept the cores). ``--report`` prints the
summary of what is recorded: tables done, the sum of their build times with the smaller
tables' step (what ``solver build chess --pieces N`` would take, less one start-up), the
largest peak, the size on disk, and the slowest tables.

    python scripts/bench_build_all.py --db DIR --out docs/results/build5.jsonl
    python scripts/bench_build_all.py --db DIR --out docs/results/build5.jsonl --report
    python scripts/bench_build_all.py --out NEW.jsonl --report --baseline OLD.jsonl  # beside

``--metrics wdl50,dtz50`` times what the search and the server use, without the rule-free
tables: each table's DTZ50 table and its pack (the one-byte generators need only the
children's DTZ50 tables), the smaller tables' step likewise (``--metrics wdl50,dtz50``).

    python scripts/bench_build_all.py --db DIR --metrics wdl50,dtz50 --out docs/results/build5-dtz50.jsonl

``--metrics all`` times every file of every table, as ``solver build chess --pieces 5`` makes
them (per table here, in dependency order: its DTZ50 table, its pack, then its rule-free table,
which starts from its DTZ50 table; each stage's seconds in the row, so the DTZ50 + packs part
of the set is summed too).

    python scripts/bench_build_all.py --db DIR --metrics all --out docs/results/build5-all.jsonl

A set run takes hours and may resume on another machine, or on the same one at another speed
(these machines have differed by 2x from one day to the next). With ``--rtbgen DIR`` (and
``--rtbgen-tables DIR``, rtbgen's sub-tables, as for ``bench_build.py``), each start of the run
first times Syzygy's rtbgen building a reference table (``--reference-table``, KQRvKR by
default) on the run's threads and records it as a row of its own; ``--report`` then also gives
the set's time in units of that reference, each table's seconds divided by the reference timed
before it: a figure that compares across machines and days.

    python scripts/bench_build_all.py --db DIR --metrics all --rtbgen SRC --rtbgen-tables RTB --out OUT
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import peak_resident_mib, reset_peak_resident
from results_log import append_row, recorded, source_commit  # noqa: E402

DTM_ONLY, DTZ50_ONLY, ALL = "dtm", "wdl50,dtz50", "all"  # --metrics


def warm_up_kernels() -> None:
    """Compile or load the build's kernels (two small builds in a scratch directory), so that
    no timed step pays for them."""
    import tempfile

    from retrograde.build import build_tables

    with tempfile.TemporaryDirectory() as scratch:
        build_tables("chess", ["KQvK"], scratch, show_progress=False)
        build_tables("chess", ["KPvK"], scratch, show_progress=False)


def child(table: str, threads: int, root: str, metrics: str) -> None:
    """Build one table in this process (``metrics``: its rule-free table; its DTZ50 table
    and its pack; or all three, in that order, as `solver build` makes them) and print its
    figures as a JSON line (for ``all``, each stage's seconds too)."""
    import h5py
    import numba

    from databases.families import get_family
    from databases.location import DTZ50, WDL50, table_path
    from databases.writer import DEFAULT_COMPRESSION
    from retrograde.build import build_dtz50_one, build_one, pack_one

    numba.set_num_threads(threads)
    warm_up_kernels()
    reset_peak_resident()  # this table's peak, not the warm-up's
    family = get_family("chess")
    # What `solver build --pieces N` does for each table once it has checked the directory
    # (here the parent process built and checked the smaller tables, and earlier children
    # wrote the five-piece ones this table depends on).
    packed = []  # a table with pawns is packed by its DTZ50 stage, as `solver build` does

    def dtz50() -> None:
        if build_dtz50_one(family, table, Path(root), False, DEFAULT_COMPRESSION, pack=True):
            packed.append(table)

    stages = {"dtz50": dtz50,
              "pack": lambda: None if packed else pack_one(family, table, Path(root), False),
              "dtm": lambda: build_one(family, table, Path(root), False, DEFAULT_COMPRESSION)}
    wanted = {DTM_ONLY: ["dtm"], DTZ50_ONLY: ["dtz50", "pack"], ALL: list(stages)}[metrics]
    figures = {}
    started, used = time.perf_counter(), time.process_time()
    for stage in wanted:
        stage_started = time.perf_counter()
        stages[stage]()
        figures[f"{stage}_seconds"] = round(time.perf_counter() - stage_started, 2)
    wall, cpu = time.perf_counter() - started, time.process_time() - used
    files = {"dtm": table_path(root, "chess", table),
             "dtz50": table_path(root, "chess", table, DTZ50),
             "pack": table_path(root, "chess", table, WDL50)}
    for stage in wanted:
        path = files[stage]
        if stage != "pack":
            with h5py.File(path, "r") as handle:
                figures["longest_mate" if stage == "dtm" else "longest_dtz50"] = \
                    int(handle.attrs["longest_mate"])
    size = sum(os.path.getsize(files[stage]) for stage in wanted)
    row = {"table": table, "threads": threads, "seconds": round(wall, 2),
           "cpu_seconds": round(cpu, 2), "peak_mib": round(peak_resident_mib()), "bytes": size}
    print(json.dumps(row | (figures if metrics == ALL else
                            {k: v for k, v in figures.items() if not k.endswith("_seconds")})))




SMALLER = "smaller tables"  # the row of the step that builds the tables of fewer pieces
REFERENCE = "rtbgen reference"  # the rows of rtbgen's full build of a reference table, timed in the run


def time_reference(rtbgen: str, table: str, threads: int, kept: str | None) -> dict:
    """A row: rtbgen's full build of ``table`` on ``threads`` (and ``-g``, generation alone),
    its sub-tables generated first, untimed (into ``kept`` if given, where those already there
    are used)."""
    from bench_build import rtbgen_times
    from databases.families import get_family
    from retrograde.build import build_order

    with open("/proc/loadavg") as load:
        load_average = float(load.read().split()[0])
    dependencies = {table: [t for t in build_order(get_family("chess"), [table], None) if t != table]}
    times = rtbgen_times(rtbgen, [table], [threads], 1, dependencies, kept)
    return {"table": REFERENCE, "reference_table": table, "threads": threads,
            "seconds": round(times[table, threads, False], 2),
            "generation_seconds": round(times[table, threads, True], 2), "load_before": load_average}


def in_reference_units(rows: list[dict]) -> tuple[float, int]:
    """(the seconds of the tables that have a reference timed before them in the run, each
    divided by that reference, summed; how many such tables)."""
    total, covered, reference = 0.0, 0, None
    for row in rows:
        if row["table"] == REFERENCE:
            reference = row["seconds"]
        elif reference is not None:
            total += row["seconds"] / reference
            covered += 1
    return total, covered


def report(rows: list[dict], total: int) -> None:
    """Print the summary of the recorded rows."""
    units, covered = in_reference_units(rows)
    references = [row for row in rows if row["table"] == REFERENCE]
    smaller = [row for row in rows if row["table"] == SMALLER]
    rows = [row for row in rows if row["table"] not in (SMALLER, REFERENCE)]
    if not rows:
        print("nothing recorded yet")
        return
    seconds = sum(row["seconds"] for row in rows)
    if smaller:
        print(f"tables of fewer pieces: {smaller[0]['seconds']:,.0f} s")
        seconds += smaller[0]["seconds"]
    biggest = max(rows, key=lambda row: row["peak_mib"])
    print(f"tables: {len(rows)} of {total}; build time summed{' with them' if smaller else ''}: "
          f"{seconds:,.0f} s "
          f"({seconds / 3600:.2f} h); largest peak: {biggest['peak_mib']:,} MiB "
          f"({biggest['table']}); size: {sum(row['bytes'] for row in rows) / 1e6:,.0f} MB")
    if all("dtz50_seconds" in row for row in rows):  # --metrics all: what the search needs
        first = sum(row["dtz50_seconds"] + row["pack_seconds"] for row in rows)
        print(f"of which the DTZ50 tables and packs: {first:,.0f} s ({first / 3600:.2f} h, "
              "the smaller tables' step not split)")
    for row in references:
        print(f"rtbgen's full build of {row['reference_table']} on {row['threads']} threads, timed in the "
              f"run: {row['seconds']:.1f} s (-g {row['generation_seconds']:.1f} s; load before "
              f"{row['load_before']})")
    if covered:
        print(f"{covered} of the {len(rows) + len(smaller)} rows in units of that reference (each over "
              f"the one timed before it): {units:,.1f}")
    over = [row["table"] for row in rows if row["peak_mib"] > 4096]
    print(f"over 4 GiB: {', '.join(over) if over else 'none'}")
    print("slowest:", ", ".join(f"{row['table']} {row['seconds']:.0f} s"
                                for row in sorted(rows, key=lambda r: -r["seconds"])[:8]))


def compare(rows: list[dict], baseline: list[dict]) -> None:
    """Print the tables recorded in both runs (rows of the same commit in both left out: a
    resumed run may carry rows over), each one's wall and CPU time against the baseline's,
    and their sums."""
    before = {row["table"]: row for row in baseline}
    pairs = [(row, before[row["table"]]) for row in rows if row["table"] in before and row["table"] != REFERENCE
             and row.get("commit") != before[row["table"]].get("commit")]
    if not pairs:
        print("no table measured in both runs")
        return
    print(f"{'table':8s} {'wall s':>8s} {'before':>8s} {'x':>5s} {'cpu s':>8s} {'before':>8s} {'x':>5s}")
    for row, old in pairs:
        print(f"{row['table']:8s} {row['seconds']:8.1f} {old['seconds']:8.1f} "
              f"{old['seconds'] / row['seconds']:5.2f} {row['cpu_seconds']:8.1f} "
              f"{old['cpu_seconds']:8.1f} {old['cpu_seconds'] / row['cpu_seconds']:5.2f}")
    wall, old_wall = (sum(r["seconds"] for r in side) for side in zip(*pairs))
    cpu, old_cpu = (sum(r["cpu_seconds"] for r in side) for side in zip(*pairs))
    print(f"{len(pairs)} tables: wall {wall:,.0f} s against {old_wall:,.0f} s "
          f"({old_wall / wall:.2f}x faster), CPU {cpu:,.0f} s against {old_cpu:,.0f} s "
          f"({old_cpu / cpu:.2f}x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=5)
    parser.add_argument("--db", help="directory for the tables (kept; needed but for --report)")
    parser.add_argument("--out", default="docs/results/build5.jsonl",
                        help="JSON lines, one per table (appended; the run resumes from it)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--report", action="store_true", help="summarise --out and stop")
    parser.add_argument("--baseline", type=Path,
                        help="with --report: another run's JSON lines, table by table beside")
    parser.add_argument("--metrics", default=DTM_ONLY, choices=[DTM_ONLY, DTZ50_ONLY, ALL],
                        help="dtm: the rule-free tables (the default); wdl50,dtz50: the DTZ50 "
                             "tables and their packs alone; all: both, each table's DTZ50 "
                             "table and pack first (its rule-free table starts from them)")
    parser.add_argument("--rtbgen", metavar="DIR",
                        help="Syzygy's rtbgen and rtbgenp: time rtbgen's full build of the reference "
                             "table at each start of the run, for scale")
    parser.add_argument("--rtbgen-tables", metavar="DIR",
                        help="with --rtbgen: rtbgen's sub-tables already generated there")
    parser.add_argument("--reference-table", default="KQRvKR",
                        help="with --rtbgen: the table rtbgen builds for scale (default KQRvKR)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2], args.child[3])
        return 0
    from databases.families import get_family

    family = get_family("chess")
    tables = [t for t in family.table_names(args.pieces) if len(t) - 1 == args.pieces]
    out = Path(args.out)
    rows = recorded(out)
    if args.report:
        report(rows, len(tables))
        if args.baseline:
            compare(rows, recorded(args.baseline))
        return 0
    if not args.db:
        parser.error("--db is needed to build")
    from retrograde.build import build_tables

    done = {row["table"] for row in rows}
    commit = source_commit()
    if args.rtbgen:
        from bench_build import find_rtbgen

        rtbgen = find_rtbgen(args.rtbgen)
        if rtbgen is None:
            parser.error(f"--rtbgen {args.rtbgen}: no rtbgen and rtbgenp there")
        row = time_reference(rtbgen, args.reference_table, args.threads, args.rtbgen_tables) | {
            "commit": commit, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        append_row(out, row)
        rows.append(row)
        print(f"rtbgen's full build of {args.reference_table}: {row['seconds']:.1f} s", flush=True)
    warm_up_kernels()
    started, used = time.perf_counter(), time.process_time()
    dtm = args.metrics != DTZ50_ONLY
    smaller = build_tables("chess", None, args.db, max_pieces=args.pieces - 1,
                           workers=args.threads, show_progress=False, dtm=dtm)
    from_nothing = not smaller["skipped"] if dtm else \
        len(smaller["dtz50_built"]) == len(family.table_names(args.pieces - 1))
    if SMALLER not in done and from_nothing:  # timed only when built from nothing
        row = {"table": SMALLER, "threads": args.threads,
               "seconds": round(time.perf_counter() - started, 2),
               "cpu_seconds": round(time.process_time() - used, 2),
               "tables": len(smaller["built"] if dtm else smaller["dtz50_built"]),
               "metrics": args.metrics, "commit": commit,
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        append_row(out, row)
        rows.append(row)
        print(f"{row['tables']} tables of fewer pieces: {row['seconds']:.1f} s", flush=True)
    for table in tables:  # dependencies first: a table's children are built before it
        if table in done:
            continue
        with open("/proc/loadavg") as load:
            load_average = float(load.read().split()[0])
        built = subprocess.run([sys.executable, __file__, "--db", args.db, "--child", table,
                                str(args.threads), args.db, args.metrics],
                               capture_output=True, text=True)
        if built.returncode != 0:
            print(f"{table}: build failed: {built.stderr.strip().splitlines()[-1:]}",
                  file=sys.stderr)
            return 1
        row = json.loads(built.stdout.strip().splitlines()[-1])
        row |= {"load_before": load_average, "metrics": args.metrics, "commit": commit,
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        append_row(out, row)
        rows.append(row)
        print(f"{table}: {row['seconds']:.1f} s, peak {row['peak_mib']} MiB, "
              f"{row['bytes'] / 1e6:.1f} MB ({sum(r['table'] not in (SMALLER, REFERENCE) for r in rows)}"
              f"/{len(tables)})", flush=True)
    report(rows, len(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
