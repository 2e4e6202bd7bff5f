"""`solver search` and `solver bench` from the command line: JSON keys, --moves history, batch
stdin, positions without moves, one-line errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


def solver(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "solver", *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


def test_search_json_has_every_key():
    done = solver("search", "chess", "startpos", "--depth", "5", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"best", "score", "mate", "depth", "seldepth", "nodes", "nps", "pv", "seconds",
                           "tbhits"}
    assert result["depth"] == 5 and result["pv"][0] == result["best"] and result["mate"] is None
    assert isinstance(result["score"], int) and result["nodes"] > 0


def test_search_reports_mate_with_null_score():
    done = solver("search", "chess", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "--depth", "4", "--json")
    result = json.loads(done.stdout)
    assert result["best"] == "d1d8" and result["mate"] == 1 and result["score"] is None


def test_search_moves_make_repetitions_count():
    lost = "6k1/8/8/8/8/3q4/8/1N4K1 w - - 0 40"
    done = solver("search", "chess", lost, "--moves", "b1c3", "g8h8", "c3b1", "h8g8", "--depth", "3", "--json")
    result = json.loads(done.stdout)
    assert result["score"] == 0 and result["best"] == "b1c3"  # back to a position of the game: a draw


def test_no_legal_move_answers_best_null_and_the_result():
    mated = json.loads(solver("search", "chess", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "--json").stdout)
    assert mated["best"] is None and mated["result"] == "loss"
    stalemate = json.loads(solver("search", "chess", "7k/8/6QK/8/8/8/8/8 b - - 0 1", "--json").stdout)
    assert stalemate["best"] is None and stalemate["result"] == "draw"
    won = json.loads(solver("search", "tictactoe", "xxxoo....", "--json").stdout)
    assert won["best"] is None and won["result"] == "loss"


@pytest.mark.parametrize("fen", ["4k3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/4KN2 w - - 0 1",
                                 "4k3/8/8/8/8/8/8/2B1K3 b - - 0 1"])
def test_a_dead_position_gets_a_legal_move_scored_as_a_draw(fen):
    import chess

    done = solver("search", "chess", fen, "--depth", "5", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert chess.Move.from_uci(result["best"]) in chess.Board(fen).legal_moves
    assert result["score"] == 0 and result["result"] == "draw" and result["pv"] == [result["best"]]


def test_batch_stdin_answers_each_line_and_errors_inline():
    stdin = "# comment\nstartpos\n\nnot a position\n4453\n"
    done = solver("search", "connect4", "-", "--depth", "4", "--json", stdin=stdin)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["position"] for a in answers] == ["startpos", "not a position", "4453"]
    assert "error" in answers[1] and answers[0]["best"] and answers[2]["best"]
    assert done.returncode == 1


@pytest.mark.parametrize("args, message", [
    (("search", "chess", "no such fen"), "bad chess position"),
    (("search", "go", "startpos"), "unknown game"),
    (("search", "chess", "startpos", "--depth", "0"), "between 1 and 120"),
    (("search", "chess", "startpos", "--time", "-1"), "must be > 0"),
    (("search", "chess", "startpos", "--moves", "e2e5"), "--moves"),
    (("search", "chess", "startpos", "--disable", "magic"), "unknown search feature"),
    (("bench", "--enable", "magic"), "unknown search feature"),
    (("bench", "--depth", "99"), "between 1 and 30"),
])
def test_bad_input_gets_one_line_and_status_2(args, message):
    done = solver(*args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


# The bench signature: `solver bench`'s node count at its default depth. Any change of search
# behaviour changes it; change it here in the same commit, with the Elo the change measured in
# the commit message (as Stockfish's CI checks "Bench: N").
BENCH_SIGNATURE = 1_641_424


def test_bench_signature_is_the_one_written_here():
    result = json.loads(solver("bench", "--json").stdout)
    assert result["depth"] == 11 and result["positions"] == 16
    assert result["nodes"] == BENCH_SIGNATURE, f"bench signature {result['nodes']:,}: update BENCH_SIGNATURE"


def test_bench_signature_is_deterministic():
    first = json.loads(solver("bench", "--depth", "4", "--json").stdout)
    second = json.loads(solver("bench", "--depth", "4", "--json").stdout)
    assert first["nodes"] == second["nodes"] > 0 and first["positions"] == 16
    assert set(first) == {"nodes", "nps", "seconds", "positions", "depth"}


@pytest.mark.parametrize("fen, mate", [
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 0 1", 1),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 0 1", 3),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", None)])
def test_a_reported_mate_comes_with_its_whole_line_to_checkmate(fen, mate):
    import chess

    args = ["--mate", str(mate)] if mate else ["--depth", "4"]
    result = json.loads(solver("search", "chess", fen, *args, "--json").stdout)
    assert result["mate"] is not None and result["mate"] > 0
    assert len(result["pv"]) == 2 * result["mate"] - 1, result["pv"]
    board = chess.Board(fen)
    for move in result["pv"]:
        board.push_uci(move)  # raises for an illegal move
    assert board.is_checkmate()
