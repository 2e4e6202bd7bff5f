"""Connect Four kernels and notation."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, strategies as st

import games
from games.connect4 import ConnectFour
from games.perft import perft
from tests.reference_games import ConnectFourReference, connect4_reference_perft

GAME = games.get("connect4")


@pytest.mark.parametrize("depth, nodes", [(0, 1), (1, 7), (2, 49), (3, 343), (4, 2401), (5, 16807),
                                          (6, 117649), (7, 823536)])
def test_perft_from_the_empty_board(depth, nodes):
    # 7^d until depth 7, where the first four-in-a-row games end (from the issue)
    assert perft(GAME, GAME.start_position(), depth) == nodes


@pytest.mark.parametrize("depth", [8, 9])
def test_deep_perft_agrees_with_the_naive_reference(depth):
    assert perft(GAME, GAME.start_position(), depth) == connect4_reference_perft("", depth)


def test_perft_from_random_positions_agrees_with_the_naive_reference():
    rng = random.Random(11)
    reference = ConnectFourReference()
    for _ in range(30):
        sequence = ""
        for _ in range(rng.randrange(0, 36)):
            moves = sorted(reference.legal_moves(sequence))
            if not moves:
                break
            sequence += rng.choice(moves)
        position = GAME.parse_position(sequence)
        assert perft(GAME, position, 5) == connect4_reference_perft(sequence, 5), sequence


@pytest.mark.parametrize("width, height", [(4, 4), (5, 4), (6, 5), (8, 7), (9, 6)])
def test_other_board_sizes_agree_with_the_naive_reference(width, height):
    game = ConnectFour(width, height)
    depth = 6 if width <= 6 else 5
    assert perft(game, game.start_position(), depth) == connect4_reference_perft("", depth, width, height)


def test_unsupported_board_size_is_refused():
    with pytest.raises(ValueError):
        ConnectFour(10, 6)


def test_full_board_is_a_draw_and_has_no_moves():
    rng = random.Random(5)
    draws = 0
    for _ in range(3000):
        position = GAME.start_position()
        while GAME.legal_moves(position):
            position = GAME.play(position, rng.choice(GAME.legal_moves(position)))
        if GAME.outcome(position) == games.DRAW:
            draws += 1
            assert int(position[2]) & 0xFF == 42
    assert draws > 0


@given(st.lists(st.integers(1, 7), max_size=42))
def test_parser_replays_or_refuses(columns):
    text = "".join(map(str, columns))
    reference = ConnectFourReference()
    expected_ok = True
    sequence = ""
    for char in text:
        if char not in reference.legal_moves(sequence):
            expected_ok = False
            break
        sequence += char
    if expected_ok:
        position = GAME.parse_position(text)
        assert np.array_equal(GAME.parse_position(GAME.format_position(position)), position)
    else:
        with pytest.raises(games.NotationError):
            GAME.parse_position(text)


@given(st.text(max_size=10))
def test_parser_never_crashes(text):
    try:
        GAME.parse_position(text)
    except games.NotationError:
        pass


@pytest.mark.parametrize("text, problem", [
    ("4453x", "column digits"),
    ("0", "column digits"),
    ("8", "column digits"),
    ("4444444", "full"),
    ("12121212", "already over"),  # both would have four: moves after the first four refused
])
def test_malformed_positions_are_refused_with_a_reason(text, problem):
    with pytest.raises(games.NotationError, match=problem):
        GAME.parse_position(text)
