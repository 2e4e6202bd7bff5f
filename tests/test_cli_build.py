"""`solver build`, `solver probe` and `solver verify` from the command line."""
from __future__ import annotations

import io
import json

import pytest

from solver.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture()
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVER_DB", str(tmp_path))
    return tmp_path


def test_build_probe_verify_tictactoe(capsys, db):
    status, out, _ = run(capsys, "build", "tictactoe", "--json")
    assert status == 0 and json.loads(out)["built"] == ["all"]
    assert (db / "tictactoe" / "all.h5").is_file()
    status, out, _ = run(capsys, "build", "tictactoe", "--json")
    assert json.loads(out)["skipped"] == ["all"]
    status, out, _ = run(capsys, "probe", "tictactoe", "startpos", "--json")
    answer = json.loads(out)
    assert answer["value"] == "draw" and answer["dtm"] == 0 and answer["best"] in list("123456789")
    status, out, _ = run(capsys, "probe", "tictactoe", "xx.oo....", "--json")
    assert json.loads(out) == {"value": "win", "dtm": 1, "best": "3"}
    status, out, _ = run(capsys, "verify", "tictactoe", "--json")
    assert status == 0 and json.loads(out)["errors"] == 0 and json.loads(out)["entries"] == 3 ** 9


def test_probe_reads_positions_from_stdin(capsys, db, monkeypatch):
    run(capsys, "build", "tictactoe", "--db", str(db))
    monkeypatch.setattr("sys.stdin", io.StringIO("# comment\nxx.oo....\n\nnonsense\n.........\n"))
    status, out, _ = run(capsys, "probe", "tictactoe", "-", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["position"] for line in lines] == ["xx.oo....", "nonsense", "........."]
    assert lines[0]["value"] == "win" and "error" in lines[1] and lines[2]["value"] == "draw"


@pytest.mark.parametrize("argv, message", [
    (["probe", "tictactoe", "startpos"], "missing table"),
    (["probe", "tictactoe", "xxx"], "bad tictactoe position"),
    (["build", "tictactoe", "KQvK"], "unknown tictactoe table"),
    (["build", "connect4"], "no endgame tables"),
    (["build", "nosuchgame"], "unknown game"),
    (["verify", "tictactoe"], "no tictactoe tables"),
])
def test_bad_input_is_one_line_with_status_2(capsys, db, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_probe_text_judges_the_50_move_rule_at_the_clock_given(capsys, tmp_path, monkeypatch):
    # issue 74, item 3: a win 17 plies from its zeroing move is cursed with 90 plies on the
    # clock, as `solver serve` says; the JSON keeps python-chess's fresh-count values
    monkeypatch.setenv("SOLVER_DB", str(tmp_path))
    assert run(capsys, "build", "chess", "KQvK")[0] == 0
    fen = "8/8/3k4/8/8/8/8/K1Q5 w - - {} 1"
    status, out, _ = run(capsys, "probe", "chess", fen.format(0))
    assert status == 0 and "50-move rule: wins, zeroing distance 17 plies" in out
    status, out, _ = run(capsys, "probe", "chess", fen.format(90))
    assert status == 0 and "50-move rule: cursed win: drawn with 90 plies on the clock" in out
    status, out, _ = run(capsys, "probe", "chess", fen.format(90), "--json")
    answer = json.loads(out)
    assert (answer["wdl"], answer["dtz"], answer["halfmove_clock"]) == (2, 17, 90)
