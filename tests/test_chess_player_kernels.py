"""The chess player kernels: noisy_moves against legal_moves filtered by is_noisy (on the perft
suites of $SOLVER_ORACLE_DATA/chess and on random walks), play_null, see, move_order's bands,
reversible_plies."""
from __future__ import annotations

import random

import numpy as np
import pytest

import games
from games.chess.movegen import legal_moves, noisy_moves
from games.chess.player import gives_check, move_keys, move_order, play_null, reversible_plies, see
from games.chess.position import STATE, hash_from_scratch, in_check
from games.chess.rules import is_noisy
from games.kernels import ORDER_NOISY

from tests.test_chess_movegen import CHESS960_IDS, read_perft_file

STANDARD = games.get("chess")
CHESS960 = games.get("chess", chess960=True)
BUFFER = np.empty(256, dtype=np.int32)
NOISY = np.empty(256, dtype=np.int32)


def filtered_legal(position: np.ndarray) -> list[int]:
    """The legal moves is_noisy accepts, in legal_moves order."""
    count = legal_moves(position, BUFFER)
    return [int(m) for m in BUFFER[:count] if is_noisy(position, m)]


def generated_noisy(position: np.ndarray) -> list[int]:
    count = noisy_moves(position, NOISY)
    return [int(m) for m in NOISY[:count]]


def random_walk_positions(seed: int, games_count: int, plies: int) -> list[np.ndarray]:
    """Every position of ``games_count`` random games of up to ``plies`` plies from the start."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games_count):
        position = STANDARD.start_position()
        for _ in range(plies):
            positions.append(position)
            moves = STANDARD.legal_moves(position)
            if not moves:
                break
            # Prefer captures now and then so that the walks reach sparse, tactical boards.
            captures = [m for m in moves if is_noisy(position, np.int32(m))]
            position = STANDARD.play(position, rng.choice(captures if captures and rng.random() < 0.3 else moves))
    return positions


def test_noisy_moves_on_random_walks():
    positions = random_walk_positions(seed=1, games_count=60, plies=160)
    checks = 0
    for position in positions:
        assert generated_noisy(position) == filtered_legal(position)
        checks += bool(in_check(position))
    assert checks > 50  # evasions were covered too


def test_noisy_moves_marked_cases():
    position = STANDARD.parse_position("r3k3/1P6/8/3pP3/8/8/8/R3K2R w KQq d6 0 2")
    names = [STANDARD.format_move(position, m) for m in generated_noisy(position)]
    assert sorted(names) == sorted(["e5d6", "a1a8", "b7a8q", "b7a8r", "b7a8b", "b7a8n", "b7b8q", "b7b8r", "b7b8b",
                                    "b7b8n"])
    # A pinned pawn capturing its pinner, a pinned rook: only along the pin.
    position = STANDARD.parse_position("4k3/8/8/8/1b6/8/3P4/4K2r w - - 0 1")
    assert generated_noisy(position) == filtered_legal(position)


def test_noisy_moves_on_perft_suites(oracle_data):
    cases = (read_perft_file(oracle_data("chess/perft-tricky.perft"))
             + read_perft_file(oracle_data("chess/perft-random.perft")))
    walked = 0
    for case in cases:
        game = CHESS960 if case["id"] in CHESS960_IDS else STANDARD
        position = game.parse_position(case["fen"])
        # The suite position and its children: the children add positions with en passant
        # rights, checks and promotions on the next move.
        assert generated_noisy(position) == filtered_legal(position), case["fen"]
        for move in game.legal_moves(position)[:8]:
            child = game.play(position, move)
            assert generated_noisy(child) == filtered_legal(child), (case["fen"], move)
            walked += 1
    assert walked > 10000


def _check_gives_check(game, position) -> int:
    checks = 0
    for move in game.legal_moves(position):
        expected = bool(in_check(game.play(position, move)))
        assert bool(gives_check(position, np.int32(move))) == expected, (game.format_position(position), move)
        checks += expected
    return checks


def test_gives_check_agrees_with_playing_the_move():
    checks = sum(_check_gives_check(STANDARD, position)
                 for position in random_walk_positions(seed=3, games_count=40, plies=160))
    assert checks > 500
    # Castling with check, en passant discovering a check, promotions checking.
    for fen in ("5k2/8/8/8/8/8/8/4K2R w K - 0 1",
                "8/8/8/1k1pP2R/8/8/8/7K w - d6 0 2", "3k4/1P6/8/8/8/8/8/K7 w - - 0 1"):
        assert _check_gives_check(STANDARD, STANDARD.parse_position(fen)) >= 1, fen


def test_gives_check_on_perft_suites(oracle_data):
    for case in (read_perft_file(oracle_data("chess/perft-tricky.perft"))
                 + read_perft_file(oracle_data("chess/perft-random.perft"))):
        game = CHESS960 if case["id"] in CHESS960_IDS else STANDARD
        _check_gives_check(game, game.parse_position(case["fen"]))


def test_play_null():
    passes = 0
    child = STANDARD.new_position()
    for position in random_walk_positions(seed=2, games_count=20, plies=120):
        allowed = bool(play_null(position, child))
        us = int(position[STATE] & 1)
        pieces = int(position[us]) & ~(int(position[2]) | int(position[7]))
        assert allowed == (not in_check(position) and pieces != 0)
        if not allowed:
            continue
        passes += 1
        assert int(child[STATE] & 1) == 1 - us
        assert (int(child[STATE]) >> 8) & 63 == 0  # no en-passant square after a pass
        assert reversible_plies(child) == min(reversible_plies(position) + 1, 0xFFFF)
        assert child[10] == hash_from_scratch(child)
        assert np.array_equal(child[:9], position[:9])
    assert passes > 500
    # With an en-passant square set: the pass clears it and its hash key.
    position = STANDARD.parse_position("4k3/8/8/8/3pP3/8/8/R3K3 b - e3 0 1")
    assert (int(position[STATE]) >> 8) & 63 == 20
    assert play_null(position, child) is False  # Black has only king and pawns
    position = STANDARD.parse_position("4k2r/8/8/8/3pP3/8/8/R3K3 b - e3 0 1")
    assert play_null(position, child)
    assert (int(child[STATE]) >> 8) & 63 == 0 and child[10] == hash_from_scratch(child)
    assert STANDARD.format_position(child) == "4k2r/8/8/8/3pP3/8/8/R3K3 w - - 1 2"
    # In check: no pass.
    assert not play_null(STANDARD.parse_position("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1"), child)


def exchange(fen: str, uci: str) -> int:
    position = STANDARD.parse_position(fen)
    return int(see(position, np.int32(STANDARD.parse_move(position, uci))))


def test_see_hand_made_positions():
    # Rook takes an undefended pawn.
    assert exchange("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5") == 100
    # Knight takes a pawn defended twice, with x-rays on both sides: loses N for P (100 - 320).
    assert exchange("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5") == -220
    # Pawn takes pawn, recaptured by the knight: even.
    assert exchange("4k3/8/5n2/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5") == 0
    # Queen takes a pawn defended by a knight.
    assert exchange("4k3/8/5n2/3p4/8/1Q6/8/4K3 w - - 0 1", "b3d5") == -800
    # En passant on an undefended square.
    assert exchange("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6") == 100
    # A rook backed by a queen (x-ray through the rook's square) wins the defended rook: the
    # king may not recapture into the queen's attack.
    assert exchange("3rk3/8/8/8/8/8/3R4/3QK3 w - - 0 1", "d2d8") == 500
    # Without the queen the king recaptures: rook for rook.
    assert exchange("3rk3/8/8/8/8/8/3R4/4K3 w - - 0 1", "d2d8") == 0
    # Rook takes a pawn defended by a pawn, the second rook retakes: two pawns for a rook.
    assert exchange("4k3/8/2p5/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5") == -300
    # Quiet moves: onto a square a pawn attacks (the piece is lost) or a safe one.
    assert exchange("4k3/8/8/8/8/2p5/8/1N2K3 w - - 0 1", "b1d2") == -220  # Nd2 cxd2 Kxd2
    assert exchange("4k3/8/8/4p3/8/8/8/2B1K3 w - - 0 1", "c1f4") == -330
    assert exchange("4k3/8/8/4p3/8/8/8/2B1K3 w - - 0 1", "c1e3") == 0
    # Promotions: onto a defended square the queen is lost for the pawn; capturing an
    # undefended rook wins rook and promotion.
    assert exchange("3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1", "c7c8q") == -100
    assert exchange("1r2k3/2P5/8/8/8/8/8/4K3 w - - 0 1", "c7b8q") == 500 + 800


def order(fen: str, uci: str) -> int:
    position = STANDARD.parse_position(fen)
    return int(move_order(position, np.int32(STANDARD.parse_move(position, uci))))


def test_move_order_bands():
    fen = "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1"
    assert order(fen, "d3e5") <= -ORDER_NOISY  # loses material
    assert abs(order(fen, "a3a4")) < ORDER_NOISY
    fen = "4k3/8/5n2/3p4/4P3/8/8/4K3 w - - 0 1"
    assert order(fen, "e4d5") >= ORDER_NOISY  # even exchange
    # MVV-LVA among winning captures: the queen before the rook, the pawn taker first.
    fen = "4k3/8/8/2q1r3/3P4/8/8/R4K2 w - - 0 1"
    assert order(fen, "d4c5") > order(fen, "d4e5") >= ORDER_NOISY
    # Promotions: queen >= ORDER_NOISY, under-promotions below every quiet move and below
    # losing captures, knight first.
    fen = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"
    assert order(fen, "b7b8q") >= ORDER_NOISY
    assert order(fen, "b7b8n") > order(fen, "b7b8r") > order(fen, "b7b8b")
    assert order(fen, "b7b8n") < -ORDER_NOISY - 1000
    # Quiet moves and castling stay well inside the quiet band (history adds < 2**16).
    position = STANDARD.parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    quiet = [m for m in STANDARD.legal_moves(position) if not is_noisy(position, np.int32(m))]
    assert len(quiet) == 24  # castling both ways included
    for move in quiet:
        assert abs(int(move_order(position, np.int32(move)))) < 1024


def test_move_order_consistent_with_see_on_random_positions():
    for position in random_walk_positions(seed=5, games_count=30, plies=100):
        count = legal_moves(position, BUFFER)
        for move in BUFFER[:count]:
            key = int(move_order(position, move))
            promotion = int(move) >> 12
            if promotion and promotion != 4:
                assert key < -ORDER_NOISY - 1000
            elif is_noisy(position, move):
                value = int(see(position, move))
                if promotion == 4:
                    assert key >= ORDER_NOISY
                else:
                    assert (key >= ORDER_NOISY) == (value >= 0), (STANDARD.format_position(position), int(move))
                    if value < 0:
                        assert key == -ORDER_NOISY + value
            else:
                assert abs(key) < 1024


def test_reversible_plies_is_the_halfmove_clock():
    assert reversible_plies(STANDARD.parse_position("4k3/8/8/8/8/8/8/R3K3 w - - 37 80")) == 37
    assert reversible_plies(STANDARD.start_position()) == 0


def test_chess_game_carries_the_player_kernels():
    assert STANDARD.fifty_move_plies == 100
    player = STANDARD.player
    assert player.noisy_moves is noisy_moves and player.play_null is play_null
    assert player.move_keys is move_keys and player.in_check is in_check
    assert player.gives_check is gives_check and player.reversible_plies is reversible_plies


def test_move_keys_are_move_order_of_each_move():
    position = STANDARD.parse_position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    count = legal_moves(position, BUFFER)
    keys = np.zeros(256, dtype=np.int32)
    move_keys(position, BUFFER, count, keys)
    assert [int(k) for k in keys[:count]] == [int(move_order(position, m)) for m in BUFFER[:count]]


@pytest.mark.parametrize("fen", ["startpos", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -"])
def test_noisy_moves_two_plies_deep(fen):
    position = STANDARD.parse_position(fen)
    for move in STANDARD.legal_moves(position):
        child = STANDARD.play(position, move)
        for reply in STANDARD.legal_moves(child):
            grandchild = STANDARD.play(child, reply)
            assert generated_noisy(grandchild) == filtered_legal(grandchild)


def test_piece_to_is_side_piece_and_target_by_python_chess():
    import chess

    from games.chess.moves import move_target
    from games.chess.player import piece_to

    seen = set()
    for position in random_walk_positions(seed=41, games_count=20, plies=60):
        board = chess.Board(STANDARD.format_position(position))
        for move in STANDARD.legal_moves(position):
            uci = chess.Move.from_uci(STANDARD.format_move(position, move))
            moved = board.piece_type_at(uci.from_square)  # 1 pawn .. 6 king
            side = 0 if board.turn == chess.WHITE else 1
            # Castling is encoded king-takes-rook: the target is the rook's square.
            target = int(move_target(np.int32(move)))
            index = piece_to(position, np.int32(move))
            assert index == (side * 6 + moved - 1) * 64 + target
            assert 0 <= index < STANDARD.piece_to_space
            seen.add(index)
    assert len(seen) > 300


def _check_is_legal(game, position, strangers, rng) -> int:
    """is_legal of ``position`` against its move list, on its legal moves, on ``strangers``
    (moves of other positions) and on random integers; the number of moves asked."""
    from games.chess.legality import is_legal

    legal = set(game.legal_moves(position))
    asked = list(legal) + rng.sample(strangers, min(40, len(strangers)))
    asked += [rng.randrange(-3, 5 << 12) for _ in range(10)]
    for move in asked:
        assert bool(is_legal(position, np.int32(move))) == (move in legal), (game.format_position(position), move)
    return len(asked)


def test_is_legal_on_random_walks_and_perft_suites(oracle_data):
    # Stored moves from other positions (the transposition table's risk) are the hard cases:
    # a move of the same piece type from a square it is not on, a pinned piece's move, a
    # castling or en passant that is not allowed here.
    rng = random.Random(5)
    positions = random_walk_positions(seed=7, games_count=30, plies=120)
    cases = (read_perft_file(oracle_data("chess/perft-tricky.perft"))
             + read_perft_file(oracle_data("chess/perft-random.perft")))
    suite = [(CHESS960 if case["id"] in CHESS960_IDS else STANDARD, case["fen"]) for case in cases]
    boards = [(STANDARD, position) for position in positions]
    for game, fen in suite:
        position = game.parse_position(fen)
        boards.append((game, position))
        boards.extend((game, game.play(position, move)) for move in game.legal_moves(position)[:6])
    strangers = sorted({move for game, position in boards[::7] for move in game.legal_moves(position)})
    asked = sum(_check_is_legal(game, position, strangers, rng) for game, position in boards)
    assert asked > 200_000
