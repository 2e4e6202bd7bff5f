"""``/connect4``, ``/tictactoe`` and ``/prove``: values of positions of the games the prover
solves, in the same style as the chess tablebase answer (a position's ``category`` for its
side to move, its ``moves`` best first, each described from the side to move after it).

Values come from the game's tables where they are built (tic-tac-toe: ``solver build
tictactoe``), else from df-pn within a time budget (:func:`proofsearch.value.solve_value`):
a position the prover has not solved in its share of the budget is ``unknown``, never a guess.
Solved values are remembered (a bounded LRU), so a page that walks through a game asks the
prover once per position.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from databases.errors import DatabaseError
from games import NotationError
from games.kernels import DRAW, LOSS, ONGOING, WIN
from solver.serve.categories import Category
from solver.serve.tablebase import tightening

CATEGORY_OF_RESULT = {WIN: Category.WIN, DRAW: Category.DRAW, LOSS: Category.LOSS}
REMEMBERED_VALUES = 1 << 16
MAX_POSITION_LENGTH = 255


class BadRequest(ValueError):
    """A malformed query (HTTP 400)."""


@dataclass(frozen=True)
class Value:
    """A solved value for the side to move, where it came from, and its distance to mate in
    plies where a table gives one."""
    category: Category
    source: str  # "rules", "tables", "prover" or "none" (unknown)
    dtm: int | None = None


class SolvedGame:
    """Values of one game's positions from its tables and the prover. Not thread-safe: the
    server calls it from one thread."""

    def __init__(self, game, database=None, search=None):
        self.game = game
        self.database = database
        self.search = search
        self._values: OrderedDict[bytes, Value] = OrderedDict()

    def parse(self, text: str) -> np.ndarray:
        """A position from the game's notation, or BadRequest."""
        if len(text) > MAX_POSITION_LENGTH:
            raise BadRequest(f"position longer than {MAX_POSITION_LENGTH} characters")
        try:
            return self.game.parse_position(text if text.strip() else "startpos")
        except NotationError as error:
            raise BadRequest(f"bad {self.game.name} position: {error}") from None

    def answer(self, position: np.ndarray, seconds: float) -> dict:
        """The position's value and its moves' values, best first, solving what is not known
        within ``seconds`` in all."""
        game = self.game
        deadline = time.perf_counter() + seconds
        moves = []
        legal = game.legal_moves(position)
        for number, move in enumerate(legal):
            child = game.play(position, move)
            share = max(deadline - time.perf_counter(), 0.0) / (len(legal) - number)
            value = self.value(child, share)
            moves.append({"move": game.format_move(position, move),
                          "position": game.format_position(child),
                          "category": value.category, "dtm": value.dtm, "source": value.source,
                          "game_over": value.source == "rules"})
        # As Lichess sorts checkmates first: a move that ends the game comes before its equals.
        moves.sort(key=lambda move: (move["category"].rank, not move["game_over"],
                                     tightening(move["dtm"])))
        own = self._known(position)
        if own is None and moves:
            best = moves[0]
            own = Value(best["category"].opposite(), best["source"], parent_distance(best))
        elif own is None:
            own = Value(Category.UNKNOWN, "none")
        return {"game": game.name, "position": game.format_position(position),
                "category": own.category, "dtm": own.dtm, "source": own.source,
                "game_over": not legal, "moves": moves}

    def value(self, position: np.ndarray, seconds: float) -> Value:
        """The value of ``position`` for its side to move: the rules when the game is over,
        then the tables, then what was solved before, then the prover within ``seconds``."""
        known = self._known(position)
        if known is not None:
            return known
        if self.search is None or seconds <= 0:
            return Value(Category.UNKNOWN, "none")
        from proofsearch.value import solve_value

        found, _ = solve_value(self.search, position, seconds=seconds)
        value = Value(Category(found), "prover" if found != "unknown" else "none")
        if found != "unknown":
            self._remember(position, value)
        return value

    def _known(self, position: np.ndarray) -> Value | None:
        outcome = self.game.outcome(position)
        if outcome != ONGOING:
            return Value(CATEGORY_OF_RESULT[outcome], "rules", 0)
        if self.database is not None:
            try:
                result = self.database.probe(position)
                return Value(CATEGORY_OF_RESULT[result.wdl], "tables", result.dtm)
            except DatabaseError:
                pass
        key = position.tobytes()
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
        return value

    def _remember(self, position: np.ndarray, value: Value) -> None:
        self._values[position.tobytes()] = value
        if len(self._values) > REMEMBERED_VALUES:
            self._values.popitem(last=False)


def parent_distance(best: dict) -> int | None:
    """The distance to mate of a position whose best move is ``best`` (one ply more than the
    child's, the sign turned); None without one, 0 for a draw."""
    distance = best["dtm"]
    if distance is None or best["category"] is Category.DRAW:
        return None if distance is None else 0
    return -distance + 1 if distance <= 0 else -distance - 1


class ProofStore:
    """Where ``/prove`` writes its proofs: a directory of at most ``max_bytes`` of proof files,
    the oldest removed first; each file is named by the digest of its request."""

    def __init__(self, directory: Path, max_bytes: int):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes

    def name(self, game: str, position: str, goal: str, max_depth: int | None) -> str:
        """The file name of a request's proof."""
        request = json.dumps([game, position, goal, max_depth]).encode()
        return hashlib.sha256(request).hexdigest()[:24] + ".json"

    def path(self, name: str) -> Path | None:
        """The proof file called ``name``, if it is one of ours and exists."""
        if len(name) != 29 or not name.endswith(".json") or not all(
                c in "0123456789abcdef" for c in name[:24]):
            return None
        path = self.directory / name
        return path if path.is_file() else None

    def make_room(self) -> None:
        """Remove the oldest proofs until the directory is within its budget."""
        files = sorted(self.directory.glob("*.json"), key=lambda path: path.stat().st_mtime)
        total = sum(path.stat().st_size for path in files)
        while files and total > self.max_bytes:
            oldest = files.pop(0)
            total -= oldest.stat().st_size
            oldest.unlink(missing_ok=True)


def prove(search, game, position: np.ndarray, position_text: str, goal: str, seconds: float,
          max_depth: int | None, store: ProofStore, database_value=None) -> dict:
    """Run df-pn on ``position`` for ``goal`` within ``seconds``; write the proof (or
    disproof) into ``store`` when there is one. The JSON of ``/prove``."""
    from proofsearch.proof_tree import ProofExtractionError, extract_proof, write_proof

    found = search.prove(position, goal, seconds=seconds, max_depth=max_depth)
    answer = {"game": game.name, "position": game.format_position(position), "goal": goal,
              "result": found.result,
              "best": game.format_move(position, found.best) if found.best is not None else None,
              "nodes": found.nodes, "seconds": round(found.seconds, 3), "proof": None}
    if found.reason:
        answer["reason"] = found.reason
    if found.result in ("proven", "disproven"):
        name = store.name(game.name, position_text, goal, max_depth)
        try:
            document = extract_proof(search, position, goal, found.result, max_depth,
                                     database_value=database_value)
            temporary = store.directory / (name + f".{os.getpid()}.tmp")
            write_proof(document, temporary)
            os.replace(temporary, store.directory / name)
            store.make_room()
            answer["proof"] = f"/proofs/{name}"
            answer["proof_size"] = document["size"]
            answer["check"] = f"solver check-proof {game.name} {name}"
        except (ProofExtractionError, OSError) as error:
            answer["proof_error"] = str(error)
    return answer
