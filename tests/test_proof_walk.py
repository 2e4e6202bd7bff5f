"""Proof extraction as a walk over the table (issue 13, item 2): the compiled walk writes exactly
what the Python walk writes, every proof checks, and extraction needs no new search."""
from __future__ import annotations


import numpy as np
import pytest

import games
from proofsearch.checker import check_document
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import _Extractor, extract_proof
from proofsearch.proof_walk import walk_proof
from proofsearch.table import TranspositionTable

def pons_positions(oracle_data, name: str, count: int) -> list[str]:
    """The first ``count`` positions of one of Pons' sets (through $SOLVER_ORACLE_DATA, like
    every oracle: skipped without it, failed under CI)."""
    path = oracle_data(f"connect4/{name}")
    return [line.split()[0] for line in path.read_text().splitlines()[:count]]


def python_walk(search, position, goal, claim, max_depth=None):
    """(strategy, size) as the Python walk writes them."""
    extractor = _Extractor(search, goal, claim, max_depth, 10_000_000)
    assert extractor.visit(position.copy(), 0, max_depth, [], []) is not None
    return " ".join(extractor.tokens), extractor.size


def solved_cases(game, texts):
    for text in texts:
        position = game.parse_position(text)
        search = DfpnSearch(game, TranspositionTable(1 << 20))
        for goal in ("win", "draw"):
            found = search.prove(position, goal)
            assert found.result in ("proven", "disproven"), (text, goal)
            yield search, position, goal, found.result


def tictactoe_positions() -> list[str]:
    game = games.get("tictactoe")
    texts = []
    for moves in ([], [4], [4, 0], [0, 4, 8]):
        position = game.start_position()
        for move in moves:
            position = game.play(position, move)
        texts.append(game.format_position(position))
    return texts


@pytest.mark.parametrize("game_name", ["tictactoe", "connect4"])
def test_compiled_walk_writes_what_the_python_walk_writes(game_name, request):
    """Where the table still holds everything the walk needs (no search), the compiled walk's
    strategy is the Python walk's, token for token; every proof checks."""
    game = games.get(game_name)
    if game_name == "tictactoe":
        texts = tictactoe_positions()
    else:
        oracle_data = request.getfixturevalue("oracle_data")  # only Connect Four needs it
        texts = pons_positions(oracle_data, "Test_L2_R2", 5) \
            + pons_positions(oracle_data, "Test_L1_R1", 5)
    compared = cases = 0
    for search, position, goal, claim in solved_cases(game, texts):
        cases += 1
        before = search.table.rows.copy()
        walked = walk_proof(search, position, goal, claim == "proven", None)
        assert walked is not None
        document = extract_proof(search, position, goal, claim)
        verdict = check_document(game, document)
        assert verdict.valid and verdict.nodes == document["size"], verdict.reason
        if np.array_equal(search.table.rows, before):  # a pure walk: no node was searched again
            compared += 1
            tokens, size = walked
            assert (document["strategy"], document["size"]) == python_walk(search, position, goal, claim)
            assert size == document["size"] and len(tokens) == len(document["strategy"].split())
    assert compared >= cases * 3 // 4, (compared, cases)


@pytest.mark.parametrize("handoff", [False, True], ids=["df-pn alone", "alpha-beta hand-off"])
def test_the_walk_searches_again_where_the_table_lost_entries(handoff, oracle_data):
    """A table far too small for the search: the walk searches again the nodes it lacks and the
    proof still checks. Where the search hands off to alpha-beta, the walk solves them itself
    with alpha-beta (no new search from Python); else each is a new df-pn search."""
    game = games.get("connect4")
    position = game.parse_position(pons_positions(oracle_data, "Test_L2_R2", 3)[2])
    search = DfpnSearch(game, TranspositionTable(1 << 12), handoff=handoff)
    found = search.prove(position, "win")
    goal = "win" if found.result == "proven" else "draw"
    found = search.prove(position, goal)
    assert found.result in ("proven", "disproven")
    generation = search.table.generation
    document = extract_proof(search, position, goal, found.result)
    new_searches = search.table.generation - generation
    assert new_searches == 0 if handoff else new_searches > 0
    verdict = check_document(game, document)
    assert verdict.valid and verdict.nodes == document["size"], verdict.reason


def test_a_depth_bounded_chess_mate_is_extracted_without_a_new_search():
    chess = games.get("chess")
    position = chess.parse_position("8/8/2k5/8/3p4/Qp1p4/pp1p4/rrbK4 w - - 0 1")  # mate in 20
    search = DfpnSearch(chess, TranspositionTable(1 << 20))
    found = search.prove(position, "win", max_depth=39)
    assert found.result == "proven"
    generation = search.table.generation
    document = extract_proof(search, position, "win", "proven", max_depth=39)
    assert search.table.generation == generation
    verdict = check_document(chess, document)
    assert verdict.valid and verdict.nodes == document["size"], verdict.reason
