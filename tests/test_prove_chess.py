"""Chess mates with df-pn: the mate-in-2 and mate-in-3 sets (wtharvey.com problems, with the
key move `bm` and the mate length `dm` in each EPD line); proofs re-checked by the checker."""
from __future__ import annotations

import pytest

import games
from proofsearch.checker import check_document
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import extract_proof

chess_lib = pytest.importorskip("chess")


@pytest.fixture(scope="module")
def game():
    return games.get("chess")


def _problems(oracle_data, name, step=1):
    lines = [line for line in oracle_data(f"chess/{name}").read_text().split("\n") if line.strip()]
    problems = []
    for line in lines[::step]:
        fields = line.split()
        fen = " ".join(fields[:4])
        ops = dict(op.strip().split(" ", 1) for op in " ".join(fields[4:]).split(";") if op.strip())
        board = chess_lib.Board(fen + " 0 1")
        keys = {board.parse_san(san).uci() for san in ops["bm"].split()}
        problems.append((fen, int(ops["dm"]), keys))
    return problems


def _prove_and_check(game, search, fen, mate_in, keys):
    position = game.parse_position(fen)
    depth = 2 * mate_in - 1
    found = search.prove(position, "win", max_depth=depth, max_nodes=5_000_000)
    assert found.result == "proven", fen
    best = game.format_move(position, found.best)
    document = extract_proof(search, position, "win", "proven", max_depth=depth)
    verdict = check_document(game, document)
    assert verdict.valid, (fen, verdict.reason)
    # The checker accepted a mate within `depth` plies that starts with `best`: a mating key.
    assert document["strategy"].split()[0] == best
    return best in keys


@pytest.mark.parametrize("name, step", [("mate-in-2.epd", 11), ("mate-in-3.epd", 25)])
def test_sample_of_mate_problems(oracle_data, game, name, step):
    search = DfpnSearch(game)
    problems = _problems(oracle_data, name, step)
    matches = sum(_prove_and_check(game, search, *problem) for problem in problems)
    # Problems may have other keys than the published one (cooks); nearly all should agree.
    assert matches >= len(problems) - 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mate-in-2.epd", "mate-in-3.epd"])
def test_every_mate_problem(oracle_data, game, name):
    search = DfpnSearch(game)
    for problem in _problems(oracle_data, name):
        _prove_and_check(game, search, *problem)


def test_no_mate_in_one_is_unknown_not_disproven(game):
    # Scholar's-mate position one move early: White mates in 1 next move but not now in 0.
    position = game.parse_position("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq -")
    assert DfpnSearch(game).prove(position, "win", max_depth=1).result == "proven"
    found = DfpnSearch(game).prove(game.parse_position("startpos"), "win", max_depth=3)
    assert found.result == "unknown" and found.reason == "depth limit"
