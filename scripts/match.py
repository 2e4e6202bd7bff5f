"""Play a match between two chess engines (UCI or xboard) and measure the Elo difference.

    python scripts/match.py --engine "cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1500" \\
        --games 100 --tc 10+0.1 --pgn match.pgn --json match.json

Engine A is the engine under test: the first --engine, or ``solver uci`` when only one --engine
is given (that one is then engine B). Every figure is from engine A's point of view.

Games come in pairs from one opening (an EPD line of --openings) with colours swapped. The
runner keeps the clocks itself: it times each engine's answer on the wall clock, takes that
from the engine's clock, adds the increment, and passes the remaining times with every ``go``.
An engine that overruns its clock loses (a draw when the opponent has no mating material); one
that crashes, plays an illegal move or does not answer --stall seconds after its time is up
loses too, and is restarted for the next game. Every game's end is named in the PGN
``Termination`` tag. At the end: W/D/L, score, Elo with a 95% confidence interval from the
pentanomial distribution of pairs (the trinomial one beside it for comparison), SPRT state if
asked for, and the forfeits of each engine; --json writes the same figures.

Ctrl-C stops: engines quit, the finished games stay in the PGN, the partial summary is printed.
``--pgn FILE --resume`` reads the finished pairs back from FILE and plays the pairs still
missing (use the same --seed/--start to keep the opening sequence).
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import datetime
import json
import logging
import math
import os
import random
import shlex
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

import elo  # scripts/elo.py, beside this file
from common import oracle_data

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPENINGS = oracle_data() / "chess" / "openings-8moves.epd"
DEFAULT_ENGINE_A = "cmd=solver uci,name=solver"

# Game-end reasons (the PGN Termination tag). The forfeits name an offending engine.
CHECKMATE = "checkmate"
STALEMATE = "stalemate"
REPETITION = "threefold repetition"
FIFTY_MOVES = "fifty-move rule"
INSUFFICIENT = "insufficient material"
TIME_FORFEIT = "time forfeit"
ILLEGAL_MOVE = "illegal move"
CRASH = "crash"
STALL = "stall"
RESIGNATION = "resignation"
ADJUDICATION_DRAW = "adjudication: draw"
ADJUDICATION_RESIGN = "adjudication: resign"
FORFEITS = (TIME_FORFEIT, ILLEGAL_MOVE, CRASH, STALL)

log = logging.getLogger("match")


class UsageError(Exception):
    """Bad command-line input: reported as one line on stderr, exit status 2."""


class MatchAborted(Exception):
    """The match cannot go on (an engine cannot be restarted)."""


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
    summary; default the engine's ``id name``), ``proto`` (``uci``, the default, or
    ``xboard``), ``dir`` (working directory), ``option.NAME`` (an engine option, set once
    after the handshake). The executable must exist (on PATH or as a path).
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
    """Score-based adjudication; off unless asked for.

    draw: from move ``draw_from`` on, both engines' last ``draw_moves`` scores within
    ``draw_cp`` centipawns of 0. resign: one engine's last ``resign_moves`` scores at or below
    ``-resign_cp`` and its opponent's at or above ``resign_cp``.
    """

    draw_moves: int | None = None
    draw_cp: int = 0
    draw_from: int = 0
    resign_moves: int | None = None
    resign_cp: int = 0

    @property
    def on(self) -> bool:
        """True when either rule is active."""
        return self.draw_moves is not None or self.resign_moves is not None

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


# -- rules, scores ----------------------------------------------------------------------------

def rules_outcome(board: chess.Board) -> tuple[str, str] | None:
    """(result, reason) when the game is over by the rules, else None.

    Draws by threefold repetition and the fifty-move rule are taken as soon as they can be
    claimed, as GUIs referee engine games; mate on the hundredth half-move still wins.
    """
    if board.is_checkmate():
        return ("0-1" if board.turn == chess.WHITE else "1-0"), CHECKMATE
    if board.is_stalemate():
        return "1/2-1/2", STALEMATE
    if board.is_insufficient_material():
        return "1/2-1/2", INSUFFICIENT
    if board.halfmove_clock >= 100:
        return "1/2-1/2", FIFTY_MOVES
    if board.is_repetition(3):
        return "1/2-1/2", REPETITION
    return None


def loss_for(color: chess.Color) -> str:
    """The result string of a game that ``color`` lost."""
    return "0-1" if color == chess.WHITE else "1-0"


def score_for_a(result: str, a_white: bool) -> float:
    """Engine A's score (1, 0.5, 0) in a game with the given PGN result."""
    if result == "1/2-1/2":
        return 0.5
    white_won = result == "1-0"
    return 1.0 if white_won == a_white else 0.0


# -- records ----------------------------------------------------------------------------------

@dataclass
class GameRecord:
    """One finished game: pair index (0-based), game 1 (A white) or 2 (A black), result."""

    pair: int
    game: int
    result: str
    reason: str
    offender: str | None = None   # "A" or "B" for forfeits
    fen: str | None = None        # the starting position, as read back from a PGN

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
            result = headers.get("Result", "*")
            if number not in (1, 2) or pair < 0 or result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            offender = None
            if headers.get("Offender") in ("White", "Black"):
                a_white = number == 1
                offender = "A" if (headers["Offender"] == "White") == a_white else "B"
            records.append(GameRecord(pair, number, result, headers.get("Termination", "?"), offender,
                                      headers.get("FEN")))
    return records


# -- engines ----------------------------------------------------------------------------------

class Engine:
    """One running engine process, restartable. Thinking time is measured by the caller."""

    def __init__(self, spec: EngineSpec, label: str, core: int | None, init_timeout: float) -> None:
        self.spec = spec
        self.label = label          # "A" or "B"
        self.core = core
        self.init_timeout = init_timeout
        self.transport: asyncio.SubprocessTransport | None = None
        self.protocol: chess.engine.Protocol | None = None
        self.id_name: str | None = None

    async def start(self) -> None:
        """Spawn the engine (in its own process group, so Ctrl-C reaches only this script),
        pin it to its core, complete the handshake and set its options."""
        argv = list(self.spec.cmd)
        if self.core is not None and shutil.which("taskset"):
            # taskset pins the process before it execs the engine, so every thread it
            # creates later inherits the core
            argv = ["taskset", "-c", str(self.core)] + argv
        cls = chess.engine.UciProtocol if self.spec.proto == "uci" else chess.engine.XBoardProtocol
        self.transport, self.protocol = await cls.popen(argv, setpgrp=True, cwd=self.spec.dir)
        if self.core is not None and not shutil.which("taskset"):
            _pin_threads(self.transport.get_pid(), self.core)
        try:
            await asyncio.wait_for(self.protocol.initialize(), self.init_timeout)
            if self.spec.options:
                await asyncio.wait_for(self.protocol.configure(self.spec.options), self.init_timeout)
        except BaseException:
            self.kill()
            raise
        self.id_name = self.protocol.id.get("name") or self.id_name

    async def new_game(self, key: object) -> None:
        """Start a game outside the clock: ``ucinewgame`` and an ``isready`` round trip for UCI
        (python-chess then sees the game key as current and does not repeat them)."""
        if isinstance(self.protocol, chess.engine.UciProtocol):
            self.protocol.send_line("ucinewgame")
            await asyncio.wait_for(self.protocol.ping(), self.init_timeout)
            self.protocol.game = key
            self.protocol.first_game = False
        # xboard: python-chess sends "new" and the position with the first move of the game

    async def play(self, board: chess.Board, limit: chess.engine.Limit, key: object) -> chess.engine.PlayResult:
        """Ask for a move (no timeout here: the caller bounds the wait)."""
        assert self.protocol is not None
        return await self.protocol.play(board, limit, game=key, info=chess.engine.INFO_SCORE)

    def kill(self) -> None:
        """Close the pipes and kill the process if it still runs."""
        if self.transport is not None:
            try:
                self.transport.close()
            except Exception:  # already gone
                pass
        self.transport = None
        self.protocol = None

    async def quit(self) -> None:
        """Ask the engine to quit, killing it after 3 s."""
        if self.protocol is not None:
            try:
                await asyncio.wait_for(self.protocol.quit(), 3.0)
            except (Exception, asyncio.CancelledError):
                pass
        self.kill()

    async def restart(self) -> None:
        """Kill and start again; MatchAborted if it cannot be started (two tries)."""
        self.kill()
        for attempt in (1, 2):
            try:
                await self.start()
                return
            except (Exception, asyncio.TimeoutError) as err:
                error = err
                self.kill()
        raise MatchAborted(f"engine {self.label} ({self.spec.text}) could not be restarted: {_describe(error)}")


def _pin_threads(pid: int, core: int) -> None:
    """Pin every thread of a process to one core (the fallback when taskset is missing)."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            os.sched_setaffinity(int(tid), {core})
    except OSError:
        pass


def _describe(err: BaseException) -> str:
    text = str(err).strip()
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


# -- one game ---------------------------------------------------------------------------------

@dataclass
class Settings:
    """Everything a game needs to know about the match."""

    mode: str                   # "tc", "movetime" or "nodes"
    base: float = 0.0
    inc: float = 0.0
    movetime: float = 0.0
    nodes: int = 0
    moves: int | None = None    # moves per period (the clock gets base again after each), None: whole game
    stall: float = 10.0         # seconds beyond the expected think time before "hung"
    margin: float = 0.0         # seconds an engine may overrun its clock without losing
    adjudication: Adjudication = field(default_factory=Adjudication)
    event: str = "match"

    def time_control_tag(self) -> str:
        """The PGN TimeControl tag."""
        if self.mode == "tc":
            period = f"{self.moves}/" if self.moves else ""
            return f"{period}{self.base:g}" + (f"+{self.inc:g}" if self.inc or not self.moves else "")
        return "-"

    def describe(self) -> str:
        """The limit in words, e.g. ``tc 10+0.1``."""
        if self.mode == "tc":
            return f"tc {self.time_control_tag()}"
        if self.mode == "movetime":
            return f"movetime {self.movetime:g}s"
        return f"nodes {self.nodes}"


def _score_text(info: dict) -> str:
    score = info.get("score")
    if score is None:
        return ""
    pov = score.relative
    if pov.is_mate():
        mate = pov.mate()
        text = f"{'+' if mate > 0 else '-'}M{abs(mate)}"
    else:
        text = f"{pov.score() / 100:+.2f}"
    depth = info.get("depth")
    return f"{text}/{depth} " if depth is not None else f"{text} "


def _cp(info: dict) -> int | None:
    score = info.get("score")
    return None if score is None else score.relative.score(mate_score=100000)


async def play_game(engines: dict[str, Engine], pair: int, number: int, epd: str, settings: Settings,
                    names: dict[str, str]) -> tuple[GameRecord, chess.pgn.Game, Engine | None]:
    """Play one game; engine A has white in game 1 of a pair.

    Returns the record, the PGN game and the engine to restart (one that crashed, hung or
    played an illegal move), if any.
    """
    a_white = number == 1
    by_color = {chess.WHITE: engines["A" if a_white else "B"], chess.BLACK: engines["B" if a_white else "A"]}
    board = board_from_epd(epd)
    game = chess.pgn.Game()
    game.setup(board)
    node: chess.pgn.GameNode = game
    key = object()
    for color in (chess.WHITE, chess.BLACK):
        engine = by_color[color]
        try:
            await engine.new_game(key)
        except (chess.engine.EngineError, asyncio.TimeoutError):
            # it died or stopped answering between games: no game was in progress to lose
            await engine.restart()
            try:
                await engine.new_game(key)
            except (chess.engine.EngineError, asyncio.TimeoutError) as err:
                raise MatchAborted(f"engine {engine.label} ({engine.spec.text}) does not answer isready "
                                   f"within --init-timeout after a restart: {_describe(err)}") from None

    clocks = {chess.WHITE: settings.base, chess.BLACK: settings.base}
    moves_made = {chess.WHITE: 0, chess.BLACK: 0}
    adj = settings.adjudication
    recent: dict[chess.Color, collections.deque] = {
        c: collections.deque(maxlen=max(adj.draw_moves or 1, adj.resign_moves or 1)) for c in (chess.WHITE, chess.BLACK)
    }
    plies = 0
    result = reason = detail = None
    offender_color: chess.Color | None = None

    while True:
        over = rules_outcome(board)
        if over:
            result, reason = over
            break
        side = board.turn
        engine = by_color[side]
        side_name = "White" if side == chess.WHITE else "Black"
        if settings.mode == "tc":
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=settings.inc, black_inc=settings.inc)
            if settings.moves:
                limit.remaining_moves = settings.moves - (moves_made[side] % settings.moves)
            limit.clock_id = key  # xboard: send "level" once per game
            wait = clocks[side] + settings.margin + settings.stall
        elif settings.mode == "movetime":
            limit = chess.engine.Limit(time=settings.movetime)
            wait = settings.movetime + settings.stall
        else:
            limit = chess.engine.Limit(nodes=settings.nodes)
            wait = settings.stall
        start = time.monotonic()
        try:
            played = await asyncio.wait_for(engine.play(board, limit, key), wait)
        except asyncio.TimeoutError:
            result, reason, offender_color = loss_for(side), STALL, side
            detail = f"{side_name} gave no move within {wait:.1f} s"
        except chess.engine.EngineTerminatedError as err:
            result, reason, offender_color = loss_for(side), CRASH, side
            detail = f"{side_name} engine terminated ({_describe(err)})"
        except chess.engine.EngineError as err:
            text = str(err)
            illegal = any(word in text.lower() for word in ("illegal", "invalid", "ambiguous"))
            result, reason, offender_color = loss_for(side), (ILLEGAL_MOVE if illegal else CRASH), side
            detail = f"{side_name}: {text}"
        else:
            elapsed = time.monotonic() - start
            if settings.mode == "tc" and elapsed > clocks[side] + settings.margin:
                offender_color = side
                reason = TIME_FORFEIT
                if board.has_insufficient_material(not side):
                    result = "1/2-1/2"
                    detail = f"{side_name} lost on time ({elapsed:.3f} s used, {clocks[side]:.3f} s left), opponent cannot mate: draw"
                else:
                    result = loss_for(side)
                    detail = f"{side_name} lost on time ({elapsed:.3f} s used, {clocks[side]:.3f} s left)"
                break
            if played.resigned:
                result, reason, detail = loss_for(side), RESIGNATION, f"{side_name} resigned"
                break
            move = played.move
            if move is None or not board.is_legal(move):
                result, reason, offender_color = loss_for(side), ILLEGAL_MOVE, side
                detail = f"{side_name} played {'no move' if move is None else move.uci()}"
                break
            if settings.mode == "tc":
                clocks[side] = max(clocks[side] - elapsed, 0.0) + settings.inc
                moves_made[side] += 1
                if settings.moves and moves_made[side] % settings.moves == 0:
                    clocks[side] += settings.base  # the next period's time
            board.push(move)
            plies += 1
            node = node.add_variation(move, comment=f"{_score_text(played.info)}{elapsed:.3f}s".strip())
            if adj.on:
                recent[side].append(_cp(played.info))
                verdict = _adjudicate(adj, recent, plies)
                if verdict:
                    result, reason, detail = verdict
                    break
            continue
        break

    to_restart = engine if offender_color is not None and reason != TIME_FORFEIT else None
    record = GameRecord(pair, number, result, reason)
    if offender_color is not None:
        record.offender = "A" if (offender_color == chess.WHITE) == a_white else "B"
        game.headers["Offender"] = "White" if offender_color == chess.WHITE else "Black"
    headers = game.headers
    headers["Event"] = settings.event
    headers["Site"] = "?"
    headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    headers["Round"] = f"{pair + 1}.{number}"
    headers["White"] = names["A" if a_white else "B"]
    headers["Black"] = names["B" if a_white else "A"]
    headers["Result"] = result
    headers["TimeControl"] = settings.time_control_tag()
    if settings.mode != "tc":
        headers["Limit"] = settings.describe()
    headers["Termination"] = reason
    headers["PlyCount"] = str(plies)
    if adj.on:
        headers["Adjudication"] = adj.describe()
    if detail:
        if node is game:
            game.comment = detail
        else:
            node.comment = f"{node.comment} | {detail}" if node.comment else detail
    return record, game, to_restart


def _adjudicate(adj: Adjudication, recent: dict, plies: int) -> tuple[str, str, str] | None:
    """A verdict from the engines' recent scores (each side's own point of view), or None."""
    if adj.resign_moves is not None:
        for loser in (chess.WHITE, chess.BLACK):
            mine = list(recent[loser])[-adj.resign_moves:]
            theirs = list(recent[not loser])[-adj.resign_moves:]
            if (len(mine) == len(theirs) == adj.resign_moves and None not in mine + theirs
                    and all(s <= -adj.resign_cp for s in mine) and all(s >= adj.resign_cp for s in theirs)):
                name = "White" if loser == chess.WHITE else "Black"
                return loss_for(loser), ADJUDICATION_RESIGN, f"{name} adjudicated lost ({adj.describe()})"
    if adj.draw_moves is not None and plies >= 2 * adj.draw_from:
        scores = list(recent[chess.WHITE])[-adj.draw_moves:] + list(recent[chess.BLACK])[-adj.draw_moves:]
        if len(scores) == 2 * adj.draw_moves and None not in scores and all(abs(s) <= adj.draw_cp for s in scores):
            return "1/2-1/2", ADJUDICATION_DRAW, f"adjudicated draw ({adj.describe()})"
    return None


# -- the match --------------------------------------------------------------------------------

class Match:
    """Schedules the games over --concurrency slots, writes the PGN, keeps the tally."""

    def __init__(self, args: argparse.Namespace, specs: dict[str, EngineSpec], settings: Settings,
                 openings: list[str], order: list[int], sprt: elo.Sprt | None, cores: list[int] | None) -> None:
        self.args = args
        self.specs = specs
        self.settings = settings
        self.openings = openings
        self.order = order
        self.sprt = sprt
        self.cores = cores
        self.tally = Tally()
        self.names = {"A": "A", "B": "B"}
        self.pairs_total = args.games // 2
        self.played_now = 0
        self.interrupted = False
        self.stop_reason: str | None = None
        self.sprt_decision: str | None = None
        self.slots: list[dict[str, Engine]] = []
        self.discarded = 0
        self.abort: MatchAborted | None = None
        self.games_to_play = 0

    def opening_index(self, pair: int) -> int:
        """The opening of a pair (0-based) in the file."""
        return self.order[(self.args.start + pair) % len(self.order)]

    def resume(self, path: Path) -> int:
        """Count the games already in the PGN; returns how many were read."""
        records = read_pgn_records(path)
        for r in records:
            self.tally.add(r)
        return len(records)

    async def start_engines(self) -> None:
        """Start the engines of every slot (A on the slot's first core, B on its second)."""
        for slot in range(self.args.concurrency):
            engines = {}
            for i, label in enumerate(("A", "B")):
                core = self.cores[2 * slot + i] if self.cores else None
                engine = Engine(self.specs[label], label, core, self.args.init_timeout)
                try:
                    await engine.start()
                except (Exception, asyncio.TimeoutError) as err:
                    engine.kill()
                    raise MatchAborted(f"engine {label} ({self.specs[label].text}) did not start: {_describe(err)}")
                engines[label] = engine
            self.slots.append(engines)
        for label in ("A", "B"):
            first = self.slots[0][label]
            self.names[label] = self.specs[label].name or first.id_name or Path(self.specs[label].cmd[0]).name
        if self.names["A"] == self.names["B"]:
            self.names = {label: f"{name} ({label})" for label, name in self.names.items()}

    async def stop_engines(self) -> None:
        """Quit every engine (killing those that do not quit)."""
        await asyncio.gather(*(e.quit() for slot in self.slots for e in slot.values()), return_exceptions=True)

    def jobs(self) -> collections.deque:
        """The games still to play, pair by pair: (pair, game number)."""
        done = self.tally.complete_pairs
        return collections.deque((p, g) for p in range(self.pairs_total) if p not in done for g in (1, 2))

    async def run(self) -> None:
        """Play until every pair is done, the SPRT decides, or the match is stopped."""
        queue = self.jobs()
        self.games_to_play = len(queue)
        await asyncio.gather(*(self._worker(slot, queue) for slot in self.slots))
        if self.abort:
            raise self.abort

    async def _worker(self, engines: dict[str, Engine], queue: collections.deque) -> None:
        while queue and self.stop_reason is None:
            pair, number = queue.popleft()
            epd = self.openings[self.opening_index(pair)]
            try:
                record, game, to_restart = await play_game(engines, pair, number, epd, self.settings, self.names)
            except asyncio.CancelledError:
                self.discarded += 1
                raise
            except MatchAborted as err:
                self.abort, self.stop_reason = err, "aborted"
                self.discarded += 1
                return
            game.headers["Opening"] = f"#{self.opening_index(pair) + 1} of {Path(self.args.openings).name}"
            self.tally.add(record)
            self.played_now += 1
            if self.args.pgn:
                with open(self.args.pgn, "a", encoding="utf-8") as handle:
                    print(game, file=handle, end="\n\n")
            self.progress(record, game)
            if self.sprt and pair in self.tally.complete_pairs:
                decision = self.sprt.decision(self.sprt.llr(self.tally.pentanomial()))
                if decision:
                    self.sprt_decision = decision
                    self.stop_reason = f"SPRT accepted {decision}"
            if to_restart is not None:
                try:
                    await to_restart.restart()  # a fresh process for the next game
                except MatchAborted as err:
                    self.abort, self.stop_reason = err, "aborted"
                    return

    def progress(self, record: GameRecord, game: chess.pgn.Game) -> None:
        """One line per finished game with the running score."""
        w, d, l = self.tally.wdl()
        n = w + d + l
        line = (f"[{self.played_now}/{self.games_to_play}] {record.pair + 1}.{record.game} "
                f"{game.headers['White']} - {game.headers['Black']}: {record.result} ({record.reason})"
                f"  |  {self.names['A']}: +{w} ={d} -{l}  {100 * (w + d / 2) / n:.1f}%")
        counts = self.tally.pentanomial()
        if sum(counts) >= 1:
            interval = elo.pentanomial_interval(counts)
            line += f"  Elo {_fmt_elo(interval.elo)} +/- {_fmt_num(interval.elo_error)}"
        if self.sprt:
            lower, upper = self.sprt.bounds
            line += f"  LLR {self.sprt.llr(counts):.2f} [{lower:.2f}, {upper:.2f}]"
        print(line, flush=True)

    def summary(self) -> dict:
        """Every figure of the match, JSON-ready."""
        w, d, l = self.tally.wdl()
        n = w + d + l
        counts = self.tally.pentanomial()
        data: dict = {
            "engines": {label: {"name": self.names[label], "cmd": self.specs[label].text,
                                "proto": self.specs[label].proto, "options": self.specs[label].options}
                        for label in ("A", "B")},
            "limit": self.settings.describe(),
            "openings": Path(self.args.openings).name,  # a name: no paths of this machine in results
            "seed": self.args.seed,
            "start": self.args.start,
            "adjudication": self.settings.adjudication.describe(),
            "time_margin": self.settings.margin,
            "cpu_affinity": self.cores,
            "games_requested": self.args.games,
            "games": n,
            "games_this_run": self.played_now,
            "unfinished_games_discarded": self.discarded,
            "interrupted": self.interrupted,
            "stop_reason": self.stop_reason,
            "wins": w, "draws": d, "losses": l,
            "score": round((w + d / 2) / n, 5) if n else None,
            "pentanomial": dict(zip(("LL", "LD", "DD+WL", "WD", "WW"), counts)),
            "pairs": sum(counts),
            "elo_pentanomial": elo.pentanomial_interval(counts).as_dict() if sum(counts) else None,
            "elo_trinomial": elo.trinomial_interval(l, d, w).as_dict() if n else None,
            "terminations": self.tally.reasons(),
            "forfeits": {self.names[k]: v for k, v in self.tally.forfeits().items()},
        }
        if sum(counts):
            p = elo.pentanomial_interval(counts)
            data["nelo_pentanomial"] = _finite(elo.normalized_elo(p.score, 2 * p.variance))
        if self.sprt:
            lower, upper = self.sprt.bounds
            data["sprt"] = {"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
                            "beta": self.sprt.beta, "model": self.sprt.model,
                            "llr": round(self.sprt.llr(counts), 4), "lower": round(lower, 4),
                            "upper": round(upper, 4), "decision": self.sprt_decision}
        return data

    def print_summary(self, data: dict) -> None:
        """The human-readable summary."""
        a, b = self.names["A"], self.names["B"]
        print()
        status = " (interrupted)" if self.interrupted else f" ({self.stop_reason})" if self.stop_reason else ""
        print(f"Match {a} vs {b}: {data['games']} games, {data['pairs']} complete pairs{status}")
        print(f"  {data['limit']}, openings {Path(data['openings']).name}"
              f" ({'seed ' + str(data['seed']) if data['seed'] is not None else 'in order'} from {data['start']}),"
              f" adjudication {data['adjudication']}, cpu affinity {data['cpu_affinity'] or 'none'}")
        if not data["games"]:
            print("  no games finished")
            return
        print(f"  {a}: +{data['wins']} ={data['draws']} -{data['losses']}  score {100 * data['score']:.1f}%")
        counts = self.tally.pentanomial()
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
        if self.discarded:
            print(f"  ({self.discarded} unfinished game(s) discarded)")


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
  name=NAME          name for the PGN and the summary (default: the engine's id name)
  proto=uci|xboard   protocol (default uci)
  dir=DIR            working directory
  option.NAME=VALUE  engine option, e.g. option.Hash=16, option.UCI_Elo=1500

examples:
  match.py --engine "cmd=/usr/games/stockfish,name=sf1500,option.UCI_LimitStrength=true,option.UCI_Elo=1500" \\
           --games 200 --tc 10+0.1 --cpu-affinity --pgn m.pgn --json m.json
  match.py --engine "cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1350" \\
           --engine "cmd=/usr/games/fairymax,proto=xboard" --games 6 --tc 2+0.05
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
    limit.add_argument("--nodes", type=int, metavar="N", help="fixed nodes per move, no clock")
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS), metavar="FILE",
                        help="EPD file, one opening a line (default: %(default)s)")
    parser.add_argument("--seed", type=int, help="shuffle the openings with this seed (default: file order)")
    parser.add_argument("--start", type=int, default=0, help="start at this opening index of the (shuffled) order")
    parser.add_argument("--pgn", metavar="FILE", help="append every finished game to FILE")
    parser.add_argument("--resume", action="store_true", help="count the games already in --pgn and play the rest")
    parser.add_argument("--json", metavar="FILE", help="write the summary figures to FILE")
    parser.add_argument("--concurrency", type=int, default=1, help="games at a time (default 1)")
    parser.add_argument("--cpu-affinity", nargs="?", const="auto", metavar="CORES",
                        help="pin engines to cores: A of slot k on CORES[2k], B on CORES[2k+1] "
                             "(default list 0,1,2,...)")
    parser.add_argument("--adjudicate", metavar="RULES",
                        help="off unless given: draw=MOVES/CP[/FROM] (both engines within CP centipawns "
                             "of 0 for MOVES moves each, from move FROM), resign=MOVES/CP (one side "
                             "<= -CP and the other >= CP for MOVES moves each)")
    parser.add_argument("--sprt", metavar="PARAMS",
                        help="elo0=..,elo1=..[,alpha=0.05,beta=0.05,model=logistic|normalized]: stop when decided")
    parser.add_argument("--stall", type=float, metavar="S",
                        help="seconds past the expected think time (clock or movetime) after which a silent "
                             "engine counts as hung; with --nodes, the whole wait (default 10, with --nodes 60)")
    parser.add_argument("--time-margin", type=float, default=0.0, metavar="S",
                        help="seconds an engine may overrun its clock before it loses on time (default 0)")
    parser.add_argument("--init-timeout", type=float, default=60.0, metavar="S",
                        help="seconds for the handshake, options and isready (default 60, as fastchess: "
                             "solver uci answers isready within 45 s while it compiles)")
    parser.add_argument("--event", default="match", help="PGN Event tag")
    parser.add_argument("--debug", action="store_true", help="log the engine traffic (python-chess debug log)")
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
    settings.stall = args.stall if args.stall is not None else (60.0 if settings.mode == "nodes" else 10.0)
    if not settings.stall > 0:
        raise UsageError("--stall must be > 0")
    settings.event = args.event
    if args.time_margin < 0:
        raise UsageError("--time-margin must be >= 0")
    settings.margin = args.time_margin
    if args.adjudicate:
        settings.adjudication = parse_adjudication(args.adjudicate)
    sprt = parse_sprt(args.sprt) if args.sprt else None
    cores = None
    if args.cpu_affinity is not None:
        available = sorted(os.sched_getaffinity(0))
        if args.cpu_affinity == "auto":
            cores = available[:2 * args.concurrency]
        else:
            try:
                cores = [int(c) for c in args.cpu_affinity.split(",")]
            except ValueError:
                raise UsageError(f"bad --cpu-affinity {args.cpu_affinity!r}: a comma-separated list of cores") from None
            if any(c not in available for c in cores):
                raise UsageError(f"bad --cpu-affinity: cores available are {available}")
        if len(cores) < 2 * args.concurrency:
            raise UsageError(f"--cpu-affinity needs two cores per concurrent game ({2 * args.concurrency}); "
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


async def amain(args: argparse.Namespace) -> int:
    """Run the match; the exit status."""
    specs, settings, openings, order, sprt, cores = configure(args)
    match = Match(args, specs, settings, openings, order, sprt, cores)
    if args.resume and os.path.exists(args.pgn):
        read = match.resume(Path(args.pgn))
        kept = 2 * len(match.tally.complete_pairs)
        print(f"resumed: {read} games in {args.pgn}, {len(match.tally.complete_pairs)} complete pairs counted"
              + (f" ({len(match.tally.games) - kept} game(s) of unfinished pairs will be replayed)"
                 if len(match.tally.games) > kept else ""), flush=True)
        for key in [k for k in match.tally.games if k[0] not in match.tally.complete_pairs]:
            del match.tally.games[key]
        other = sum(1 for r in match.tally.games.values()
                    if r.fen and r.fen != board_from_epd(openings[match.opening_index(r.pair)]).fen())
        if other:
            print(f"match.py: warning: {other} resumed game(s) started from another opening than this "
                  "--openings/--seed/--start gives their pair; new pairs follow the new sequence",
                  file=sys.stderr)

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def interrupt() -> None:
        if not match.interrupted:
            match.interrupted = True
            print("\ninterrupted: stopping the engines", file=sys.stderr, flush=True)
            task.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupt)
    status = 0
    try:
        try:
            await match.start_engines()
            print(f"A = {match.names['A']}, B = {match.names['B']}: {args.games} games, {settings.describe()}",
                  flush=True)
            await match.run()
        except asyncio.CancelledError:
            status = 130
        except MatchAborted as err:
            print(f"match.py: {err}", file=sys.stderr)
            status = 1
        finally:
            # a second Ctrl-C while shutting down is ignored: the engines must be stopped
            await asyncio.shield(match.stop_engines())
    except asyncio.CancelledError:
        status = 130
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.remove_signal_handler(sig)
    data = match.summary()
    match.print_summary(data)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
    return status


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    # python-chess warns about every line it does not parse (xboard engines chat a lot)
    logging.getLogger("chess.engine").setLevel(logging.DEBUG if args.debug else logging.CRITICAL)
    try:
        return asyncio.run(amain(args))
    except UsageError as err:
        print(f"match.py: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before the engines were started
        return 130


if __name__ == "__main__":
    sys.exit(main())
