"""The `solver` command line: perft through the console entry point, errors, the compile cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from solver.cli import main


def run_solver(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `python -m solver ARGS` in a fresh process."""
    return subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_perft_json(capsys):
    assert main(["perft", "tictactoe", ".........", "9", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["nodes"] == 127872 and result["seconds"] >= 0


def test_perft_connect4_depth_7(capsys):
    assert main(["perft", "connect4", "startpos", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 823536


def test_perft_human_summary(capsys):
    assert main(["perft", "connect4", "4453", "2"]) == 0
    assert "49 nodes" in capsys.readouterr().out


@pytest.mark.parametrize("args, problem", [
    (["perft", "go", "startpos", "3"], "unknown game"),
    (["perft", "connect4", "44a", "3"], "column digits"),
    (["perft", "connect4", "4444444", "3"], "full"),
    (["perft", "connect4", "12121212", "3"], "already over"),
    (["perft", "tictactoe", "xxx.oo.o.", "1"], "impossible"),
    (["perft", "connect4", "startpos", "-1"], "must be between 0 and"),
    (["search", "connect4", "startpos", "--depth", "-1"], "must be between 1 and 120"),  # not ">= 0"
    (["perft", "tictactoe", "xxxoo.o..", "1"], "x has three in a row but the other side moved after it"),
    (["build", "tictactoe", "--metrics", "dtm"], "--metrics: for chess tables only"),
    (["perft", "chess", "8/8/3k4/8/8/8/8/K1Q5 w - - bm Qc5;", "1"], "an EPD line's operations are not read"),
    (["perft", "connect4", "startpos", "x"], "non-negative integer"),
    (["perft", "connect4"], "required"),
    (["bogus"], "invalid choice"),
])
def test_bad_input_gets_one_line_and_status_2(args, problem):
    completed = run_solver(*args)
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and problem in lines[0], completed.stderr
    assert "Traceback" not in completed.stderr and completed.stdout == ""


def test_help_explains_the_commands():
    completed = run_solver("--help")
    assert completed.returncode == 0 and "perft" in completed.stdout
    completed = run_solver("perft", "--help")
    assert completed.returncode == 0 and "DEPTH" in completed.stdout


def test_second_run_is_served_from_the_compile_cache():
    # The first run may compile; the second must load every kernel from numba's on-disk cache.
    run_solver("perft", "connect4", "startpos", "5")
    completed = run_solver("perft", "connect4", "startpos", "5", env={"NUMBA_DEBUG_CACHE": "1"})
    assert completed.returncode == 0
    assert "data loaded" in completed.stdout + completed.stderr
    assert "data saved" not in completed.stdout + completed.stderr
