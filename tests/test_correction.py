"""Correction history (solver/search/correction.py) and the chess key it is learnt under."""
import numpy as np

import games
from games.chess.player import pawn_structure_key
from solver.search.correction import (CORRECTION_GRAIN, CORRECTION_LIMIT, CORRECTION_SIZE, corrected_eval,
                                      correction_slot, learn_correction)
from solver.search.player import Limits, Player
from solver.search.scores import KNOWN_WIN_BOUND

CHESS = games.get("chess")


def key(fen: str) -> int:
    return int(pawn_structure_key(CHESS.parse_position(fen)))


def test_the_chess_key_is_the_pawns_and_the_side_to_move():
    base = key("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    # the same pawns, other pieces elsewhere or gone: the same key
    assert key("r2qkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4") == base
    assert key("4k3/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/4K3 w - - 0 1") == base
    # the other side to move, or one pawn elsewhere: another key, and other low bits
    others = [key("4k3/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/4K3 b - - 0 1"),
              key("4k3/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/4K3 w - - 0 1"),
              key("4k3/ppp2ppp/3p4/4p3/4P3/8/PPPP1PPP/4K3 w - - 0 1")]
    assert len({base, *others}) == 4
    assert len({correction_slot(np.uint64(k)) for k in [base, *others]}) == 4


def test_learning_moves_the_correction_towards_the_error_and_stays_within_its_limit():
    correction = np.zeros(CORRECTION_SIZE, dtype=np.int32)
    slot = 5
    for _ in range(200):
        error = 40 - corrected_eval(correction, slot, 100) + 100  # the truth is 40 cp above the raw 100
        learn_correction(correction, slot, error, 10)
    assert abs(corrected_eval(correction, slot, 100) - 140) <= 1
    for _ in range(500):
        learn_correction(correction, slot, 10_000, 20)
    assert correction[slot] == CORRECTION_LIMIT
    assert corrected_eval(correction, slot, 0) == CORRECTION_LIMIT // CORRECTION_GRAIN
    # a correction never carries an evaluation into the decided bands
    assert corrected_eval(correction, slot, KNOWN_WIN_BOUND - 10) == KNOWN_WIN_BOUND - 1


def test_the_switch_decides_whether_the_search_learns():
    position = CHESS.parse_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    off = Player(CHESS, hash_mb=4)
    on = Player(CHESS, hash_mb=4, switches={"correction_history": True})
    off_result = off.search(position, Limits(depth=7))
    on_result = on.search(position, Limits(depth=7))
    assert not off._correction.any()
    assert np.count_nonzero(on._correction) > 10
    assert off_result.best in CHESS.legal_moves(position) and on_result.best in CHESS.legal_moves(position)
    on.new_game()
    assert not on._correction.any()
