"""Plain best-first proof-number search (Allis): the reference and teaching version.

It keeps the whole tree in memory as Python objects, so it suits small trees only; df-pn
(:mod:`proofsearch.dfpn`) is the engine for real work. The tree has no transpositions: every node
knows its path, and a position repeating one on its path is a draw leaf.

As in df-pn, OR and AND nodes share one code path: each node is seen from its own side to move,
``phi`` being the cost of proving that the mover gets what it wants and ``delta`` that of
refuting it; ``phi(node) = min(delta(child))`` and ``delta(node) = sum(phi(child))``.

>>> import games
>>> game = games.get("tictactoe")
>>> prove_pn(game, game.parse_position("xx.oo...."), "win").result
'proven'
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from games import ONGOING
from games.game import Game
from proofsearch.goals import GOALS, attacker_reaches_py

INFINITE = float("inf")


@dataclass
class PnNode:
    """One node of the explicit tree."""

    position: np.ndarray
    mover_is_attacker: bool
    parent: "PnNode | None" = None
    move: int | None = None
    phi: float = 1.0
    delta: float = 1.0
    children: list["PnNode"] = field(default_factory=list)
    expanded: bool = False


@dataclass
class PnResult:
    """Outcome of a PN search."""

    result: str  # proven / disproven / unknown
    best: int | None
    nodes: int


def _mover_succeeds(goal: int, mover_is_attacker: bool, result: int) -> bool:
    if mover_is_attacker:
        return attacker_reaches_py(goal, result)
    return not attacker_reaches_py(goal, -result)


def _solve_leaf(node: PnNode, succeeds: bool) -> None:
    node.phi, node.delta = (0, INFINITE) if succeeds else (INFINITE, 0)


def _evaluate_new(game: Game, goal: int, node: PnNode, path_hashes: set[int]) -> None:
    """Give a new node its numbers: exact for finished games and repetitions, else 1/1."""
    count = len(game.legal_moves(node.position))
    result = int(game.kernels.outcome(node.position, count))
    if result != ONGOING:
        _solve_leaf(node, _mover_succeeds(goal, node.mover_is_attacker, result))
    elif game.hash(node.position) in path_hashes:
        _solve_leaf(node, _mover_succeeds(goal, node.mover_is_attacker, 0))
    else:
        node.phi, node.delta = 1, 1


def _path_hashes(game: Game, node: PnNode) -> set[int]:
    hashes = set()
    while node is not None:
        hashes.add(game.hash(node.position))
        node = node.parent
    return hashes


def _update(node: PnNode) -> None:
    node.phi = min(child.delta for child in node.children) if node.children else INFINITE
    node.delta = sum(child.phi for child in node.children) if node.children else 0


def prove_pn(game: Game, position: np.ndarray, goal: str = "win", max_nodes: int = 1_000_000) -> PnResult:
    """Best-first PN search for ``goal`` of the side to move; ``unknown`` past ``max_nodes``."""
    code = GOALS[goal]
    root = PnNode(position.copy(), True)
    _evaluate_new(game, code, root, set())
    nodes = 1
    while root.phi != 0 and root.delta != 0 and nodes < max_nodes:
        # 1. Walk down to the most-proving node: always the child with the least delta.
        node = root
        while node.expanded:
            node = min(node.children, key=lambda child: child.delta)
        # 2. Expand it.
        path = _path_hashes(game, node)
        for move in game.legal_moves(node.position):
            child = PnNode(game.play(node.position, move), not node.mover_is_attacker, node, move)
            _evaluate_new(game, code, child, path)
            node.children.append(child)
            nodes += 1
        node.expanded = True
        # 3. Back the numbers up to the root.
        while node is not None:
            _update(node)
            node = node.parent
    if root.phi == 0:
        best = next(child.move for child in root.children if child.delta == 0) if root.children else None
        return PnResult("proven", best, nodes)
    if root.delta == 0:
        return PnResult("disproven", None, nodes)
    return PnResult("unknown", None, nodes)


__all__ = ["prove_pn", "PnResult"]
