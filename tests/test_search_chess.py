"""The player on chess: the mate problems of $SOLVER_ORACLE_DATA (Bill Harvey's collections, via
Alexanderortizcuellar/chess; see ../shared/data/README.md) with the right mate score; draws by
repetition (game history and search path) and by the 50-move rule; legal moves and PVs."""
from __future__ import annotations

import random

import pytest

import games
from games import kernels as K
from solver.search.player import PLAIN, Limits, Player
from solver.search.scores import MATE_BOUND
from tests.test_search_small_games import WITH_MULTI_CUT

CHESS = games.get("chess")


@pytest.fixture(scope="module")
def player():
    return Player(CHESS, hash_mb=16)


def _problems(path):
    for line in path.read_text().splitlines():
        fields = line.split(";")
        fen = " ".join(line.split()[:4])
        moves = int(next(f for f in fields if f.strip().startswith("dm")).split()[1])
        yield fen, moves


@pytest.fixture(scope="module")
def player_with_multi_cut():
    """Multi-cut (off by default) switched on beside the defaults."""
    return Player(CHESS, hash_mb=16, switches=WITH_MULTI_CUT)


@pytest.mark.parametrize("name", ["mate-in-2.epd", "mate-in-3.epd"])
@pytest.mark.parametrize("which", ["defaults", "multi-cut"])
def test_every_mate_problem_is_found_with_its_mate_score(player, player_with_multi_cut, oracle_data,
                                                          name, which):
    problems = list(_problems(oracle_data(f"chess/{name}")))
    assert len(problems) in (221, 489)
    if which == "multi-cut":
        player = player_with_multi_cut
    for fen, moves in problems:
        position = CHESS.parse_position(fen)
        player.new_game()
        # Search until the mate is found (pruning may put it an iteration or two past 2N-1).
        result = player.search(position, Limits(nodes=2_000_000, mate=moves))
        assert result.mate == moves, fen
        assert result.best in CHESS.legal_moves(position)
        # The principal variation is legal and, where it is complete, ends in checkmate.
        line = CHESS.format_moves(position, result.pv)
        assert len(line) == len(result.pv)
        if len(result.pv) == 2 * moves - 1:
            end = CHESS.play_moves(position, line)
            assert CHESS.outcome(end) == K.LOSS, fen


def test_a_mate_in_one_is_found_with_every_feature_switched_off():
    position = CHESS.parse_position("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    result = Player(CHESS, hash_mb=1, switches=PLAIN).search(position, Limits(depth=3))
    assert CHESS.format_move(position, result.best) == "d1d8" and result.mate == 1


def test_a_mate_found_in_an_unfinished_iteration_is_reported():
    # A mate in three (Madame de Remusat against Napoleon, 1802: 1...Bc5+). Between roughly
    # 3,000 and 4,000 nodes the iteration that first sees the mate is cut off after its first
    # root move: the mate is a lower bound of the search's score, and is reported as one.
    position = CHESS.parse_position("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq -")
    player = Player(CHESS, hash_mb=16)
    early = []
    for nodes in range(500, 10_000, 250):
        player.new_game()
        reported = []
        result = player.search(position, Limits(nodes=nodes), on_iteration=reported.append)
        finished_mate = any(iteration.score >= MATE_BOUND for iteration in result.iterations)
        if result.score >= MATE_BOUND:
            assert CHESS.format_move(position, result.best) == "f8c5"
            assert reported[-1].score == result.score
            if not finished_mate:
                assert reported[-1].bound == "lower"
                early.append(nodes)
    assert early, "no node limit cut the mate's iteration short"


@pytest.mark.parametrize("fen", ["8/8/NR6/8/7k/8/8/2K5 w - - 0 1", "1K6/4R3/8/8/4N3/8/8/5k2 w - - 0 1"])
def test_a_mate_the_search_reported_stays_its_result(fen):
    # In these rook-and-knight mates an aspiration fail-high shows a mate (a proof: every
    # defence searched) that the re-search with the wider window misses; before, the search
    # ended on the re-search's +20 pawns.
    position = CHESS.parse_position(fen)
    reported = []
    result = Player(CHESS, hash_mb=16).search(position, Limits(nodes=1_000_000), on_iteration=reported.append)
    best_reported = max(iteration.score for iteration in reported)
    assert best_reported >= MATE_BOUND
    assert result.score == best_reported and reported[-1].score == result.score


# White is a queen down, so every line scores far below zero unless it is a draw.
LOST = "6k1/8/8/8/8/3q4/8/1N4K1 w - - 0 40"


def test_a_move_back_into_the_game_history_is_a_draw(player):
    start = CHESS.parse_position(LOST)
    line = ["b1c3", "g8h8", "c3b1", "h8g8"]
    history, position = [], start
    for text in line:
        history.append(CHESS.hash(position))
        position = CHESS.play(position, CHESS.parse_move(position, text))
    repeat = CHESS.parse_move(position, "b1c3")  # leads back to the position after the first move
    player.new_game()
    alone = player.search(position, Limits(depth=4, moves=[repeat]))
    assert alone.score < -500
    player.new_game()
    with_history = player.search(position, Limits(depth=4, moves=[repeat]), history=history)
    assert with_history.score == 0


def test_repetition_along_the_search_path_is_a_draw(player):
    # White is a rook down (and its king is exposed), but Qe8+ Kh7 Qh5+ Kg8 Qe8+ ... checks forever: the only
    # way the search can see 0 is by finding the repetition inside its own tree.
    position = CHESS.parse_position("6k1/6p1/8/7Q/8/r7/q7/6K1 w - - 0 1")
    assert int(CHESS.kernels.evaluate(position)) < -400
    player.new_game()
    result = player.search(position, Limits(depth=10))
    assert result.score == 0
    assert CHESS.format_move(position, result.best) == "h5e8"


def test_fifty_move_rule_draws_unless_the_hundredth_ply_mates():
    player = Player(CHESS, hash_mb=4)
    clock_99 = LOST.replace(" 0 40", " 99 90")
    result = player.search(CHESS.parse_position(clock_99), Limits(depth=4))
    assert result.score == 0  # every white move that is not a capture reaches the 100th ply
    assert player.search(CHESS.parse_position(LOST), Limits(depth=4)).score < -500
    mate_on_100 = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 99 90"
    result = player.search(CHESS.parse_position(mate_on_100), Limits(depth=3))
    assert result.mate == 1


def test_random_positions_get_legal_moves_and_legal_principal_variations(player):
    rng = random.Random(7)
    for _ in range(40):
        position = CHESS.start_position()
        for _ in range(rng.randrange(0, 60)):
            moves = CHESS.legal_moves(position)
            if not moves:
                break
            position = CHESS.play(position, rng.choice(moves))
        result = player.search(position, Limits(nodes=3000))
        if not CHESS.legal_moves(position):
            assert result.best is None and result.outcome in (K.LOSS, K.DRAW)
            continue
        assert result.best in CHESS.legal_moves(position)
        assert len(CHESS.format_moves(position, result.pv)) == len(result.pv)
        assert result.score is not None and (abs(result.score) < K.EVAL_LIMIT or abs(result.score) >= MATE_BOUND
                                             or result.score == 0)


def test_stop_from_another_thread_returns_a_legal_move_quickly():
    import threading
    import time

    player = Player(CHESS, hash_mb=16)
    position = CHESS.parse_position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    threading.Timer(0.3, player.stop).start()
    started = time.monotonic()
    result = player.search(position, Limits(infinite=True))
    assert time.monotonic() - started < 5
    assert result.best in CHESS.legal_moves(position)
