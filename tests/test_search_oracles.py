"""The player's oracles: endgame tables at the leaves and at the root (checked against Gaviota's
distance-to-mate tables from $SOLVER_ORACLE_DATA), the 50-move rule over table wins, a bounded
page cache, df-pn for `mate` limits and root proofs, and the same code on tic-tac-toe and
Connect Four."""
from __future__ import annotations

import json
import random

import chess
import chess.gaviota
import pytest

import games
from retrograde.build import build_tables
from solver.cli import main
from solver.search.player import Limits, Player
from solver.search.scores import is_mate, mate_in_moves
from solver.search.scores import KNOWN_WIN_BOUND, MATE, MATE_BOUND, table_score
from solver.search.table_leaves import EndgameTables
from tests.conftest import quickest_mating_moves
from databases import format as F

CHESS = games.get("chess")
KQK = "8/8/3k4/8/8/8/8/K1Q5 w - - 0 1"  # white mates in 17 plies (Gaviota)
# Not covered by KQvK/KRvK tables (four pieces), but Qxb4+ leads into KQvK at once.
QUEEN_TAKES_KNIGHT = "8/8/3k4/8/1n6/8/8/K3Q3 w - - 0 1"
MATE_IN_3 = "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1"  # Bc5+ mates in 3


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("db")
    build_tables("chess", ["KQvK", "KRvK"], root, show_progress=False)
    build_tables("tictactoe", None, root, show_progress=False)
    return root


@pytest.fixture(scope="module")
def tables(db):
    return EndgameTables(CHESS, db, cache_megabytes=8)


@pytest.fixture(scope="module")
def gaviota(oracle_data):
    with chess.gaviota.open_tablebase(str(oracle_data("chess/gaviota"))) as tablebase:
        yield tablebase


def random_positions(pieces: str, count: int, seed: int) -> list[str]:
    """Legal, not-yet-finished positions of White K + ``pieces`` against a bare king."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + len(pieces))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square, symbol in zip(squares[2:], pieces):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid() and not board.is_game_over():
            found.append(board.fen())
    return found


def test_table_scores_follow_the_bands():
    win_in_9, loss_in_8 = F.encode(1, 9), F.encode(-1, 8)
    assert table_score(F.CODE_DRAW, 3, 0, 100) == 0
    assert table_score(win_in_9, 2, 0, 100) == MATE - 11
    assert table_score(loss_in_8, 2, 0, 100) == -(MATE - 10)
    # The 50-move rule leaves too few plies: still a win, but not a mate the engine claims.
    not_claimable = table_score(win_in_9, 2, 95, 100)
    assert KNOWN_WIN_BOUND <= not_claimable < MATE_BOUND
    assert table_score(F.encode(1, 5), 2, 95, 100) > not_claimable  # shorter stays better
    assert table_score(win_in_9, 2, 95, 0) == MATE - 11  # a game without the rule


def test_root_is_played_from_the_tables_at_once(tables, gaviota):
    position = CHESS.parse_position(KQK)
    player = Player(CHESS, hash_mb=1, tables=tables)
    result = player.search(position, Limits(depth=20))
    assert result.nodes == 0 and result.tbhits > 0
    dtm = gaviota.probe_dtm(chess.Board(KQK))
    assert result.mate == (dtm + 1) // 2 == 9
    # The principal variation is the tables' mate, move for move, ending in checkmate.
    end = CHESS.play_moves(position, CHESS.format_moves(position, result.pv))
    assert len(result.pv) == dtm and CHESS.outcome(end) == -1


@pytest.mark.parametrize("pieces", ["Q", "R", "q", "r"])
def test_root_moves_keep_the_value_and_shorten_the_mate(tables, gaviota, pieces):
    player = Player(CHESS, hash_mb=1, tables=tables)
    for fen in random_positions(pieces, 25, seed=len(pieces) + ord(pieces)):
        board = chess.Board(fen)
        dtm = gaviota.probe_dtm(board)
        result = player.search(CHESS.parse_position(fen), Limits(depth=3))
        board.push_uci(CHESS.format_move(CHESS.parse_position(fen), result.best))
        after = gaviota.probe_dtm(board)
        if dtm > 0:  # a win: the quickest mate
            assert after == -(dtm - 1) and result.mate == (dtm + 1) // 2, fen
        elif dtm < 0:  # a loss: the slowest
            assert after == -dtm - 1 and result.mate == -((-dtm) // 2), fen
        else:
            assert after == 0 and result.score == 0, fen


def test_fifty_move_counter_turns_a_far_mate_into_a_cursed_win(tables):
    # Mate in 17 plies, no capture or pawn move on the way, 5 plies left on the count: the
    # DTZ50 tables call it drawn, a hair above a draw (the opponent may still go wrong).
    from solver.search.scores import CURSED_SCORE

    position = CHESS.parse_position(KQK.replace(" 0 1", " 95 60"))
    result = Player(CHESS, hash_mb=1, tables=tables).search(position, Limits(depth=5))
    assert result.mate is None and result.score == CURSED_SCORE


def test_a_repetition_at_the_root_counts_as_a_draw(tables):
    # Black, mated in the end, may repeat an earlier position: the tables' longest loss loses to it.
    position = CHESS.parse_position("8/8/3k4/8/8/8/8/K1Q5 b - - 0 1")
    player = Player(CHESS, hash_mb=1, tables=tables)
    plain = player.search(position, Limits(depth=3))
    child = CHESS.play(position, plain.best)
    repeated = player.search(position, Limits(depth=3), history=[CHESS.hash(child)])
    assert plain.mate is not None and plain.mate < 0
    assert repeated.score == 0 and CHESS.hash(CHESS.play(position, repeated.best)) == CHESS.hash(child)


@pytest.fixture(scope="module")
def pawn_tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("kpk")
    build_tables("chess", ["KPvK"], root, show_progress=False)
    return EndgameTables(CHESS, root, cache_megabytes=8)


def test_a_drawn_root_is_searched_among_the_moves_that_hold(pawn_tables, syzygy):
    # Black holds with Kf4, Ke4 or Ke3 and loses with any other move. The tables call every
    # holding move a draw, so the search ranks them (the first in move order would throw away
    # every chance the opponent gives); the result stays the tables' draw.
    fen = "K7/8/8/8/8/5k2/2P5/8 b - - 0 1"
    board = chess.Board(fen)
    holding = set()
    for move in board.legal_moves:
        board.push(move)
        if syzygy.probe_wdl(board) == 0:
            holding.add(move.uci())
        board.pop()
    assert holding == {"f3f4", "f3e4", "f3e3"}
    result = Player(CHESS, hash_mb=1, tables=pawn_tables).search(CHESS.parse_position(fen), Limits(depth=6))
    assert result.nodes > 0 and result.depth == 6 and result.score == 0
    assert [iteration.score for iteration in result.iterations] == [0] * len(result.iterations) != []
    assert CHESS.format_move(CHESS.parse_position(fen), result.best) in holding


@pytest.fixture(scope="module")
def unpacked_db(tmp_path_factory):
    root = tmp_path_factory.mktemp("unpacked")
    build_tables("chess", ["KQvK", "KRvK"], root, show_progress=False, pack=False)
    return root


@pytest.fixture(scope="module")
def unpacked_tables(unpacked_db):
    return EndgameTables(CHESS, unpacked_db, cache_megabytes=8)


def test_tables_without_packs_find_a_mate_the_horizon_hides(unpacked_tables):
    # Without the packed WDL50, the search probes the pages: a mate distance for every leaf.
    position = CHESS.parse_position(QUEEN_TAKES_KNIGHT)
    without = Player(CHESS, hash_mb=4).search(position, Limits(depth=4))
    with_tables = Player(CHESS, hash_mb=4, tables=unpacked_tables).search(position, Limits(depth=4))
    assert unpacked_tables.packs is None
    assert without.mate is None  # a mate in 10 or so: beyond four plies
    assert with_tables.mate is not None and with_tables.mate > 0 and with_tables.tbhits > 0
    assert CHESS.format_move(position, with_tables.best) == "e1b4"
    # The PV runs on through the tables to the checkmate.
    end = CHESS.play_moves(position, CHESS.format_moves(position, with_tables.pv))
    assert CHESS.outcome(end) == -1 and len(with_tables.pv) == 2 * with_tables.mate - 1


def test_packed_tables_inside_the_search_find_a_win_the_horizon_hides(tables):
    # With the packed WDL50, a leaf right after the capture is a win under the 50-move rule:
    # the oracle band (no distance in a WDL), found without a page read in the search.
    from solver.search.scores import KNOWN_WIN_BOUND, MATE_BOUND

    position = CHESS.parse_position(QUEEN_TAKES_KNIGHT)
    assert tables.packs is not None and tables.packs.tables == 3  # KvK, KQvK, KRvK
    before = tables.pages_loaded
    result = Player(CHESS, hash_mb=4, tables=tables).search(position, Limits(depth=4))
    assert KNOWN_WIN_BOUND <= result.score < MATE_BOUND and result.tbhits > 0
    assert CHESS.format_move(position, result.best) == "e1b4"
    assert tables.pages_loaded == before  # the search read no page
    # The PV still runs on through the tables to the checkmate.
    end = CHESS.play_moves(position, CHESS.format_moves(position, result.pv))
    assert CHESS.outcome(end) == -1


def test_a_table_hit_in_quiescence_is_stored_for_the_next_visit(tables):
    # Qxb4 takes the knight without check: at depth 1 its child is left to quiescence, whose
    # table hit (KQvK, lost for Black) goes into the transposition table.
    from games.chess.position import hash_position
    from solver.search import transposition as tt
    from solver.search.scores import from_table

    position = CHESS.parse_position("7k/8/8/8/1n6/8/8/K3Q3 w - - 0 1")
    player = Player(CHESS, hash_mb=4, tables=tables)
    result = player.search(position, Limits(depth=1))
    assert CHESS.format_move(position, result.best) == "e1b4" and result.tbhits > 0
    child = CHESS.play_moves(position, ["e1b4"])
    slot = tt.probe(player.table.table, hash_position(child))
    assert slot >= 0
    word = tt.entry(player.table.table, slot)
    assert tt.entry_bound(word) == tt.BOUND_EXACT
    assert -MATE_BOUND < from_table(tt.entry_score(word), 1) <= -KNOWN_WIN_BOUND


def test_a_tiny_page_cache_bounds_memory_and_loses_nothing(unpacked_db):
    # (the pages are what the search probes where no table is packed)
    small = EndgameTables(CHESS, unpacked_db, cache_megabytes=0.05)  # two pages
    assert small.database.cache.arena.nbytes <= 0.05 * 2**20 * 1.01 or small.database.cache.slots == 2
    position = CHESS.parse_position(QUEEN_TAKES_KNIGHT)
    result = Player(CHESS, hash_mb=4, tables=small).search(position, Limits(depth=6))
    assert result.mate is not None and result.mate > 0 and small.pages_loaded > 0
    assert small.database.cache.slots == 2


def test_mate_limit_is_answered_by_proof():
    position = CHESS.parse_position(MATE_IN_3)
    result = Player(CHESS, hash_mb=4).search(position, Limits(mate=3))
    assert result.mate == 3 and CHESS.format_move(position, result.best) == "f8c5"


def test_a_mate_limit_below_one_move_is_refused_clearly():
    with pytest.raises(ValueError, match="at least 1 move"):
        Limits(mate=0)
    with pytest.raises(ValueError, match="at least 1 ply"):
        Limits(depth=0)


def test_mate_limit_without_a_mate_ends_at_the_bound():
    result = Player(CHESS, hash_mb=4).search(CHESS.start_position(), Limits(mate=2))
    assert result.mate is None and result.depth <= 3 and result.best is not None


def test_prover_at_the_root_finds_a_mate_beyond_the_depth():
    position = CHESS.parse_position(MATE_IN_3)
    alone = Player(CHESS, hash_mb=4).search(position, Limits(depth=2))
    proved = Player(CHESS, hash_mb=4, prover_nodes=20_000).search(position, Limits(depth=2))
    assert alone.mate is None
    assert proved.mate == 3 and CHESS.format_move(position, proved.best) == "f8c5"


def test_prover_on_the_clock_leaves_level_positions_to_the_search():
    # A level middlegame: a prover given the move's time would leave the search at depth 1 (the
    # bug the prover-on match showed: every game lost), and even a quarter of it cost a ply.
    position = CHESS.parse_position("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    player = Player(CHESS, hash_mb=16, prover_nodes=10_000_000)
    result = player.search(position, Limits(time=2.0, optimum=1.0))
    assert result.depth >= 4
    assert player._prover_seconds == 0


def test_prover_on_the_clock_works_once_the_search_is_winning():
    # KQvK, mate in 7 by the tables: the search scores it decisive, so the prover gets time,
    # proves the win and reports a mate; its time stays within the search's own.
    position = CHESS.parse_position("8/1k6/3Q4/7K/8/8/8/8 w - - 0 1")
    player = Player(CHESS, hash_mb=16, prover_nodes=10_000_000)
    result = player.search(position, Limits(time=4.0, optimum=2.0))
    assert player._prover_seconds > 0
    # df-pn checks its clock between chunks of work sized from its node rate so far: on a busy
    # machine the last chunk may overrun by a tenth of a second or so.
    assert player._prover_seconds <= result.seconds - player._prover_seconds + 0.25
    assert result.mate is not None and result.mate >= 7


def test_a_proven_mate_stays_the_answer_when_the_prover_gets_no_more_time():
    # Once df-pn has proven a mate, a later iteration whose own score is not decisive (or with
    # no prover time left) must still play the proof's move: forgetting it played a non-mating
    # move after "score mate 16" had been reported.
    import time

    position = CHESS.parse_position(MATE_IN_3)
    player = Player(CHESS, hash_mb=4, prover_nodes=20_000)
    assert player.search(position, Limits(depth=1)).mate == 3
    root_moves = [int(move) for move in CHESS.legal_moves(position)]
    kept = player._prover_at_root(Limits(time=1.0), time.monotonic(), root_moves, score=0)
    assert kept is not None and CHESS.format_move(position, kept[0]) == "f8c5"
    assert is_mate(kept[1]) and mate_in_moves(kept[1]) == 3


def test_a_stop_before_the_search_starts_is_not_lost():
    import threading

    stop = threading.Event()
    stop.set()  # as a UCI stop that arrives while the search thread is still setting up
    result = Player(CHESS, hash_mb=4).search(CHESS.start_position(), Limits(depth=12), stop_requested=stop)
    assert result.best is not None and result.depth < 12 and result.nodes <= 4096  # the first poll


def test_tictactoe_plays_from_its_table(db):
    game = games.get("tictactoe")
    tables = EndgameTables(game, db)
    position = game.parse_position("xx.oo....")
    result = Player(game, hash_mb=1, tables=tables).search(position, Limits(depth=9))
    assert game.format_move(position, result.best) == "3" and result.mate == 1 and result.nodes == 0


def test_connect4_prover_proves_a_win():
    game = games.get("connect4")
    position = game.parse_position("4455")  # the first player wins at once on 3 or 6
    player = Player(game, hash_mb=1, prover_nodes=10_000)
    result = player.search(position, Limits(depth=1))
    assert result.mate == 2


def test_cli_search_db_and_mate(db, capsys, gaviota):
    assert main(["search", "chess", KQK, "--db", str(db), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["best"] in quickest_mating_moves(KQK, gaviota) and result["mate"] == 9 and result["tbhits"] > 0
    assert main(["search", "chess", MATE_IN_3, "--mate", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["best"] == "f8c5" and result["mate"] == 3


def test_cli_search_bad_db_is_one_line(tmp_path, capsys):
    assert main(["search", "chess", KQK, "--db", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no database directory" in err
    assert main(["search", "connect4", "startpos", "--db", str(tmp_path)]) == 2
    assert "no endgame tables" in capsys.readouterr().err
