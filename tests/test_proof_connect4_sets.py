"""Proof files for Pascal Pons' Connect Four sets: both proofs behind each position's value are
written and re-checked by the independent checker, and agree with the set's score sign."""
from __future__ import annotations

import pytest

import games
from proofsearch.checker import check_document
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import extract_proof

SETS = ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"]
GAME = games.get("connect4")


def pons_positions(oracle_data, name, step):
    """Every ``step``-th (moves, score) line of a set (blog.gamesolver.org test sets)."""
    lines = [line.split() for line in oracle_data(f"connect4/{name}").read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step]]


def proven_value_with_checked_proofs(search, moves):
    """The value from two proofs, each written out and checked; fails on any invalid proof."""
    position = GAME.parse_position(moves)
    value = None
    for goal in ("win", "draw"):
        found = search.prove(position, goal)
        assert found.result in ("proven", "disproven"), (moves, goal, found.result)
        document = extract_proof(search, position, goal, found.result)
        verdict = check_document(GAME, document)
        assert verdict.valid, (moves, goal, verdict.reason)
        assert verdict.nodes == document["size"]
        if goal == "win" and found.result == "proven":
            return "win"
        if goal == "draw":
            value = "draw" if found.result == "proven" else "loss"
    return value


def expected(score):
    return "win" if score > 0 else "loss" if score < 0 else "draw"


@pytest.mark.parametrize("name", SETS)
def test_sampled_proofs_pass_the_checker(oracle_data, name):
    search = DfpnSearch(GAME)
    count = 4 if name == "Test_L2_R2" else 10  # L2_R2's proofs are large: a few seconds each
    for moves, score in pons_positions(oracle_data, name, step=100)[:count]:
        assert proven_value_with_checked_proofs(search, moves) == expected(score), moves


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_proofs_of_a_tenth_of_each_set_pass_the_checker(oracle_data, name):
    search = DfpnSearch(GAME)
    for moves, score in pons_positions(oracle_data, name, step=10):
        assert proven_value_with_checked_proofs(search, moves) == expected(score), moves
