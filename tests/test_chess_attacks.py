"""Sliding and stepping attacks against a slow ray-walking reference."""
from __future__ import annotations

import random

from games.chess.attacks import bishop_attacks, queen_attacks, rook_attacks
from games.chess.tables import BISHOP_DIRECTIONS, ROOK_DIRECTIONS, ray_attacks


def test_slider_attacks_match_ray_walking():
    rng = random.Random(1)
    for _ in range(3000):
        occupied = rng.getrandbits(64) & rng.getrandbits(64)
        square = rng.randrange(64)
        rook = ray_attacks(square, occupied, ROOK_DIRECTIONS)
        bishop = ray_attacks(square, occupied, BISHOP_DIRECTIONS)
        assert rook_attacks(occupied, square) == rook
        assert bishop_attacks(occupied, square) == bishop
        assert queen_attacks(occupied, square) == rook | bishop
