"""Play a match between two chess engines (UCI, or xboard through an adapter) with fastchess
and measure the Elo difference.

    python scripts/match.py --engine "cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1500" \\
        --games 100 --tc 10+0.1 --pgn match.pgn --json match.json

Engine A is the engine under test: the first --engine, or ``solver uci`` when only one --engine
is given (that one is then engine B). Every figure is from engine A's point of view.

fastchess (github.com/Disservin/fastchess: ``make``; found by --fastchess, $FASTCHESS or on
PATH) plays the games: the clocks, the rules, adjudication, SPRT stops, engines restarted after
a crash. This script chooses the openings (pairs of games from one EPD line of --openings with
colours swapped, in the order --seed and --start give, so that a resumed or extended match
continues the same sequence), starts an xboard engine (``proto=xboard``) through
``scripts/xboard_as_uci.py`` (fastchess speaks only UCI), and reads the games back: each is
appended to --pgn with ``Round "PAIR.GAME"`` and, for a forfeit, an ``Offender`` tag. At the
end: W/D/L, score, Elo with a 95% confidence interval from the pentanomial distribution of
pairs (``scripts/elo.py``; the trinomial one beside it), SPRT state if asked for, how the games
ended and the forfeits of each engine; --json writes the same figures.

Ctrl-C stops fastchess; the finished games are kept and summed up. ``--pgn FILE --resume``
reads the finished pairs back from FILE and plays the pairs still missing (use the same
--seed/--start to keep the opening sequence).
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

import elo  # scripts/elo.py, beside this file
from common import oracle_data

HERE = Path(__file__).resolve().parent
DEFAULT_OPENINGS = oracle_data() / "chess" / "openings-8moves.epd"
DEFAULT_ENGINE_A = "cmd=solver uci,name=solver"
XBOARD_ADAPTER = HERE / "xboard_as_uci.py"

# How games end (the PGN Termination tag this script writes). The forfeits name an engine.
CHECKMATE = "checkmate"
STALEMATE = "stalemate"
REPETITION = "threefold repetition"
FIFTY_MOVES = "fifty-move rule"
INSUFFICIENT = "insufficient material"
TIME_FORFEIT = "time forfeit"
ILLEGAL_MOVE = "illegal move"
CRASH = "crash"
STALL = "stall"
ADJUDICATION_DRAW = "adjudication: draw"
ADJUDICATION_RESIGN = "adjudication: resign"
FORFEITS = (TIME_FORFEIT, ILLEGAL_MOVE, CRASH, STALL)

# fastchess's reasons (the comment on a game's last move) -> ours; a forfeit names the side
FASTCHESS_REASONS = (
    (re.compile(r"\b(White|Black) mates\b"), CHECKMATE),
    (re.compile(r"Draw by stalemate"), STALEMATE),
    (re.compile(r"Draw by 3-fold repetition"), REPETITION),
    (re.compile(r"Draw by fifty moves rule"), FIFTY_MOVES),
    (re.compile(r"Draw by insufficient mating material"), INSUFFICIENT),
    (re.compile(r"\b(White|Black) loses on time\b"), TIME_FORFEIT),
    (re.compile(r"\b(White|Black) makes an illegal move\b"), ILLEGAL_MOVE),
    (re.compile(r"\b(White|Black) disconnects\b"), CRASH),
    (re.compile(r"\b(White|Black)'s connection stalls\b"), STALL),
    (re.compile(r"\b(White|Black) wins by adjudication\b"), ADJUDICATION_RESIGN),
    (re.compile(r"Draw by adjudication"), ADJUDICATION_DRAW),
)
# fastchess's Termination tags of the forfeits (a crash and a stall are both "abandoned")
FASTCHESS_FORFEITS = {"time forfeit": TIME_FORFEIT, "illegal move": ILLEGAL_MOVE, "abandoned": CRASH}


class UsageError(Exception):
    """Bad command-line input: reported as one line on stderr, exit status 2."""


# -- command-line parsing ---------------------------------------------------------------------

@dataclass
class EngineSpec:
    """How to start one engine: ``cmd=...,name=...,proto=uci|xboard,dir=...,option.X=Y``."""

    cmd: list[str]
    name: str | None = None
    proto: str = "uci"
    options: dict[str, str] = field(default_factory=dict)
    dir: str | None = None

    @property
    def text(self) -> str:
        """The command line as one string."""
        return shlex.join(self.cmd)


def parse_engine_spec(text: str) -> EngineSpec:
    """Parse an --engine value: comma-separated ``key=value`` pairs, ``cmd`` required.

    Keys: ``cmd`` (the command line, split as a shell would), ``name`` (for the PGN and the
    summary; default the executable's name), ``proto`` (``uci``, the default, or ``xboard``),
    ``dir`` (working directory), ``option.NAME`` (a UCI engine's option, set before every
    game). The executable must exist (on PATH or as a path).
    """
    fields: dict[str, str] = {}
    options: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"engine spec {text!r}: {part!r} is not key=value")
        if key.startswith("option."):
            options[key[len("option."):]] = value.strip()
        elif key in ("cmd", "name", "proto", "dir"):
            fields[key] = value.strip()
        else:
            raise UsageError(f"engine spec {text!r}: unknown key {key!r} (cmd, name, proto, dir, option.X)")
    if not fields.get("cmd"):
        raise UsageError(f"engine spec {text!r}: no cmd=")
    try:
        cmd = shlex.split(fields["cmd"])
    except ValueError as err:
        raise UsageError(f"engine spec {text!r}: cmd: {err}") from None
    proto = fields.get("proto", "uci").lower()
    if proto not in ("uci", "xboard"):
        raise UsageError(f"engine spec {text!r}: proto must be uci or xboard, not {proto!r}")
    workdir = fields.get("dir")
    if workdir is not None and not os.path.isdir(workdir):
        raise UsageError(f"engine spec {text!r}: dir {workdir!r} is not a directory")
    exe = cmd[0]
    if os.sep in exe:
        path = exe if workdir is None or os.path.isabs(exe) else os.path.join(workdir, exe)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise UsageError(f"engine executable not found or not executable: {exe}")
    elif shutil.which(exe) is None:
        raise UsageError(f"engine executable not found on PATH: {exe}")
    return EngineSpec(cmd=cmd, name=fields.get("name") or None, proto=proto, options=options, dir=workdir)


def parse_tc(text: str) -> tuple[float, float, int | None]:
    """Parse ``[MOVES/]BASE[+INC]`` in seconds (``10+0.1``, ``60``, ``40/60``: 60 s for every 40
    moves) into (base, increment, moves per period or None)."""
    moves_text, slash, rest = text.partition("/")
    if not slash:
        moves_text, rest = "", text
    base_text, plus, inc_text = rest.partition("+")
    try:
        moves = int(moves_text) if slash else None
        base = float(base_text)
        inc = float(inc_text) if plus else 0.0
    except ValueError:
        raise UsageError(f"bad --tc {text!r}: expected [MOVES/]BASE[+INC] in seconds, e.g. 10+0.1 or 40/60") from None
    if not (math.isfinite(base) and math.isfinite(inc)) or base <= 0 or inc < 0 or (moves is not None and moves < 1):
        raise UsageError(f"bad --tc {text!r}: base must be > 0, increment >= 0, moves >= 1")
    return base, inc, moves


def _key_values(text: str, what: str) -> dict[str, str]:
    pairs = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise UsageError(f"bad {what} {text!r}: {part!r} is not key=value")
        pairs[key.strip()] = value.strip()
    return pairs


@dataclass(frozen=True)
class Adjudication:
    """Score-based adjudication (fastchess's): off unless asked for.

    draw: from move ``draw_from`` on, both engines' last ``draw_moves`` scores within
    ``draw_cp`` centipawns of 0 (the count starts again at a capture or a pawn move).
    resign: both engines' last ``resign_moves`` scores at least ``resign_cp`` from 0, the
    winner's up and the loser's down (mate scores count).
    """

    draw_moves: int | None = None
    draw_cp: int = 0
    draw_from: int = 0
    resign_moves: int | None = None
    resign_cp: int = 0

    def describe(self) -> str:
        """The rules as ``draw=M/CP/FROM,resign=M/CP`` (``off`` when none)."""
        parts = []
        if self.draw_moves is not None:
            parts.append(f"draw={self.draw_moves}/{self.draw_cp}/{self.draw_from}")
        if self.resign_moves is not None:
            parts.append(f"resign={self.resign_moves}/{self.resign_cp}")
        return ",".join(parts) or "off"


def parse_adjudication(text: str) -> Adjudication:
    """Parse ``draw=MOVES/CP[/FROM],resign=MOVES/CP`` (either part may be left out)."""
    pairs = _key_values(text, "--adjudicate")
    values: dict[str, int] = {}
    try:
        for key, value in pairs.items():
            numbers = [int(x) for x in value.split("/")]
            if key == "draw" and len(numbers) in (2, 3):
                values.update(draw_moves=numbers[0], draw_cp=numbers[1],
                              draw_from=numbers[2] if len(numbers) == 3 else 0)
            elif key == "resign" and len(numbers) == 2:
                values.update(resign_moves=numbers[0], resign_cp=numbers[1])
            else:
                raise ValueError
    except ValueError:
        raise UsageError(f"bad --adjudicate {text!r}: expected draw=MOVES/CP[/FROM],resign=MOVES/CP") from None
    if any(v < 0 for v in values.values()) or values.get("draw_moves", 1) < 1 or values.get("resign_moves", 1) < 1:
        raise UsageError(f"bad --adjudicate {text!r}: counts must be >= 1 and scores >= 0")
    return Adjudication(**values)


def parse_sprt(text: str) -> elo.Sprt:
    """Parse ``elo0=0,elo1=10[,alpha=0.05,beta=0.05,model=logistic|normalized]``."""
    pairs = _key_values(text, "--sprt")
    unknown = set(pairs) - {"elo0", "elo1", "alpha", "beta", "model"}
    if unknown or "elo0" not in pairs or "elo1" not in pairs:
        raise UsageError(f"bad --sprt {text!r}: expected elo0=..,elo1=..[,alpha=..,beta=..,model=logistic|normalized]")
    try:
        return elo.Sprt(float(pairs["elo0"]), float(pairs["elo1"]), float(pairs.get("alpha", 0.05)),
                        float(pairs.get("beta", 0.05)), pairs.get("model", "logistic"))
    except ValueError as err:
        raise UsageError(f"bad --sprt {text!r}: {err}") from None


@dataclass
class Settings:
    """The limit of every move and the rules of the match."""

    mode: str                   # "tc", "movetime" or "nodes"
    base: float = 0.0
    inc: float = 0.0
    movetime: float = 0.0
    nodes: int = 0
    moves: int | None = None    # moves per period (the clock gets base again after each), None: whole game
    margin: float = 0.0         # seconds an engine may overrun its clock without losing
    adjudication: Adjudication = field(default_factory=Adjudication)
    event: str = "match"

    def describe(self) -> str:
        """The limit in words, e.g. ``tc 10+0.1``."""
        if self.mode == "tc":
            period = f"{self.moves}/" if self.moves else ""
            return f"tc {period}{self.base:g}" + (f"+{self.inc:g}" if self.inc or not self.moves else "")
        if self.mode == "movetime":
            return f"movetime {self.movetime:g}s"
        return f"nodes {self.nodes}"


def load_openings(path: Path) -> list[str]:
    """The non-empty, non-comment lines of an EPD file."""
    try:
        lines = path.read_text().splitlines()
    except OSError as err:
        raise UsageError(f"cannot read openings {path}: {err.strerror}") from None
    openings = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not openings:
        raise UsageError(f"no openings in {path}")
    return openings


def opening_order(count: int, seed: int | None) -> list[int]:
    """Indices into the openings: in file order, or shuffled by ``seed``.

    Pair i plays ``order[(start + i) % count]``; the order depends on the seed only, so a
    resumed or extended match continues the same sequence.
    """
    order = list(range(count))
    if seed is not None:
        random.Random(seed).shuffle(order)
    return order


def board_from_epd(epd: str) -> chess.Board:
    """A board set up from an EPD line (its operations ignored); ValueError if invalid."""
    board = chess.Board()
    board.set_epd(epd)
    if not board.is_valid():
        raise ValueError(f"invalid position: {epd}")
    return board


# -- records ----------------------------------------------------------------------------------

def score_for_a(result: str, a_white: bool) -> float:
    """Engine A's score (1, 0.5, 0) in a game with the given PGN result."""
    if result == "1/2-1/2":
        return 0.5
    white_won = result == "1-0"
    return 1.0 if white_won == a_white else 0.0


@dataclass
class GameRecord:
    """One finished game: pair index (0-based), game 1 (A white) or 2 (A black), result."""

    pair: int
    game: int
    result: str
    reason: str
    offender: str | None = None   # "A" or "B" for forfeits

    @property
    def a_white(self) -> bool:
        """Engine A has white in a pair's first game."""
        return self.game == 1

    @property
    def score_a(self) -> float:
        """Engine A's score in this game."""
        return score_for_a(self.result, self.a_white)


class Tally:
    """Running totals: W/D/L of engine A, pair outcomes, game ends, forfeits per engine."""

    def __init__(self) -> None:
        self.games: dict[tuple[int, int], GameRecord] = {}

    def add(self, record: GameRecord) -> None:
        """Count a game (a later game with the same pair and number replaces an earlier one)."""
        self.games[(record.pair, record.game)] = record

    @property
    def complete_pairs(self) -> set[int]:
        """Pairs whose two games are both counted."""
        return {p for (p, g) in self.games if g == 1 and (p, 2) in self.games}

    def wdl(self) -> tuple[int, int, int]:
        """(wins, draws, losses) of engine A over every counted game."""
        scores = [r.score_a for r in self.games.values()]
        return scores.count(1.0), scores.count(0.5), scores.count(0.0)

    def pentanomial(self) -> list[int]:
        """Counts of pair outcomes (LL, LD, DD+WL, WD, WW) over the complete pairs."""
        counts = [0] * 5
        for p in self.complete_pairs:
            counts[elo.pair_index(self.games[(p, 1)].score_a, self.games[(p, 2)].score_a)] += 1
        return counts

    def reasons(self) -> dict[str, int]:
        """How many games ended for each reason."""
        return dict(collections.Counter(r.reason for r in self.games.values()).most_common())

    def forfeits(self) -> dict[str, dict[str, int]]:
        """Per engine ("A", "B"): time forfeits, illegal moves, crashes, stalls."""
        table = {side: {reason: 0 for reason in FORFEITS} for side in ("A", "B")}
        for r in self.games.values():
            if r.reason in FORFEITS and r.offender in table:
                table[r.offender][r.reason] += 1
        return table


def read_pgn_records(path: Path) -> list[GameRecord]:
    """The games of a PGN written by this script (``Round "PAIR.GAME"``, 1-based pair)."""
    records = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            headers = game.headers
            try:
                pair_text, game_text = headers.get("Round", "").split(".")
                pair, number = int(pair_text) - 1, int(game_text)
            except ValueError:
                continue
            if number in (1, 2) and pair >= 0 and headers.get("Result") in ("1-0", "0-1", "1/2-1/2"):
                records.append(record_of(headers, pair, number))
    return records


def record_of(headers: chess.pgn.Headers, pair: int, number: int) -> GameRecord:
    """The record of game ``number`` of ``pair`` (0-based) from its PGN tags (this script's:
    Termination and, for a forfeit, Offender)."""
    offender = None
    if headers.get("Offender") in ("White", "Black"):
        offender = "A" if (headers["Offender"] == "White") == (number == 1) else "B"
    return GameRecord(pair, number, headers["Result"], headers.get("Termination", "?"), offender)


# -- fastchess --------------------------------------------------------------------------------

def find_fastchess(given: str | None) -> str:
    """The fastchess executable: --fastchess, else $FASTCHESS, else on PATH; UsageError if none."""
    candidate = given or os.environ.get("FASTCHESS") or shutil.which("fastchess")
    if not candidate:
        raise UsageError("fastchess not found: build github.com/Disservin/fastchess (make) and give "
                         "--fastchess PATH, set $FASTCHESS or put it on PATH")
    if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
        raise UsageError(f"fastchess not found or not executable: {candidate}")
    return candidate


def engine_names(specs: dict[str, EngineSpec]) -> dict[str, str]:
    """A name for each engine (its ``name=``, else its executable's), the two told apart."""
    names = {label: spec.name or Path(spec.cmd[0]).name for label, spec in specs.items()}
    if names["A"] == names["B"]:
        names = {label: f"{name}-{label}" for label, name in names.items()}
    return names


def engine_script(spec: EngineSpec, name: str, settings: Settings, folder: Path) -> Path:
    """A shell script in ``folder`` that starts the engine as UCI (an xboard one through the
    adapter, told the match's clock): fastchess splits a command's arguments on spaces, a
    script keeps them whole."""
    level = ["--level", f"{settings.moves or 0} {settings.base:g} {settings.inc:g}"] \
        if settings.mode == "tc" else []
    command = spec.cmd if spec.proto == "uci" else \
        [sys.executable, str(XBOARD_ADAPTER), "--name", name, *level, "--", *spec.cmd]
    path = folder / f"engine-{len(list(folder.iterdir()))}.sh"
    path.write_text(f"#!/bin/sh\nexec {shlex.join(command)}\n")
    path.chmod(0o755)
    return path


def fastchess_command(fastchess: str, args: argparse.Namespace, specs: dict[str, EngineSpec],
                      names: dict[str, str], settings: Settings, rounds: int, openings_file: Path,
                      pgn: Path, sprt: elo.Sprt | None, cores: list[int] | None,
                      folder: Path) -> list[str]:
    """The fastchess command line that plays ``rounds`` pairs, A first (White in game 1)."""
    command = [fastchess]
    for label in ("A", "B"):
        spec = specs[label]
        engine = ["-engine", f"cmd={engine_script(spec, names[label], settings, folder)}",
                  f"name={names[label]}"]
        if spec.dir:
            engine.append(f"dir={spec.dir}")
        engine += [f"option.{key}={value}" for key, value in spec.options.items()]
        command += engine
    each = ["-each", "proto=uci"]
    if settings.mode == "tc":
        each.append("tc=" + (f"{settings.moves}/" if settings.moves else "")
                    + f"{settings.base:g}+{settings.inc:g}")
    elif settings.mode == "movetime":
        each.append(f"st={settings.movetime:g}")
    else:
        each += ["tc=inf", f"nodes={settings.nodes}"]
    each.append(f"timemargin={round(settings.margin * 1000)}")  # after tc=: it resets the margin
    command += each
    command += ["-openings", f"file={openings_file}", "format=epd", "order=sequential",
                "-rounds", str(rounds), "-games", "2", "-repeat", "-recover",
                "-concurrency", str(args.concurrency), "-event", settings.event,
                "-pgnout", f"file={pgn}", "notation=san", "-ratinginterval", "0",
                "-config", f"outname={folder / 'config.json'}",
                "-startup-ms", str(round(args.init_timeout * 1000)),
                "-ucinewgame-ms", str(round(args.init_timeout * 1000))]
    adj = settings.adjudication
    if adj.draw_moves is not None:
        command += ["-draw", f"movenumber={adj.draw_from}", f"movecount={adj.draw_moves}",
                    f"score={adj.draw_cp}"]
    if adj.resign_moves is not None:
        command += ["-resign", f"movecount={adj.resign_moves}", f"score={adj.resign_cp}",
                    "twosided=true"]
    if sprt:
        command += ["-sprt", f"elo0={sprt.elo0:g}", f"elo1={sprt.elo1:g}", f"alpha={sprt.alpha:g}",
                    f"beta={sprt.beta:g}", f"model={sprt.model}"]
    if cores:  # (fastchess pins both engines of a game to one core)
        command += ["-use-affinity", ",".join(str(c) for c in cores)]
    if args.concurrency > (os.cpu_count() or 1):
        command.append("-force-concurrency")
    if args.debug:
        log = Path(args.pgn).with_suffix(".log") if args.pgn else Path("match.log")
        command += ["-log", f"file={log}", "level=trace", "engine=true"]
    return command


def game_end(game: chess.pgn.Game) -> tuple[str, str | None]:
    """(our Termination, the offending colour or None) of a game fastchess wrote, from the
    reason it puts in the comment of the last move (of the game, for a game without one)."""
    text = " ".join(filter(None, [game.comment, game.end().comment]))
    for pattern, reason in FASTCHESS_REASONS:
        found = pattern.search(text)
        if found:
            return reason, found.group(1) if reason in FORFEITS else None
    # a forfeit before any move has no comment (fastchess writes the reason on a move): the
    # loser offended
    forfeit = FASTCHESS_FORFEITS.get(game.headers.get("Termination", ""))
    result = game.headers.get("Result")
    if forfeit and result in ("1-0", "0-1"):
        return forfeit, "Black" if result == "1-0" else "White"
    return game.headers.get("Termination", "?"), None


def convert_games(source: Path, pairs: list[int], names: dict[str, str]) -> list[chess.pgn.Game]:
    """fastchess's games in ``source`` as this script writes them: round ``r`` (1-based) is pair
    ``pairs[r - 1]``, game 1 the one A plays White; Termination ours, Offender on a forfeit."""
    games = []
    if not source.exists():
        return games
    with open(source, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            headers = game.headers
            try:
                pair = pairs[int(headers.get("Round", "")) - 1]
            except (ValueError, IndexError):
                continue
            if headers.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
                continue  # interrupted
            number = 1 if headers.get("White") == names["A"] else 2
            reason, offender = game_end(game)
            headers["Round"] = f"{pair + 1}.{number}"
            headers["Termination"] = reason
            if offender:
                headers["Offender"] = offender
            games.append(game)
    return games


def play(fastchess: list[str]) -> tuple[int, bool]:
    """Run fastchess, its output on ours (its progress lines); (exit status, interrupted).
    SIGINT or SIGTERM to this script stops it as Ctrl-C does (its games so far are kept)."""
    process = subprocess.Popen(fastchess)
    interrupted = False

    def stop(signum, frame) -> None:
        nonlocal interrupted
        interrupted = True
        process.send_signal(signal.SIGINT)  # (a Ctrl-C reaches it too: it stops once)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return process.wait(), interrupted
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# -- summary ----------------------------------------------------------------------------------

def summary(args: argparse.Namespace, specs: dict[str, EngineSpec], names: dict[str, str],
            settings: Settings, tally: Tally, sprt: elo.Sprt | None, cores: list[int] | None,
            played_now: int, interrupted: bool) -> dict:
    """Every figure of the match, JSON-ready."""
    w, d, l = tally.wdl()
    n = w + d + l
    counts = tally.pentanomial()
    data: dict = {
        "engines": {label: {"name": names[label], "cmd": specs[label].text,
                            "proto": specs[label].proto, "options": specs[label].options}
                    for label in ("A", "B")},
        "runner": "fastchess",
        "limit": settings.describe(),
        "openings": Path(args.openings).name,  # a name: no paths of this machine in results
        "seed": args.seed,
        "start": args.start,
        "adjudication": settings.adjudication.describe(),
        "time_margin": settings.margin,
        "cpu_affinity": cores,
        "games_requested": args.games,
        "games": n,
        "games_this_run": played_now,
        "interrupted": interrupted,
        "wins": w, "draws": d, "losses": l,
        "score": round((w + d / 2) / n, 5) if n else None,
        "pentanomial": dict(zip(("LL", "LD", "DD+WL", "WD", "WW"), counts)),
        "pairs": sum(counts),
        "elo_pentanomial": elo.pentanomial_interval(counts).as_dict() if sum(counts) else None,
        "elo_trinomial": elo.trinomial_interval(l, d, w).as_dict() if n else None,
        "terminations": tally.reasons(),
        "forfeits": {names[k]: v for k, v in tally.forfeits().items()},
    }
    if sum(counts):
        p = elo.pentanomial_interval(counts)
        data["nelo_pentanomial"] = _finite(elo.normalized_elo(p.score, 2 * p.variance))
    if sprt:
        lower, upper = sprt.bounds
        llr = sprt.llr(counts)
        data["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                        "beta": sprt.beta, "model": sprt.model, "llr": round(llr, 4),
                        "lower": round(lower, 4), "upper": round(upper, 4),
                        "decision": "H1 accepted" if llr >= upper else
                        "H0 accepted" if llr <= lower else None}
    return data


def print_summary(data: dict, tally: Tally) -> None:
    """The human-readable summary."""
    a, b = data["engines"]["A"]["name"], data["engines"]["B"]["name"]
    print()
    status = " (interrupted)" if data["interrupted"] else ""
    print(f"Match {a} vs {b}: {data['games']} games, {data['pairs']} complete pairs{status}")
    print(f"  {data['limit']}, openings {data['openings']}"
          f" ({'seed ' + str(data['seed']) if data['seed'] is not None else 'in order'} from {data['start']}),"
          f" adjudication {data['adjudication']}, cpu affinity {data['cpu_affinity'] or 'none'}")
    if not data["games"]:
        print("  no games finished")
        return
    print(f"  {a}: +{data['wins']} ={data['draws']} -{data['losses']}  score {100 * data['score']:.1f}%")
    counts = tally.pentanomial()
    intervals = [("trinomial", "games", elo.trinomial_interval(data["losses"], data["draws"], data["wins"]))]
    if sum(counts):
        intervals.insert(0, ("pentanomial", "pairs", elo.pentanomial_interval(counts)))
    for label, unit, e in intervals:
        print(f"  Elo ({label}, {e.samples} {unit}): {_fmt_elo(e.elo)}"
              f"  95% CI [{_fmt_elo(e.elo_low)}, {_fmt_elo(e.elo_high)}]"
              f"  (+/- {_fmt_num(e.elo_error)})  LOS {100 * e.los:.1f}%")
    print("  pairs LL LD DD+WL WD WW: " + " ".join(str(v) for v in data["pentanomial"].values()))
    if "sprt" in data:
        s = data["sprt"]
        print(f"  SPRT {s['model']} elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}:"
              f" LLR {s['llr']:.2f} [{s['lower']:.2f}, {s['upper']:.2f}] {s['decision'] or 'undecided'}")
    print("  game ends: " + ", ".join(f"{k} {v}" for k, v in data["terminations"].items()))
    for name, table in data["forfeits"].items():
        print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in table.items()))


def _finite(x: float) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else round(x, 2)


def _fmt_elo(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isinf(x)):
        return "n/a" if x is None else ("+inf" if x > 0 else "-inf")
    return f"{x + 0.0:+.1f}"  # + 0.0 turns -0.0 into 0.0


def _fmt_num(x: float | None) -> str:
    return "n/a" if x is None or math.isinf(x) or math.isnan(x) else f"{x:.1f}"



# -- entry point ------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="match.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 2)[0] + "\n\n" + __doc__.split("\n\n", 2)[2],
        epilog="""engine specs:
  cmd=COMMAND        the command line (split like a shell; no commas)
  name=NAME          name for the PGN and the summary (default: the executable's name)
  proto=uci|xboard   protocol (default uci; xboard through scripts/xboard_as_uci.py)
  dir=DIR            working directory
  option.NAME=VALUE  engine option, e.g. option.Hash=16, option.UCI_Elo=1500

examples:
  match.py --engine "cmd=/usr/games/stockfish,name=sf1500,option.UCI_LimitStrength=true,option.UCI_Elo=1500" \\
           --games 200 --tc 10+0.1 --cpu-affinity --pgn m.pgn --json m.json
  match.py --engine "cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1350" \\
           --engine "cmd=/usr/games/phalanx -l- -b-,proto=xboard" --games 6 --tc 2+0.05
  match.py --engine "cmd=solver uci,name=new" --engine "cmd=solver-old uci,name=old" --nodes 20000 \\
           --games 2000 --sprt elo0=0,elo1=10 --concurrency 2
""")
    parser.add_argument("--engine", action="append", default=[], metavar="SPEC",
                        help="engine spec (twice: A then B; once: B, with A = 'solver uci')")
    parser.add_argument("--games", type=int, default=2, help="total games, even: pairs of games (default 2)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--tc", metavar="[MOVES/]BASE[+INC]",
                       help="clock: base and increment in seconds (default 10+0.1); MOVES/BASE gives BASE "
                       "seconds for every MOVES moves (40/60)")
    limit.add_argument("--movetime", type=float, metavar="S", help="fixed time per move, no clock")
    limit.add_argument("--nodes", type=int, metavar="N", help="fixed nodes per move, no clock (fastchess "
                       "then sets no time limit: a hung engine hangs the match)")
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS), metavar="FILE",
                        help="EPD file, one opening a line (default: %(default)s)")
    parser.add_argument("--seed", type=int, help="shuffle the openings with this seed (default: file order)")
    parser.add_argument("--start", type=int, default=0, help="start at this opening index of the (shuffled) order")
    parser.add_argument("--pgn", metavar="FILE", help="append every finished game to FILE (when the match "
                        "ends or is stopped; a match killed outright loses this run's games)")
    parser.add_argument("--resume", action="store_true", help="count the games already in --pgn and play the rest")
    parser.add_argument("--json", metavar="FILE", help="write the summary figures to FILE")
    parser.add_argument("--concurrency", type=int, default=1, help="games at a time (default 1)")
    parser.add_argument("--cpu-affinity", nargs="?", const="auto", metavar="CORES",
                        help="pin each concurrent game's engines to a core of CORES (fastchess "
                             "-use-affinity: both engines of a game share it; default: the first cores)")
    parser.add_argument("--adjudicate", metavar="RULES",
                        help="off unless given (fastchess's -draw and -resign): draw=MOVES/CP[/FROM] (from "
                             "move FROM, both engines within CP centipawns of 0 for MOVES moves each; a "
                             "capture or pawn move starts the count again), resign=MOVES/CP (both engines' "
                             "scores at least CP from 0, mates included, for MOVES moves each)")
    parser.add_argument("--sprt", metavar="PARAMS",
                        help="elo0=..,elo1=..[,alpha=0.05,beta=0.05,model=logistic|normalized]: stop when decided")
    parser.add_argument("--time-margin", type=float, default=0.0, metavar="S",
                        help="seconds an engine may overrun its clock before it loses on time (default 0)")
    parser.add_argument("--init-timeout", type=float, default=60.0, metavar="S",
                        help="seconds for an engine's start (uci) and each new game (default 60: solver "
                             "uci answers isready within 45 s while it compiles)")
    parser.add_argument("--event", default="match", help="PGN Event tag")
    parser.add_argument("--fastchess", metavar="PATH", help="the fastchess executable (default: $FASTCHESS, "
                        "else fastchess on PATH)")
    parser.add_argument("--debug", action="store_true", help="fastchess's trace log, engine traffic included, "
                        "beside the PGN (.log)")
    return parser


def configure(args: argparse.Namespace) -> tuple[dict[str, EngineSpec], Settings, list[str], list[int],
                                                   elo.Sprt | None, list[int] | None]:
    """Check the command line; UsageError on bad input."""
    if len(args.engine) > 2:
        raise UsageError("at most two --engine")
    texts = args.engine if len(args.engine) == 2 else [DEFAULT_ENGINE_A] + args.engine
    if len(texts) < 2:
        raise UsageError("give the opponent with --engine SPEC (see --help)")
    specs = {"A": parse_engine_spec(texts[0]), "B": parse_engine_spec(texts[1])}
    if args.games < 2 or args.games % 2:
        raise UsageError(f"--games must be even and >= 2 (pairs of games), not {args.games}")
    if args.concurrency < 1:
        raise UsageError("--concurrency must be >= 1")
    if args.resume and not args.pgn:
        raise UsageError("--resume needs --pgn FILE")
    if args.start < 0:
        raise UsageError("--start must be >= 0")
    if not args.init_timeout > 0:
        raise UsageError("--init-timeout must be > 0")
    if args.movetime is not None:
        if not args.movetime > 0:
            raise UsageError("--movetime must be > 0")
        settings = Settings("movetime", movetime=args.movetime)
    elif args.nodes is not None:
        if args.nodes < 1:
            raise UsageError("--nodes must be >= 1")
        settings = Settings("nodes", nodes=args.nodes)
    else:
        base, inc, moves = parse_tc(args.tc or "10+0.1")
        settings = Settings("tc", base=base, inc=inc, moves=moves)
    for spec in specs.values():
        if spec.proto != "xboard":
            continue
        if settings.mode == "nodes":
            raise UsageError("--nodes: an xboard engine has no node limit (use --tc or --movetime)")
        if settings.mode == "movetime" and settings.movetime != int(settings.movetime):
            raise UsageError("--movetime: an xboard engine takes whole seconds a move (st)")
        if spec.options:
            raise UsageError("option.NAME is for UCI engines (the xboard adapter sets no options)")
    settings.event = args.event
    if args.time_margin < 0:
        raise UsageError("--time-margin must be >= 0")
    settings.margin = args.time_margin
    if args.adjudicate:
        settings.adjudication = parse_adjudication(args.adjudicate)
    sprt = parse_sprt(args.sprt) if args.sprt else None
    if sprt and args.resume:
        raise UsageError("--sprt with --resume: fastchess would stop on this run's pairs alone")
    cores = None
    if args.cpu_affinity is not None:
        available = sorted(os.sched_getaffinity(0))
        if args.cpu_affinity == "auto":
            cores = available[:args.concurrency]
        else:
            try:
                cores = [int(c) for c in args.cpu_affinity.split(",")]
            except ValueError:
                raise UsageError(f"bad --cpu-affinity {args.cpu_affinity!r}: a comma-separated list of cores") from None
            if any(c not in available for c in cores):
                raise UsageError(f"bad --cpu-affinity: cores available are {available}")
        if len(cores) < args.concurrency:
            raise UsageError(f"--cpu-affinity needs a core per concurrent game ({args.concurrency}); "
                             f"available: {available}")
    openings = load_openings(Path(args.openings))
    order = opening_order(len(openings), args.seed)
    # check the openings this run may use before starting anything
    for pair in range(args.games // 2):
        index = order[(args.start + pair) % len(order)]
        try:
            board_from_epd(openings[index])
        except ValueError:
            raise UsageError(f"{args.openings}: line {index + 1} is not a valid EPD position") from None
    return specs, settings, openings, order, sprt, cores


def resumed_tally(path: Path) -> Tally:
    """The games already in ``path``, those of unfinished pairs left out (they are replayed)."""
    tally = Tally()
    for record in read_pgn_records(path):
        tally.add(record)
    complete = tally.complete_pairs
    for key in [k for k in tally.games if k[0] not in complete]:
        del tally.games[key]
    return tally


def run(args: argparse.Namespace) -> int:
    """Play the match; the exit status."""
    specs, settings, openings, order, sprt, cores = configure(args)
    fastchess = find_fastchess(args.fastchess)
    names = engine_names(specs)
    tally = Tally()
    if args.resume and os.path.exists(args.pgn):
        tally = resumed_tally(Path(args.pgn))
        print(f"resumed: {len(tally.complete_pairs)} complete pairs in {args.pgn}", flush=True)
    missing = [p for p in range(args.games // 2) if p not in tally.complete_pairs]
    played, interrupted, status = [], False, 0
    with tempfile.TemporaryDirectory(prefix="match-") as scratch:
        folder = Path(scratch)
        book = folder / "openings.epd"
        book.write_text("".join(openings[order[(args.start + p) % len(order)]] + "\n" for p in missing))
        games_file = folder / "games.pgn"
        engines = folder / "engines"
        engines.mkdir()
        if missing:
            print(f"A = {names['A']}, B = {names['B']}: {2 * len(missing)} games to play, "
                  f"{settings.describe()}", flush=True)
            command = fastchess_command(fastchess, args, specs, names, settings, len(missing), book,
                                        games_file, sprt, cores, engines)
            status, interrupted = play(command)
        played = convert_games(games_file, missing, names)
    if args.pgn and played:
        with open(args.pgn, "a", encoding="utf-8") as handle:
            for game in played:
                print(game, file=handle, end="\n\n")
    for game in played:
        pair, number = (int(x) for x in game.headers["Round"].split("."))
        tally.add(record_of(game.headers, pair - 1, number))
    data = summary(args, specs, names, settings, tally, sprt, cores, len(played), interrupted)
    print_summary(data, tally)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
    if interrupted:
        return 130
    if status:
        print(f"match.py: fastchess stopped with status {status}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except UsageError as err:
        print(f"match.py: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
