"""An independent checker for saved proof trees (format: docs/proof-format.md).

It shares no code with the search: it replays the strategy in the file with the game's rules
kernels alone (legal moves, play, outcome) and checks that
- at every node where the prover is to move, the file names one legal move (or refers to a
  position proven earlier in the file, or to a database table that gives the prover its goal);
- at every node where the opponent is to move, every legal move is followed;
- every leaf is a finished game (or a repetition of a position on its own path, a draw) whose
  result gives the prover what the claim says, within ``max_depth`` plies when one is set.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass

import numpy as np

from games import DRAW, LOSS, ONGOING, WIN
from games.game import Game, NotationError

FORMAT = "solver-proof"
VERSION = 1
REFERENCE = "="
DATABASE = "db"
MAX_TREE_DEPTH = 5000


class InvalidProof(Exception):
    """The file is not a valid proof; the message says where and why."""


@dataclass
class CheckResult:
    """The verdict on one proof file."""

    valid: bool
    nodes: int
    reason: str = ""


def position_identity(game: Game, position: np.ndarray) -> int:
    """A position's identity for repetitions and references: its hash, which the kernel
    contract makes a function of the position alone (chess arrays also carry move clocks)."""
    return int(game.kernels.hash(position))


def _attacker_reaches(goal: str, attacker_result: int) -> bool:
    """Whether a finished game with ``attacker_result`` gives the attacker ``goal``."""
    return attacker_result == WIN if goal == "win" else attacker_result != LOSS


class _Replay:
    """Walks the token stream over the game tree."""

    def __init__(self, game: Game, goal: str, claim: str, max_depth, tokens: list[str], probe_database=None):
        self.game = game
        self.goal = goal
        self.prover_is_attacker = claim == "proven"
        self.max_depth = max_depth
        self.tokens = tokens
        self.next_token = 0
        self.nodes = 0
        self.proven_height: dict[int, int] = {}  # positions proven without repetition leaves
        self.probe_database = probe_database
        self.buffer = np.empty(game.max_moves, dtype=np.int32)

    def prover_succeeds(self, attacker_result: int) -> bool:
        """Whether the claim holds at a finished game (result from the attacker's view)."""
        reached = _attacker_reaches(self.goal, attacker_result)
        return reached if self.prover_is_attacker else not reached

    def where(self, position: np.ndarray, ply: int) -> str:
        """A node's description for error messages. Built only on an error: formatting a
        position (Connect Four replays its move sequence) cost most of a check's time."""
        return f"ply {ply} ({self.game.format_position(position)})"

    def take(self, position: np.ndarray, ply: int) -> str:
        if self.next_token >= len(self.tokens):
            raise InvalidProof(f"strategy ends early at {self.where(position, ply)}")
        token = self.tokens[self.next_token]
        self.next_token += 1
        return token

    def visit(self, position: np.ndarray, ply: int, path: list[int]) -> tuple[int, bool]:
        """Check the subtree at ``position``; return (height, uses_repetition)."""
        self.nodes += 1
        if ply > MAX_TREE_DEPTH:
            raise InvalidProof("proof tree deeper than the checker allows")
        game, kernels = self.game, self.game.kernels
        attacker_to_move = ply % 2 == 0
        count = int(kernels.legal_moves(position, self.buffer))
        moves = [int(m) for m in self.buffer[:count]]
        result = int(kernels.outcome(position, count))
        if result != ONGOING:
            attacker_result = result if attacker_to_move else -result
            if not self.prover_succeeds(attacker_result):
                raise InvalidProof(f"leaf at {self.where(position, ply)} does not give the prover its goal")
            return 0, False
        identity = position_identity(self.game, position)
        if identity in path:
            if not self.prover_succeeds(DRAW):
                raise InvalidProof(f"repetition at {self.where(position, ply)} is a draw, which does not give the prover its goal")
            return 0, True
        if self.max_depth is not None and ply >= self.max_depth:
            raise InvalidProof(f"unfinished position at the depth limit: {self.where(position, ply)}")
        prover_to_move = attacker_to_move == self.prover_is_attacker
        path.append(identity)
        try:
            if prover_to_move:
                token = self.take(position, ply)
                if token == REFERENCE:
                    height = self.proven_height.get(identity)
                    if height is None:
                        raise InvalidProof(f"reference at {self.where(position, ply)} to a position not proven earlier")
                    if self.max_depth is not None and ply + height > self.max_depth:
                        raise InvalidProof(f"reference at {self.where(position, ply)}: the earlier proof is too long here")
                    return height, False
                if token == DATABASE:
                    return self.database_leaf(position, attacker_to_move, ply), False
                try:
                    move = game.parse_move(position, token)
                except NotationError as error:
                    raise InvalidProof(f"bad move {token!r} at {self.where(position, ply)}: {error}") from None
                if move not in moves:
                    raise InvalidProof(f"illegal move {token!r} at {self.where(position, ply)}")
                child_height, repeats = self.visit(game.play(position, move), ply + 1, path)
                height = child_height + 1
            else:
                height, repeats = 0, False
                for move in moves:
                    child_height, child_repeats = self.visit(game.play(position, move), ply + 1, path)
                    height = max(height, child_height + 1)
                    repeats = repeats or child_repeats
        finally:
            path.pop()
        if not repeats and identity not in self.proven_height:
            self.proven_height[identity] = height
        return height, repeats

    def database_leaf(self, position: np.ndarray, attacker_to_move: bool, ply: int) -> int:
        """A database leaf: the table's value must give the prover its goal; under a depth
        limit, a win for the attacker must also come with a mate that fits in the plies left."""
        if self.probe_database is None:
            raise InvalidProof(f"database leaf at {self.where(position, ply)} but no database given (--db)")
        found = self.probe_database(position)
        if found is None:
            raise InvalidProof(f"database leaf at {self.where(position, ply)} is not covered by any table")
        value, distance = found
        attacker_result = value if attacker_to_move else -value
        if (self.max_depth is not None and self.goal == "win" and attacker_result == WIN
                and distance > self.max_depth - ply):
            raise InvalidProof(f"database leaf at {self.where(position, ply)}: mate in {distance} plies does not fit the depth limit")
        if not self.prover_succeeds(attacker_result):
            raise InvalidProof(f"database leaf at {self.where(position, ply)}: the table's value does not give the prover its goal")
        return 0


def check_document(game: Game, document: dict, probe_database=None) -> CheckResult:
    """Check a parsed proof document; ``probe_database(position)`` returns the table value
    (WIN/DRAW/LOSS for the side to move, plies to mate) or None, for database leaves."""
    try:
        header = _read_header(game, document)
        root = game.parse_position(header["position"])
        replay = _Replay(game, header["goal"], header["claim"], header["max_depth"],
                         header["tokens"], probe_database)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * MAX_TREE_DEPTH + 100))
        try:
            replay.visit(root, 0, [])
        finally:
            sys.setrecursionlimit(limit)
        if replay.next_token != len(replay.tokens):
            raise InvalidProof(f"{len(replay.tokens) - replay.next_token} strategy tokens left over")
        size = document.get("size")
        if size is not None and size != replay.nodes:
            raise InvalidProof(f"file says size {size} but the tree has {replay.nodes} nodes")
        return CheckResult(True, replay.nodes)
    except InvalidProof as error:
        return CheckResult(False, getattr(locals().get("replay"), "nodes", 0), str(error))
    except NotationError as error:
        return CheckResult(False, 0, f"bad root position: {error}")


def _read_header(game: Game, document: dict) -> dict:
    """Validate the fields around the strategy."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InvalidProof(f"not a proof file (format must be {FORMAT!r})")
    if document.get("version") != VERSION:
        raise InvalidProof(f"unsupported proof format version {document.get('version')!r}")
    if document.get("game") != game.name:
        raise InvalidProof(f"proof is for game {document.get('game')!r}, not {game.name!r}")
    goal, claim = document.get("goal"), document.get("claim")
    if goal not in ("win", "draw"):
        raise InvalidProof(f"unknown goal {goal!r}")
    if claim not in ("proven", "disproven"):
        raise InvalidProof(f"claim must be proven or disproven, got {claim!r}")
    max_depth = document.get("max_depth")
    if max_depth is not None and (type(max_depth) is not int or max_depth < 0):  # noqa: E721 - not bool
        raise InvalidProof(f"bad max_depth {max_depth!r}")
    position = document.get("position")
    strategy = document.get("strategy")
    if not isinstance(position, str) or not isinstance(strategy, str):
        raise InvalidProof("position and strategy must be strings")
    return {"goal": goal, "claim": claim, "max_depth": max_depth, "position": position,
            "tokens": strategy.split()}


HEAD_BYTES = 1 << 16  # read first: enough to tell a proof from a device or a binary file
MOST_PROOF_BYTES = 1 << 32  # 4 GiB: ~50x the Connect Four opening's proof, the largest made


def check_file(game: Game, path: str, probe_database=None) -> CheckResult:
    """Check the proof saved at ``path`` (OSError if it cannot be read). A file that is not
    UTF-8 JSON is an invalid proof, like any other that is not one."""
    with open(path, "rb") as handle:  # a device or a pipe may never end: bounded reads
        head = handle.read(HEAD_BYTES)
        if head.strip() and not head.lstrip().startswith(b"{"):
            return CheckResult(False, 0, "not a proof file: it does not start with a JSON object")
        data = head + handle.read(MOST_PROOF_BYTES + 1 - len(head))
    if len(data) > MOST_PROOF_BYTES:
        return CheckResult(False, 0, f"not a proof file this checker reads: over "
                                     f"{MOST_PROOF_BYTES >> 30} GiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return CheckResult(False, 0, f"not UTF-8 text (byte {error.start} of the file)")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        return CheckResult(False, 0, f"not JSON: {error}")
    except RecursionError:  # thousands of nested brackets
        return CheckResult(False, 0, "not a proof file: JSON nested too deeply")
    return check_document(game, document, probe_database)


__all__ = ["check_document", "check_file", "CheckResult", "InvalidProof", "FORMAT", "VERSION"]
