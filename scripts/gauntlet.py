"""Play versions of our engine against one gauntlet of real engines and rate each version.

Issue 41 measures strength the way rating lists do: each version of the player meets the same
opponents, in the same run, and its rating follows from its combined score against their
CCRL ratings. This script runs ``scripts/match.py`` for every (version, opponent) pair, in
rounds of ``--chunk`` games, so that every pairing grows evenly while the machine's load
drifts, and it resumes where it stopped (each pairing keeps its PGN in ``--out``).

    python scripts/gauntlet.py --version old=/path/to/checkout-c03909b \\
        --version new=/path/to/checkout-head --games 100 --out gauntlet-dir
    python scripts/gauntlet.py ... --report          # the table from what is recorded

A version is a checkout of this repository: its engine is ``python -m solver uci`` started in
that directory (one thread, ``Hash`` 64, tables and prover off, as the defaults are). The
opponents and the ratings used (CCRL 40/15 for Phalanx and Glaurung; Stockfish's ``UCI_Elo``
is its own calibration against CCRL) are in ``OPPONENTS``. For each version the report gives
the score and Elo against each opponent, the Elo against the gauntlet as a whole (every pair
of games pooled, a 95% interval from the pentanomial counts), the rating that implies
(the opponents' mean rating plus that Elo), and the difference between versions.
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import elo  # scripts/elo.py, beside this file

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Opponent:
    """One engine of the gauntlet: its match.py engine spec and its rating."""

    spec: str
    rating: int


OPPONENTS = {
    "phalanx": Opponent("cmd=/usr/games/phalanx -l- -b-,proto=xboard,name=phalanx", 2610),
    "stockfish2200": Opponent(
        "cmd=/usr/games/stockfish,name=stockfish2200,option.Threads=1,option.Hash=64,"
        "option.UCI_LimitStrength=true,option.UCI_Elo=2200", 2200),
    "glaurung": Opponent(
        "cmd=/usr/games/glaurung,name=glaurung,option.Threads=1,option.Hash=64,"
        "option.OwnBook=false", 2790),
}
PENTANOMIAL_KEYS = ("LL", "LD", "DD+WL", "WD", "WW")


def parse_version(text: str) -> tuple[str, Path]:
    """``NAME=DIR`` -> (name, checkout directory)."""
    name, sep, directory = text.partition("=")
    if not sep or not name or not Path(directory, "solver").is_dir():
        raise SystemExit(f"gauntlet.py: --version {text!r}: want NAME=DIR, DIR a checkout of this repository")
    return name, Path(directory).resolve()


def pairing_files(out: Path, version: str, opponent: str) -> tuple[Path, Path]:
    """The PGN and the JSON summary of one pairing."""
    stem = out / f"{version}-{opponent}"
    return stem.with_suffix(".pgn"), stem.with_suffix(".json")


def play_chunk(args: argparse.Namespace, version: str, directory: Path, opponent: str, games: int) -> None:
    """Bring one pairing up to ``games`` games (match.py resumes from its PGN)."""
    pgn, summary = pairing_files(args.out, version, opponent)
    ours = f"cmd={sys.executable} -m solver uci,name={version},dir={directory},option.Hash=64"
    command = [sys.executable, str(HERE / "match.py"), "--engine", ours,
               "--engine", OPPONENTS[opponent].spec, "--games", str(games), "--tc", args.tc,
               "--concurrency", str(args.concurrency), "--seed", str(args.seed),
               "--pgn", str(pgn), "--resume", "--json", str(summary),
               "--event", f"gauntlet {version} vs {opponent}"]
    if args.openings:
        command += ["--openings", args.openings]
    print(f"gauntlet: {version} vs {opponent}, up to {games} games", flush=True)
    result = subprocess.run(command, stdout=subprocess.DEVNULL)
    if result.returncode != 0:
        raise SystemExit(f"gauntlet.py: match.py stopped with status {result.returncode} "
                         f"({version} vs {opponent}); its PGN keeps the finished games")


def read_summary(out: Path, version: str, opponent: str) -> dict | None:
    """The JSON summary match.py wrote for one pairing, if any."""
    summary = pairing_files(out, version, opponent)[1]
    return json.loads(summary.read_text()) if summary.exists() else None


def pooled(summaries: list[dict]) -> tuple[list[int], float]:
    """Pentanomial counts pooled over pairings, and the mean opponent rating weighted by
    pairs."""
    counts = [0] * 5
    weighted, pairs = 0.0, 0
    for summary in summaries:
        for index, key in enumerate(PENTANOMIAL_KEYS):
            counts[index] += summary["pentanomial"][key]
        weighted += summary["opponent_rating"] * summary["pairs"]
        pairs += summary["pairs"]
    return counts, weighted / pairs if pairs else float("nan")


def forfeits_of(summary: dict, version: str) -> int:
    """How many games our engine forfeited (time, illegal move, crash, stall) in a pairing."""
    return sum(summary.get("forfeits", {}).get(version, {}).values())


def report(args: argparse.Namespace, versions: list[tuple[str, Path]]) -> dict:
    """Print the gauntlet table and return it as a dict."""
    table: dict = {"tc": args.tc, "seed": args.seed, "versions": {}}
    print(f"{'version':<10} {'opponent':<14} {'rating':>6} {'games':>5} {'W-D-L':>11} {'score':>6} "
          f"{'Elo [95%]':>22} {'implied':>7} {'forfeits':>8}")
    for version, _ in versions:
        rows = []
        for opponent in args.opponents:
            summary = read_summary(args.out, version, opponent)
            if summary is None or not summary.get("games"):
                continue
            summary["opponent_rating"] = OPPONENTS[opponent].rating
            rows.append(summary)
            interval = summary["elo_pentanomial"]
            print(f"{version:<10} {opponent:<14} {OPPONENTS[opponent].rating:>6} {summary['games']:>5} "
                  f"{summary['wins']:>3}-{summary['draws']}-{summary['losses']:<3} {summary['score']:>6.3f} "
                  f"{_elo_text(interval['elo'], interval['elo_low'], interval['elo_high']):>22} "
                  f"{_implied(OPPONENTS[opponent].rating, interval['elo']):>7} {forfeits_of(summary, version):>8}")
        if not rows:
            continue
        counts, mean_rating = pooled(rows)
        interval = elo.pentanomial_interval(counts)
        games = sum(row["games"] for row in rows)
        print(f"{version:<10} {'all':<14} {mean_rating:>6.0f} {games:>5} {'':>11} {interval.score:>6.3f} "
              f"{_elo_text(interval.elo, interval.elo_low, interval.elo_high):>22} "
              f"{_implied(mean_rating, interval.elo):>7}")
        table["versions"][version] = {
            "games": games, "pentanomial": counts, "score": round(interval.score, 4),
            "elo": _rounded(interval.elo), "elo_low": _rounded(interval.elo_low),
            "elo_high": _rounded(interval.elo_high), "mean_opponent_rating": round(mean_rating, 1),
            "implied_rating": _rounded(mean_rating + interval.elo),
            "pairings": {row["engines"]["B"]["name"]: {k: row[k] for k in ("games", "wins", "draws", "losses", "score")}
                         for row in rows}}
    rated = table["versions"]
    if len(rated) == 2:
        (first, a), (second, b) = rated.items()
        table["difference"] = difference_of(f"{second} - {first}", a, b)
    return table


def difference_of(name: str, a: dict, b: dict) -> dict:
    """Print and return the Elo of version b over version a with its 95% interval (None where a
    rating or an interval's end is infinite: a version with every pair one way, early on)."""
    if a["elo"] is None or b["elo"] is None:
        print(f"{name}: not yet rated (a version has scored every game alike)")
        return {"of": name, "elo": None, "elo_low": None, "elo_high": None}
    difference = b["elo"] - a["elo"]
    if None in (a["elo_low"], a["elo_high"], b["elo_low"], b["elo_high"]):
        print(f"{name}: {difference:+.1f} Elo (interval unbounded: too few games)")
        return {"of": name, "elo": round(difference, 1), "elo_low": None, "elo_high": None}
    # Independent samples: the error of a difference is the root of the summed squares.
    half = math.hypot((a["elo_high"] - a["elo_low"]) / 2, (b["elo_high"] - b["elo_low"]) / 2)
    print(f"{name}: {difference:+.1f} Elo [{difference - half:+.1f}, {difference + half:+.1f}]")
    return {"of": name, "elo": round(difference, 1), "elo_low": round(difference - half, 1),
            "elo_high": round(difference + half, 1)}


def _rounded(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def _elo_text(value: float | None, low: float | None, high: float | None) -> str:
    """``+12 [-30, +55]``; match.py writes None for the infinite Elo of an all-one-result run."""
    if value is None or not math.isfinite(value):
        return "(all one result)"
    ends = ["-inf" if low is None else f"{low:+.0f}", "+inf" if high is None else f"{high:+.0f}"]
    return f"{value:+.0f} [{ends[0]}, {ends[1]}]"


def _implied(rating: float, difference: float | None) -> str:
    return f"{rating + difference:.0f}" if difference is not None and math.isfinite(difference) else "-"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="append", required=True, metavar="NAME=DIR",
                        help="a version to rate: a name and the checkout its engine runs from (repeat)")
    parser.add_argument("--opponents", default=",".join(OPPONENTS),
                        help=f"comma-separated opponents (default: {','.join(OPPONENTS)})")
    parser.add_argument("--games", type=int, default=100, help="games per version and opponent (default 100)")
    parser.add_argument("--chunk", type=int, default=10, help="games added to each pairing per round (default 10)")
    parser.add_argument("--tc", default="10+0.1", help="time control (default 10+0.1)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at a time (default 1)")
    parser.add_argument("--seed", type=int, default=41, help="opening order, the same for every pairing (default 41)")
    parser.add_argument("--openings", help="EPD file of openings (default: match.py's book)")
    parser.add_argument("--out", type=Path, required=True, help="directory of the pairings' PGN and JSON files")
    parser.add_argument("--json", type=Path, help="write the report to this file")
    parser.add_argument("--report", action="store_true", help="only print the report of what is recorded")
    args = parser.parse_args(argv)
    versions = [parse_version(text) for text in args.version]
    args.opponents = [name.strip() for name in args.opponents.split(",") if name.strip()]
    unknown = [name for name in args.opponents if name not in OPPONENTS]
    if unknown:
        parser.error(f"unknown opponent(s) {', '.join(unknown)}; known: {', '.join(OPPONENTS)}")
    if args.games % 2 or args.chunk % 2 or args.chunk <= 0:
        parser.error("--games and --chunk must be even (games come in pairs) and --chunk positive")
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.report:
        try:
            for target in range(args.chunk, args.games + args.chunk, args.chunk):
                for opponent in args.opponents:
                    for version, directory in versions:
                        play_chunk(args, version, directory, opponent, min(target, args.games))
        except KeyboardInterrupt:
            print("gauntlet: stopped; run again to resume", file=sys.stderr)
    table = report(args, versions)
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
