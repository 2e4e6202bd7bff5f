"""play: the incremental Zobrist hash always equals the hash from scratch; transpositions hash
equally; counters and castling rights follow the moves."""
from __future__ import annotations

import random

import numpy as np

import games
from games.chess import hash_from_scratch
from games.chess.position import CASTLING, HASH

GAME = games.get("chess")
CHESS960 = games.get("chess", chess960=True)
# Starting points rich in castling, en passant and promotions.
STARTS = [
    "startpos",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1",
    "4k3/PPP5/8/8/8/8/5ppp/4K3 w - - 0 1",
]


def test_incremental_hash_equals_hash_from_scratch_in_random_playouts():
    rng = random.Random(11)
    checked = 0
    for game, start in [(GAME, s) for s in STARTS] + [(CHESS960, "rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w KQkq - 0 1")]:
        for _ in range(15):
            position = game.parse_position(start)
            assert position[HASH] == hash_from_scratch(position)
            for _ in range(120):
                moves = game.legal_moves(position)
                if not moves:
                    break
                position = game.play(position, rng.choice(moves))
                assert position[HASH] == hash_from_scratch(position)
                checked += 1
    assert checked > 5000


def test_transpositions_hash_equally_and_the_hash_ignores_counters():
    a = GAME.play_moves(GAME.start_position(), ["g1f3", "g8f6", "b1c3", "b8c6"])
    b = GAME.play_moves(GAME.start_position(), ["b1c3", "b8c6", "g1f3", "g8f6"])
    assert GAME.hash(a) == GAME.hash(b)
    back = GAME.play_moves(GAME.start_position(), ["g1f3", "g8f6", "f3g1", "f6g8"])
    assert GAME.hash(back) == GAME.hash(GAME.start_position())
    assert GAME.format_position(back).endswith("4 3")


def test_hash_distinguishes_side_castling_and_en_passant():
    base = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    variants = [base, base.replace(" w ", " b "), base.replace("KQkq", "Qkq"), base.replace("KQkq", "-")]
    assert len({GAME.hash(GAME.parse_position(f)) for f in variants}) == 4
    with_ep = GAME.parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    without = GAME.parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2")
    assert GAME.hash(with_ep) != GAME.hash(without)


def test_rook_moves_and_captures_remove_castling_rights():
    position = GAME.parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    after = GAME.play_moves(position, ["a1a8"])
    assert GAME.format_position(after) == "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1"
    after = GAME.play_moves(position, ["e1e2"])
    assert GAME.format_position(after).split()[2] == "kq"
    assert int(after[CASTLING]) == (1 << 56) | (1 << 63)


def test_promotion_en_passant_and_clocks():
    position = GAME.parse_position("4k3/1P6/8/3pP3/8/8/8/4K2R w K d6 7 20")
    assert GAME.format_position(GAME.play_moves(position, ["e5d6"])) == "4k3/1P6/3P4/8/8/8/8/4K2R b K - 0 20"
    assert GAME.format_position(GAME.play_moves(position, ["b7b8n"])) == "1N2k3/8/8/3pP3/8/8/8/4K2R b K - 0 20"
    assert GAME.format_position(GAME.play_moves(position, ["h1h2", "e8d8"])) == "3k4/1P6/8/3pP3/8/8/7R/4K3 w - - 9 21"
    assert np.array_equal(GAME.play_moves(position, ["e1g1"])[:8],
                          GAME.parse_position("4k3/1P6/8/3pP3/8/8/8/5RK1 b - - 8 20")[:8])
