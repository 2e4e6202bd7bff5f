"""`solver prove` and `solver check-proof`: JSON keys, stdin, proofs on disk, bad input, cache."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from solver.cli import main


def run_solver(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run `python -m solver ARGS` in a fresh process."""
    return subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True, text=True,
                          input=stdin, env={**os.environ, **(env or {})}, timeout=600)


def test_prove_connect4_json(capsys):
    # x to move with three in the bottom row wins at once in column 4.
    assert main(["prove", "connect4", "112233", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"result", "goal", "best", "nodes", "seconds", "proof_size"}
    assert result["result"] == "proven" and result["goal"] == "win" and result["best"] == "4"
    assert result["proof_size"] is None


def test_prove_tictactoe_start_both_goals(capsys):
    assert main(["prove", "tictactoe", "startpos", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "disproven"
    assert main(["prove", "tictactoe", "startpos", "--goal", "draw", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "proven"


def test_node_limit_is_unknown(capsys):
    assert main(["prove", "connect4", "4453", "--max-nodes", "100", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["result"] == "unknown" and result["nodes"] <= 100


def test_proof_file_round_trip_and_tampering(tmp_path, capsys):
    proof = tmp_path / "p.json"
    assert main(["prove", "tictactoe", "x...o....", "--goal", "draw", "--proof", str(proof), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["result"] == "proven" and result["proof_size"] > 1
    assert main(["check-proof", "tictactoe", str(proof), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict == {"valid": True, "nodes": result["proof_size"]}
    # Changing the claim, or one move of the strategy, must be caught.
    document = json.loads(proof.read_text())
    for field, value in (("goal", "win"), ("position", "xo......."),
                         ("strategy", " ".join(["1"] + document["strategy"].split()[1:]))):
        bad = dict(document, **{field: value})
        if bad == document:
            continue
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        assert main(["check-proof", "tictactoe", str(tmp_path / "bad.json"), "--json"]) == 1
        assert json.loads(capsys.readouterr().out)["valid"] is False


def test_connect4_proof_checks(tmp_path, capsys):
    proof = tmp_path / "c4.json"
    # Pons' Test_L2_R2 line 3 (score 2: the side to move wins).
    assert main(["prove", "connect4", "2531276566711153", "--proof", str(proof), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["result"] == "proven"
    assert main(["check-proof", "connect4", str(proof), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == result["proof_size"]


def test_chess_mate_in_two_proof(tmp_path, capsys):
    proof = tmp_path / "mate.json"
    fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 0 1"
    assert main(["prove", "chess", fen, "--max-depth", "3", "--proof", str(proof), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["result"] == "proven" and result["best"] == "d5f6"
    assert main(["check-proof", "chess", str(proof), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True


def test_positions_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("# comment\n112233\n\n44x\n2531276566711153\n"))
    assert main(["prove", "connect4", "-", "--json"]) == 1  # a line got an error answer
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["position"] for a in answers] == ["112233", "44x", "2531276566711153"]
    assert answers[0]["result"] == "proven" and "error" in answers[1] and answers[2]["result"] == "proven"


@pytest.mark.parametrize("args, problem", [
    (["prove", "go", "startpos"], "unknown game"),
    (["prove", "connect4", "44a"], "column digits"),
    (["prove", "connect4", "4453", "--goal", "lose"], "invalid choice"),
    (["prove", "connect4", "4453", "--max-nodes", "-3"], "must be between 1 and"),
    (["prove", "connect4", "4453", "--time", "abc"], "seconds"),
    (["check-proof", "connect4", "/nonexistent/proof.json"], "cannot read"),
])
def test_bad_input_one_line_exit_2(args, problem):
    completed = run_solver(*args)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and problem in completed.stderr
    assert "Traceback" not in completed.stderr


def test_check_proof_rejects_garbage(tmp_path, capsys):
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main(["check-proof", "connect4", str(junk), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False
    (tmp_path / "other.json").write_text(json.dumps({"format": "solver-proof", "version": 1, "game": "chess"}))
    assert main(["check-proof", "connect4", str(tmp_path / "other.json"), "--json"]) == 1


def test_second_run_is_served_from_the_compile_cache():
    run_solver("prove", "connect4", "2531276566711153")
    completed = run_solver("prove", "connect4", "2531276566711153", env={"NUMBA_DEBUG_CACHE": "1"})
    assert completed.returncode == 0
    output = completed.stdout + completed.stderr
    assert "dfpn_kernel" in output and "data loaded" in output
    assert "data saved" not in output
