"""Reference: Syzygy's rtbgen on every chess table of N pieces, beside our build times.

rtbgen runs on one thread and the run is resumable; ``--report`` sets each table's build time
of ours next to rtbgen's.

Issue 11's bar asks every five-piece table of ours to build within rtbgen's full time (WDL and
DTZ generated, compressed and written) on one thread. ``bench_build.py`` times both side by side
on a few tables; this runs rtbgen (``rtbgen`` for pawnless tables, ``rtbgenp`` with pawns) on
all of them, in dependency order, into one scratch directory that keeps the finished tables
(each run needs its sub-tables there). A table is one JSON line in ``--out`` (wall seconds,
the CPU seconds and peak resident memory of the rtbgen process, the sizes of its ``.rtbw`` and
``.rtbz``); a later run skips what is recorded and present. rtbgen on one thread keeps one core
busy, so its CPU seconds are its wall time on a quiet machine, less what it waits for the
disk; they hardly change when other work shares the machine, so the report divides by them
(a slightly stricter bar than the wall time). The tables of fewer pieces are generated first and
recorded too (a run after an interruption generates again what it cannot find).

``--report`` joins the rows with a file of our builds (``bench_build_all.py``'s ``--out``) and
prints each table's ratio ours / rtbgen, worst first. The two are not measured in the same run:
confirm the worst ratios side by side with ``bench_build.py --reference-threads 1``.

    python scripts/rtbgen_all.py --rtbgen DIR --scratch DIR [--out docs/results/rtbgen5.jsonl]
    python scripts/rtbgen_all.py --report [--ours docs/results/build5-counts.jsonl]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from bench_build import find_rtbgen
from results_log import append_row, recorded


def table_files(scratch: Path, table: str) -> list[Path]:
    """rtbgen's output files for ``table``."""
    return [scratch / f"{table}.rtbw", scratch / f"{table}.rtbz"]


def generate(rtbgen: str, table: str, scratch: Path) -> dict:
    """Run rtbgen on one thread for ``table`` in ``scratch``; its wall time, peak memory and
    file sizes. Raises ``RuntimeError`` with rtbgen's last words if it fails."""
    for path in table_files(scratch, table):  # a half-written file from an interrupted run
        path.unlink(missing_ok=True)
    binary = os.path.join(rtbgen, "rtbgenp" if "P" in table else "rtbgen")
    env = {**os.environ, "RTBWDIR": str(scratch), "RTBZDIR": str(scratch)}
    started = time.perf_counter()
    process = subprocess.Popen([binary, "-t", "1", table], cwd=scratch, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage: its peak memory
    wall = time.perf_counter() - started
    stderr = process.stderr.read()
    process.stderr.close()
    if status != 0:
        raise RuntimeError(f"{table}: rtbgen failed: {stderr.strip().splitlines()[-1:]}")
    return {"table": table, "seconds": round(wall, 2),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_mib": round(usage.ru_maxrss / 1024),
            "wdl_bytes": table_files(scratch, table)[0].stat().st_size,
            "dtz_bytes": table_files(scratch, table)[1].stat().st_size}


def report(rows: list[dict], ours_path: Path, pieces: int) -> None:
    """Each table's wall time of ours over rtbgen's CPU time, worst first, and the totals."""
    theirs = {row["table"]: row for row in rows}
    ours = {row["table"]: row for row in recorded(ours_path) if "table" in row and "seconds" in row}
    both = [t for t in theirs if t in ours and len(t) - 1 == pieces]
    print(f"rtbgen, one thread: {len(theirs)} tables recorded, "
          f"{sum(r['seconds'] for r in theirs.values()):,.0f} s; "
          f"{pieces}-piece tables of ours beside them: {len(both)}")
    if not both:
        return
    ratios = sorted(((ours[t]["seconds"] / theirs[t]["cpu_seconds"], t) for t in both),
                    reverse=True)
    over = [t for ratio, t in ratios if ratio > 1]
    print(f"ours (wall) / rtbgen full (CPU): worst {ratios[0][0]:.2f} ({ratios[0][1]}), median "
          f"{ratios[len(ratios) // 2][0]:.2f}, best {ratios[-1][0]:.2f}; over 1: "
          f"{', '.join(over) if over else 'none'}")
    size = sum(theirs[t]["wdl_bytes"] + theirs[t]["dtz_bytes"] for t in both)
    print(f"summed: ours {sum(ours[t]['seconds'] for t in both):,.0f} s, rtbgen "
          f"{sum(theirs[t]['cpu_seconds'] for t in both):,.0f} CPU-s; rtbgen's WDL+DTZ {size / 1e6:,.0f} MB")
    print(f"{'table':8} {'ours s':>8} {'rtb CPU s':>9} {'rtb wall':>8} {'ratio':>6} "
          f"{'rtb MiB':>8} {'our commit':>10}")
    for ratio, t in ratios:
        print(f"{t:8} {ours[t]['seconds']:8.1f} {theirs[t]['cpu_seconds']:9.1f} "
              f"{theirs[t]['seconds']:8.1f} {ratio:6.2f} {theirs[t]['peak_mib']:8} "
              f"{ours[t].get('commit', '?'):>10}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=5)
    parser.add_argument("--rtbgen", help="directory of rtbgen and rtbgenp (syzygy1/tb)")
    parser.add_argument("--scratch", help="directory for rtbgen's tables (kept between runs)")
    parser.add_argument("--out", default="docs/results/rtbgen5.jsonl",
                        help="JSON lines, one per table (appended; the run resumes from it)")
    parser.add_argument("--ours", default="docs/results/build5-counts.jsonl",
                        help="rows of our builds for --report")
    parser.add_argument("--report", action="store_true", help="compare --out with --ours and stop")
    args = parser.parse_args()
    out = Path(args.out)
    if args.report:
        report(recorded(out), Path(args.ours), args.pieces)
        return 0
    rtbgen = find_rtbgen(args.rtbgen)
    if rtbgen is None:
        parser.error("rtbgen not found: build rtbgen and rtbgenp (syzygy1/tb: make -C src all) "
                     "and pass --rtbgen DIR")
    if not args.scratch:
        parser.error("--scratch DIR is needed to generate")
    from databases.families import get_family

    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    tables = [t for t in get_family("chess").table_names(args.pieces) if t != "KvK"]
    done = {row["table"] for row in recorded(out)
            if all(path.is_file() for path in table_files(scratch, row["table"]))}
    todo = [t for t in tables if t not in done]
    print(f"{len(todo)} of {len(tables)} tables to generate with {rtbgen} into {scratch}",
          flush=True)
    for number, table in enumerate(todo, 1):
        with open("/proc/loadavg") as load:
            load_average = float(load.read().split()[0])
        try:
            row = generate(rtbgen, table, scratch)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 1
        row |= {"load_before": load_average,
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        append_row(out, row)
        print(f"{table}: {row['seconds']:.1f} s, peak {row['peak_mib']} MiB "
              f"({number}/{len(todo)})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
