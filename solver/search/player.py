"""The player's Python API: iterative deepening with aspiration windows around the numba search.

>>> import games
>>> from solver.search.player import Limits, Player
>>> game = games.get("tictactoe")
>>> result = Player(game, hash_mb=1).search(game.parse_position("xx.oo...."), Limits(depth=3))
>>> game.format_move(game.parse_position("xx.oo...."), result.best), result.mate
('3', 1)

Each iteration is one call of the compiled search (``nogil``): between iterations the caller
hears about the finished depth (``on_iteration``); during one, any thread may call ``stop``
and the search returns within about a thousand nodes. Time limits are kept by a watcher
thread that raises the same stop flag at the deadline; node limits inside the search.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from games import kernels as K
from runtime.stopping import DeadlineWatcher
from games.game import Game
from solver.search import alphabeta as ab
from solver.search.mate_probe import new_misses
from solver.search.scores import (INFINITE, KNOWN_WIN, MATE, MATE_BOUND, MAX_PLY, is_mate,
                                  mate_in_moves)
from solver.search.switches import ASPIRATION, DEFAULTS, FLAGS, NAMES as SWITCH_NAMES, PLAIN
from solver.search.transposition import TranspositionTable

MAX_DEPTH = MAX_PLY - 8
ASPIRATION_MIN_DEPTH = 4
ASPIRATION_DELTA = 25
CONFIRM_SECONDS = 0.25  # the least time the search gets to confirm a df-pn mate without a clock
MATE_LINE_SECONDS = 2.0  # what completing a reported mate's line may cost (Player.mate_line)


@dataclass(frozen=True)
class MultiCut:
    """Multi-cut parameters: at depth >= ``min_depth``, search the first ``moves`` moves
    ``reduction`` plies shallower and cut off if ``cuts`` of them fail high."""

    moves: int = 6
    cuts: int = 3
    reduction: int = 3
    min_depth: int = 6


@dataclass
class Limits:
    """When to stop. With none set the search goes to the maximum depth (``infinite`` says the
    caller will stop it). ``time`` is a hard limit; ``optimum`` a soft one: no new iteration
    starts after it. ``moves`` restricts the root moves (UCI ``searchmoves``); ``mate`` stops
    once a mate in at most that many moves is found."""

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    optimum: float | None = None
    moves: Sequence[int] | None = None
    mate: int | None = None
    infinite: bool = False

    def __post_init__(self):
        # A proof "within 2 * mate - 1 plies" needs at least one move; UCI's "go mate 0" is
        # turned into no mate bound before it gets here.
        if self.mate is not None and self.mate < 1:
            raise ValueError(f"Limits.mate must be at least 1 move, not {self.mate} (None: no mate bound)")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"Limits.depth must be at least 1 ply, not {self.depth}")


@dataclass
class Iteration:
    """One finished (or bounded) iteration: ``score`` from the side to move's point of view;
    ``bound`` is ``exact``, ``lower`` (failed high) or ``upper`` (failed low)."""

    depth: int
    seldepth: int
    score: int
    bound: str
    nodes: int
    seconds: float
    pv: list[int]
    hashfull: int
    tbhits: int = 0

    @property
    def mate(self) -> int | None:
        """Signed moves to mate (UCI ``score mate``), None for a heuristic score."""
        return mate_in_moves(self.score) if is_mate(self.score) else None

    @property
    def centipawns(self) -> int | None:
        """The heuristic score, None when it is a mate."""
        return None if is_mate(self.score) else int(self.score)

    @property
    def nps(self) -> int:
        """Nodes per second so far."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


@dataclass
class SearchResult:
    """The outcome of a search: ``best`` is None when the position has no legal move (then
    ``outcome`` is its result: ``K.WIN``/``K.DRAW``/``K.LOSS`` for the side to move); a
    position drawn with moves left (chess: a dead position) gets a legal move, score 0 and
    ``outcome`` ``K.DRAW``."""

    best: int | None
    score: int | None
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    pv: list[int] = field(default_factory=list)
    outcome: int = K.ONGOING
    iterations: list[Iteration] = field(default_factory=list)
    tbhits: int = 0

    @property
    def mate(self) -> int | None:
        """Signed moves to mate, None when the score is heuristic."""
        return mate_in_moves(self.score) if self.score is not None and is_mate(self.score) else None

    @property
    def centipawns(self) -> int | None:
        """The heuristic score, None for a mate (or no move)."""
        return None if self.score is None or is_mate(self.score) else int(self.score)

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


class GameNotPlayableError(ValueError):
    """The game has no player kernels."""


# On the clock the root prover runs only once the search sees a decisive advantage (at least
# PROVER_WINNING_SCORE centipawns) and no mate of its own: then a mate is likely and is what the
# position needs, and the prover's time in this search may reach PROVER_TIME_SHARE of the
# search's own. Once it holds a proof, only shortening the mate is left, which the deepening
# search does as well: then PROVER_SHORTENING_SHARE. In level positions it rarely proves
# anything, and its time cost the search about a ply (self-play at 10+0.1 with a quarter of the
# search's time given to it everywhere: -80 Elo, see docs/benchmarks.md).
PROVER_WINNING_SCORE = 400
PROVER_TIME_SHARE = 1.0
PROVER_SHORTENING_SHARE = 0.25


def _better_mate(mate: tuple[int, int] | None, move: int, score: int,
                 root_moves: list[int]) -> tuple[int, int] | None:
    """``mate`` or (``move``, ``score``), whichever mates sooner: a score below ``MATE_BOUND``
    or a move not among ``root_moves`` is no mate."""
    if score < MATE_BOUND or move not in root_moves or (mate is not None and mate[1] >= score):
        return mate
    return move, score


def _with_table_score(iteration: Iteration, score: int) -> Iteration:
    """``iteration`` with the tables' exact ``score``: at a root whose result the tables know,
    the search's own score only ranks the moves."""
    return replace(iteration, score=score, bound="exact")


def _reporting_score(on_iteration: Callable[[Iteration], None] | None,
                     score: int) -> Callable[[Iteration], None] | None:
    """``on_iteration`` told ``score`` (exact) for every iteration (:func:`_with_table_score`)."""
    if on_iteration is None:
        return None
    return lambda iteration: on_iteration(_with_table_score(iteration, score))


class Player:
    """An alpha-beta player for one game: its transposition table, history tables and buffers.

    ``switches`` turns search features on or off by name (``SWITCH_NAMES``; defaults in
    ``solver.search.switches.DEFAULTS``: all on but multi-cut).
    The oracles: ``tables`` (:class:`solver.search.table_leaves.EndgameTables`) are probed inside
    the search and played from at the root; ``prover_nodes`` > 0 gives df-pn that many nodes at
    the root between iterations (:mod:`solver.search.prover_leaves`); ``Limits.mate`` is answered
    by df-pn, whatever ``prover_nodes``.
    Not thread-safe, except ``stop`` and ``set_deadline``, which any thread may call while
    ``search`` runs.
    """

    def __init__(self, game: Game, hash_mb: float = 16, switches: dict[str, bool] | None = None,
                 multi_cut: MultiCut = MultiCut(), tables=None, prover_nodes: int = 0):
        if game.player is None:
            raise GameNotPlayableError(f"{game.name} has no player kernels")
        if game.move_space >= 0xFFFF:
            raise GameNotPlayableError(f"{game.name}: moves do not fit the transposition table")
        self.game = game
        self.table = TranspositionTable(hash_mb)
        self.switches = dict(DEFAULTS)
        self.set_switches(switches or {})
        self.multi_cut = multi_cut
        self.generation = 0
        rows = ab.PLY_ROWS
        self._positions = np.zeros((rows + 1, game.position_width), dtype=np.uint64)
        self._move_rows = np.zeros((ab.MOVE_ROWS, rows, game.max_moves), dtype=np.int32)
        self._ply_info = np.zeros((ab.PLY_INFO_ROWS, rows), dtype=np.int64)
        self._ply_info[ab.EXCLUDED_MOVE] = -1  # a node leaves a move out only inside its own search
        self._killers = np.full((rows, 2), -1, dtype=np.int32)
        self._history = np.zeros((2, game.move_space), dtype=np.int32)
        self._counter_moves = np.full((2, game.move_space), -1, dtype=np.int32)
        space = game.continuation_space
        self._continuation = np.zeros((2, space, space), dtype=np.int32)
        self._pv = np.zeros((rows, rows), dtype=np.int32)
        self._root_moves = np.zeros(game.max_moves, dtype=np.int32)
        self._state = np.zeros(ab.STATE_SIZE, dtype=np.int64)
        self._path = np.zeros(rows, dtype=np.uint64)
        self._mate_misses = new_misses()
        self._deadline: DeadlineWatcher | None = None
        self._stop_requested: threading.Event | None = None  # the caller's stop, see search()
        self.last_stats: dict[str, int] = {}
        self.tables = tables
        self.prover_nodes = prover_nodes
        self._prover = None
        self._root_position = self._positions[0].copy()
        self._root_history: list[int] = []
        self._no_tables = None
        self._prover_seconds = 0.0  # spent by the prover in the current search

    # --- configuration ---------------------------------------------------------------------
    def set_switches(self, switches: dict[str, bool]) -> None:
        """Turn named search features on or off; an unknown name is a ValueError."""
        for name, on in switches.items():
            if name not in self.switches:
                raise ValueError(f"unknown search switch {name!r} (known: {', '.join(SWITCH_NAMES)})")
            self.switches[name] = bool(on)

    def set_tables(self, tables) -> None:
        """Use ``tables`` (an EndgameTables, or None for none) from the next search on."""
        self.tables = tables
        self._prover = None  # its leaves follow the tables

    @property
    def prover(self):
        """The df-pn prover (created on first use, with the tables as its leaves)."""
        if self._prover is None:
            from solver.search.prover_leaves import Prover

            self._prover = Prover(self.game, database=self.tables.leaves if self.tables is not None else None)
        return self._prover

    def resize_table(self, hash_mb: float) -> None:
        """A new, empty transposition table of ``hash_mb`` MiB."""
        self.table = TranspositionTable(hash_mb)

    def new_game(self) -> None:
        """Forget everything learnt: table, killers, history."""
        self.table.clear()
        self._history.fill(0)
        self._killers.fill(-1)
        self._counter_moves.fill(-1)
        self._continuation.fill(0)
        self._mate_misses.fill(0)
        if self._prover is not None:
            self._prover.clear()

    # --- control from other threads ---------------------------------------------------------
    def stop(self) -> None:
        """Ask a running search to return as soon as it can (it keeps its best move so far),
        the root prover too if it is proving."""
        self._state[ab.C_STOP] = 1
        if self._prover is not None:
            self._prover.search.stop()

    def _clear_stop(self) -> None:
        """Let the search run, unless a stop was requested: :meth:`stop` may have come before this
        reset, but then the caller's event is already set (it is set before :meth:`stop`)."""
        self._state[ab.C_STOP] = 0
        if self._stop_requested is not None and self._stop_requested.is_set():
            self._state[ab.C_STOP] = 1

    def set_deadline(self, seconds_from_now: float | None) -> None:
        """Stop the running search ``seconds_from_now`` from now (None: no deadline)."""
        if self._deadline is not None:
            self._deadline.move_to(None if seconds_from_now is None else time.monotonic() + seconds_from_now)

    # --- search -------------------------------------------------------------------------------
    def search(self, position: np.ndarray, limits: Limits = Limits(), history: Sequence[int] = (),
               on_iteration: Callable[[Iteration], None] | None = None,
               stop_requested: threading.Event | None = None) -> SearchResult:
        """Search ``position`` (after the game whose earlier positions hash to ``history``, oldest
        first, so that repetitions of them count) within ``limits``. A caller that may ask
        another thread to stop before this call is under way passes the event it sets then as
        ``stop_requested`` (besides calling :meth:`stop`): such a stop is not lost."""
        started = time.monotonic()
        self._stop_requested = stop_requested
        self._clear_stop()
        game = self.game
        legal = game.legal_moves(position)
        result = int(game.kernels.outcome(position, len(legal)))
        if not legal:
            return SearchResult(None, None, 0, 0, 0, time.monotonic() - started, outcome=result)
        root_moves = [m for m in legal if limits.moves is None or m in set(limits.moves)] or legal
        if result == K.DRAW:  # decided with moves left (chess: a dead position): any move draws
            return self._play_any_move(root_moves[0], started, on_iteration)
        drawn_root = None  # the tables' choice at a root they call drawn
        if self.tables is not None:
            choice = self.tables.root_choice(position, history, root_moves)
            if choice is not None:
                holding = choice.best_moves()
                if choice.decisive or len(holding) < 2:
                    return self._play_from_tables(choice, started, on_iteration)
                # Drawn by the tables, whatever of these moves is played: the search picks
                # among them the one that gives the opponent the most chances to go wrong.
                drawn_root, root_moves = choice, holding
                on_iteration = _reporting_score(on_iteration, choice.score)
        self._prepare(position, history, root_moves, limits)
        self._deadline = DeadlineWatcher(self._state, ab.C_STOP, "search-deadline")
        try:
            if limits.time is not None:
                self._deadline.move_to(started + limits.time)
            if limits.mate is not None:
                result = self._search_mate(limits, root_moves, started, on_iteration)
            else:
                result = self._deepen(limits, root_moves, started, on_iteration)
        finally:
            self._deadline.close()
            self._deadline = None
        if drawn_root is not None:  # the search ranked the moves; the tables know the result
            iterations = [_with_table_score(iteration, drawn_root.score) for iteration in result.iterations]
            result = replace(result, score=drawn_root.score, tbhits=result.tbhits + drawn_root.probes,
                             iterations=iterations)
        return result

    def mate_line(self, position: np.ndarray, history: Sequence[int], pv: list[int],
                  mate: int, seconds: float = MATE_LINE_SECONDS) -> list[int]:
        """The whole line of a mate in ``mate`` moves for the side to move: ``pv`` as far as
        it goes (the search's lines stop where its table entries do), then the prover's
        quickest mating move at each of the attacker's turns and the defence that puts the
        mate furthest off at each of the defender's, until checkmate at ply ``2 * mate - 1``.
        ``pv`` unchanged when the line cannot be completed within ``seconds``."""
        game = self.game
        plies = 2 * mate - 1
        deadline = time.monotonic() + seconds
        line: list[int] = []
        hashes = list(history)
        for move in pv[:plies]:
            if move not in game.legal_moves(position):
                return pv
            hashes.append(int(game.hash(position)))
            position = game.play(position, move)
            line.append(move)
        give_up = lambda: time.monotonic() > deadline  # noqa: E731
        while len(line) < plies and not give_up():
            left = (plies - len(line) + 1) // 2  # the attacker's moves still to play
            if len(line) % 2 == 0:  # the attacker's turn
                found = self.prover.mate_within(position, hashes, left, give_up)
                move = found.move if found is not None else None
            else:  # the defender's: the reply the mate takes longest after
                move, longest = None, -1
                for reply in game.legal_moves(position):
                    after = game.play(position, reply)
                    found = self.prover.mate_within(after, hashes + [int(game.hash(position))],
                                                    left, give_up)
                    if found is None:
                        return pv  # no mate in time after this reply (or out of time)
                    if found.plies > longest:
                        move, longest = reply, found.plies
            if move is None:
                return pv
            hashes.append(int(game.hash(position)))
            position = game.play(position, move)
            line.append(move)
        ended = len(line) == plies and not game.legal_moves(position) \
            and int(game.kernels.outcome(position, 0)) == K.LOSS
        return line if ended else pv

    def _play_any_move(self, move: int, started: float, on_iteration) -> SearchResult:
        """A drawn root with moves left: ``move``, score 0, no search (reported as one
        iteration, so a GUI sees the score)."""
        seconds = time.monotonic() - started
        iteration = Iteration(1, 1, 0, "exact", 0, seconds, [move],
                              self.table.hashfull(self.generation), 0)
        if on_iteration is not None:
            on_iteration(iteration)
        return SearchResult(move, 0, 0, 0, 0, seconds, [move], K.DRAW, [iteration])

    def _play_from_tables(self, choice, started: float, on_iteration) -> SearchResult:
        """The tables' move at a root they cover: no search."""
        seconds = time.monotonic() - started
        iteration = Iteration(1, len(choice.pv), choice.score, "exact", 0, seconds, choice.pv,
                              self.table.hashfull(self.generation), choice.probes)
        if on_iteration is not None:
            on_iteration(iteration)
        return SearchResult(choice.move, choice.score, 1, len(choice.pv), 0, seconds, choice.pv, K.ONGOING,
                            [iteration], choice.probes)

    def _search_mate(self, limits: Limits, root_moves: list[int], started: float,
                     on_iteration: Callable[[Iteration], None] | None) -> SearchResult:
        """``Limits.mate``: df-pn proves a mate within ``2 * mate - 1`` plies and shortens it;
        the alpha-beta search then confirms it (and may shorten it further) within the plies of
        the proof. Without a proof, a plain search: as deep as the bound when the prover showed
        that no such mate exists, else (stopped first) whatever the limits allow."""
        prover = self.prover
        found = prover.mate_within(self._root_position, self._root_history, limits.mate,
                                   lambda: self._state[ab.C_STOP] != 0)
        if found is None or found.move not in root_moves:
            if not self._state[ab.C_STOP]:
                # No mate within the bound exists: a search as deep as the bound, not an endless one.
                bounded = 2 * limits.mate - 1
                limits = replace(limits, depth=min(limits.depth or bounded, bounded))
            return self._deepen(limits, root_moves, started, on_iteration)
        proof_score = MATE - found.plies
        spent = time.monotonic() - started
        if self._state[ab.C_STOP]:  # told to stop (or out of time) while proving: answer at once
            return self._mate_result(found, proof_score, started, on_iteration)
        confirm = Limits(depth=found.plies, moves=root_moves, mate=limits.mate,
                         time=None if limits.time is None else max(0.001, (limits.time - spent) / 2))
        if confirm.time is None:
            confirm.time = max(CONFIRM_SECONDS, spent)  # confirming takes about as long as proving
        self._clear_stop()
        self._deadline.move_to(time.monotonic() + confirm.time)
        searched = self._deepen(confirm, root_moves, started, None)
        if searched.score is not None and searched.score >= proof_score:
            result = searched
        else:
            result = SearchResult(found.move, proof_score, searched.depth, searched.seldepth, searched.nodes,
                                  time.monotonic() - started, [found.move], K.ONGOING, searched.iterations,
                                  searched.tbhits)
        return self._mate_result(found, proof_score, started, on_iteration, result)

    def _mate_result(self, found, proof_score: int, started: float, on_iteration,
                     result: SearchResult | None = None) -> SearchResult:
        """The answer to a mate search: ``result`` (the search's, or the proof's) with the
        prover's nodes added, reported as a finished iteration."""
        if result is None:
            result = SearchResult(found.move, proof_score, 0, 0, 0, 0.0, [found.move], K.ONGOING, [], 0)
        result.nodes += found.nodes
        result.seconds = time.monotonic() - started
        result.depth = max(result.depth, found.plies)
        result.seldepth = max(result.seldepth, found.plies)
        iteration = Iteration(result.depth, result.seldepth, int(result.score),
                              "exact", result.nodes, result.seconds, result.pv, self.table.hashfull(self.generation),
                              result.tbhits)
        result.iterations = result.iterations + [iteration]
        if on_iteration is not None:
            on_iteration(iteration)
        return result

    def _prepare(self, position, history, root_moves, limits) -> None:
        game = self.game
        self.generation = (self.generation + 1) & 63
        self._positions[0] = position
        self._root_position = position.copy()
        self._root_history = [int(h) for h in history]
        self._prover_seconds = 0.0
        self._path = np.zeros(len(history) + ab.PLY_ROWS, dtype=np.uint64)
        self._path[:len(history)] = np.asarray(history, dtype=np.uint64)
        self._ply_info[ab.WINDOW, 0] = 1 << 30
        self._root_moves[:len(root_moves)] = root_moves
        self._killers.fill(-1)
        self._history //= 8  # keep a little of what the last search learnt
        params = self._state
        params[ab.P_FLAGS] = sum(flag for name, flag in FLAGS.items() if self.switches[name])
        params[ab.P_HISTORY] = len(history)
        params[ab.P_FIFTY] = game.fifty_move_plies
        params[ab.P_GENERATION] = self.generation
        params[ab.P_NODE_LIMIT] = limits.nodes or 0
        params[ab.P_ROOT_MOVES] = len(root_moves)
        params[ab.P_MC_MOVES] = self.multi_cut.moves
        params[ab.P_MC_CUTS] = self.multi_cut.cuts
        params[ab.P_MC_REDUCTION] = self.multi_cut.reduction
        params[ab.P_MC_DEPTH] = self.multi_cut.min_depth
        params[ab.P_TABLES] = int(self.tables is not None)
        self._state[ab.STATS] = 0

    def _deepen(self, limits: Limits, root_moves: list[int], started: float,
                on_iteration: Callable[[Iteration], None] | None) -> SearchResult:
        """Iterative deepening: depth 1, 2, ... until a limit; aspiration windows from depth 4."""
        stats = self._state
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        best, score, pv = root_moves[0], None, [root_moves[0]]
        iterations: list[Iteration] = []
        # A root move the search has shown to mate, and its score. A mate score is a proof (every
        # defence was searched), but a later search of the same move with another window may not
        # see it again (its prunings depend on the window): the mate stays found.
        mate: tuple[int, int] | None = None
        for depth in range(1, max_depth + 1):
            self._state[ab.P_ROOT_DEPTH] = depth
            delta = ASPIRATION_DELTA
            use_window = (self.switches[ASPIRATION] and depth >= ASPIRATION_MIN_DEPTH and score is not None
                          and abs(score) < MATE_BOUND)
            alpha, beta = (score - delta, score + delta) if use_window else (-INFINITE, INFINITE)
            while True:
                stats[ab.S_ROOT_IMPROVED] = 0
                value = self._run(depth, alpha, beta)
                if self.tables is not None:
                    self.tables.load_requested()  # the pages this search missed, for the next
                if stats[ab.S_STOPPED]:
                    break
                if value <= alpha:
                    self._report(on_iteration, iterations, depth, value, "upper", started, [])
                    beta = (alpha + beta) // 2
                    alpha = max(value - delta, -INFINITE)
                elif value >= beta:
                    self._report(on_iteration, iterations, depth, value, "lower", started, self._root_pv())
                    mate = _better_mate(mate, int(stats[ab.S_ROOT_BEST]), int(value), root_moves)
                    beta = min(value + delta, INFINITE)
                else:
                    break
                delta += delta // 2 + 5
            if stats[ab.S_STOPPED]:
                best, pv, raised = self._interrupted(best, pv, score, mate, root_moves)
                if raised is not None:
                    score = raised
                    self._report(on_iteration, iterations, depth, score, "lower", started, pv)
                break
            score = int(value)
            pv = self._with_table_line(self._root_pv() or [best])
            best = pv[0]
            mate = _better_mate(mate, best, score, root_moves)
            proven = self._prover_at_root(limits, started, root_moves, score)
            for found in (mate, proven):
                if found is not None and found[1] > score:
                    best, score = found
                    pv = pv if pv[0] == best else [best]
            self._report(on_iteration, iterations, depth, score, "exact", started, pv)
            if self._done(limits, score, depth, started, len(root_moves)):
                break
        self.last_stats = {"null_cuts": int(stats[ab.S_NULL_CUTS]), "multi_cuts": int(stats[ab.S_MULTI_CUTS]),
                           "mate_probes": int(stats[ab.S_MATE_PROBES]), "mate_probe_hits": int(stats[ab.S_MATE_HITS]),
                           "mate_probe_nodes": int(stats[ab.S_MATE_NODES])}
        finished = iterations[-1] if iterations else None
        return SearchResult(best, score, finished.depth if finished else 0, int(stats[ab.S_SELDEPTH]),
                            int(stats[ab.S_NODES]), time.monotonic() - started, pv, K.ONGOING, iterations,
                            int(stats[ab.S_TABLE_HITS]))

    def _interrupted(self, best: int, pv: list[int], score: int | None, mate: tuple[int, int] | None,
                     root_moves: list[int]) -> tuple[int, list[int], int | None]:
        """(best move, line, raised score or None) after an iteration the limits stopped. Its
        best move counts if one was fully searched and raised the window: it has a score at
        least as good as that bound. A score above the last iteration's ``score`` (that move's,
        or the kept ``mate``'s) is returned, to be reported as a lower bound: a mate found in
        the last second is a mate, as Stockfish reports it."""
        stats = self._state
        found = mate
        if stats[ab.S_ROOT_IMPROVED] and int(stats[ab.S_ROOT_BEST]) in root_moves:
            best = int(stats[ab.S_ROOT_BEST])
            if pv[:1] != [best]:
                pv = [best]
            searched = int(stats[ab.S_ROOT_SCORE])
            if mate is None or mate[1] < searched:
                found = best, searched
        if found is None or (score is not None and found[1] <= score):
            return best, pv, None
        best = found[0]
        pv = self._root_pv() or [best]
        return best, pv if pv[0] == best else [best], found[1]

    def _with_table_line(self, pv: list[int]) -> list[int]:
        """``pv`` continued by the tables' line when it ends in a position they cover (the search
        stops at such a position: its value is known)."""
        if self.tables is None or len(pv) >= MAX_PLY // 2:
            return pv
        position = self._root_position
        for move in pv:
            position = self.game.play(position, move)
        return pv + self.tables.line(position, MAX_PLY // 2 - len(pv))

    def _prover_at_root(self, limits: Limits, started: float, root_moves: list[int],
                        score: int) -> tuple[int, int] | None:
        """(move, score) of a mate df-pn proves at the root within ``prover_nodes`` more nodes
        (and the time allowed), or None. On the clock the prover's time in this search stays
        within ``PROVER_TIME_SHARE`` of the search's own (``PROVER_SHORTENING_SHARE`` once a
        mate is proven), and it runs only when the search's ``score`` is decisive but not yet a
        mate (see ``PROVER_WINNING_SCORE``); without a clock it always runs. A mate proven
        earlier (an earlier iteration, an earlier search of the same position) is returned
        whether the prover runs again or not."""
        if self.prover_nodes <= 0:
            return None
        mate = self.prover.known_mate(self._root_position)  # a proof of an earlier iteration stays
        elapsed = time.monotonic() - started
        timed = limits.time is not None or limits.optimum is not None
        seconds = None
        if timed:
            searched = elapsed - self._prover_seconds
            seconds = (PROVER_SHORTENING_SHARE if mate is not None else PROVER_TIME_SHARE) * searched
            seconds -= self._prover_seconds
            if limits.time is not None:
                seconds = min(seconds, limits.time - elapsed)
        worth_running = not timed or (PROVER_WINNING_SCORE <= score < MATE_BOUND and seconds > 0.002)
        if worth_running and not self._state[ab.C_STOP]:
            mate = self.prover.root_mate(self._root_position, self._root_history, self.prover_nodes, seconds,
                                         lambda: self._state[ab.C_STOP] != 0)
            self._prover_seconds += time.monotonic() - started - elapsed
        if mate is None or mate.move not in root_moves:
            return None
        return mate.move, MATE - mate.plies if mate.plies is not None else KNOWN_WIN - 1

    def _run(self, depth: int, alpha: int, beta: int) -> int:
        """One call of the compiled search at the root."""
        rank, tables = self._table_arguments()
        return int(ab.search_root(tuple(self._search_kernels(rank)), self._search_buffers(), tables,
                                  depth, alpha, beta))

    def _search_kernels(self, rank) -> ab.SearchKernels:
        """The game's kernels the search calls, with the tables' ``rank``."""
        kernels, player = self.game.kernels, self.game.player
        return ab.SearchKernels(
            legal_moves=kernels.legal_moves, play=kernels.play, outcome=kernels.outcome, hash_position=kernels.hash,
            evaluate=kernels.evaluate, in_check=player.in_check, gives_check=player.gives_check,
            play_null=player.play_null, move_keys=player.move_keys, noisy_moves=player.noisy_moves,
            reversible_plies=player.reversible_plies, rank=rank, piece_to=player.piece_to)

    def _search_buffers(self) -> ab.SearchBuffers:
        """The buffers the search works in (the transposition table's array: resize_table
        replaces it)."""
        return ab.SearchBuffers(
            positions=self._positions, move_rows=self._move_rows, ply_info=self._ply_info, path=self._path,
            killers=self._killers, history=self._history, tt_table=self.table.table, pv=self._pv,
            root_moves=self._root_moves, state=self._state, mate_misses=self._mate_misses,
            counter_moves=self._counter_moves, continuation=self._continuation)

    def _table_arguments(self) -> tuple:
        """The rank kernel and tables tuple the search probes (stand-ins without tables)."""
        if self.tables is not None:
            return self.tables.kernel_arguments()
        from solver.search.table_leaves import no_table_arrays, no_tables

        if self._no_tables is None:
            self._no_tables = no_table_arrays()
        return no_tables, self._no_tables

    def _root_pv(self) -> list[int]:
        return [int(m) for m in self._pv[0, :self._ply_info[ab.PV_LENGTH, 0]]]

    def _report(self, on_iteration, iterations, depth, score, bound, started, pv) -> None:
        iteration = Iteration(depth, int(self._state[ab.S_SELDEPTH]), int(score), bound, int(self._state[ab.S_NODES]),
                              time.monotonic() - started, pv, self.table.hashfull(self.generation),
                              int(self._state[ab.S_TABLE_HITS]))
        if bound == "exact":
            iterations.append(iteration)
        if on_iteration is not None:
            on_iteration(iteration)

    @staticmethod
    def _done(limits: Limits, score: int, depth: int, started: float, root_count: int) -> bool:
        """Whether to start no further iteration (after the soft limit, ``limits.optimum``)."""
        if is_mate(score) and depth >= 2 * abs(mate_in_moves(score)) + 4 and limits.depth is None:
            return True  # a mate found with plies to spare: deeper iterations rarely shorten it
        if limits.infinite:
            return False
        if limits.mate is not None and is_mate(score) and 0 < mate_in_moves(score) <= limits.mate:
            return True
        timed = limits.optimum is not None or limits.time is not None
        if timed:
            elapsed = time.monotonic() - started
            if limits.optimum is not None and elapsed >= limits.optimum:
                return True
            if root_count == 1 and depth >= 4:
                return True  # a forced move: no need to think long
        return False
