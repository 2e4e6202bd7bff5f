"""Soundness of df-pn on graphs with cycles (graph-history interaction).

Random small graphs (tests/graph_game.py) are full of positions whose value, seen through a
repetition on one path, differs from their value on another; a search that stored such
path-dependent results in its transposition table would give false proofs or disproofs here.
Every answer is compared with retrograde analysis of the graph, with tables of very different
sizes, and every proof is re-checked.
"""
from __future__ import annotations

import pytest

from games import LOSS, WIN
from proofsearch.checker import check_document
from proofsearch.dfpn import DfpnSearch
from proofsearch.pn import prove_pn
from proofsearch.proof_tree import extract_proof
from proofsearch.table import TranspositionTable
from tests.graph_game import EDGES, GRAPH_COUNT, NODES, GraphGame, true_values

GAME = GraphGame()


def _expected(value, goal):
    if goal == "win":
        return "proven" if value == WIN else "disproven"
    return "proven" if value != LOSS else "disproven"


def _cases():
    for graph in range(GRAPH_COUNT):
        values = true_values(graph)
        for vertex in range(NODES):
            if EDGES[graph, vertex, 0] >= 0:
                yield graph, vertex, values[vertex]


@pytest.mark.parametrize("size", [4, 1 << 16])
def test_graph_history_trap_is_not_fooled(size):
    assert true_values(0)[0] == WIN
    search = DfpnSearch(GAME, TranspositionTable(size))
    assert search.prove(GAME.parse_position("0:0"), "win").result == "proven"
    assert search.prove(GAME.parse_position("0:6"), "win").result == "proven"


def test_the_graphs_have_draws_by_repetition():
    draws = sum(1 for _, _, value in _cases() if value not in (WIN, LOSS))
    assert draws > 200  # endless play somewhere: the cases this test is about


@pytest.mark.parametrize("size", [4, 64, 1 << 16])
def test_dfpn_matches_retrograde_values_with_any_table_size(size):
    search = DfpnSearch(GAME, TranspositionTable(size))
    wrong = []
    for graph, vertex, value in _cases():
        position = GAME.parse_position(f"{graph}:{vertex}")
        for goal in ("win", "draw"):
            found = search.prove(position, goal, max_nodes=200_000)
            if found.result != _expected(value, goal):
                wrong.append((graph, vertex, goal, found.result))
    assert not wrong


def test_pn_search_matches_retrograde_values():
    for graph, vertex, value in list(_cases())[:600]:
        position = GAME.parse_position(f"{graph}:{vertex}")
        for goal in ("win", "draw"):
            assert prove_pn(GAME, position, goal).result == _expected(value, goal), (graph, vertex, goal)


def test_proofs_with_repetition_leaves_pass_the_checker():
    search = DfpnSearch(GAME, TranspositionTable(64))
    checked = 0
    for graph, vertex, value in list(_cases())[:800]:
        position = GAME.parse_position(f"{graph}:{vertex}")
        for goal in ("win", "draw"):
            claim = _expected(value, goal)
            assert search.prove(position, goal).result == claim
            document = extract_proof(search, position, goal, claim)
            verdict = check_document(GAME, document)
            assert verdict.valid, (graph, vertex, goal, verdict.reason)
            checked += 1
    assert checked > 1000
