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
from games.table_family import GEN_STORE_SIGNATURE
from games.value_codes import GEN_UNKNOWN, stored_code
from retrograde.unmove import (_joined, has_byte, solve_by_unmoves, to_byte_storage,
                               to_split_storage, to_storage)


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


@numba.njit(GEN_STORE_SIGNATURE, cache=True)
def _store_in_place(params, aux, start, stop, codes, out, offset):
    """A store kernel whose storage index is the generation index."""
    for g in range(start, stop):
        code = stored_code(np.int64(codes[g]), offset)
        if code >= 0:
            out[g - start] = code


def test_codes_set_aside_at_later_shifts_keep_their_ninth_bit():
    # Mates past 126 plies have storage codes over 255: from the second shift on they are
    # kept as a byte plus a bit. Three rounds of codes (distances 0-100 from offsets 0, 60
    # and 120) must join into what one two-byte array would hold.
    rng = np.random.default_rng(5)
    size = 3 * 4096 + 77
    params, aux = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64)
    low = np.zeros(size, dtype=np.uint8)
    ninth = np.zeros((size + 7) // 8, dtype=np.uint8)
    wide = np.zeros(size, dtype=np.uint16)
    for round_, offset in enumerate((0, 60, 120)):
        codes = rng.integers(2, 2 + 2 * 101, size).astype(np.uint8)  # decided this round
        codes[rng.random(size) < 0.5 + 0.2 * round_] = GEN_UNKNOWN  # decided later
        if round_ == 0:
            to_byte_storage(_store_in_place, params, aux, codes, low)
        else:
            assert to_split_storage(_store_in_place, params, aux, codes, low, ninth,
                                    offset) <= 511
        to_storage(_store_in_place, params, aux, codes, wide, offset)
    joined = np.empty(size, dtype=np.uint16)
    _joined(low, ninth, joined)
    assert wide.max() > 400 and np.array_equal(joined, wide)


@pytest.mark.parametrize("table", ["KQvKR", "KRRvK", "KBNvK", "KRvKP", "KPPvK"])
def test_wins_by_moves_are_the_wins_by_un_moves(table, tmp_path, monkeypatch):
    # Every level's wins found the other way round (pull_wins, from the second level on)
    # against the un-moves alone (the default picks between them level by level). (The
    # build makes chess tables by retrograde/chess_dtm.py now: the engine is called here.)
    import retrograde.unmove as unmove
    from databases.families import get_family
    from retrograde.build import build_tables
    from retrograde.progress import Silent
    from retrograde.tables import ChildLoader

    pulled = []

    def counted(*args):
        pulled.append(1)
        return original(*args)

    original = unmove.pull_wins
    monkeypatch.setattr(unmove, "pull_wins", counted)
    family = get_family("chess")
    dependencies = family.dependencies(table)
    build_tables("chess", dependencies, tmp_path, show_progress=False, dtz50=False)
    results = []
    for factor in (0.0, float("inf")):
        monkeypatch.setattr(unmove, "PULL_FACTOR", factor)
        children = ChildLoader(tmp_path, family, dependencies)
        results.append(unmove.solve_by_unmoves(family, table, children, Silent()))
    assert pulled, "the wins were never pulled"
    assert np.array_equal(results[0], results[1])


def test_tables_with_en_passant_never_pull_their_wins():
    from games.chess.retrograde_kernels import generation_space

    assert not generation_space("KPvKP").wins_by_moves
    assert generation_space("KRvKP").wins_by_moves and generation_space("KQvKR").wins_by_moves


def test_unresolved_codes_are_counted_in_every_lane():
    from retrograde.unmove import count_unresolved

    codes = np.random.default_rng(5).integers(0, 256, 8 * 3000, dtype=np.uint8)
    codes[:8] = [206, 0, 255, 205, 254, 1, 128, 207]  # the boundary either side of COUNT_BASE
    assert count_unresolved(codes.view(np.uint64)) == np.count_nonzero(codes >= 206)
