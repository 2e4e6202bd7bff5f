"""The prover at the player's root: df-pn turns a forced win into an exact mate score.

Alpha-beta finds a mate only when its whole line fits under the search horizon; df-pn
(:mod:`proofsearch.dfpn`) proves long, narrow mates the horizon hides. Between two iterations
of the search, the player gives the prover a small node budget at the root (``--prover-nodes``,
UCI ``ProverNodes``); successive calls continue the same proof, since the prover's
transposition table keeps its work. Once the win is proven, depth-bounded proofs (bounds of
``2k - 1`` plies: doubling ``k``, then bisecting) find a mate length ``k`` whose proof fits the
budget: a forced mate in at most ``k`` moves, reported as ``mate k``. Results are cached by
position, so the same position is never proven twice.

``mate_within`` serves ``go mate N``: a proof bounded by ``2N - 1`` plies, then shortened.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from games.game import Game

DEFAULT_TABLE_MB = 32
LONGEST_MATE_MOVES = 64  # the doubling search for a mate length stops here
CHUNK_NODES = 50_000  # between two chunks of a long proof, stop requests and clocks are checked


@dataclass(frozen=True)
class ProvenMate:
    """A forced mate for the side to move: ``move`` starts it, mate follows within ``plies``
    plies (None: proven, length not found within the budget)."""

    move: int
    plies: int | None
    nodes: int


class Prover:
    """df-pn for the player: root proofs with a node budget, cached; ``go mate N``.

    ``database`` (a :class:`proofsearch.database_leaves.DatabaseLeaves`) makes covered positions
    leaves of the proof, as in ``solver prove --db``.
    """

    def __init__(self, game: Game, table_mb: float = DEFAULT_TABLE_MB, database=None):
        from proofsearch.dfpn import DfpnSearch
        from proofsearch.table import TranspositionTable

        self.game = game
        self.search = DfpnSearch(game, TranspositionTable.from_megabytes(table_mb), database=database)
        self._cache: dict[int, ProvenMate | None] = {}  # hash -> mate, or None: no forced mate
        self.nodes = 0

    def clear(self) -> None:
        """Forget every proof (a new game)."""
        self._cache.clear()
        self.search.table.clear()

    def root_mate(self, position: np.ndarray, history: Sequence[int], budget: int,
                  seconds: float | None = None) -> ProvenMate | None:
        """A mate for the side to move if one is proven within ``budget`` more nodes (and
        ``seconds``); else None (try again later: the work so far is kept)."""
        key = int(self.game.hash(position))
        if key in self._cache:
            return self._cache[key]
        started = time.monotonic()
        found = self._prove(position, history, budget, seconds, None)
        if found.result == "disproven":
            self._cache[key] = None
            return None
        if found.result != "proven":
            return None
        left = None if seconds is None else max(0.0, seconds - (time.monotonic() - started))
        mate = self._mate_length(position, history, budget, left, found.best)
        self._cache[key] = mate
        return mate

    def mate_within(self, position: np.ndarray, history: Sequence[int], moves: int,
                    should_stop: Callable[[], bool], seconds: float | None = None) -> ProvenMate | None:
        """``go mate N``: a mate in at most ``moves`` moves, shortened where the prover can, or
        None (disproven, or stopped first). Runs in chunks until ``should_stop()`` or ``seconds``."""
        started = time.monotonic()
        plies = 2 * moves - 1
        spent = 0
        while True:
            left = None if seconds is None else seconds - (time.monotonic() - started)
            if should_stop() or (left is not None and left <= 0):
                return None
            found = self._prove(position, history, CHUNK_NODES, left, plies)
            spent += found.nodes
            if found.result == "proven":
                break
            if found.reason != "node limit":
                return None  # disproven within the bound (or a time limit)
        best, best_moves = found.best, moves
        # Shorten: one move less at a time, while proofs keep coming within the work so far.
        for shorter in range(moves - 1, 0, -1):
            if should_stop():
                break
            attempt = self._prove(position, history, max(spent, CHUNK_NODES), None, 2 * shorter - 1)
            spent += attempt.nodes
            if attempt.result != "proven":
                break
            best, best_moves = attempt.best, shorter
        return ProvenMate(best, 2 * best_moves - 1, spent)

    def _mate_length(self, position, history, budget, seconds, move) -> ProvenMate:
        """After an unbounded proof: bounds of 2k - 1 plies, k doubling, then bisecting."""
        started = time.monotonic()
        low, high, best = 0, None, move  # no mate within 2*low - 1 plies is known; one within high
        moves = 1
        while moves <= LONGEST_MATE_MOVES:
            found = self._prove(position, history, budget, _left(seconds, started), 2 * moves - 1)
            if found.result == "proven":
                high, best = moves, found.best
                break
            if found.reason != "depth limit":
                return ProvenMate(move, None, self.nodes)
            low = moves
            moves *= 2
        if high is None:
            return ProvenMate(move, None, self.nodes)
        while high - low > 1:
            middle = (low + high) // 2
            found = self._prove(position, history, budget, _left(seconds, started), 2 * middle - 1)
            if found.result == "proven":
                high, best = middle, found.best
            elif found.reason == "depth limit":
                low = middle
            else:
                break  # out of budget: the longer bound stands
        return ProvenMate(best, 2 * high - 1, self.nodes)

    def _prove(self, position, history, budget, seconds, max_depth):
        found = self.search.prove(position, "win", max_nodes=max(1, int(budget)), seconds=seconds,
                                  max_depth=max_depth, history=list(history))
        self.nodes += found.nodes
        return found


def _left(seconds: float | None, started: float) -> float | None:
    return None if seconds is None else max(0.001, seconds - (time.monotonic() - started))


__all__ = ["Prover", "ProvenMate"]
