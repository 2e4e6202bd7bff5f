"""The prover at the player's root: df-pn turns a forced win into an exact mate score.

Alpha-beta finds a mate only when its whole line fits under the search horizon; df-pn
(:mod:`proofsearch.dfpn`) proves long, narrow mates the horizon hides. Between two iterations
of the search, the player gives the prover a small node budget at the root (``--prover-nodes``,
UCI ``ProverNodes``); successive calls continue the same proof, since the prover's
transposition table keeps its work. A proof comes with its length (the longest line of the proof
df-pn found, see :attr:`proofsearch.dfpn.SearchResult.length`): a forced mate within that many
plies, reported at once as ``mate k``. Depth-bounded proofs one move shorter than the best so
far then shorten it while the budget lasts (each success bringing its own, maybe shorter, length).
Results are cached by position, so the same position is never proven twice.

``mate_within`` serves ``go mate N``: a proof bounded by ``2N - 1`` plies, then shortened.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from games.game import Game
from runtime.stopping import seconds_left

DEFAULT_TABLE_MB = 32
FIRST_MATE_BOUND = 16  # moves: the first bound tried when a proof came without its length
LONGEST_MATE_MOVES = 64  # the doubling search for a mate length stops here
CHUNK_NODES = 50_000  # between two chunks of a long proof, stop requests and clocks are checked


@dataclass(frozen=True)
class ProvenMate:
    """A forced mate for the side to move: ``move`` starts it, mate follows within ``plies``
    plies (None: proven, length not found within the budget)."""

    move: int
    plies: int | None
    nodes: int


@dataclass
class _RootProof:
    """Where the proof of one root stands: a win proven (``mate``), and the mate length between
    ``low`` (no mate within 2*low - 1 plies) and ``high`` (a mate within 2*high - 1)."""

    mate: ProvenMate | None = None
    low: int = 0
    high: int | None = None
    finished: bool = False

    def next_bound(self) -> int:
        """The next mate length to try, in moves: one less than the shortest proven. Shortening
        from above makes every proof that succeeds a shorter mate to report; only the last
        attempt, at the exact length minus one, fails (a disproof of every line to that depth,
        the costly part). While no length is known (a proof without one), ``FIRST_MATE_BOUND``
        doubled until a bound holds."""
        if self.high is None:
            return max(FIRST_MATE_BOUND, 2 * self.low)
        return self.high - 1


class Prover:
    """df-pn for the player: root proofs with a node budget, cached; ``go mate N``.

    ``database`` (a :class:`databases.leaves.DatabaseLeaves`) makes covered positions
    leaves of the proof, as in ``solver prove --db``.
    """

    def __init__(self, game: Game, table_mb: float = DEFAULT_TABLE_MB, database=None):
        from proofsearch.dfpn import DfpnSearch
        from proofsearch.table import TranspositionTable

        self.game = game
        self.search = DfpnSearch(game, TranspositionTable.from_megabytes(table_mb), database=database)
        self._cache: dict[int, _RootProof] = {}  # by position hash
        self.nodes = 0

    def clear(self) -> None:
        """Forget every proof (a new game)."""
        self._cache.clear()
        self.search.table.clear()

    def known_mate(self, position: np.ndarray) -> ProvenMate | None:
        """The mate for the side to move in ``position`` proven so far (the shortest found), or
        None; no search."""
        state = self._cache.get(int(self.game.hash(position)))
        return state.mate if state is not None else None

    def root_mate(self, position: np.ndarray, history: Sequence[int], budget: int,
                  seconds: float | None = None,
                  should_stop: Callable[[], bool] = lambda: False) -> ProvenMate | None:
        """What the prover knows of a mate for the side to move after ``budget`` more nodes (and
        at most ``seconds``, or until ``should_stop()``, asked between chunks of
        ``CHUNK_NODES``): None (no win proven yet, or none exists), or a proven win with the
        shortest mate length found so far (``plies`` None until a bounded proof gives one). The
        work is resumed on the next call for the same position."""
        key = int(self.game.hash(position))
        state = self._cache.get(key)
        if state is None:
            state = self._cache[key] = _RootProof()
        if state.finished:
            return state.mate
        budget = _Budget(budget, seconds, should_stop)
        if state.mate is None:
            found = self._prove_in_chunks(position, history, budget, None)
            if found.result != "proven":
                state.finished = found.result == "disproven"
                return None
            state.mate = ProvenMate(found.best, found.length, self.nodes)
            state.high = _mate_moves(found.length)
            state.finished = state.high is not None and state.high <= 1  # a mate in one
        # Shorter mates: bounds of 2k - 1 plies, k one less than the shortest proof so far. An
        # attempt cut short by the budget is resumed (same bound, same table keys) by the next call.
        while not state.finished and not budget.spent():
            moves = state.next_bound()
            found = self._prove_in_chunks(position, history, budget, 2 * moves - 1)
            if found.result == "proven":
                plies = found.length if found.length is not None else 2 * moves - 1
                state.high = min(moves, _mate_moves(plies))
                state.mate = ProvenMate(found.best, plies, self.nodes)
            elif found.reason == "depth limit":
                state.low = moves
            else:
                break  # out of budget or time: resume from here next call
            state.finished = state.high is not None and state.high - state.low <= 1
            if state.high is None and moves >= LONGEST_MATE_MOVES:
                state.finished = True
        return state.mate

    def mate_within(self, position: np.ndarray, history: Sequence[int], moves: int,
                    should_stop: Callable[[], bool]) -> ProvenMate | None:
        """``go mate N``: a mate in at most ``moves`` moves, shortened where the prover can, or
        None (disproven, or stopped first). Works in chunks, asking ``should_stop()`` between them."""
        found, spent = self._chunked(position, history, 2 * moves - 1, None, should_stop)
        if found.result != "proven":
            return None
        best, best_moves = found.best, min(moves, _mate_moves(found.length))
        # Shorten: one move less than the shortest proof so far, each attempt allowed the work
        # of the proofs so far.
        while best_moves > 1:
            shorter = best_moves - 1
            attempt, nodes = self._chunked(position, history, 2 * shorter - 1, max(spent, CHUNK_NODES), should_stop)
            spent += nodes
            if attempt.result != "proven":
                break
            best, best_moves = attempt.best, min(shorter, _mate_moves(attempt.length))
        return ProvenMate(best, 2 * best_moves - 1, spent)

    def _chunked(self, position, history, max_depth: int, cap: int | None, should_stop):
        """A bounded proof in chunks of ``CHUNK_NODES`` until it is decided, ``cap`` nodes are
        spent or ``should_stop()``: (the last chunk's result, the nodes spent)."""
        spent = 0
        while True:
            found = self._prove(position, history, CHUNK_NODES, None, max_depth)
            spent += found.nodes
            if found.result == "proven" or found.reason != "node limit":
                return found, spent
            if should_stop() or (cap is not None and spent >= cap):
                return found, spent

    def _prove_in_chunks(self, position, history, budget: "_Budget", max_depth: int | None):
        """A proof within what is left of ``budget``, in chunks of ``CHUNK_NODES`` (a stop or
        the clock is seen between two; df-pn resumes from its table): the last chunk's
        result."""
        while True:
            found = self._prove(position, history, budget.chunk(), budget.seconds_left(),
                                max_depth)
            budget.nodes -= found.nodes
            if found.result != "unknown" or found.reason != "node limit" or budget.spent():
                return found

    def _prove(self, position, history, budget, seconds, max_depth):
        found = self.search.prove(position, "win", max_nodes=max(1, int(budget)), seconds=seconds,
                                  max_depth=max_depth, history=list(history))
        self.nodes += found.nodes
        return found


class _Budget:
    """What a root proof may still spend: ``nodes``, the clock (``seconds`` from its start,
    None: no clock), and a stop request (``should_stop()``)."""

    def __init__(self, nodes: int, seconds: float | None, should_stop: Callable[[], bool]):
        self.nodes = nodes
        self._seconds = seconds
        self._started = time.monotonic()
        self._should_stop = should_stop

    def seconds_left(self) -> float | None:
        """Seconds left on the clock (None: no clock)."""
        return seconds_left(self._seconds, self._started)

    def chunk(self) -> int:
        """The nodes of the next chunk."""
        return max(1, min(self.nodes, CHUNK_NODES))

    def spent(self) -> bool:
        """Whether the nodes or the time are spent, or a stop was asked for."""
        left = self.seconds_left()
        return self.nodes <= 0 or (left is not None and left <= 0.002) or self._should_stop()


def _mate_moves(plies: int | None) -> int | None:
    """Moves of a mate within ``plies`` plies (None: unknown)."""
    return None if plies is None else max(1, (plies + 1) // 2)


__all__ = ["Prover", "ProvenMate"]
