"""The UCI protocol (Universal Chess Interface, 2006) over the alpha-beta player.

Threads. The caller's thread reads commands and answers at once: ``uciok`` before anything is
compiled, ``readyok`` also during a search. A warm-up thread loads the chess kernels and the
search (from numba's cache, or compiling them on a cold cache) as soon as the engine starts, then
the prover's kernels (``go mate``, ``ProverNodes``), after ``readyok`` can already be given. Each
``go`` runs in a search thread that prints ``info`` lines and exactly one ``bestmove``.

Nothing the reader thread does may wait for numba: ``position`` is kept as text and parsed by the
search thread at the next ``go``; options are applied there too. ``isready`` is answered by a
waiter thread once the search is loaded, however long that takes (a cold start compiles for
10-40 s on two cores, a warm one loads in about a second): ``readyok`` means the real search
plays. A ``go`` sent after an ``isready`` not yet answered is taken after it, as UCI orders
commands (its clock starts then). A ``go`` that arrives before any ``isready``, while the
search is loading, waits for it while the clock allows (half the time for the move) and then
answers anyway, by python-chess's move generator: no kernel at all, since one still compiling
holds numba's compiler lock for as long as the whole search takes to compile. So a cold start
never loses on time; ``stop`` ends such a wait at once.

Unknown or malformed commands are ignored, with a line on stderr saying why.
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Iterable, NamedTuple

from runtime.text import ascii_integer

ENGINE_NAME = "game-solver"
ENGINE_AUTHOR = "the game-solver developers"

DEFAULT_HASH_MB = 16
MAX_HASH_MB = 4096
DEFAULT_OVERHEAD_MS = 50
MAX_OVERHEAD_MS = 5000
DEFAULT_DATABASE_CACHE_MB = 64
MAX_DATABASE_CACHE_MB = 65536
DEFAULT_PROVER_NODES = 0
MAX_PROVER_NODES = 100_000_000
EMPTY_PATH = "<empty>"
PROVER_WARM_UP_FEN = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # a mate in one, to load the prover's kernels
# A queen against a rook: searched once when tables are opened, so that the search's table
# probes and the root's move pick are compiled (or loaded) before readyok, not in a game's move.
TABLES_WARM_UP_FEN = "8/8/2r5/3k4/8/8/8/Q3K3 w - - 0 1"
# Spin options: (default, least, most).
SPIN_OPTIONS = {
    "Hash": (DEFAULT_HASH_MB, 1, MAX_HASH_MB),
    "Move Overhead": (DEFAULT_OVERHEAD_MS, 0, MAX_OVERHEAD_MS),
    "DatabaseCache": (DEFAULT_DATABASE_CACHE_MB, 1, MAX_DATABASE_CACHE_MB),
    "ProverNodes": (DEFAULT_PROVER_NODES, 0, MAX_PROVER_NODES),
    "Threads": (1, 1, 1),
}

# UCI check options that switch search features (solver.search.switches.NAMES).
SWITCH_OPTIONS = {
    "NullMove": "null_move",
    "MultiCut": "multi_cut",
    "LateMoveReductions": "lmr",
    "ReverseFutility": "reverse_futility",
    "Futility": "futility",
    "CheckExtension": "check_extension",
    "QuiescenceSEE": "quiescence_see",
    "AspirationWindows": "aspiration",
    "TTCutoffs": "tt_cutoffs",
    "MateProbe": "mate_probe",
    "IIR": "iir",
    "Improving": "improving",
    "SEEPruning": "see_pruning",
    "LMRHistory": "lmr_history",
    "CounterMoves": "counter_moves",
    "ContinuationHistory": "continuation_history",
    "SingularExtensions": "singular",
    "TTEval": "tt_eval",
    "Razoring": "razoring",
}
GO_KEYWORDS = {"searchmoves", "ponder", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes",
               "mate", "movetime", "infinite"}
# Larger go values are taken as this one: every limit still fits the search's 64-bit counters.
GO_INTEGER_LIMIT = 2**62
GO_INTEGERS = {"wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime"}


@dataclass
class GoCommand:
    """The parameters of one ``go`` (times in milliseconds, as the protocol sends them)."""

    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)


class RootSetUp(NamedTuple):
    """A ``position`` command played out: its game, set-up tokens and moves, the position
    after them and the hashes of the positions before it."""

    game: object
    setup: list[str]
    moves: list[str]
    position: object
    history: list[int]


@dataclass
class PonderBudget:
    """What a ``ponderhit`` turns a ponder search into: the clock budget of its ``go``."""

    optimum: float | None
    maximum: float
    limits: object  # the running search's solver.search.player.Limits
    started: float  # time.monotonic() when the ponder search began


def _switch_default(option: str) -> bool:
    from solver.search.switches import DEFAULTS  # numba-free

    return DEFAULTS[SWITCH_OPTIONS[option]]


# A limit of zero or less is not taken as given: what is said for it (depth, nodes and
# movetime still end the search, at its least: depth 1, the first iteration; mate is dropped).
LEAST_SEARCH_LIMITS = {"depth": "not a positive depth: searching depth 1",
                       "nodes": "not a positive count: the least search",
                       "movetime": "not a positive time: the least search",
                       "mate": "no mate of {value} moves or fewer to look for"}


def parse_go(tokens: list[str]) -> tuple[GoCommand, list[str]]:
    """A ``go`` command's parameters, and the complaints about what was ignored."""
    command = GoCommand()
    problems = []
    limit_asked = False  # a limit was named, even if its value is unusable
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in ("infinite", "ponder"):
            setattr(command, token, True)
        elif token == "searchmoves":
            while i < len(tokens) and tokens[i] not in GO_KEYWORDS:
                command.searchmoves.append(tokens[i])
                i += 1
        elif token in GO_INTEGERS:
            limit_asked = True
            if i < len(tokens):
                value = ascii_integer(tokens[i])
                if value is None:
                    problems.append(f"go {token}: not an integer: {tokens[i]!r}")
                else:
                    value = max(-GO_INTEGER_LIMIT, min(value, GO_INTEGER_LIMIT))
                    if value <= 0 and token in LEAST_SEARCH_LIMITS:
                        problems.append(f"go {token} {value}: " + LEAST_SEARCH_LIMITS[token].format(value=value))
                    setattr(command, token, value if token in ("wtime", "btime", "winc", "binc") else max(0, value))
                i += 1
            else:
                problems.append(f"go {token}: value missing")
        else:
            problems.append(f"go: unknown parameter {token!r}")
    if command.depth is not None:
        command.depth = max(1, command.depth)
    if command.mate == 0:
        command.mate = None  # "mate 0" (or a negative count): no mate to look for (said above)
    if limit_asked and not _has_limit(command):
        # what was asked cannot be done ("go mate 0", "go movetime abc"): the least search,
        # not an endless one that only a stop would end
        command.depth = 1
        problems.append("go: no usable limit left: searching one ply")
    return command, problems


def _has_limit(command: GoCommand) -> bool:
    """Whether a ``go`` ends by itself or by the GUI's word: a limit, a clock, infinite or
    ponder."""
    return command.infinite or command.ponder or any(
        getattr(command, name) is not None
        for name in ("wtime", "btime", "depth", "nodes", "mate", "movetime"))


class UciEngine:
    """A UCI engine on text streams: ``run(lines)`` until ``quit`` or the end of input."""

    def __init__(self, output: IO[str] = sys.stdout, errors: IO[str] = sys.stderr, database_path: str = ""):
        self._output = output
        self._errors = errors
        self._print_lock = threading.Lock()
        self._notice_lock = threading.Lock()  # the compile notice comes after uciok, once
        self._handshaken = False  # uciok sent
        self._compiling: str | None = None  # the compile notice's first line, once said
        self.options = {**{name: spin[0] for name, spin in SPIN_OPTIONS.items() if name != "Threads"},
                        "Ponder": False, "UCI_Chess960": False, "DatabasePath": database_path or "",
                        **{name: _switch_default(name) for name in SWITCH_OPTIONS}}
        self._tables_loaded: tuple[str, int] = ("", 0)  # (path, cache MB) of the open tables
        self._tables_lock = threading.Lock()
        self._position_tokens = ["startpos"]
        self._last_root: RootSetUp | None = None  # the last position set up, to extend (_root)
        self._new_game = False
        self._game = None
        self._player = None
        self._kernels_ready = threading.Event()
        self._search_ready = threading.Event()
        self._warm_up_error: str | None = None
        self._search_thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._quitting = threading.Event()  # quit or the end of input: nothing more to wait for
        self._ponderhit = threading.Event()
        self._ponder_budget: PonderBudget | None = None
        self._ready_waiters: list[threading.Thread] = []  # isready answers still to come
        self._warm_up_thread = threading.Thread(target=self._warm_up, name="uci-warm-up", daemon=True)
        self._warm_up_thread.start()

    # --- the reader's side ------------------------------------------------------------------------
    def run(self, lines: Iterable[str]) -> int:
        """Answer commands until ``quit`` or the end of ``lines``; the exit status."""
        try:
            for line in _decoded(lines):
                if not self.handle(line):
                    break
        finally:
            self._quitting.set()
            self._finish_search()
            for waiter in self._ready_waiters:  # every isready is answered before the end
                waiter.join()
        return 0

    def handle(self, line: str) -> bool:
        """Answer one command line; False after ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        command, arguments = tokens[0], tokens[1:]
        if command == "quit":
            return False
        handler = {
            "uci": self._uci,
            "isready": self._isready,
            "ucinewgame": self._ucinewgame,
            "position": self._position,
            "go": self._go,
            "stop": self._stop_search,
            "ponderhit": self._on_ponderhit,
            "setoption": self._setoption,
            "debug": lambda _: None,
            "register": lambda _: None,
        }.get(command)
        if handler is None:
            self._complain(f"unknown command ignored: {line.strip()!r}")
            return True
        handler(arguments)
        return True

    def _uci(self, _arguments) -> None:
        lines = [f"id name {ENGINE_NAME}", f"id author {ENGINE_AUTHOR}"]
        lines += [f"option name {name} type spin default {default} min {least} max {most}"
                  for name, (default, least, most) in SPIN_OPTIONS.items()]
        lines += [f"option name DatabasePath type string default {self.options['DatabasePath'] or EMPTY_PATH}",
                  "option name Ponder type check default false",
                 "option name UCI_Chess960 type check default false",
                 "option name Clear Hash type button"]
        lines += [f"option name {name} type check default {str(_switch_default(name)).lower()}"
                  for name in SWITCH_OPTIONS]
        lines.append("uciok")
        with self._notice_lock:
            self._send(*lines)
            self._handshaken = True
            if self._compiling is not None:
                self._send(f"info string {self._compiling}")

    def _isready(self, _arguments) -> None:
        if self._warm_up_error is not None or (self._search_ready.is_set() and not self._tables_to_open()):
            self._send("readyok")
            return
        waiter = threading.Thread(target=self._ready_when_loaded, name="uci-isready", daemon=True)
        self._ready_waiters.append(waiter)
        waiter.start()

    def _ready_when_loaded(self) -> None:
        """Answer ``readyok`` once the search is loaded (or failed to) and the tables of a new
        ``DatabasePath`` are open; the reader goes on meanwhile (``stop``, ``quit``). Opening
        all 3-5-piece tables reads about 1 GB of packed WDL50: done at the first ``go``
        instead, that would come off its clock."""
        while not self._search_ready.wait(0.05):
            if self._warm_up_error is not None or self._quitting.is_set():
                break
        if self._search_ready.is_set() and self._warm_up_error is None and not self._searching():
            # (a search under way keeps its tables; the next go opens the new ones)
            self._configure_tables(self._player)
        self._send("readyok")

    def _wanted_tables(self) -> tuple[str, int]:
        """(path, cache MB) the options ask for, as ``_tables_loaded`` records them."""
        return self.options["DatabasePath"], self.options["DatabaseCache"]

    def _tables_to_open(self) -> bool:
        """Whether ``DatabasePath`` or ``DatabaseCache`` changed since the tables were opened."""
        return self._wanted_tables() != self._tables_loaded

    def _ucinewgame(self, _arguments) -> None:
        self._finish_search()
        self._new_game = True
        self._position_tokens = ["startpos"]

    def _position(self, arguments: list[str]) -> None:
        if not arguments or arguments[0] not in ("startpos", "fen"):
            self._complain("position: expected 'startpos' or 'fen ...'; ignored")
            return
        self._position_tokens = arguments  # read at the next go, so a running search is unaffected

    def _setoption(self, arguments: list[str]) -> None:
        if not arguments or arguments[0] != "name":
            self._complain("setoption: expected 'name <id> [value <x>]'; ignored")
            return
        if "value" in arguments:
            at = arguments.index("value")
            name, value = " ".join(arguments[1:at]), " ".join(arguments[at + 1:])
        else:
            name, value = " ".join(arguments[1:]), None
        known = {key.lower(): key for key in list(self.options) + ["Threads", "Clear Hash"]}
        key = known.get(name.lower())
        if key is None:
            self._complain(f"setoption: unknown option {name!r} ignored")
            return
        if key == "Clear Hash":
            self._new_game = True
            return
        if key == "DatabasePath":
            path = (value or "").strip()
            self.options[key] = "" if path == EMPTY_PATH else path  # opened at isready or the next go
            return
        if key in SPIN_OPTIONS:
            _, least, most = SPIN_OPTIONS[key]
            number = ascii_integer(value or "")
            if number is None:
                self._complain(f"setoption {key}: not an integer: {value!r}; ignored")
                return
            if not least <= number <= most:
                number = max(least, min(most, number))
                self._complain(f"setoption {key}: {value} is outside {least}..{most}; "
                               f"{number} taken")
            if key != "Threads":
                self.options[key] = number
            return
        if value is None or value.lower() not in ("true", "false"):
            self._complain(f"setoption {key}: expected true or false, got {value!r}; ignored")
            return
        self.options[key] = value.lower() == "true"

    def _go(self, arguments: list[str]) -> None:
        received = time.monotonic()
        self._finish_search()  # a go during a search: the old one ends (with its bestmove) first
        command, problems = parse_go(arguments)
        for problem in problems:
            self._complain(problem)
        self._stop.clear()
        self._ponderhit.clear()
        # The position is the one set when this go arrived, even if the search thread starts late.
        tokens = list(self._position_tokens)
        unanswered = [waiter for waiter in self._ready_waiters if waiter.is_alive()]
        self._search_thread = threading.Thread(target=self._search,
                                               args=(command, received, tokens, unanswered),
                                               name="uci-search", daemon=True)
        self._search_thread.start()

    def _stop_search(self, _arguments) -> None:
        self._stop.set()
        player = self._player
        if player is not None and self._searching():
            player.stop()

    def _on_ponderhit(self, _arguments) -> None:
        self._ponderhit.set()
        budget, player = self._ponder_budget, self._player
        if budget is None or player is None:
            return
        self._ponder_budget = None
        # The clock now runs: the search stops by the budget of the ponder go, from now on.
        elapsed = time.monotonic() - budget.started
        budget.limits.optimum = None if budget.optimum is None else elapsed + budget.optimum
        budget.limits.infinite = False
        player.set_deadline(budget.maximum)

    # --- the search thread ----------------------------------------------------------------------
    def _search(self, command: GoCommand, received: float, tokens: list[str],
                unanswered: list[threading.Thread]) -> None:
        try:
            if unanswered:
                # an isready sent before this go is answered first; the go's clock starts then
                while any(waiter.is_alive() for waiter in unanswered) and not self._stop.is_set():
                    time.sleep(0.01)
                received = time.monotonic()
            self._search_and_answer(command, received, tokens)
        except Exception as error:  # the engine must not die: report, and still answer
            self._complain(f"search failed: {type(error).__name__}: {error}")
            self._send("bestmove 0000")

    def _search_and_answer(self, command: GoCommand, received: float, tokens: list[str]) -> None:
        if not self._wait_for_kernels(command, received, tokens):
            self._answer_without_kernels(command, received, tokens)
            return
        game = self._game_as_set()
        position, history = self._root(game, tokens)
        legal = game.legal_moves(position)
        if not legal:  # (the rules' kernels only: the player's may still be compiling)
            from games.kernels import LOSS

            mated = int(game.kernels.outcome(position, 0)) == LOSS
            self._send(f"info depth 0 score {'mate 0' if mated else 'cp 0'}")
            self._wait_if_told_to(command)
            self._send("bestmove 0000")
            return
        from games.chess.position import side_to_move

        optimum, maximum = self._budget(command, int(side_to_move(position)))
        timed = maximum is not None
        if not self._wait_for_search(received, maximum if timed and not command.ponder else None):
            # Not even the evaluation may be used: the warm-up thread may be compiling it, and
            # numba's compiler lock would make this move wait for the whole search.
            self._answer_without_kernels(command, received, tokens)
            return
        from solver.search.player import Limits

        player = self._configured_player()
        searchmoves = [game.parse_move(position, text) for text in command.searchmoves
                       if _legal_text(game, position, text)]
        if command.searchmoves and not searchmoves:
            self._complain(f"go searchmoves: no legal move among "
                           f"{' '.join(command.searchmoves)}: searching every move")
        # 'nodes 0' / 'depth 0' ask for the least search, not for none: one node, one ply
        limits = Limits(depth=None if command.depth is None else max(1, command.depth),
                        nodes=None if command.nodes is None else max(1, command.nodes),
                        moves=searchmoves or None, mate=command.mate,
                        infinite=command.infinite or command.ponder)
        spent = time.monotonic() - received
        if timed and not command.ponder:
            limits.optimum = max(0.0, optimum - spent) if optimum is not None else None
            limits.time = max(0.001, maximum - spent)
        elif timed and command.ponder:
            self._ponder_budget = PonderBudget(optimum, maximum, limits, time.monotonic())
        result = player.search(position, limits, history=history,
                               on_iteration=lambda iteration: self._info(game, position, iteration),
                               stop_requested=self._stop)
        self._ponder_budget = None
        self._wait_if_told_to(command)
        best = result.best if result.best is not None else legal[0]
        line = f"bestmove {game.format_move(position, best)}"
        if len(result.pv) >= 2 and result.pv[0] == best:
            line += f" ponder {game.format_move(game.play(position, best), result.pv[1])}"
        self._send(line)

    def _wait_if_told_to(self, command: GoCommand) -> None:
        """``go infinite`` and ``go ponder`` never end by themselves: wait for stop (or ponderhit)."""
        if command.infinite or command.ponder:
            while not self._stop.is_set() and not (command.ponder and self._ponderhit.is_set()):
                self._stop.wait(0.01)

    def _wait_for_kernels(self, command: GoCommand, received: float, tokens: list[str]) -> bool:
        """Wait for the game's kernels; give up at half the time for this move (the clock read
        with python-chess, which needs no compiling), on stop, or when the warm-up failed."""
        maximum = None
        while not self._kernels_ready.wait(0.01):
            if self._warm_up_error is not None or self._stop.is_set():
                return False
            if maximum is None and not command.ponder:
                maximum = self._budget(command, fallback_side(tokens))[1] or float("inf")
            if maximum is not None and time.monotonic() - received > maximum / 2:
                return False
        return self._game is not None

    def _answer_without_kernels(self, command: GoCommand, received: float,
                                tokens: list[str]) -> None:
        """A legal move while the kernels are not loaded (python-chess's move generator)."""
        move = fallback_move(tokens, self.options["UCI_Chess960"])
        if move is None:
            self._wait_if_told_to(command)
            self._send("bestmove 0000")
            return
        millis = int((time.monotonic() - received) * 1000)
        self._send("info string the engine is still loading: a move without search",
                   f"info depth 1 seldepth 1 multipv 1 score cp 0 nodes 1 nps 0 hashfull 0 "
                   f"time {millis} pv {move}")
        self._wait_if_told_to(command)
        self._send(f"bestmove {move}")

    def _wait_for_search(self, received: float, maximum: float | None) -> bool:
        """Wait for the compiled search; give up at half the time for this move, or on stop."""
        while not self._search_ready.wait(0.01):
            if self._warm_up_error is not None or self._stop.is_set():
                return False
            if maximum is not None and time.monotonic() - received > maximum / 2:
                return False
        return True

    def _budget(self, command: GoCommand, side: int) -> tuple[float | None, float | None]:
        """(optimum, maximum) seconds from the clock, ``movetime``, or (None, None)."""
        overhead = self.options["Move Overhead"] / 1000
        if command.movetime is not None:
            # All of it: no soft limit, so the last iteration runs until the time is up.
            return None, max(0.001, command.movetime / 1000 - overhead)
        clock = command.wtime if side == 0 else command.btime
        if clock is None:
            return None, None
        from solver.search.timecontrol import think_time

        increment = (command.winc if side == 0 else command.binc) / 1000
        return think_time(clock / 1000, max(0.0, increment), command.movestogo or None, overhead)

    def _root(self, game, tokens: list[str]):
        """The position ``tokens`` (a ``position`` command's arguments) set up, with the hashes
        of the earlier ones. A GUI sends the whole game before every ``go``; replaying 150
        plies takes 5-10 ms, more than a bullet game's increment, so the moves the last call
        already played are taken from it when ``tokens`` extend them."""
        if "moves" in tokens:
            at = tokens.index("moves")
            setup, moves = tokens[:at], tokens[at + 1:]
        else:
            setup, moves = tokens, []
        last = self._last_root
        if last is not None and last.game is game and last.setup == setup \
                and moves[:len(last.moves)] == last.moves:
            position, history, played = last.position.copy(), list(last.history), len(last.moves)
        else:
            history, played = [], 0
            if setup[0] == "startpos":
                position = game.start_position()
            else:
                try:
                    position = game.parse_position(" ".join(setup[1:]))
                except Exception as error:
                    self._complain(f"position fen: {error}; using the start position")
                    self._last_root = None
                    return game.start_position(), []
        for text in moves[played:]:
            try:
                move = game.parse_move(position, text)
            except Exception:
                self._complain(f"position: illegal move {text!r}; the moves after it are ignored")
                break
            history.append(game.hash(position))
            position = game.play(position, move)
            played += 1
        self._last_root = RootSetUp(game, setup, moves[:played], position.copy(), list(history))
        return position, history

    def _configured_player(self):
        """The player with the current options applied."""
        player = self._player
        if abs(player.table.megabytes - self.options["Hash"]) > self.options["Hash"] / 2:
            player.resize_table(self.options["Hash"])
        player.set_switches({switch: self.options[name] for name, switch in SWITCH_OPTIONS.items()})
        player.prover_nodes = self.options["ProverNodes"]
        self._configure_tables(player)
        if self._new_game:
            player.new_game()
            self._new_game = False
        player.game = self._game_as_set()
        return player

    def _game_as_set(self):
        """The game with ``UCI_Chess960`` applied (made anew when it changed). Read before a
        go's root is set up: its FEN's castling letters and its moves are the variant's."""
        chess960 = self.options["UCI_Chess960"]
        if getattr(self._game, "chess960", chess960) != chess960:
            from games.chess import Chess

            self._game = Chess(chess960=chess960)
        return self._game

    def _configure_tables(self, player) -> None:
        """Open the tables at ``DatabasePath`` (when it or ``DatabaseCache`` changed since they
        were opened, by ``isready`` or a ``go``); a path that does not hold tables is reported
        once and left unused."""
        with self._tables_lock:  # isready's waiter and a go's search thread may both come
            self._open_tables(player)

    def _open_tables(self, player) -> None:
        wanted = self._wanted_tables()
        if wanted == self._tables_loaded:
            return
        self._tables_loaded = wanted
        if player.tables is not None:
            player.tables.close()
            player.set_tables(None)
        path, cache_mb = wanted
        if not path:
            return
        from databases.errors import DatabaseError
        from solver.search.table_leaves import EndgameTables

        try:
            tables = EndgameTables(self._game, path, cache_mb)
        except DatabaseError as error:
            self._complain(f"DatabasePath: {error}; playing without tables")
            return
        player.set_tables(tables)
        self._warm_up_tables(player)
        packs = tables.packs
        packed = f", {packs.tables} packed WDL50 in memory ({packs.nbytes / 2**20:.1f} MiB)" \
            if packs is not None else ""
        self._send(f"info string {tables.tables} endgame tables from {path}, {cache_mb} MiB of pages"
                   + packed)

    def _info(self, game, position, iteration) -> None:
        if iteration.mate is not None:
            score = f"mate {iteration.mate}"
        else:
            score = f"cp {iteration.centipawns}"
        if iteration.bound != "exact":
            score += " lowerbound" if iteration.bound == "lower" else " upperbound"
        millis = int(iteration.seconds * 1000)
        pv = " ".join(game.format_moves(position, iteration.pv))
        self._send(f"info depth {iteration.depth} seldepth {max(iteration.seldepth, iteration.depth)} multipv 1 "
                   f"score {score} nodes {iteration.nodes} nps {iteration.nps} hashfull {iteration.hashfull} "
                   f"tbhits {iteration.tbhits} time {millis}" + (f" pv {pv}" if pv else ""))

    # --- warm-up ------------------------------------------------------------------------------
    def _warm_up_tables(self, player) -> None:
        """Search a small table position once with the new tables: on a cold cache their code
        compiles here, where it delays ``readyok`` (as UCI means it to), rather than in the
        first move that reaches a table (3.7 s of an 8 s clock on an idle machine, cold; a stall in a match's first games)."""
        from solver.search.player import Limits

        player.search(self._game.parse_position(TABLES_WARM_UP_FEN), Limits(depth=2))
        player.new_game()  # what the throwaway search learnt (and scores of the old tables) goes

    def _note_compiling(self, line: str) -> None:
        """Say, as an ``info string``, that the kernels compile, and how far along: after
        ``uciok``, never before it (then the first line, which says why, comes with it; the
        progress said before is passed over)."""
        with self._notice_lock:
            if self._compiling is None:
                self._compiling = line
            if self._handshaken:
                self._send(f"info string {line}")

    def _warm_up(self) -> None:
        try:
            from runtime import compile_notice

            # a cold cache compiles for a minute or more: the GUI's log says why it waits
            compile_notice.install(self._note_compiling, command="uci")
            from games.chess import Chess

            game = Chess()
            game.legal_moves(game.start_position())
            self._game = game
            self._kernels_ready.set()
            from solver.search.player import Limits, Player

            player = Player(game, hash_mb=self.options["Hash"])
            player.search(game.start_position(), Limits(depth=2))
            player.new_game()
            self._player = player
            self._open_tables_while_loading(player)
            self._search_ready.set()
        except Exception as error:  # reported once; go answers bestmove 0000 from then on
            self._warm_up_error = f"{type(error).__name__}: {error}"
            self._complain(f"engine failed to start: {self._warm_up_error}")
            self._kernels_ready.set()
            return
        try:
            # The prover's kernels too (`go mate`, ProverNodes): loading them in the first
            # search that needs them would take that search's time.
            from solver.search.prover_leaves import Prover

            Prover(game, table_mb=1).root_mate(game.parse_position(PROVER_WARM_UP_FEN), [], 100)
        except Exception as error:  # the search still plays; go mate will report its own error
            self._complain(f"the prover failed to load: {type(error).__name__}: {error}")
            return
        compile_notice.finished()  # (the count the next cold start's progress is told against)

    def _open_tables_while_loading(self, player) -> None:
        """Open the tables of a ``DatabasePath`` given before the search has loaded, before it
        counts as loaded: the first ``go`` of a GUI that did not wait for ``readyok`` then
        waits for them, or plays a move without search, instead of opening them (up to 1 GB of
        packs, and their code's compile) on its own clock."""
        try:
            self._configure_tables(player)
        except Exception as error:  # the search still plays, without tables
            if player.tables is not None:
                player.tables.close()
                player.set_tables(None)
            self._complain(f"DatabasePath: {type(error).__name__}: {error}; playing without tables")

    # --- helpers ---------------------------------------------------------------------------------
    def _searching(self) -> bool:
        return self._search_thread is not None and self._search_thread.is_alive()

    def _finish_search(self) -> None:
        """Stop a running search and wait for its bestmove."""
        if self._search_thread is None:
            return
        if self._search_thread.is_alive():
            self._stop_search([])
        self._search_thread.join()
        self._search_thread = None

    def _send(self, *lines: str) -> None:
        with self._print_lock:
            try:
                for line in lines:
                    self._output.write(line + "\n")
                self._output.flush()
            except (BrokenPipeError, ValueError):
                pass  # the GUI is gone; quit will follow

    def _complain(self, message: str) -> None:
        try:
            self._errors.write(f"solver uci: {message}\n")
            self._errors.flush()
        except (BrokenPipeError, ValueError):
            pass


def _decoded(lines: Iterable[str]) -> Iterable[str]:
    """The command lines. A text stream over bytes (standard input) is read as bytes and decoded
    line by line, so that bytes that are not UTF-8 make one unknown command (with replacement
    characters) instead of a UnicodeDecodeError that would end the engine."""
    buffer = getattr(lines, "buffer", None)
    if buffer is None:
        yield from lines
        return
    while raw := buffer.readline():
        yield raw.decode("utf-8", errors="replace")


def _fallback_board(tokens: list[str], chess960: bool = False):
    """The python-chess board of a ``position`` command's arguments (as far as they are
    legal), or None when python-chess cannot set it up; ``chess960``: castling written as the
    king taking its rook, as UCI_Chess960 asks."""
    import chess

    at = tokens.index("moves") if "moves" in tokens else len(tokens)
    setup, moves = tokens[:at], tokens[at + 1:]
    try:
        board = chess.Board(chess960=chess960) if setup[:1] == ["startpos"] \
            else chess.Board(" ".join(setup[1:]), chess960=chess960)
    except (ValueError, IndexError):
        return None
    for text in moves:
        try:
            board.push_uci(text)
        except ValueError:
            break
    return board


def fallback_side(tokens: list[str]) -> int:
    """The side to move (0 White, 1 Black) of a ``position`` command's arguments, by
    python-chess (White when it cannot tell)."""
    board = _fallback_board(tokens)
    return 0 if board is None or board.turn else 1


def fallback_move(tokens: list[str], chess960: bool = False) -> str | None:
    """A legal move (UCI text; ``chess960``: castling as the king taking its rook) of a
    ``position`` command's arguments without the game's kernels: a mate in one, else the
    capture of the most valuable piece (promotions counted), else the first legal move; None
    when the position has no legal move or cannot be read."""
    import chess

    board = _fallback_board(tokens, chess960)
    if board is None:
        return None
    worth = {None: 0, chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    best, best_gain = None, -1
    for move in board.legal_moves:
        if board.gives_check(move):
            board.push(move)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                return board.uci(move)
        captured = board.piece_type_at(move.to_square) or (chess.PAWN if board.is_en_passant(move) else None)
        gain = worth[captured] + (worth[move.promotion] - 1 if move.promotion else 0)
        if gain > best_gain:
            best, best_gain = move, gain
    return board.uci(best) if best is not None else None


def _legal_text(game, position, text: str) -> bool:
    try:
        game.parse_move(position, text)
        return True
    except Exception:
        return False
