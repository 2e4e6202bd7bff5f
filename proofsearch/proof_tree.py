"""Proof trees: extracting a solved search's strategy and saving it (docs/proof-format.md).

After df-pn has solved the root, the strategy is a walk over the transposition table: at a node
where the prover is to move, a child that the rules (a finished game, a repetition) or the table
show refuted for its mover; at a node where the opponent is to move, every legal move. Of the
children the table holds refuted, the walk takes the tightest entry: under a depth bound, the
least remaining depth at which the child is refuted (keys carry the remaining depth), else the
shortest line the search recorded. A walk that always takes the tightest entry cannot come back
to a position on its own path (the same position would have offered a tighter entry there), so
it meets no repetition and the tree costs about one table probe per child. Only where the table
has lost the needed entry (it is bounded in size, and repetition-dependent results are never
stored) is the node searched again, with its path as history, and the search's best move taken.
A position whose subtree was already written, without repetition leaves, is written again as a
reference ``=``.
"""
from __future__ import annotations

import errno
import json
import os
import time
import stat
import sys

import numpy as np

from games import ONGOING
from games.game import Game
from proofsearch.database_leaves import leaf_counts_for
from proofsearch.checker import DATABASE, FORMAT, REFERENCE, VERSION, position_identity
from proofsearch.dfpn import DfpnSearch, least_refuted_depth
from proofsearch.goals import DUAL_GOALS, GOALS, attacker_reaches_py

class ProofExtractionError(RuntimeError):
    """The strategy could not be rebuilt within the re-search budget."""


class _Extractor:
    def __init__(self, search: DfpnSearch, goal: str, claim: str, max_depth: int | None, budget: int,
                 database_value=None):
        self.search = search
        self.game: Game = search.game
        self.goal = goal
        self.goal_code = GOALS[goal]
        self.prover_is_attacker = claim == "proven"
        self.max_depth = max_depth
        self.budget = budget
        self.database_value = database_value
        self.tokens: list[str] = []
        self.size = 0
        self.written_height: dict[int, int] = {}
        self.written_order: list[int] = []
        self.steps = 0
        self.max_steps = 2_000_000
        self.buffer = np.empty(self.game.max_moves, dtype=np.int32)

    def prover_succeeds(self, attacker_result: int) -> bool:
        reached = attacker_reaches_py(self.goal_code, attacker_result)
        return reached if self.prover_is_attacker else not reached

    def leaf_status(self, position: np.ndarray, ply: int, path: list[int]):
        """(is_leaf, prover_succeeds) by the rules alone: finished game or repetition."""
        count = int(self.game.kernels.legal_moves(position, self.buffer))
        result = int(self.game.kernels.outcome(position, count))
        if result != ONGOING:
            return True, self.prover_succeeds(result if ply % 2 == 0 else -result)
        if position_identity(self.game, position) in path:
            return True, self.prover_succeeds(0)
        return False, False

    def tightest_refutation(self, child: np.ndarray, ply: int, remaining: int | None):
        """(remaining depth, length) of the tightest table entry holding ``child`` (at ``ply``,
        with at most ``remaining`` plies left) as solved against its mover, or None."""
        depth, length = least_refuted_depth(
            self.search.table.rows, self.search.position_key(child), np.uint64(self.search.table.salt),
            self.goal_code, ply, -1 if remaining is None else remaining)
        return None if depth < 0 else (int(depth), int(length))

    def refuted_at_expansion(self, child: np.ndarray, ply: int, remaining: int | None) -> bool:
        """Whether the search refuted ``child`` (at ``ply``) while generating its parent, without
        a table entry: the game's ``proof_candidates`` leave its mover nothing that does not
        lose at once, or one move that ends the game to the prover's good (as in dfpn)."""
        if not self.search.has_candidates or (remaining is not None and remaining < 2):
            return False
        count = int(self.search.candidates(child, self.buffer))
        if count == 0:
            return True
        if count > 1:
            return False
        after = self.game.play(child, int(self.buffer[0]))
        result = int(self.game.kernels.outcome(after, self.game.kernels.legal_moves(after, self.buffer)))
        after_ply = ply + 1  # ``result`` is seen from the side to move there
        return result != ONGOING and self.prover_succeeds(result if after_ply % 2 == 0 else -result)

    def candidate_moves(self, position: np.ndarray, ply: int, remaining: int | None, path: list[int],
                        hashes: list[int]):
        """(move, plies left below it) for moves that keep the prover's claim, best evidence
        first: finished games and repetitions the rules decide; children the table holds as
        refuted, tightest entry first (least remaining depth, then shortest line: a walk that
        always takes the tightest entry never comes back to a position on its path); then the
        best move of a new search from here with the path as history."""
        moves = self.game.legal_moves(position)
        children = [(move, self.game.play(position, move)) for move in moves]
        inner_path = path + [position_identity(self.game, position)]
        below = None if remaining is None else remaining - 1
        tried = set()
        leaves = []
        for move, child in children:
            is_leaf, succeeds = self.leaf_status(child, ply + 1, inner_path)
            if is_leaf and succeeds:
                tried.add(move)
                yield move, below
            leaves.append(is_leaf)
        in_table = []
        for (move, child), is_leaf in zip(children, leaves):
            if is_leaf:
                continue
            found = self.tightest_refutation(child, ply + 1, below)
            if found is None and self.refuted_at_expansion(child, ply + 1, below):
                found = (0 if below is None else 2, 2)
            if found is not None:
                in_table.append((found, move))
        for (depth, _), move in sorted(in_table, key=lambda item: item[0]):
            tried.add(move)
            yield move, None if remaining is None else depth
        mover_goal = self.goal if ply % 2 == 0 else DUAL_GOALS[self.goal]
        found = self.search.prove(position, mover_goal, max_nodes=self.budget, max_depth=remaining,
                                  history=hashes)
        if found.result == "proven" and found.best is not None and found.best not in tried:
            tried.add(found.best)
            yield found.best, below
        # Last resort (small trees with cycles): every other move whose child a search with
        # this path as history refutes.
        child_goal = DUAL_GOALS[mover_goal]
        for move, child in children:
            if move in tried or self.leaf_status(child, ply + 1, inner_path)[0]:
                continue
            found = self.search.prove(child, child_goal, max_nodes=self.budget, max_depth=below,
                                      history=hashes + [int(self.game.kernels.hash(position))])
            if found.result == "disproven":
                yield move, below

    def visit(self, position: np.ndarray, ply: int, remaining: int | None, path: list[int],
              hashes: list[int]):
        """Write the subtree at ``position`` using at most ``remaining`` plies (None: no
        bound); return (height, uses_repetition), or None when this line cannot be completed
        (a strategy from the table that runs into a repetition on this path): the caller then
        tries another move."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise ProofExtractionError(f"proof extraction gave up after {self.max_steps} steps")
        self.size += 1
        is_leaf, succeeds = self.leaf_status(position, ply, path)
        identity = position_identity(self.game, position)
        if is_leaf:
            return (0, identity in path) if succeeds else None
        if remaining is not None and remaining <= 0:
            return None
        prover_to_move = (ply % 2 == 0) == self.prover_is_attacker
        if prover_to_move:
            height = self.written_height.get(identity)
            if height is not None and (remaining is None or height <= remaining):
                self.tokens.append(REFERENCE)
                return height, False
            if self.database_value is not None:
                found = self.database_value(position)
                if found is not None:
                    value, distance = found
                    attacker_to_move = ply % 2 == 0
                    if (leaf_counts_for(value, distance, attacker_to_move, self.goal == "win", remaining)
                            and self.prover_succeeds(value if attacker_to_move else -value)):
                        self.tokens.append(DATABASE)
                        return 0, False
        path.append(identity)
        hashes.append(int(self.game.kernels.hash(position)))
        try:
            answer = None
            if prover_to_move:
                for move, left in self.candidate_moves(position, ply, remaining, path[:-1], hashes[:-1]):
                    mark = (len(self.tokens), self.size, len(self.written_order))
                    self.tokens.append(self.game.format_move(position, move))
                    below = self.visit(self.game.play(position, move), ply + 1, left, path, hashes)
                    if below is not None:
                        answer = below[0] + 1, below[1]
                        break
                    self._roll_back(mark)
            else:
                height, repeats = 0, False
                left = None if remaining is None else remaining - 1
                for move in self.game.legal_moves(position):
                    below = self.visit(self.game.play(position, move), ply + 1, left, path, hashes)
                    if below is None:
                        break
                    height = max(height, below[0] + 1)
                    repeats = repeats or below[1]
                else:
                    answer = height, repeats
        finally:
            path.pop()
            hashes.pop()
        if answer is not None and not answer[1] and identity not in self.written_height:
            self.written_height[identity] = answer[0]
            self.written_order.append(identity)
        return answer

    def _roll_back(self, mark) -> None:
        """Forget what a failed attempt wrote (references to it would dangle)."""
        tokens, size, written = mark
        del self.tokens[tokens:]
        self.size = size
        for identity in self.written_order[written:]:
            del self.written_height[identity]
        del self.written_order[written:]


def extract_proof(search: DfpnSearch, position: np.ndarray, goal: str, claim: str,
                  max_depth: int | None = None, budget: int = 10_000_000, database_value=None) -> dict:
    """The proof document for a root that ``search`` has just solved (``claim`` is its result,
    "proven" or "disproven"). ``database_value(position)`` gives database leaves: (WIN/DRAW/LOSS
    for the side to move, plies to mate), or None where no table covers the position."""
    if claim not in ("proven", "disproven"):
        raise ValueError(f"nothing to extract for a result of {claim!r}")
    game = search.game
    walked = None
    if database_value is None and not game.move_text_needs_position:
        from proofsearch.proof_walk import TOKEN_REFERENCE, walk_proof  # compiled: loaded when used

        walked = walk_proof(search, position, goal, claim == "proven", max_depth, budget)
    if walked is not None:
        tokens, size = walked
        texts = {TOKEN_REFERENCE: REFERENCE}
        for token in set(tokens) - texts.keys():
            texts[token] = game.format_move(position, token)
        strategy = " ".join([texts[token] for token in tokens])
    else:
        extractor = _Extractor(search, goal, claim, max_depth, budget, database_value)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            if extractor.visit(position.copy(), 0, max_depth, [], []) is None:
                raise ProofExtractionError("no strategy could be rebuilt from the search (claim not confirmed)")
        finally:
            sys.setrecursionlimit(limit)
        size, strategy = extractor.size, " ".join(extractor.tokens)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.name,
        "position": game.format_position(position),
        "goal": goal,
        "claim": claim,
        "max_depth": max_depth,
        "size": size,
        "strategy": strategy,
    }


def write_proof(document: dict, path: str) -> None:
    """Write ``document`` (JSON) to ``path`` the way the user would expect of a file they named.

    A new or regular file is written atomically: a temporary file in the same directory,
    renamed into place, with the mode of the file it replaces (a new file gets the user's
    umask). Anything else is written through, never replaced: a symbolic link keeps pointing
    where it did (its target is the file written), a FIFO or a device gets the text, and a
    regular file with other hard links is rewritten in place so that the links stay one file.
    Few system calls: on a small proof they were most of ``--proof``'s cost.
    """
    data = (json.dumps(document) + "\n").encode("utf-8")
    try:
        status = os.stat(path)  # (of a symlink's target)
    except FileNotFoundError:
        status = None
    if status is not None and stat.S_ISFIFO(status.st_mode):
        _write_to_fifo(path, data)
        return
    if status is not None and (not stat.S_ISREG(status.st_mode) or status.st_nlink > 1):
        with open(path, "wb") as out:
            out.write(data)
        return
    # a symlink's target (even one not there yet) is what the user means to write
    target = os.path.realpath(path) if status is not None or os.path.islink(path) else path
    _replace_atomically(target, data, status)


FIFO_READER_WAIT = 5.0  # seconds a FIFO gets to find a reader before the write gives up


def _write_to_fifo(path: str, data: bytes) -> None:
    """Write ``data`` into the FIFO ``path``; an OSError when no process opens it for reading
    within ``FIFO_READER_WAIT`` seconds (opening it plainly would wait forever)."""
    deadline = time.monotonic() + FIFO_READER_WAIT
    while True:
        try:
            handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            break
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            if time.monotonic() > deadline:
                raise OSError(errno.ENXIO, "a FIFO that no process reads", path) from None
            time.sleep(0.01)
    os.set_blocking(handle, True)  # a reader is there: let it take the text at its pace
    with open(handle, "wb") as out:
        out.write(data)


def _replace_atomically(path: str, data: bytes, status: os.stat_result | None) -> None:
    """Write ``data`` to a new file beside ``path`` and rename it over ``path``; the result has
    the mode (and, where allowed, the owner) of ``status``, else the umask's."""
    directory, name = os.path.split(path)
    # A new file is created with the umask applied by the system; a replacement is kept
    # private until it has the old file's mode.
    handle, temporary = _new_temporary_file(directory, name, 0o666 if status is None else 0o600)
    try:
        with open(handle, "wb") as out:
            out.write(data)
            if status is not None:
                os.fchmod(out.fileno(), stat.S_IMODE(status.st_mode))
                if (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
                    try:
                        os.fchown(out.fileno(), status.st_uid, status.st_gid)
                    except PermissionError:
                        pass  # an unprivileged user cannot give a file away; it becomes theirs
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _new_temporary_file(directory: str, name: str, mode: int) -> tuple[int, str]:
    """(descriptor, path) of a file just created, never an existing one, in ``directory``
    (named for this process; ``O_EXCL`` steps over one an earlier process left)."""
    attempt = 0
    while True:
        temporary = os.path.join(directory, f".{name}.{os.getpid()}-{attempt}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode), temporary
        except FileExistsError:
            attempt += 1


__all__ = ["extract_proof", "write_proof", "ProofExtractionError"]
