"""Database leaves in the prover: covered positions end the search with the table's value, and
proofs with `db` leaves are re-checked against the tables."""
from __future__ import annotations

import json

import pytest

import games
from proofsearch.checker import check_file
from databases.leaves import DatabaseLeaves
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import extract_proof, write_proof
from retrograde.build import build_tables
from solver.cli import main
from tests.conftest import quickest_mating_moves

CHESS = games.get("chess")
KQK = "8/8/3k4/8/8/8/8/K1Q5 w - - 0 1"  # the example: white mates in 17 plies
ROOK_HANGS = "8/8/3k4/8/8/8/1r6/K1Q5 w - - 0 1"  # Kxb2 leads into KQvK


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("db")
    build_tables("chess", ["KQvK", "KRvK"], root, show_progress=False, dtz50=False)
    return root


def prove(db, fen, **limits):
    leaves = DatabaseLeaves(CHESS, db)
    search = DfpnSearch(CHESS, database=leaves)
    position = CHESS.parse_position(fen)
    return search, position, search.prove(position, "win", **limits)


def test_covered_position_is_proven_from_the_tables(db, gaviota):
    _, position, found = prove(db, KQK)
    assert found.result == "proven" and found.nodes <= 3
    # the chosen move keeps the quickest mate (Gaviota says which do)
    assert CHESS.format_move(position, found.best) in quickest_mating_moves(KQK, gaviota)


def test_capture_into_a_table_is_proven(db):
    search, position, found = prove(db, ROOK_HANGS, max_nodes=200_000)
    assert found.result == "proven" and CHESS.format_move(position, found.best) == "a1b2"
    without = DfpnSearch(CHESS).prove(position, "win", max_nodes=found.nodes)
    assert without.result == "unknown"  # the tables are what made the proof cheap


def test_table_wins_count_under_a_depth_bound_only_if_the_mate_fits(db):
    # mate in 17 plies: a bound of 5 plies cannot use the table's win, 19 plies can
    assert prove(db, KQK, max_depth=5)[2].result == "unknown"
    assert prove(db, KQK, max_depth=19)[2].result == "proven"


def test_tables_do_not_prove_a_drawn_ending(db):
    _, _, found = prove(db, "8/8/3k4/8/8/8/8/K7 w - - 0 1")
    assert found.result == "disproven"


def test_proof_with_database_leaves_checks_only_with_the_tables(db, tmp_path):
    search, position, found = prove(db, ROOK_HANGS, max_nodes=200_000)
    leaves = search.database
    document = extract_proof(search, position, "win", found.result, database_value=leaves.value)
    assert "db" in document["strategy"].split()
    path = tmp_path / "proof.json"
    write_proof(document, str(path))
    assert check_file(CHESS, str(path), leaves.value).valid
    verdict = check_file(CHESS, str(path))
    assert not verdict.valid and "no database" in verdict.reason


def test_checker_refuses_a_table_win_too_long_for_the_depth_bound(db, tmp_path):
    leaves = DatabaseLeaves(CHESS, db)
    document = {"format": "solver-proof", "version": 1, "game": "chess", "position": KQK,
                "goal": "win", "claim": "proven", "max_depth": 5, "size": 1, "strategy": "db"}
    path = tmp_path / "short.json"
    path.write_text(json.dumps(document))
    verdict = check_file(CHESS, str(path), leaves.value)
    assert not verdict.valid and "does not fit" in verdict.reason


def test_cli_prove_and_check_with_db(db, tmp_path, capsys):
    proof = tmp_path / "p.json"
    assert main(["prove", "chess", ROOK_HANGS, "--db", str(db), "--proof", str(proof), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["result"] == "proven" and result["best"] == "a1b2" and result["proof_size"] >= 1
    assert main(["check-proof", "chess", str(proof), "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True


@pytest.mark.parametrize("args, problem", [
    (["prove", "chess", KQK, "--db", "/nonexistent/db"], "no database directory"),
    (["prove", "connect4", "44", "--db", "."], "no endgame tables"),
])
def test_cli_bad_db_is_one_line(args, problem, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and problem in err[0]
