"""The correction history (solver.search.correction): entries move toward what searches found,
within their bounds; the corrected evaluation stays inside the evaluation's; a search with the
switch on learns entries and a new game forgets them; off, nothing is learnt."""
from __future__ import annotations

import numpy as np

import games
from games.kernels import EVAL_LIMIT
from solver.search.correction import (CORRECTION_GRAIN, CORRECTION_MAX, corrected_eval, correction_slot,
                                      learn_correction, new_correction)
from solver.search.player import Limits, Player

CHESS = games.get("chess")
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"


def test_an_entry_moves_toward_the_errors_it_is_taught_and_no_further():
    correction = new_correction()
    slot = correction_slot(np.uint64(12345))
    for _ in range(400):
        learn_correction(correction, slot, 80, 10)
    assert abs(corrected_eval(correction, slot, 0) - 80) <= 2
    for _ in range(400):
        learn_correction(correction, slot, 10_000, 10)  # a huge error teaches at most the cap
    assert corrected_eval(correction, slot, 0) <= CORRECTION_MAX
    assert correction[slot] <= CORRECTION_MAX * CORRECTION_GRAIN
    assert corrected_eval(correction, slot, EVAL_LIMIT - 5) == EVAL_LIMIT - 1


def test_a_deeper_result_weighs_more():
    shallow, deep = new_correction(), new_correction()
    learn_correction(shallow, 0, 100, 1)
    learn_correction(deep, 0, 100, 12)
    assert 0 < shallow[0] < deep[0]


def test_a_search_learns_corrections_only_with_the_switch_and_a_new_game_forgets_them():
    position = CHESS.parse_position(MIDDLEGAME)
    off = Player(CHESS, hash_mb=4)
    off.search(position, Limits(depth=6))
    assert not np.any(off._correction)
    on = Player(CHESS, hash_mb=4, switches={"correction_history": True})
    result = on.search(position, Limits(depth=6))
    assert np.count_nonzero(on._correction) > 0 and result.best is not None
    on.new_game()
    assert not np.any(on._correction)
