"""A small artificial game with cycles, for testing proof search on graphs with repetitions.

Each of ``GRAPH_COUNT`` random graphs has ``NODES`` vertices; vertex parity is the side to move
and every edge joins vertices of opposite parity, so moves alternate. A vertex without edges is
a finished game whose result (for the side to move) is in ``TERMINAL``. Positions are
``[graph, vertex]``; notation ``"graph:vertex"``; moves are edge indices, written 1-3. The
kernels follow games.kernels' contract; they read the graphs from module globals (so they are
compiled per process, not cached).
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import mix64
from games.game import Game, Kernels, NotationError

GRAPH_COUNT = 400
NODES = 12
DEGREE = 3


def _random_graphs(seed: int = 20261122):
    rng = np.random.default_rng(seed)
    edges = np.full((GRAPH_COUNT, NODES, DEGREE), -1, dtype=np.int64)
    terminal = np.zeros((GRAPH_COUNT, NODES), dtype=np.int64)
    for g in range(GRAPH_COUNT):
        for v in range(NODES):
            if rng.random() < 0.2:
                terminal[g, v] = rng.choice([K.WIN, K.DRAW, K.LOSS, K.LOSS])
                continue
            others = [u for u in range(NODES) if u % 2 != v % 2]
            targets = rng.choice(others, size=int(rng.integers(1, DEGREE + 1)), replace=False)
            edges[g, v, :len(targets)] = targets
    return edges, terminal


def _graph_history_trap(edges, terminal):
    """Graph 0, built so that a table storing repetition-based results answers wrongly.

    From vertex 0 (A to move) the line 0-1-2-3-6-7 comes back to 2: seen from there, 6 looks
    lost for A (its only way on repeats 2). But 2 is won through 5-8-9, so 6 is won when reached
    by 0-1-4-11-6; df-pn meets 6 on the first line first (equal numbers, edge order). True value:
    A wins from 0."""
    edges[0] = -1
    terminal[0] = 0
    for vertex, targets in {0: [1], 1: [2, 4], 2: [3, 5], 3: [6], 4: [11, 10], 5: [8], 6: [7], 7: [2],
                            8: [9], 11: [6]}.items():
        edges[0, vertex, :len(targets)] = targets
    terminal[0, 9] = K.LOSS  # B to move has lost
    terminal[0, 10] = K.WIN  # B to move has won


EDGES, TERMINAL = _random_graphs()
_graph_history_trap(EDGES, TERMINAL)


@nb.njit(K.LEGAL_MOVES_SIGNATURE)
def legal_moves(pos, moves):
    count = 0
    for k in range(DEGREE):
        if EDGES[pos[0], pos[1], k] >= 0:
            moves[count] = k
            count += 1
    return count


@nb.njit(K.PLAY_SIGNATURE)
def play(pos, move, child):
    child[0] = pos[0]
    child[1] = types.uint64(EDGES[pos[0], pos[1], move])


@nb.njit(K.OUTCOME_SIGNATURE)
def outcome(pos, n_legal):
    if n_legal == 0:
        return TERMINAL[pos[0], pos[1]]
    return K.ONGOING


@nb.njit(K.HASH_SIGNATURE)
def hash_position(pos):
    return mix64(pos[0] * types.uint64(64) + pos[1] + types.uint64(1))


@nb.njit(K.EVALUATE_SIGNATURE)
def evaluate(pos):
    return np.int32(0)


@nb.njit(K.IS_NOISY_SIGNATURE)
def is_noisy(pos, move):
    return False


class GraphGame(Game):
    """The random graphs above as a game."""

    name = "graphgame"
    position_width = 2
    max_moves = DEGREE
    move_space = DEGREE
    max_game_length = 64
    kernels = Kernels(legal_moves, play, outcome, hash_position, evaluate, is_noisy)

    def parse_position(self, text):
        graph, vertex = (int(part) for part in text.split(":"))
        return np.array([graph, vertex], dtype=np.uint64)

    def format_position(self, position):
        return f"{int(position[0])}:{int(position[1])}"

    def parse_move(self, position, text):
        if not text.isdigit() or int(text) - 1 not in self.legal_moves(position):
            raise NotationError(f"illegal move {text!r}")
        return int(text) - 1

    def format_move(self, position, move):
        return str(move + 1)


def true_values(graph: int) -> list[int]:
    """Game-theoretic values (WIN/DRAW/LOSS for the side to move; endless play is a draw) of
    every vertex, by retrograde analysis on the graph."""
    value = [None] * NODES
    for v in range(NODES):
        if EDGES[graph, v, 0] < 0:
            value[v] = int(TERMINAL[graph, v])
    changed = True
    while changed:
        changed = False
        for v in range(NODES):
            if value[v] is not None:
                continue
            children = [value[int(u)] for u in EDGES[graph, v] if u >= 0]
            if any(c == K.LOSS for c in children):
                value[v], changed = K.WIN, True
            elif all(c == K.WIN for c in children):
                value[v], changed = K.LOSS, True
    return [K.DRAW if x is None else x for x in value]
