"""Ordinary bad input to the `solver` commands: one clear line on stderr and exit status 2 (1 for
an environment that cannot be used), never a traceback or an `internal error` (issue 12, items 8
to 10). Each case runs the real command in a fresh process; a sweep of many more values of every
option runs in this process (tests/test_bad_input.py::test_option_sweep)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli import main
from solver.commands.common import physical_megabytes

FEN_44 = "44/8/8/8/8/8/8/K6k w - - 0 1"
TRIPLE_CHECK = "4k3/8/8/8/1b6/3n4/8/4K2r w - - 0 1"
TOO_MANY_PROMOTED = "4k3/8/8/8/8/8/PPPPPPPP/QQQQKQQQ w - - 0 1"


def run_solver(*args, env: dict | None = None, stdin: bytes | None = None,
               timeout: float = 600) -> subprocess.CompletedProcess:
    """`solver ARGS` in a fresh process (arguments may be bytes: not UTF-8); output as text with
    undecodable bytes escaped."""
    completed = subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True, input=stdin,
                               env={**os.environ, **(env or {})}, timeout=timeout)
    completed.stdout = completed.stdout.decode("utf-8", "backslashreplace")
    completed.stderr = completed.stderr.decode("utf-8", "backslashreplace")
    return completed


def assert_one_line_error(completed: subprocess.CompletedProcess, status: int, words: str) -> None:
    """Exit ``status``, one line on stderr containing ``words``, nothing on stdout."""
    assert completed.returncode == status, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and words in lines[0], completed.stderr
    assert "Traceback" not in completed.stderr and "internal error" not in completed.stderr
    assert completed.stdout == ""


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """A directory holding the odd things given where files are expected."""
    root = tmp_path_factory.mktemp("odd")
    (root / "adir").mkdir()
    (root / "nonutf8.json").write_bytes(b'{"format": "solver-proof\xff\xfe"}')
    (root / "plain").write_text("not a directory\n")
    return root


ISSUE_CASES = [  # the commands quoted in issue 12 and their kin: (arguments, words of the message)
    (["perft", "chess", "startpos", "100000000"], "at most 1000"),
    (["perft", "chess", "startpos", "99999999999999999999999"], "at most 1000"),
    (["perft", "tictactoe", "startpos", "1.5"], "non-negative integer"),
    (["perft", "tictactoe", "startpos", "9" * 5000], "non-negative integer"),
    (["prove", "tictactoe", "startpos", "--max-depth", "99999999999999999999"], "at most 100000"),
    (["prove", "tictactoe", "startpos", "--max-nodes", "99999999999999999999"], "between 1 and"),
    (["prove", "connect4", "4", "--table-mb", "65537"], "between 0.001 and"),
    (["prove", "connect4", "4", "--table-mb", "nan"], "size in MiB"),
    (["prove", "connect4", "4", "--time", "inf"], "number of seconds"),
    (["prove", "connect4", "4", "--time", "nan"], "number of seconds"),
    (["search", "connect4", "4", "--nodes", "0"], "between 1 and"),
    (["search", "connect4", "4", "--hash", "inf"], "size in MiB"),
    (["search", "connect4", "4", "--cache-mb", "-1"], "between 0.001 and"),
    (["search", "connect4", "4", "--prover-nodes", "1e3"], "non-negative integer"),
    (["search", "connect4", "4", "--mate", "0"], "between 1 and 60"),
    (["search", "connect4", "4", "--db", ""], "empty directory name"),
    (["search", "chess", "startpos", "--moves", "e2e5"], "illegal move"),
    (["perft", "chess", FEN_44, "1"], "two digits in a row"),
    (["perft", "chess", TRIPLE_CHECK, "1"], "in check by 3 pieces"),
    (["perft", "chess", TOO_MANY_PROMOTED, "1"], "promoted pieces"),
    (["prove", "tictactoe", "-", "--proof", "p.json"], "single POSITION"),
    # issue 37, item 6: only ASCII digits are numbers
    (["perft", "chess", "4k3/8/8/8/8/8/8/4K3 w - - \u00b2 1", "1"], "bad halfmove clock"),
    (["perft", "chess", "4k3/8/8/8/8/8/8/4K3 w - - \u0663 1", "1"], "bad halfmove clock"),
    (["perft", "chess", "startpos", "\u0663"], "non-negative integer"),
    (["search", "chess", "startpos", "--time", "\u0661"], "number of seconds"),
    (["perft", "chess", "8/8/3k4/8/8/8/8/K1Q5 w - - 0 1 junk", "1"], "6 fields"),
    # issue 74, item 4: thread counts no machine has
    (["build", "tictactoe", "--workers", "100000"], "between 1 and 1024"),
    (["build", "tictactoe", "--workers", "4611686018427387904"], "between 1 and 1024"),
    (["build", "tictactoe", "--workers", "0"], "between 1 and 1024"),
]


@pytest.mark.parametrize("args, words", ISSUE_CASES, ids=[" ".join(a)[:60] for a, _ in ISSUE_CASES])
def test_bad_values_get_one_line_and_status_2(args, words):
    assert_one_line_error(run_solver(*args), 2, words)


def test_perft_help_states_the_depth_bound_of_the_kernel():
    from games.perft import MAX_DEPTH
    from solver.commands import perft as command

    assert command.MAX_DEPTH == MAX_DEPTH  # repeated there so that --help compiles nothing


def test_table_larger_than_the_machine_is_refused_before_allocating():
    too_much = physical_megabytes() + 1
    if too_much > 65536:
        pytest.skip("this machine has more memory than the option's hard maximum")
    assert_one_line_error(run_solver("prove", "connect4", "4", "--table-mb", str(too_much)), 2,
                          "this machine's memory")


def test_position_that_is_not_utf8():
    assert_one_line_error(run_solver(b"prove", b"tictactoe", b"\xff........"), 2, "bad tictactoe position")


@pytest.mark.parametrize("name, words", [("adir", "is a directory"), ("missing/p.json", "no such directory"),
                                         ("", "empty file name")])
def test_proof_file_where_none_can_be_written(files, name, words):
    path = str(files / name) if name else ""
    assert_one_line_error(run_solver("prove", "tictactoe", "startpos", "--goal", "draw", "--proof", path),
                          2, words)


@pytest.mark.parametrize("name, words", [("adir", "is a directory"), ("missing.json", "cannot read"),
                                         ("", "empty file name")])
def test_check_proof_of_what_is_not_a_file(files, name, words):
    path = str(files / name) if name else ""
    assert_one_line_error(run_solver("check-proof", "tictactoe", path), 2, words)


def test_check_proof_of_a_file_that_is_not_utf8(files):
    completed = run_solver("check-proof", "tictactoe", str(files / "nonutf8.json"), "--json")
    assert completed.returncode == 1 and "Traceback" not in completed.stderr  # an invalid proof
    assert json.loads(completed.stdout) == {"valid": False, "nodes": 0,
                                            "reason": "not UTF-8 text (byte 24 of the file)"}


@pytest.mark.parametrize("command", [["probe", "tictactoe", "startpos"], ["prove", "tictactoe", "startpos"],
                                     ["search", "tictactoe", "startpos", "--depth", "1"],
                                     ["check-proof", "tictactoe", "p.json"]])
def test_database_option_naming_a_file(files, command):
    assert_one_line_error(run_solver(*command, "--db", str(files / "plain")), 2, "not a directory")


def test_memory_error_while_allocating_is_one_line(monkeypatch, capsys):
    from proofsearch.table import TranspositionTable

    def refuse(megabytes):
        raise MemoryError

    monkeypatch.setattr(TranspositionTable, "from_megabytes", staticmethod(refuse))
    assert main(["prove", "connect4", "4", "--table-mb", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not enough free memory" in err and "--table-mb" in err


# --- $SOLVER_DB for prove, search and check-proof (item 10) -------------------------------------

@pytest.fixture(scope="module")
def tictactoe_db(tmp_path_factory) -> Path:
    """A database directory with the tic-tac-toe table."""
    root = tmp_path_factory.mktemp("db")
    completed = run_solver("build", "tictactoe", "--db", str(root), "--json")
    assert completed.returncode == 0, completed.stderr
    return root


def no_default_tables(tmp_path: Path) -> dict:
    """An environment in which neither $SOLVER_DB nor the user data directory holds tables."""
    return {"SOLVER_DB": "", "XDG_DATA_HOME": str(tmp_path / "empty-data-home")}


def test_prove_finds_the_tables_through_solver_db(tictactoe_db, tmp_path):
    args = ("prove", "tictactoe", "x...o....", "--goal", "draw", "--json")
    plain = run_solver(*args, env=no_default_tables(tmp_path))
    with_tables = run_solver(*args, env={"SOLVER_DB": str(tictactoe_db)})
    assert plain.returncode == with_tables.returncode == 0, plain.stderr + with_tables.stderr
    plain, with_tables = json.loads(plain.stdout), json.loads(with_tables.stdout)
    assert plain["result"] == with_tables["result"] == "proven"  # x holds the draw
    assert with_tables["nodes"] < plain["nodes"]  # the table answered below the root


def test_prove_without_any_tables_is_no_error(tmp_path):
    completed = run_solver("prove", "tictactoe", "startpos", "--goal", "draw", "--json",
                           env=no_default_tables(tmp_path))
    assert completed.returncode == 0 and json.loads(completed.stdout)["result"] == "proven"


def test_check_proof_reads_database_leaves_through_solver_db(tictactoe_db, tmp_path):
    proof = tmp_path / "p.json"
    made = run_solver("prove", "tictactoe", "x...o....", "--goal", "draw", "--proof", str(proof), "--json",
                      env={"SOLVER_DB": str(tictactoe_db)})
    assert made.returncode == 0, made.stderr
    assert "db" in json.loads(proof.read_text())["strategy"].split()
    checked = run_solver("check-proof", "tictactoe", str(proof), "--json", env={"SOLVER_DB": str(tictactoe_db)})
    assert checked.returncode == 0 and json.loads(checked.stdout)["valid"] is True
    # issue 74, item 3: without the tables the proof cannot be checked, which is not INVALID
    without = run_solver("check-proof", "tictactoe", str(proof), "--json", env=no_default_tables(tmp_path))
    assert_one_line_error(without, 1, "cannot check: the proof has database leaves")


def test_search_with_solver_db_naming_a_file_says_so(files):
    completed = run_solver("search", "tictactoe", "x...o....", "--depth", "2", "--json",
                           env={"SOLVER_DB": str(files / "plain")})
    assert completed.returncode == 0 and json.loads(completed.stdout)["tbhits"] == 0
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("solver: SOLVER_DB=") \
        and lines[0].endswith("is not a directory: no tables used")


@pytest.mark.parametrize("args", [("probe", "tictactoe", "startpos"), ("verify", "tictactoe"),
                                  ("build", "tictactoe"), ("serve", "--bind", "127.0.0.1:1")])
def test_table_commands_with_solver_db_naming_a_file_say_so_as_for_db(files, args):
    # A user's sweep: probe called the file's missing tables "damaged or truncated" (exit 1),
    # serve started and warned of damaged tables, build blamed --db, never given.
    completed = run_solver(*args, env={"SOLVER_DB": str(files / "plain")})
    assert_one_line_error(completed, 2, "SOLVER_DB=")
    assert completed.stderr.rstrip().endswith(": not a directory")


def test_search_finds_the_tables_through_solver_db(tictactoe_db):
    completed = run_solver("search", "tictactoe", "x...o....", "--depth", "3", "--json",
                           env={"SOLVER_DB": str(tictactoe_db)})
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["tbhits"] > 0


# --- a sweep of every option with odd values, in this process (fast) ----------------------------

INTEGERS = ["0", "-1", "1.5", "nan", "inf", "", " ", "99999999999999999999", "9" * 5000, "\udcff", "1e3", "0x10"]
NUMBERS = ["0", "-1", "nan", "inf", "-inf", "", "1e400", "99999999999999999999", "\udcff", "abc"]


def sweep_cases():
    """(arguments) for every numeric option of perft, prove and search with odd values."""
    base = {"perft": ["perft", "tictactoe", "startpos"], "prove": ["prove", "tictactoe", "startpos", "--max-nodes", "50"],
            "search": ["search", "tictactoe", "startpos", "--depth", "1"]}
    for value in INTEGERS:
        yield base["perft"] + [value]
        for option in ("--max-nodes", "--max-depth"):
            yield base["prove"] + [option, value]
        for option in ("--depth", "--nodes", "--prover-nodes", "--mate"):
            yield base["search"] + [option, value]
    for value in NUMBERS:
        for option in ("--time", "--table-mb"):
            yield base["prove"] + [option, value]
        for option in ("--time", "--hash", "--cache-mb"):
            yield base["search"] + [option, value]


def test_option_sweep(capsys):
    """Every odd value of every numeric option: exit 0 or 2, and for 2 one line naming the option."""
    tried = 0
    for args in sweep_cases():
        try:
            status = main(args)
        except SystemExit as exit:
            status = exit.code
        captured = capsys.readouterr()
        tried += 1
        assert status in (0, 2), (args, captured.err)
        if status == 2:
            assert captured.err.count("\n") == 1 and "error" in captured.err, (args, captured.err)
            assert "internal error" not in captured.err and "Traceback" not in captured.err
    assert tried > 120


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [["perft", "chess", "startpos", "2"],
                                  ["search", "tictactoe", "startpos", "--depth", "2", "--json"]])
def test_output_onto_a_full_disk_is_one_line_and_status_1(args):
    with open("/dev/full", "wb") as full:
        completed = subprocess.run([sys.executable, "-m", "solver", *args], stdout=full,
                                   stderr=subprocess.PIPE, text=True, timeout=600)
    assert completed.returncode == 1
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], completed.stderr
    assert "internal error" not in completed.stderr


def test_proof_onto_a_full_disk_is_status_1(tmp_path, monkeypatch, capsys):
    import errno

    import proofsearch.proof_tree
    from solver.cli import main

    def full_disk(document, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(proofsearch.proof_tree, "write_proof", full_disk)
    target = tmp_path / "p.json"
    assert main(["prove", "tictactoe", "xx.oo....", "--proof", str(target)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and not target.exists()


def test_proof_that_ends_unknown_says_no_file_was_written(tmp_path, capsys):
    from solver.cli import main

    target = tmp_path / "p.json"
    assert main(["prove", "connect4", "startpos", "--max-nodes", "100", "--proof",
                 str(target)]) == 0
    assert "no proof written" in capsys.readouterr().err and not target.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_proof_into_a_fifo_nobody_reads_is_one_line_not_a_hang(tmp_path):
    fifo = tmp_path / "proof.fifo"
    os.mkfifo(fifo)
    completed = run_solver("prove", "tictactoe", "xx.oo....", "--proof", str(fifo), timeout=120)
    assert_one_line_error(completed, 1, "no process reads")
    assert fifo.is_fifo()  # not replaced by a file


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_check_proof_of_an_endless_device_is_invalid_at_once():
    completed = run_solver("check-proof", "connect4", "/dev/zero", timeout=60)
    assert completed.returncode == 1 and "does not start with a JSON object" in completed.stdout
