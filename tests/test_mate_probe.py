"""The prover inside the tree (solver.search.mate_probe): checks-only mates found with their
length, checked move by move with python-chess; failures remembered; budgets and stops kept;
and a search with the probe on never claims a mate shorter than the problem's."""
from __future__ import annotations

import chess
import numpy as np
import pytest

import games
from solver.search import alphabeta as ab
from solver.search.mate_probe import MATE_PROBE_PLIES, missed_before, new_misses, probe_mate
from solver.search.player import Limits, Player

CHESS = games.get("chess")
NODES, STOP = 0, 1


def _probe(fen: str, node_limit: int = 1_000_000, stop: bool = False, misses=None, quiet_first: bool = False):
    position = CHESS.parse_position(fen)
    positions = np.zeros((ab.PLY_ROWS + 1, CHESS.position_width), dtype=np.uint64)
    positions[0] = position
    moves = np.zeros((ab.PLY_ROWS, CHESS.max_moves), dtype=np.int32)
    counters = np.zeros(2, dtype=np.int64)
    counters[STOP] = int(stop)
    misses = new_misses() if misses is None else misses
    kernels = CHESS.kernels
    plies, move = probe_mate(kernels.legal_moves, kernels.play, kernels.outcome, CHESS.player.gives_check,
                             positions, moves, counters, misses, np.uint64(CHESS.hash(position)), 0,
                             MATE_PROBE_PLIES, node_limit, NODES, STOP, quiet_first)
    return int(plies), int(move), int(counters[NODES]), misses, position


def _mates(board: chess.Board, plies: int, checks_only: bool) -> bool:
    """python-chess's own AND/OR search: the side to move mates within ``plies`` (with
    ``checks_only``, by checks alone; the defender tries every reply)."""
    if plies <= 0:
        return False
    for move in board.legal_moves:
        if checks_only and not board.gives_check(move):
            continue
        board.push(move)
        try:
            if board.is_checkmate() or (plies > 2 and not board.is_game_over() and all(
                    _after(board, reply, plies - 2, checks_only) for reply in board.legal_moves)):
                return True
        finally:
            board.pop()
    return False


def _checks_mate(board: chess.Board, plies: int) -> bool:
    return _mates(board, plies, checks_only=True)


def _after(board: chess.Board, reply: chess.Move, plies: int, checks_only: bool = True) -> bool:
    board.push(reply)
    try:
        return _mates(board, plies, checks_only)
    finally:
        board.pop()


def _problems(path, limit):
    for line in path.read_text().splitlines()[:limit]:
        fields = line.split(";")
        fen = " ".join(line.split()[:4]) + " 0 1"
        moves = int(next(f for f in fields if f.strip().startswith("dm")).split()[1])
        yield fen, moves


@pytest.mark.parametrize("name", ["mate-in-2.epd", "mate-in-3.epd"])
def test_a_probe_finds_checks_only_mates_with_their_length_and_never_a_false_one(oracle_data, name):
    found = 0
    for fen, moves in _problems(oracle_data(f"chess/{name}"), 60):
        plies, move, nodes, _, position = _probe(fen)
        board = chess.Board(fen)
        if plies == 0:
            # None within the probe's reach: python-chess finds no checks-only mate either.
            assert not _checks_mate(board, 2 * moves - 1), fen
            continue
        found += 1
        # Never shorter than the problem's mate (it is the shortest), and the first move
        # checks and mates within the rest, as python-chess confirms.
        assert plies >= 2 * moves - 1 and plies % 2 == 1, fen
        uci = chess.Move.from_uci(CHESS.format_move(position, move))
        assert uci in board.legal_moves and board.gives_check(uci), fen
        board.push(uci)
        assert board.is_checkmate() or all(_after(board, reply, plies - 2) for reply in board.legal_moves), fen
    assert found >= 20  # most problems of these sets end in a run of checks


@pytest.mark.parametrize("fen", ["5R2/8/8/8/1K6/8/8/k7 w - - 0 1", "8/8/7R/8/8/6K1/8/5k2 w - - 0 1",
                                 "2K5/k7/8/8/8/8/8/5R2 w - - 0 1"])
def test_a_decisive_probe_finds_a_mate_that_starts_with_a_quiet_move(fen):
    # KRvK mates in two whose first move is quiet: no run of checks mates in two or three.
    board = chess.Board(fen)
    assert not _checks_mate(board, 5) and _mates(board, 3, checks_only=False)
    assert _probe(fen)[:2] == (0, -1)
    plies, move, nodes, _, position = _probe(fen, quiet_first=True)
    assert plies == 3
    uci = chess.Move.from_uci(CHESS.format_move(position, move))
    assert not board.gives_check(uci)
    board.push(uci)
    assert all(_after(board, reply, 1, checks_only=False) for reply in board.legal_moves)


def test_a_quiet_position_has_no_probe_mate_and_is_remembered():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    plies, move, nodes, misses, position = _probe(fen)
    assert (plies, move) == (0, -1)
    assert missed_before(misses, np.uint64(CHESS.hash(position)))
    assert not missed_before(new_misses(), np.uint64(CHESS.hash(position)))


def test_a_probe_keeps_its_node_limit_and_a_stopped_probe_is_not_remembered():
    fen = "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1"  # mate in 3 by checks
    assert _probe(fen)[0] == 5
    plies, move, nodes, misses, position = _probe(fen, node_limit=10)
    assert (plies, move) == (0, -1) and nodes <= 10
    plies, move, nodes, misses, position = _probe(fen, stop=True)
    assert (plies, move) == (0, -1)
    assert not missed_before(misses, np.uint64(CHESS.hash(position)))


def test_a_search_with_the_probe_never_claims_a_mate_shorter_than_the_shortest(oracle_data):
    player = Player(CHESS, hash_mb=8, switches={"mate_probe": True})
    probes = 0
    for fen, moves in _problems(oracle_data("chess/mate-in-3.epd"), 80):
        player.new_game()
        result = player.search(CHESS.parse_position(fen), Limits(depth=5))
        probes += player.last_stats["mate_probes"]
        if result.mate is not None:
            assert result.mate >= moves, fen
    assert probes > 0


def test_the_probe_is_off_by_default_and_counts_nothing_then():
    player = Player(CHESS, hash_mb=1)
    player.search(CHESS.parse_position("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1"),
                  Limits(depth=4))
    assert player.last_stats["mate_probes"] == 0 and player.last_stats["mate_probe_nodes"] == 0
