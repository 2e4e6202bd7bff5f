"""The generic un-move engine (retrograde.unmove) against the forward engine, on tic-tac-toe
(chess is compared with Syzygy and Gaviota in test_retrograde_chess.py)."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from databases.families import get_family
from retrograde.build import solve_table
from retrograde.forward import solve_forward
from retrograde.progress import Silent
from retrograde.tables import ChildCodes
from retrograde.unmove import has_byte, solve_by_unmoves


@pytest.fixture(scope="module")
def tictactoe():
    return get_family("tictactoe")


def test_unmoves_agree_with_forward_passes_code_for_code(tictactoe):
    no_children = np.zeros(0, dtype=np.uint16), np.zeros(0, dtype=np.int64)
    forward = solve_forward(tictactoe, "all", *no_children, 0, Silent())
    unmoves = solve_by_unmoves(tictactoe, "all", ChildCodes(*no_children), Silent())
    assert np.array_equal(forward, unmoves)
    # not trivially equal: wins, losses and draws at several distances
    assert len(np.unique(unmoves)) >= 8


def test_unmove_results_do_not_depend_on_threads(tictactoe):
    no_children = np.zeros(0, dtype=np.uint16), np.zeros(0, dtype=np.int64)
    before = numba.get_num_threads()
    try:
        results = []
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            results.append(solve_by_unmoves(tictactoe, "all", ChildCodes(*no_children), Silent()))
    finally:
        numba.set_num_threads(before)
    assert all(np.array_equal(results[0], r) for r in results[1:])


def test_builder_uses_unmoves_when_the_family_offers_them(tictactoe, tmp_path):
    codes, method = solve_table(tictactoe, "all", tmp_path, Silent())
    assert method == "unmove"


def test_builder_falls_back_to_forward_passes_without_unmoves(tictactoe, tmp_path, monkeypatch):
    monkeypatch.setattr(tictactoe, "unmoves", None)
    codes, method = solve_table(tictactoe, "all", tmp_path, Silent())
    assert method == "forward"
    monkeypatch.undo()
    assert np.array_equal(codes, solve_table(tictactoe, "all", tmp_path, Silent())[0])


@pytest.mark.parametrize("value", [0, 1, 2, 127, 128, 254, 255])
def test_has_byte_finds_a_byte_in_any_lane(value):
    for lane in range(8):
        word = np.uint64(0x0101010101010101) * np.uint64(value ^ 0x5A)  # no lane holds value
        assert not has_byte(word, value)
        word ^= np.uint64((value ^ (value ^ 0x5A)) << (8 * lane))
        assert has_byte(word, value)
