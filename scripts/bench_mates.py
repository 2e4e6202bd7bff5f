"""Mates found at a fixed time per position: our engine with the prover leaves on and off, next
to Stockfish's `go mate N`, in the same run.

Positions: the mate sets of ``$SOLVER_ORACLE_DATA/chess`` (``mate-in-2.epd``, ``mate-in-3.epd``:
``--count`` of each) and long mates collected from our own tables (``--db``): positions of
KQvK, KRvK and KQvKR (or the ``--endings`` named) whose exact distance to mate is
``--long-min`` to ``--long-max`` moves, drawn at random (seeded). Every engine plays without
tables, so the long mates have to be found.

Each position is given, in turn:

* ``ours+prover``: ``solver uci`` with ``ProverNodes`` = ``--prover-nodes``, ``go movetime``;
* ``ours+probe``: ``ProverNodes`` 0 and ``MateProbe`` on: the search with the prover inside its
  tree (:mod:`solver.search.mate_probe`), ``go movetime``;
* ``ours``: the same engine with ``ProverNodes`` 0 (the search alone), ``go movetime``;
* ``ours alt``: ``ours`` with the ``--alt-option`` options on top, ``go movetime`` (a switch on
  against off in the same run, under the same load);
* ``ours mate``: ``go mate N`` (df-pn), stopped at the time limit;
* ``stockfish``: Stockfish's ``go mate N``, stopped at the time limit;
* ``stockfish movetime``: Stockfish's ``go movetime`` (the same question as ``ours+prover``).

Two counts per engine, as in Stockfish's matetrack: **mates**, where the last score reported
before ``bestmove`` is ``mate k`` with k > 0 (a mate bound that a later line takes back is no
mate), was reported within the time (plus 0.1 s) and the move played keeps a forced win;
**best**, those among them with k <= N whose move keeps a mate within 2N - 2 plies (the
shortest mate, or one as short as the EPD's). Moves are checked with our tables for
the long mates, with a df-pn disproof of the defender's ``draw`` for the others (bounded to
2N - 2 plies for *best*). Time to find is the engine's ``time`` of its first info line carrying
that mate. With ``--nodes N`` the engines given ``go movetime`` get ``go nodes N`` instead (a
comparison at equal nodes, which a busy machine does not skew; the ``go mate`` engines keep
``--time``).

    python scripts/bench_mates.py --db DIR [--time 1.0 | --nodes N] [--count 100] [--long 20] [--suite EPD]

``--suite`` adds every problem of an EPD file with ``dm N`` (for instance the long mates from
real play that ``scripts/make_mate_suite.py`` collects).
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
from common import find_stockfish, oracle_data

ENGINES = ("ours+prover", "ours+probe", "ours", "ours alt", "ours mate", "stockfish", "stockfish movetime")
TIMED = ("ours+prover", "ours+probe", "ours", "ours alt", "stockfish movetime")  # given ``go movetime``; the others ``go mate N``
WARM_UP_MS = 300  # each engine's throwaway first search
WARM_UP_MATE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # and a mate in one, for its prover
LATE = 0.1  # a mate reported this long after the time limit does not count
NODES_WALL_LIMIT = 600  # with --nodes: seconds after which a search is stopped all the same


class UciProcess:
    """A UCI engine on pipes: send lines, read until ``bestmove`` with a stop after a deadline."""

    def __init__(self, command: list[str], options: dict[str, str]):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.read_until("uciok")
        for name, value in options.items():
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.read_until("readyok", timeout=120)
        # Throwaway searches, so that no engine's first position pays for loading what its
        # first search needs: the search, and our prover's kernels (which `go mate` waits for,
        # even while a cold cache compiles them).
        self.send("position startpos")
        self.send(f"go movetime {WARM_UP_MS}")
        self.read_until("bestmove")
        self.send(f"position fen {WARM_UP_MATE}")
        self.send("go mate 1")
        self.read_until("bestmove")

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_until(self, prefix: str, timeout: float | None = None) -> list[str]:
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def go(self, fen: str, command: str, seconds: float) -> tuple[list[str], float]:
        """The output of one search, stopped after ``seconds``; and the wall time to bestmove."""
        self.send("ucinewgame")
        self.send(f"position fen {fen}")
        self.send("isready")
        self.read_until("readyok", timeout=120)
        started = time.monotonic()
        self.send(command)
        timer = threading.Timer(seconds, lambda: self.send("stop"))
        timer.start()
        try:
            lines = self.read_until("bestmove")
        finally:
            timer.cancel()
        return lines, time.monotonic() - started

    def close(self) -> None:
        try:
            self.send("quit")
            self.process.wait(timeout=5)
        except Exception:
            self.process.kill()


def epd_mates(path: Path, count: int) -> list[tuple[str, str, int]]:
    """(set, fen, N) of the first ``count`` problems of an EPD file with ``dm N``."""
    problems = []
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    for line in lines[:count]:
        fields = line.split()
        moves = int(line.split(" dm ")[1].split(";")[0])
        problems.append((path.name.removesuffix(".epd"), " ".join(fields[:4]) + " 0 1", moves))
    return problems


def mate_sets(data: Path, count: int) -> list[tuple[str, str, int]]:
    """(set, fen, N) from the EPD mate sets of the oracle data."""
    return [problem for name in ("mate-in-2.epd", "mate-in-3.epd")
            for problem in epd_mates(data / "chess" / name, count)]


DEFAULT_ENDINGS = ("KQvK", "KRvK", "KQvKR")
MAX_DRAWS_PER_MATE = 20000  # random placements tried per long mate wanted before giving up


def ending_pieces(ending: str) -> str:
    """The pieces of a chess table beside the kings, White's upper case and Black's lower case
    (``KQvKR`` -> ``Qr``); ValueError unless ``ending`` names a table of 3-5 pieces."""
    from games.chess.endgames import sides_of, tables_up_to

    if ending not in tables_up_to(5) or ending == "KvK":
        raise ValueError(f"{ending!r} is not a table of 3-5 pieces such as KQvKR")
    white, black = sides_of(ending)
    return white + black.lower()


def long_mates(db: str, per_ending: int, low: int, high: int, seed: int,
               endings: tuple[str, ...] = DEFAULT_ENDINGS) -> list[tuple[str, str, int]]:
    """(set, fen, N) of positions of each ending, White to move, whose exact mate length by our
    tables is N in [low, high]."""
    import games
    from databases.reader import open_database

    game = games.get("chess")
    rng = random.Random(seed)
    found = []
    with open_database(db, "chess") as database:
        for ending in endings:
            pieces = ending_pieces(ending)
            collected, drawn = 0, 0
            while collected < per_ending:
                drawn += 1
                if drawn > MAX_DRAWS_PER_MATE * per_ending:
                    raise SystemExit(f"bench_mates: {ending} has too few White wins with a mate in "
                                     f"{low}-{high} moves to draw {per_ending} of them at random")
                board = chess.Board(None)
                squares = rng.sample(range(64), 2 + len(pieces))
                board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
                board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
                for square, symbol in zip(squares[2:], pieces):
                    board.set_piece_at(square, chess.Piece.from_symbol(symbol))
                board.turn = chess.WHITE
                if not board.is_valid() or board.is_game_over():
                    continue
                dtm = database.probe(game.parse_position(board.fen())).dtm
                if dtm > 0 and low <= (dtm + 1) // 2 <= high:
                    found.append((f"long {ending}", board.fen(), (dtm + 1) // 2))
                    collected += 1
    return found


def verify_move(fen: str, move_text: str, moves: int | None, database) -> bool:
    """Whether ``move_text`` keeps a forced win: a mate within ``2 * moves - 2`` plies after it,
    or, with ``moves`` None, a mate of any length."""
    import games

    game = games.get("chess")
    board = chess.Board(fen)
    try:
        move = chess.Move.from_uci(move_text)
    except ValueError:
        return False
    if move not in board.legal_moves:
        return False
    board.push(move)
    if board.is_checkmate():
        return True
    child = game.parse_position(board.fen())
    if database is not None:
        try:
            result = database.probe(child)
            return result.wdl == -1 and (moves is None or -result.dtm <= 2 * moves - 2)
        except Exception:
            pass
    from proofsearch.dfpn import prove

    found = prove(game, child, "draw", max_depth=None if moves is None else 2 * moves - 2, seconds=60)
    return found.result == "disproven"


def _verdict(outcome: tuple[bool, bool, float | None]) -> str:
    found, shortest, _ = outcome
    return "best" if shortest else "mate" if found else "no"


def parse_answer(lines: list[str]) -> tuple[int | None, int | None, str]:
    """(the final score's mate, time of the first info line with that mate, bestmove): the
    mate is None unless the last score reported before ``bestmove`` is one. A mate bound that a
    later line takes back (an aspiration fail-high the re-search does not confirm) is no mate,
    as matetrack reads the final score."""
    scores = []
    for line in lines:
        if line.startswith("info") and " score " in line:
            kind, value = line.split(" score ")[1].split()[:2]
            millis = int(line.split(" time ")[1].split()[0]) if " time " in line else None
            scores.append((int(value) if kind == "mate" else None, millis))
    best = lines[-1].split()[1]
    if not scores or scores[-1][0] is None:
        return None, None, best
    last = scores[-1][0]
    first_time = next(millis for k, millis in scores if k == last)
    return last, first_time, best


def uci_options(parser: argparse.ArgumentParser, flag: str, given: list[str]) -> dict[str, str]:
    """The ``NAME=VALUE`` options given to ``flag`` as a dict (a usage error for another form)."""
    options = {}
    for option in given:
        name, _, value = option.partition("=")
        if not name or not value:
            parser.error(f"{flag}: {option!r} is not NAME=VALUE")
        options[name] = value
    return options


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None, help="tables to collect long mates from (and check moves)")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position for every engine")
    parser.add_argument("--nodes", type=int, default=0,
                        help="instead of --time: nodes per position for the engines given `go movetime` "
                        "(`go nodes N`; a comparison at equal nodes, which a busy machine does not skew)")
    parser.add_argument("--count", type=int, default=100, help="problems from each EPD set (0: none)")
    parser.add_argument("--suite", type=Path, action="append", default=[],
                        help="another EPD file of mates with dm N (scripts/make_mate_suite.py), all of it")
    parser.add_argument("--long", type=int, default=20, help="long mates per ending (needs --db)")
    parser.add_argument("--endings", nargs="+", default=list(DEFAULT_ENDINGS), metavar="ENDING",
                        help="the endings the long mates come from (default: %(default)s); their tables "
                        "must be in --db")
    parser.add_argument("--long-min", type=int, default=6)
    parser.add_argument("--long-max", type=int, default=12)
    parser.add_argument("--prover-nodes", type=int, default=20000)
    parser.add_argument("--stockfish", default=find_stockfish())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ours-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option for every one of our engines (for instance QuiescenceChecks=true)")
    parser.add_argument("--alt-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option for the engine `ours alt` only (for instance MateProbe=true)")
    parser.add_argument("--engines", nargs="+", choices=ENGINES,
                        default=[engine for engine in ENGINES if engine != "ours alt"],
                        help="the engines to run (default: all but `ours alt`)")
    args = parser.parse_args()
    if args.nodes < 0:
        parser.error("--nodes: must be positive")
    ours_options = uci_options(parser, "--ours-option", args.ours_option)
    alt_options = uci_options(parser, "--alt-option", args.alt_option)
    if "ours alt" in args.engines and not alt_options:
        parser.error("the engine `ours alt` needs --alt-option NAME=VALUE")
    for ending in args.endings:
        try:
            ending_pieces(ending)
        except ValueError as error:
            parser.error(f"--endings: {error}")
    data = oracle_data()

    problems = mate_sets(data, args.count) if args.count > 0 else []
    for suite in args.suite:
        if not suite.exists():
            parser.error(f"--suite: {suite} does not exist")
        problems += epd_mates(suite, 10 ** 9)
    database = None
    if args.db:
        from databases.reader import open_database

        problems += long_mates(args.db, args.long, args.long_min, args.long_max, args.seed, tuple(args.endings))
        database = open_database(args.db, "chess")
    solver = [sys.executable, "-m", "solver", "uci"]
    starters = {
        "ours+prover": lambda: UciProcess(solver, {**ours_options, "ProverNodes": str(args.prover_nodes)}),
        "ours+probe": lambda: UciProcess(solver, {**ours_options, "ProverNodes": "0", "MateProbe": "true"}),
        "ours": lambda: UciProcess(solver, {**ours_options, "ProverNodes": "0"}),
        "ours alt": lambda: UciProcess(solver, {**ours_options, "ProverNodes": "0", **alt_options}),
        "stockfish": lambda: UciProcess([args.stockfish], {}),
    }
    needed = {"ours mate": "ours", "stockfish movetime": "stockfish"}
    engines = {name: start() for name, start in starters.items()
               if name in args.engines or any(needed.get(e) == name for e in args.engines)}
    for alias, engine in needed.items():
        if engine in engines:
            engines[alias] = engines[engine]
    chosen = [engine for engine in ENGINES if engine in args.engines]
    results: dict[str, dict[str, list]] = {}
    try:
        for number, (name, fen, moves) in enumerate(problems, 1):
            row = results.setdefault(name, {engine: [] for engine in chosen})
            for engine in chosen:
                if engine not in TIMED:
                    command = f"go mate {moves}"
                elif args.nodes:
                    command = f"go nodes {args.nodes}"
                else:
                    command = f"go movetime {int(args.time * 1000)}"
                fixed_nodes = args.nodes and engine in TIMED
                lines, wall = engines[engine].go(fen, command, NODES_WALL_LIMIT if fixed_nodes else args.time)
                mate, millis, best = parse_answer(lines)
                seconds = (millis if millis is not None else wall * 1000) / 1000
                reported = mate is not None and mate > 0 and (fixed_nodes or seconds <= args.time + LATE)
                # A move that keeps the short mate keeps a win: one proof, not two.
                shortest = reported and mate <= moves and verify_move(fen, best, moves, database)
                found = shortest or (reported and verify_move(fen, best, None, database))
                row[engine].append((found, shortest, seconds if found else None))
            print(f"[{number}/{len(problems)}] {name} {fen} mate {moves}: "
                  + ", ".join(f"{e} {_verdict(results[name][e][-1])}" for e in chosen), file=sys.stderr)
    finally:
        for engine in {id(e): e for e in engines.values()}.values():
            engine.close()
    budget = f"{args.nodes:,} nodes" if args.nodes else f"{args.time:g} s"
    print(f"Mates found at {budget} per position (prover {args.prover_nodes} nodes per call): "
          f"mates (any forced mate, with a winning move), best (as short as the EPD's), and the median "
          f"time to find over the mates")
    print("| set | positions | " + " | ".join(f"{e} mates | {e} best | {e} median s" for e in chosen) + " |")
    print("| --- | --- | " + " | ".join("--- | --- | ---" for _ in chosen) + " |")
    totals = {engine: [0, 0] for engine in chosen}
    for name, row in results.items():
        cells = []
        for engine in chosen:
            hits = [seconds for found, _, seconds in row[engine] if found]
            best = sum(1 for _, shortest, _ in row[engine] if shortest)
            totals[engine][0] += len(hits)
            totals[engine][1] += best
            cells.append(f"{len(hits)} | {best} | {statistics.median(hits):.3f}" if hits else f"0 | {best} | -")
        print(f"| {name} | {len(row[chosen[0]])} | " + " | ".join(cells) + " |")
    print("| all | " + str(len(problems)) + " | "
          + " | ".join(f"{totals[e][0]} | {totals[e][1]} | " for e in chosen) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
