"""Endgame tables at the player's leaves: probed inside the search, played from at the root.

Inside the compiled search, a position right after a capture or pawn move (its 50-move count
0) that a packed table holds (:mod:`databases.packed`, loaded whole into memory) gets its
WDL50, exact under the 50-move rule; the search goes on below such positions only when the
count has started (where the rule may draw a table's win), and never reads the disk. Tables
without a pack are probed as before: a position the built tables cover gets their code
straight from the page cache of :mod:`databases` (the prover's own probe,
:func:`databases.leaves.database_code`), turned into a
score by :func:`solver.search.scores.table_score`. A page that is not resident never stalls the
search: the probe counts as "not covered" and queues the page in ``requests``; between
iterations the player loads a bounded number of queued pages (:meth:`EndgameTables.load_requested`),
so the next iteration finds them. Memory stays within the page cache's byte budget.

At the root, a covered position is played from the tables (:meth:`EndgameTables.root_choice`):
every move's child is probed and scored with the same ``table_score`` (the 50-move count after
the move, a repetition of the game's history counting as a draw), and the best is taken: for a
win the quickest mate, for a loss the slowest. Where the DTZ50 tables are built (chess), the
50-move rule decides first (:func:`rule50_result`): a move wins only if the opponent then
cannot hold off the next capture, pawn move or mate past the 100th ply of the count, so the
engine keeps every win the rule lets it keep, and takes the quickest mate among those moves
(the quickest mate overall may run past the count); a win the rule overturns scores just
above a draw, a loss it saves just below. A win or loss the rule keeps is played at once; at a
drawn root (cursed wins and blessed losses too) every move that keeps the draw is as good as
another to the tables, so the player searches those moves and plays the one its search likes
best (:meth:`RootChoice.best_moves`): the one that leaves the opponent the most ways to go
wrong, where the first in move order would throw every chance away.

The kernel sees the tables as one tuple ``(directory, bases, arena, requests, packs)`` and the
family's ``rank`` kernel; without tables, ``no_tables`` and tiny arrays stand in.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Sequence

import numba as nb
import numpy as np
from numba import types

from databases import format as F
from databases.cache import ARENA, DIRECTORY
from databases.errors import DatabaseError, MissingTableError, UnusableTableError
from databases.leaves import (NOT_COVERED, PAGE_MISSING, DatabaseLeaves, empty_leaf_arrays, entry_code,
                              no_tables)
from databases.packed import PACKS, PackArrays, PackedTables, no_packs
from games.game import Game
from games.table_family import INDEX_MASK, TABLE_SHIFT
from games.value_codes import code_distance, is_loss, is_win
from solver.search.scores import CURSED_SCORE, KNOWN_WIN_BOUND, table_score

REQUEST_SLOTS = 256  # pages a single iteration may ask for; more are dropped (asked again later)
MAX_PAGES_PER_GAP = 64  # pages loaded between two iterations, so a gap stays short

REQUESTS = types.Array(types.int64, 1, "C")


class TableArrays(NamedTuple):
    """The arrays the search probes (:meth:`EndgameTables.kernel_arguments`), by name (numba
    types a named tuple by its class: kernels read ``tables.packs``, never a position)."""

    directory: np.ndarray  # the resident pages' directory (databases.cache)
    bases: np.ndarray  # int64 per table id: where its pages start in ``directory``
    arena: np.ndarray  # the resident pages (databases.cache)
    requests: np.ndarray  # int64: ``requests[0]`` entries whose pages the search asked for follow
    packs: PackArrays  # the packed WDL50 tables (databases.packed)


TABLES = types.NamedTuple((DIRECTORY, types.Array(types.int64, 1, "C"), ARENA, REQUESTS, PACKS), TableArrays)


@nb.njit(types.int64(TABLES, types.int64), cache=True)
def probe_tables(tables, entry):
    """The table code of ``entry`` (``rank`` of the position: ``table <<
    TABLE_SHIFT | index``, or negative) (> 0), or ``NOT_COVERED``: no built table holds it, its
    entry does not tell its value (chess: an en-passant right), or its page is not resident, in
    which case the entry is queued in ``requests`` (``requests[0]`` entries follow it)."""
    requests = tables.requests
    code = entry_code(tables.directory, tables.bases, tables.arena, entry)
    if code == PAGE_MISSING:
        queued = requests[0]
        if queued < requests.shape[0] - 1:
            requests[queued + 1] = entry
            requests[0] = queued + 1
        return NOT_COVERED
    return code


def no_table_arrays() -> TableArrays:
    """The kernel's tables when there are none."""
    directory, bases, arena = empty_leaf_arrays()
    return TableArrays(directory=directory, bases=bases, arena=arena, requests=np.zeros(2, dtype=np.int64),
                       packs=no_packs())


def rule50_result(child_dtz50: int, child_clock: int, fifty: int) -> int:
    """The result under the 50-move rule, for the side that moved, of a move into a position
    with DTZ50 code ``child_dtz50`` (:mod:`games.value_codes`) and count ``child_clock``: 1
    when the opponent loses (its opponent forces the next zeroing move or mate within the
    ``fifty - child_clock`` plies left), -1 when the opponent wins the same way, 0 otherwise
    (a draw, or a win the count runs out on)."""
    if child_dtz50 < 2 or code_distance(child_dtz50) + child_clock > fifty:
        return 0
    return 1 if is_loss(child_dtz50) else -1


@dataclass
class RootChoice:
    """The tables' move at the root: ``score`` as the search would give it (mate or oracle band),
    ``pv`` the line the tables play from there, ``probes`` the table look-ups it took."""

    move: int
    score: int
    pv: list[int]
    probes: int
    scores: dict[int, int] = field(default_factory=dict)

    @property
    def decisive(self) -> bool:
        """Whether the tables' result is a win or a loss the 50-move rule keeps (the mate
        band or the oracle band), not a draw, a cursed win or a blessed loss."""
        return abs(self.score) >= KNOWN_WIN_BOUND

    def best_moves(self) -> list[int]:
        """Every root move that keeps the tables' best result (the same score as ``move``),
        in the order they were probed."""
        return [move for move, score in self.scores.items() if score == self.score]


class EndgameTables:
    """The built tables of one game for the player: kernel arrays, page loading, root play.
    Raises DatabaseError (bad directory or file) or NoTablesError (a game without tables)."""

    def __init__(self, game: Game, directory: str | Path, cache_megabytes: float = 64):
        self.game = game
        self.directory = Path(directory)
        self.cache_megabytes = cache_megabytes
        self.leaves = DatabaseLeaves(game, directory, int(cache_megabytes * (1 << 20)))
        if self.leaves.tables == 0 and not self.leaves.unusable:
            self.leaves.close()
            raise DatabaseError(f"{directory}: no {game.name} tables built there (see `solver build`)")
        # (only damaged tables there: each was reported once, and the engine plays without)
        self.dtz50_missing_told = False
        self.database = self.leaves.database
        self.requests = np.zeros(REQUEST_SLOTS + 1, dtype=np.int64)
        self.pages_loaded = 0
        self.packs = self._load_packs()

    def _load_packs(self) -> PackedTables | None:
        """The packed WDL50 of the tables (chess), or None when none is packed; a damaged or
        stale pack is said once and left out (its table is probed from its pages)."""
        if not self.game.fifty_move_plies:
            return None
        packs = PackedTables(self.directory, self.database.family)
        for table, why in packs.unusable.items():
            self.leaves.warn(f"{why} (the search probes the {table} table's pages instead)")
        if packs.outdated:  # a database packed by an older version: one line, not one a table
            self.leaves.warn(f"{self.directory}: {len(packs.outdated)} WDL50 pack(s) of an older "
                             f"version ({', '.join(packs.outdated[:3])}"
                             f"{', ...' if len(packs.outdated) > 3 else ''}): `solver build` "
                             "repacks them; the search probes those tables' pages instead")
        return packs if packs.tables else None

    @property
    def tables(self) -> int:
        """How many tables are built."""
        return self.leaves.tables

    def kernel_arguments(self) -> tuple:
        """(rank kernel, tables tuple) for the compiled search."""
        packs = self.packs.kernel_tuple() if self.packs is not None else no_packs()
        return self.leaves.rank, TableArrays(directory=self.leaves.directory, bases=self.leaves.bases,
                                             arena=self.leaves.arena, requests=self.requests, packs=packs)

    def load_requested(self, max_pages: int = MAX_PAGES_PER_GAP) -> int:
        """Load up to ``max_pages`` of the pages the search asked for; returns how many."""
        queued = int(self.requests[0])
        if queued == 0:
            return 0
        entries = self.requests[1:queued + 1]
        keys = np.unique((entries >> TABLE_SHIFT) << 32 | ((entries & INDEX_MASK) >> F.PAGE_SHIFT))
        self.requests[0] = 0
        family = self.database.family
        loaded = 0
        for key in keys[:max_pages]:
            table = family.table_name(int(key >> 32))
            try:
                self.database.load_page(table, int(key & 0xFFFFFFFF))
            except UnusableTableError as error:  # said once; the search values its positions
                self.leaves.drop(table, error)
                continue
            loaded += 1
        self.pages_loaded += loaded
        return loaded

    def code(self, position: np.ndarray) -> int | None:
        """The table code of ``position`` (loading its page), or None when no usable table
        covers it (a damaged one is said once and dropped)."""
        try:
            table, _ = self.database.locate(position)
            if table in self.leaves.unusable:
                return None
            result = self.database.probe(position)
        except UnusableTableError as error:  # this table or, by en passant, a child's
            self.leaves.drop(error.table or self.database.locate(position)[0], error)
            return None
        except DatabaseError:  # not covered
            return None
        return F.encode(result.wdl, abs(result.dtm))

    def dtz50_code(self, position: np.ndarray) -> int | None:
        """The DTZ50 code of ``position`` (loading its page), or None when no DTZ50 table
        covers it (not built, or a game without the 50-move rule)."""
        if not self.game.fifty_move_plies:
            return None
        try:
            return self.database.probe_dtz50_code(position)
        except MissingTableError as error:
            if not self.dtz50_missing_told:  # an older database: said once, played on
                self.dtz50_missing_told = True
                self.leaves.warn(f"{error}: root moves from the tables ignore the 50-move rule "
                                 "(solver build chess builds the DTZ50 tables)")
            return None
        except UnusableTableError as error:
            table = f"{error.table or 'a'} DTZ50"
            if table not in self.leaves.unusable:
                self.leaves.unusable[table] = str(error)
                self.leaves.warn(f"{error} (root moves from the tables ignore the 50-move "
                                 "rule where it is needed)")
            return None
        except DatabaseError:  # not covered
            return None

    def root_choice(self, position: np.ndarray, history: Sequence[int] = (),
                    moves: Sequence[int] | None = None) -> RootChoice | None:
        """The tables' move in ``position`` among ``moves`` (default: all), or None when the
        tables do not cover it or one of its children. With DTZ50 tables, a move that keeps
        a win under the 50-move rule beats every other (see the module docstring)."""
        game = self.game
        if self.code(position) is None:
            return None
        fifty = game.fifty_move_plies
        reversible = game.player.reversible_plies
        seen = set(int(h) for h in history)
        scores: dict[int, int] = {}
        probes = 1
        rule50 = self.dtz50_code(position) is not None
        for move in (moves if moves is not None else game.legal_moves(position)):
            child = game.play(position, move)
            if int(game.hash(child)) in seen:
                scores[move] = 0  # a repetition: a draw whatever the tables say
                continue
            code = self.code(child)
            probes += 1
            if code is None:
                return None
            score = -int(table_score(code, 1, int(reversible(child)), fifty))
            if rule50:
                child_dtz50 = self.dtz50_code(child)
                if child_dtz50 is None:
                    return None
                probes += 1
                score = self.rule50_score(score, code, child_dtz50, int(reversible(child)))
            scores[move] = score
        if not scores:
            return None
        best = max(scores, key=lambda m: scores[m])  # first of the best: the move order is stable
        pv = self.line(game.play(position, best))
        return RootChoice(best, scores[best], [best] + pv, probes + len(pv), scores)

    def rule50_score(self, score: int, child_code: int, child_dtz50: int,
                     child_clock: int) -> int:
        """A root move's ``score`` (from the rule-free child ``child_code``) under the 50-move
        rule: kept when the rule agrees on the result, else a draw, a hair above it for a win
        the rule overturns (the opponent may still go wrong) and below it for a loss it
        saves."""
        result = rule50_result(child_dtz50, child_clock, self.game.fifty_move_plies)
        if result != 0:
            return score
        if is_loss(child_code):
            return CURSED_SCORE
        if is_win(child_code):
            return -CURSED_SCORE
        return 0

    def line(self, position: np.ndarray, plies: int = 40) -> list[int]:
        """The tables' line from ``position`` (quickest mate, slowest loss), up to ``plies``;
        empty when they do not cover it."""
        line = []
        for _ in range(plies):
            try:
                move = self.database.best_move(position)
            except DatabaseError:
                break
            if move is None:
                break
            line.append(move)
            position = self.game.play(position, move)
        return line

    def close(self) -> None:
        """Close the table files."""
        self.leaves.close()


__all__ = ["EndgameTables", "RootChoice", "TableArrays", "probe_tables", "no_table_arrays", "no_tables", "TABLES",
           "NOT_COVERED"]
