"""Batch mode, POSITION '-', of probe, prove and search (issue 12, item 7): every line is answered
(a line that is not UTF-8 gets an error answer and the batch goes on), the exit status is 1 when
any line got an error, and each answer comes as soon as its line is read, so the command works as
a co-process."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

import pytest

from tests.test_bad_input import run_solver

# A batch with a comment, a blank line, a line that is not UTF-8 and a malformed position.
BATCH = b"# comment \xff\n.........\n\nx\xe9\xff......\nnonsense\nx...o....\n"
COMMANDS = {
    "prove": ["prove", "tictactoe", "-", "--goal", "draw", "--json"],
    "search": ["search", "tictactoe", "-", "--depth", "2", "--json"],
}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("db")
    assert run_solver("build", "tictactoe", "--db", str(root)).returncode == 0
    return root


def commands(db) -> dict:
    return {**COMMANDS, "probe": ["probe", "tictactoe", "-", "--db", str(db), "--json"]}


@pytest.mark.parametrize("name", ["probe", "prove", "search"])
def test_every_line_is_answered_and_errors_make_status_1(db, name):
    completed = run_solver(*commands(db)[name], stdin=BATCH)
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr == ""
    answers = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [a["position"] for a in answers] == [".........", "x\\xe9\\xff......", "nonsense", "x...o...."]
    assert "error" not in answers[0] and "error" not in answers[3]
    assert answers[1]["error"] == "not UTF-8 text (byte 2 of the line)"
    assert "bad tictactoe position" in answers[2]["error"]


@pytest.mark.parametrize("name", ["probe", "prove", "search"])
def test_a_batch_without_errors_exits_0(db, name):
    completed = run_solver(*commands(db)[name], stdin=b".........\n# x\nx...o....\n")
    assert completed.returncode == 0, completed.stderr
    assert len(completed.stdout.splitlines()) == 2


def test_human_answers_show_the_undecodable_bytes_escaped():
    completed = run_solver("prove", "tictactoe", "-", "--goal", "draw", stdin=b"\xff\xfe\n.........\n")
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[0] == "\\xff\\xfe: error: not UTF-8 text (byte 1 of the line)"
    assert lines[1].startswith(".........: draw: proven")


@pytest.mark.parametrize("name", ["probe", "prove", "search"])
def test_help_states_the_exit_status_of_a_batch(name):
    completed = run_solver(name, "--help")
    assert completed.returncode == 0
    assert "1 when any line got an error" in " ".join(completed.stdout.split())


def read_line(stream, seconds: float) -> bytes:
    """One line from ``stream``, or a failure after ``seconds``."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        return lines.get(timeout=seconds)
    except queue.Empty:
        pytest.fail(f"no answer within {seconds} s: the command waits for more input before answering")


@pytest.mark.parametrize("name", ["probe", "prove", "search"])
def test_works_as_a_co_process(db, name):
    """Write one line, read its answer, then write the next: no answer may wait for later input."""
    process = subprocess.Popen([sys.executable, "-m", "solver", *commands(db)[name]], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        for line, expected in [(b".........\n", None), (b"\xff\n", "not UTF-8 text"), (b"x...o....\n", None)]:
            process.stdin.write(line)
            process.stdin.flush()
            answer = json.loads(read_line(process.stdout, 300))
            assert answer["position"] == line.decode("utf-8", "backslashreplace").strip()
            assert (expected in answer["error"]) if expected else "error" not in answer
        process.stdin.close()
        assert process.wait(timeout=120) == 1  # one line got an error
    finally:
        process.kill()
        process.wait()


CHESS_LINES = [  # (line, answered, or the words of its error): judged like the argument form
    (b"8/8/3k4/8/8/8/8/K1Q5 w - - 0 1", True),
    (b"8/8/3k4/8/8/8/8/K1Q5 w - - 0", "6 fields"),
    (b"8/8/3k4/8/8/8/8/K1Q5 w - - 0 1 junk", "6 fields"),
    (b"8/8/3k4/8/8/8/8/K1Q5 w - - bm Qc7; id \"epd\";", True),
    (b"4k3/8/8/8/8/8/8/4K3 w - - \xc2\xb2 1", "halfmove clock"),
    (b"8/8/3k4/8/8/8/8/K1Q5 w - - \xff 1", "not UTF-8"),
]


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"])
def test_chess_lines_are_judged_like_arguments_whatever_the_line_ends(ending):
    batch = ending.join(line for line, _ in CHESS_LINES) + ending
    completed = run_solver("search", "chess", "-", "--depth", "1", "--json", stdin=batch)
    answers = [json.loads(line) for line in completed.stdout.splitlines()]
    assert completed.returncode == 1 and len(answers) == len(CHESS_LINES), completed.stderr
    for answer, (_, expected) in zip(answers, CHESS_LINES):
        if expected is True:
            assert "error" not in answer and answer["best"], answer
        else:
            assert expected in answer["error"], answer
