"""`solver serve`: the Lichess tablebase API against Syzygy, Gaviota, lila-tablebase's own
example and our `probe`; the endpoints for the other games and the prover; bad input.

The server runs in a thread of the test process (``serving_in_thread``) on the tables of
``pawn_db`` (KPvKP and the 3-4-piece tables it depends on, with their DTZ50 tables). The
client side is plain HTTP (urllib) and berserk, the Lichess API's Python client.
"""
from __future__ import annotations

import json
import logging
import random
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import chess
import pytest

from databases import open_database
from games.chess.random_positions import random_board
from solver.serve.app import ServeSettings, Worker, serving_in_thread
from solver.serve.categories import Category

# GET /standard of lila-tablebase's README (lichess-org/lila-tablebase, "HTTP API"): the keys
# of a position and of a move, and the values it shows for this position and its first move.
README_FEN = "4k3/6KP/8/8/8/8/7p/8_w_-_-_0_1"
README_ROOT = {"dtz": 1, "precise_dtz": 1, "dtm": 17, "checkmate": False, "stalemate": False,
               "variant_win": False, "variant_loss": False, "insufficient_material": False,
               "category": "win"}
README_FIRST_MOVE = {"uci": "h7h8q", "san": "h8=Q+", "dtz": -2, "precise_dtz": -2, "dtm": -16,
                     "zeroing": True, "checkmate": False, "stalemate": False,
                     "variant_win": False, "variant_loss": False,
                     "insufficient_material": False, "category": "loss"}
POSITION_KEYS = set(README_ROOT) | {"dtc", "dtw", "moves"}
MOVE_KEYS = set(README_FIRST_MOVE) | {"dtc", "dtw", "conversion"}
SYZYGY_CATEGORY = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}


@pytest.fixture(scope="module")
def server(pawn_db, tmp_path_factory):
    settings = ServeSettings(db=pawn_db, proof_dir=tmp_path_factory.mktemp("proofs"))
    with serving_in_thread(settings) as url:
        yield url


def get(url: str) -> tuple[int, str]:
    """Status and body of a GET (errors included)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def get_json(url: str) -> dict:
    status, body = get(url)
    assert status == 200, body
    return json.loads(body)


def standard(server: str, fen: str) -> dict:
    return get_json(f"{server}/standard?" + urllib.parse.urlencode({"fen": fen}))


def test_the_readme_example_through_the_lichess_client(server):
    berserk = pytest.importorskip("berserk")
    answer = berserk.Client(tablebase_url=server).tablebase.standard(README_FEN.replace("_", " "))
    assert set(answer) == POSITION_KEYS
    assert {key: answer[key] for key in README_ROOT} == README_ROOT
    first = answer["moves"][0]
    assert set(first) == MOVE_KEYS
    assert {key: first[key] for key in README_FIRST_MOVE} == README_FIRST_MOVE
    # Underscores for spaces answer the same.
    assert standard(server, README_FEN) == answer


def dtz_agrees(ours: int, theirs: int) -> bool:
    """Equal, or ours one ply further from 0 (python-chess's documented latitude for Syzygy)."""
    return ours == theirs or (theirs > 0 and ours == theirs + 1) or (theirs < 0 and ours == theirs - 1)


def test_answers_agree_with_syzygy_gaviota_and_probe(server, pawn_db, syzygy, gaviota):
    rng = random.Random(39)
    tables = ["KPvKP", "KQvKP", "KPvK", "KQvK", "KRvK"]
    checked = 0
    with open_database(pawn_db, "chess") as db:
        for table in tables:
            for _ in range(12):
                board = random_board(table, rng)
                answer = standard(server, board.fen())
                assert answer["category"] == SYZYGY_CATEGORY[syzygy.probe_wdl(board)], board.fen()
                assert dtz_agrees(answer["dtz"], syzygy.probe_dtz(board)), board.fen()
                assert answer["dtz"] == db.probe_dtz(board) == answer["precise_dtz"]
                assert answer["dtm"] == db.probe_dtm(board)
                if len(board.piece_map()) == 3:
                    assert answer["dtm"] == gaviota.probe_dtm(board), board.fen()
                assert sorted(move["uci"] for move in answer["moves"]) == \
                    sorted(move.uci() for move in board.legal_moves)
                for move in answer["moves"]:
                    board.push_uci(move["uci"])
                    if not board.is_checkmate() and not board.is_insufficient_material():
                        assert move["category"] == SYZYGY_CATEGORY[syzygy.probe_wdl(board)]
                    assert move["dtm"] == db.probe_dtm(board)
                    board.pop()
                ranks = [Category(move["category"]).rank for move in answer["moves"]]
                assert ranks == sorted(ranks), "moves best first"
                if answer["moves"]:
                    assert answer["category"] == Category(answer["moves"][0]["category"]).opposite()
                checked += 1
    assert checked == 60


def test_the_answer_agrees_with_solver_probe(server, pawn_db):
    fens = ["4k3/6KP/8/8/8/8/7p/8 w - - 0 1", "8/8/8/8/8/2k5/1p6/1K6 w - - 0 1",
            "8/8/8/8/8/8/8/K1k5 w - - 0 1"]
    probed = subprocess.run([sys.executable, "-m", "solver", "probe", "chess", "-", "--db",
                             str(pawn_db), "--json"], input="\n".join(fens) + "\n",
                            capture_output=True, text=True, timeout=600)
    assert probed.returncode == 0, probed.stderr
    for fen, line in zip(fens, probed.stdout.splitlines()):
        ours, answer = json.loads(line), standard(server, fen)
        assert (answer["dtz"], answer["dtm"]) == (ours["dtz"], ours["dtm"])
        assert answer["category"] == SYZYGY_CATEGORY[ours["wdl"]]
        if ours["best"] is not None:
            best = [move["uci"] for move in answer["moves"]
                    if move["category"] == answer["moves"][0]["category"]
                    and move["dtm"] == answer["moves"][0]["dtm"]]
            assert ours["best"] in best


def test_the_halfmove_clock_curses_a_win_that_cannot_zero_in_time(server, pawn_db):
    fen = "4k3/8/8/8/8/8/8/4KQ2 w - - {clock} 80"
    dtz = standard(server, fen.format(clock=0))["dtz"]
    assert dtz > 0
    assert standard(server, fen.format(clock=100 - dtz))["category"] == "win"
    late = standard(server, fen.format(clock=101 - dtz))
    assert late["category"] == "cursed-win"
    assert late["moves"][0]["category"] == "blessed-loss"


def test_counters_beyond_the_games_own_parser_keep_the_tables_answer(server, pawn_db):
    # A user's sweep: a halfmove clock of 65535 (and a fullmove number past 2**31) answered
    # "unknown" for a position the tables hold: python-chess took the FEN, the game's parser
    # did not. The tables' values do not depend on the counters; the clock still curses.
    fen = "4k3/8/8/8/8/8/8/4KQ2 w - - {clock} {number}"
    fresh = standard(server, fen.format(clock=0, number=1))
    assert fresh["category"] == "win"
    for clock, number in ((65535, 1), (65536, 1), (0, 2**31)):
        answer = standard(server, fen.format(clock=clock, number=number))
        assert answer["dtz"] == fresh["dtz"] and answer["dtm"] == fresh["dtm"]
        assert answer["category"] == ("win" if clock == 0 else "cursed-win")
        assert "unknown" not in {move["category"] for move in answer["moves"]}


def test_winning_moves_come_first_with_the_quickest_mate(server):
    answer = standard(server, "4k3/8/4K3/8/8/8/8/7Q w - - 0 1")
    first = answer["moves"][0]
    assert first["checkmate"] and first["san"].endswith("#") and first["category"] == "loss"
    losses = [move for move in answer["moves"] if move["category"] == "loss"]
    assert [move["dtm"] for move in losses] == sorted((move["dtm"] for move in losses), reverse=True)


def test_positions_outside_the_tables_are_unknown_with_their_moves(server):
    start = standard(server, chess.STARTING_FEN)
    assert start["category"] == "unknown" and start["dtz"] is None and start["dtm"] is None
    assert len(start["moves"]) == 20
    assert all(move["category"] == "unknown" for move in start["moves"])
    # Five pieces (no such table here), but one capture leads into the tables (KQvKQ).
    five = standard(server, "q3k3/8/8/3p4/8/8/3Q4/4K3 w - - 0 1")
    assert five["dtz"] is None and five["dtm"] is None
    capture = next(move for move in five["moves"] if move["uci"] == "d2d5")
    assert capture["zeroing"] and capture["dtz"] is not None and capture["category"] != "unknown"
    others = [move for move in five["moves"] if move["uci"] != "d2d5"]
    assert all(move["category"] == "unknown" for move in others)


@pytest.mark.parametrize("query, words", [
    ("fen=garbage", "invalid fen"),
    ("", "missing query parameter: fen"),
    ("fen=8/8/8/8/8/8/8/8_w_-_-_0_1", "illegal position"),
    ("fen=4k3/8/8/8/8/8/8/4KQ2_b_-_-_0_1&fen=x", None),  # a second fen is ignored
    ("fen=" + "1" * 5000, "longer than"),
    # issue 74, item 4: counters only in the digits 0-9 (python-chess's int() takes others)
    ("fen=4k3/8/8/8/8/8/8/4KQ2_b_-_-_%D9%A3_1", "move counters"),
    ("fen=4k3/8/8/8/8/8/8/4KQ2_b_-_-_0_%C2%B2", "move counters"),
])
def test_bad_fens_get_one_line_and_400(server, query, words):
    status, body = get(f"{server}/standard?{query}")
    if words is None:
        assert status == 200
        return
    assert status == 400 and words in body
    assert body.count("\n") == 1 and len(body) < 600


def test_a_request_line_too_long_for_the_server_gets_an_error_and_it_keeps_serving(server, caplog):
    with caplog.at_level(logging.INFO, logger="aiohttp.server"):
        status, _ = get(f"{server}/standard?fen=" + "k" * 20000)
    assert 400 <= status < 500
    assert get(f"{server}/standard?fen={README_FEN}")[0] == 200
    # the server's log: one line, no traceback (a user's sweep found aiohttp's in it)
    logged = [record for record in caplog.records if record.name == "aiohttp.server"]
    assert logged and all(record.exc_info is None and "malformed request" in record.getMessage()
                          for record in logged)


def test_status_names_the_database_without_its_path(server, pawn_db):
    # issue 74, item 5: any client could read the server's absolute path
    status, body = get(f"{server}/status")
    assert status == 200 and json.loads(body)["db"] == pawn_db.name and str(pawn_db) not in body


def test_unknown_paths_and_methods(server):
    assert get(f"{server}/nothing")[0] == 404
    request = urllib.request.Request(f"{server}/standard?fen={README_FEN}", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=30)
    assert error.value.code == 405
    # Raw garbage on a connection: the server answers 400 and goes on.
    address = urllib.parse.urlsplit(server)
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(b"\x00\x01 nonsense \r\n\r\n")
        assert b" 400 " in sock.recv(100).split(b"\r\n")[0]
    assert get(f"{server}/standard?fen={README_FEN}")[0] == 200


def test_many_concurrent_clients_all_get_answers(server):
    from concurrent.futures import ThreadPoolExecutor

    fens = [random_board("KQvKP", random.Random(seed)).fen() for seed in range(40)]
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda fen: standard(server, fen), fens))
    assert all(answer["category"] != "unknown" for answer in answers)


def test_a_full_worker_queue_answers_503_at_once():
    import asyncio
    import threading

    from aiohttp import web

    worker = Worker("test", max_queued=1)
    release = threading.Event()

    async def scenario():
        first = asyncio.ensure_future(worker.run(release.wait))
        await asyncio.sleep(0.05)
        with pytest.raises(web.HTTPServiceUnavailable):
            await worker.run(lambda: None)
        release.set()
        await first

    asyncio.run(scenario())
    worker.close()


def test_connect4_values_from_the_prover(server):
    # Pons' convention: columns from the empty board. Here the side to move wins at once by 4.
    answer = get_json(f"{server}/connect4?moves=445566&seconds=5")
    assert answer["category"] == "win"
    assert answer["moves"][0]["move"] == "7" or answer["moves"][0]["move"] == "3"
    assert answer["moves"][0]["category"] == "loss"
    assert get(f"{server}/connect4?moves=4444444")[0] == 400
    assert get(f"{server}/connect4?moves=12&seconds=nan")[0] == 400


def test_tictactoe_values(server):
    answer = get_json(f"{server}/tictactoe?position=xx.oo....")
    assert answer["category"] == "win" and answer["moves"][0]["move"] == "3"
    assert get_json(f"{server}/tictactoe")["category"] == "draw"  # the empty board
    assert get(f"{server}/tictactoe?position=xxx")[0] == 400


def test_prove_links_a_proof_that_the_checker_accepts(server, tmp_path):
    answer = get_json(f"{server}/prove?game=connect4&position=445566&goal=win&seconds=10")
    assert answer["result"] == "proven" and answer["proof"].startswith("/proofs/")
    status, body = get(server + answer["proof"])
    assert status == 200
    path = tmp_path / "proof.json"
    path.write_text(body)
    checked = subprocess.run([sys.executable, "-m", "solver", "check-proof", "connect4", str(path),
                              "--json"], capture_output=True, text=True, timeout=600)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["valid"] is True
    assert get(f"{server}/proofs/../../etc/passwd")[0] == 404
    assert get(f"{server}/prove?game=go")[0] == 400
    assert get(f"{server}/prove?game=chess&position=startpos&seconds=99")[0] == 400
    for depth in ("%C2%B2", "%D9%A3"):  # issue 74: a superscript two answered 500 with a traceback
        assert get(f"{server}/prove?game=tictactoe&position=startpos&max_depth={depth}")[0] == 400


def test_play_gives_the_position_after_a_move(server):
    after = get_json(f"{server}/play?game=chess&position=4k3/8/8/8/8/8/8/4KQ2_w_-_-_0_1&move=f1f7")
    assert after["position"] == "4k3/5Q2/8/8/8/8/8/4K3 b - - 1 1"
    assert get_json(f"{server}/play?game=connect4&position=44&move=5")["position"] == "445"
    assert get(f"{server}/play?game=chess&position=startpos&move=e2e5")[0] == 400


def test_the_page_and_its_files_are_served(server):
    status, page = get(server + "/")
    assert status == 200 and "/static/board.js" in page
    for name in ("board.js", "style.css"):
        assert get(f"{server}/static/{name}")[0] == 200


def test_serve_command_bad_bind_is_one_line_and_status_2():
    result = subprocess.run([sys.executable, "-m", "solver", "serve", "--bind", "nowhere:http"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--bind" in result.stderr


def test_serve_command_on_a_port_in_use_is_one_line_and_status_1(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "solver", "serve", "--db", str(tmp_path),
                                 "--bind", f"127.0.0.1:{port}"], capture_output=True, text=True,
                                timeout=300)
    assert result.returncode == 1
    assert "address in use" in result.stderr and "Traceback" not in result.stderr


def test_an_unknown_root_has_no_numbers_beside_it():
    # issue 74, item 4: with the tables of the moves damaged the root's category is unknown,
    # and lila-tablebase gives its numbers as nulls then
    import games
    from databases.errors import DamagedTableError
    from solver.serve.tablebase import ChessTablebase

    class RootOnly:
        """A database whose tables answer the root (White to move) and fail for its moves."""

        game = games.get("chess")

        def _check(self, position):
            if " b " in self.game.format_position(position):
                raise DamagedTableError("a damaged table")

        def probe(self, position):
            self._check(position)
            return type("Result", (), {"dtm": 17, "wdl": 1})()

        def probe_dtz(self, position):
            self._check(position)
            return 17

    answer = ChessTablebase(RootOnly()).answer(chess.Board(README_FEN.replace("_", " ")))
    assert answer["category"] == "unknown"
    assert (answer["dtz"], answer["precise_dtz"], answer["dtm"]) == (None, None, None)
    assert all(move["category"] == "unknown" and move["dtz"] is None for move in answer["moves"])


def test_the_mainline_plays_dtz_best_moves_to_mate_as_lila_does(server, syzygy):
    # issue 74, item 5: lila-tablebase's /standard/mainline
    status, body = get(f"{server}/standard/mainline?fen={README_FEN}")
    assert status == 200, body
    answer = json.loads(body)
    board = chess.Board(README_FEN.replace("_", " "))
    assert answer["dtz"] == answer["precise_dtz"] == syzygy.probe_dtz(board) == 1
    assert answer["winner"] == "w" and answer["mainline"][0]["uci"] == "h7h8q"
    for step in answer["mainline"]:
        before = board.copy()
        board.push_uci(step["uci"])
        assert step["san"] == before.san(board.peek())
        # the winner's count never runs out: each step reaches a loss within the rule
        assert step["dtz"] == step["precise_dtz"] and (step["dtz"] < 0) == (before.turn == chess.WHITE)
        assert abs(step["dtz"]) + board.halfmove_clock <= 100
        assert syzygy.probe_wdl(board) == (-2 if before.turn == chess.WHITE else 2)
    assert board.is_checkmate() and board.turn == chess.BLACK


def test_the_mainline_of_a_draw_is_empty_and_of_what_no_table_holds_404(server):
    status, body = get(f"{server}/standard/mainline?fen=4k3/8/8/8/8/8/8/4K3_w_-_-_0_1")
    assert status == 200 and json.loads(body) == {"dtz": 0, "precise_dtz": 0, "mainline": [],
                                                  "winner": None}
    status, body = get(f"{server}/standard/mainline?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1")
    assert status == 404 and body.count("\n") == 1
    assert get(f"{server}/standard/mainline?fen=garbage")[0] == 400
