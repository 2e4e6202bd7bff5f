"""The df-pn prover inside the tree (solver.search.tree_prover): mates whose attacker needs quiet
moves, which the checks-only probe cannot see, found within their bound and checked move by
move with python-chess; no mate claimed where there is none; proofs kept for the next call.
(A search with it on never claims a mate shorter than the problem's: tests/test_mate_probe.py.)"""
from __future__ import annotations

import chess
import numpy as np
import pytest

import games
from databases.leaves import no_tables
from solver.search.player import Limits, Player
from solver.search.tree_prover import TREE_PROVER_PLIES, clear_tree_prover, new_tree_prover, prove_in_tree
from tests.test_mate_probe import _mates, _probe

CHESS = games.get("chess")


def _prove(fen: str, budget: int = 100_000, prover=None):
    position = CHESS.parse_position(fen)
    prover = new_tree_prover(CHESS, table_mb=1) if prover is None else prover
    kernels = CHESS.kernels
    plies, move, expanded = prove_in_tree(kernels.legal_moves, kernels.play, kernels.outcome, kernels.hash,
                                          kernels.evaluate, no_tables, prover, position, budget)
    return int(plies), int(move), int(expanded), position


# KRvK mates in three whose first move is quiet (every mating first move is, by the tables);
# the attacker's second move may be quiet too.
QUIET_MATES_IN_THREE = ["8/8/8/8/8/8/3K1R2/k7 w - - 0 1", "7k/8/8/6RK/8/8/8/8 w - - 0 1",
                        "8/8/R7/8/3K4/8/8/4k3 w - - 0 1"]


@pytest.mark.parametrize("fen", QUIET_MATES_IN_THREE)
def test_the_tree_prover_finds_quiet_mates_the_checks_only_probe_cannot(fen):
    board = chess.Board(fen)
    assert _mates(board, 5, checks_only=False) and not _mates(board, 3, checks_only=False)
    assert _probe(fen)[:2] == (0, -1) and _probe(fen, quiet_first=True)[:2] == (0, -1)
    plies, move, expanded, position = _prove(fen)
    assert 5 <= plies <= TREE_PROVER_PLIES and expanded > 0
    first = chess.Move.from_uci(CHESS.format_move(position, move))
    assert first in board.legal_moves and not board.gives_check(first)
    board.push(first)
    # The proof's length is an upper bound: every reply leaves a mate within plies - 2.
    assert all(_after_any(board, reply, plies - 2) for reply in board.legal_moves)


def _after_any(board: chess.Board, reply: chess.Move, plies: int) -> bool:
    board.push(reply)
    try:
        return _mates(board, plies, checks_only=False)
    finally:
        board.pop()


def test_no_mate_is_claimed_where_there_is_none_and_the_budget_holds():
    level = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    plies, move, expanded, _ = _prove(level, budget=500)
    assert (plies, move) == (0, -1) and expanded <= 500
    # Mate in four (seven plies) is the bound; a longer one is not claimed.
    assert _prove("8/8/8/4k3/8/8/8/K6R w - - 0 1")[:2] == (0, -1)  # KRvK, mate in 12 or so


def test_proofs_are_kept_across_calls_until_cleared():
    prover = new_tree_prover(CHESS, table_mb=1)
    fen = QUIET_MATES_IN_THREE[0]
    first = _prove(fen, prover=prover)
    again = _prove(fen, prover=prover)
    assert again[:2] == first[:2] and again[2] < first[2]  # the table answers at once
    clear_tree_prover(prover)
    assert _prove(fen, prover=prover)[2] == first[2]


def test_the_tree_prover_is_off_by_default():
    player = Player(CHESS, hash_mb=1)
    player.search(CHESS.parse_position(QUIET_MATES_IN_THREE[0]), Limits(depth=4))
    assert player.last_stats["mate_probes"] == 0 and not np.any(player._tree_prover[7])
