"""Move generation against outside oracles: the perft suites of $SOLVER_ORACLE_DATA/chess
(perft-tricky.perft from the Chess Programming Wiki and talkchess threads; perft-random.perft,
Marcel van Kervinck's 6,838 random positions with Rookie 2.0's counts) and python-chess's
move generator in random playouts."""
from __future__ import annotations

import random
from pathlib import Path

import chess
import numpy as np
import pytest

import games
from games.chess import in_check
from games.kernels import DRAW, LOSS, ONGOING
from games.perft import perft

STANDARD = games.get("chess")
CHESS960 = games.get("chess", chess960=True)
def read_perft_file(path: Path) -> list[dict]:
    """Cases of a ``.perft`` file: ``{"id", "fen", "perft": {depth: nodes}}`` in file order."""
    cases: list[dict] = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("id "):
            cases.append({"id": line[3:], "fen": None, "perft": {}})
        elif line.startswith("epd "):
            cases[-1]["fen"] = line[4:]
        elif line.startswith("perft "):
            depth, nodes = line.split()[1:3]
            cases[-1]["perft"][int(depth)] = int(nodes)
    return cases


# Positions of perft-tricky.perft whose castling rights are Chess960 ones (X-FEN): standard chess
# refuses them, the chess960 flavour (same kernels) takes them.
CHESS960_IDS = {"xfen-00", "xfen-01", "xfen-02", "xfen-03", "xfen-04", "asymmetrical-and-king-on-h"}


@pytest.fixture(scope="module")
def tricky(oracle_data):
    return read_perft_file(oracle_data("chess/perft-tricky.perft"))


@pytest.fixture(scope="module")
def random_positions(oracle_data):
    return read_perft_file(oracle_data("chess/perft-random.perft"))


def test_startpos_depth_5():
    assert perft(STANDARD, STANDARD.start_position(), 5) == 4865609


def test_tricky_positions_all_depths(tricky):
    assert len(tricky) == 19
    for case in tricky:
        game = CHESS960 if case["id"] in CHESS960_IDS else STANDARD
        position = game.parse_position(case["fen"])
        for depth, nodes in sorted(case["perft"].items()):
            assert perft(game, position, depth) == nodes, (case["id"], depth)


def test_standard_chess_refuses_exactly_the_chess960_castling_rights(tricky):
    for case in tricky:
        if case["id"] in CHESS960_IDS:
            with pytest.raises(games.NotationError, match="castling right"):
                STANDARD.parse_position(case["fen"])
        else:
            STANDARD.parse_position(case["fen"])


def test_random_positions_depth_3(random_positions):
    assert len(random_positions) == 6838
    wrong = [case["id"] for case in random_positions
             if perft(STANDARD, STANDARD.parse_position(case["fen"]), 3) != case["perft"][3]]
    assert wrong == []


@pytest.mark.slow
@pytest.mark.parametrize("depth", [4, 5])
def test_random_positions_deep(random_positions, depth):
    """Depth 4: about 25 s; depth 5 (136 billion nodes): 19 minutes on a loaded machine."""
    wrong = [case["id"] for case in random_positions
             if perft(STANDARD, STANDARD.parse_position(case["fen"]), depth) != case["perft"][depth]]
    assert wrong == []


def _compare_with_python_chess(game: games.Game, board: chess.Board, plies: int, rng: random.Random) -> int:
    """Play random moves, checking at every ply that our legal moves, check, mate and stalemate
    flags, FEN and hash agree with python-chess; returns the plies played."""
    position = game.parse_position(board.fen())
    played = 0
    for _ in range(plies):
        ours = {game.format_move(position, move): move for move in game.legal_moves(position)}
        theirs = {move.uci() for move in board.legal_moves}
        assert set(ours) == theirs, board.fen()
        assert bool(in_check(position)) == board.is_check(), board.fen()
        result = game.outcome(position)
        if board.is_checkmate():
            assert result == LOSS, board.fen()
        elif board.is_stalemate() or board.is_insufficient_material():
            assert result == DRAW, board.fen()
        else:
            assert result == ONGOING, board.fen()
        if result != ONGOING:
            break
        text = rng.choice(sorted(ours))
        board.push_uci(text)
        position = game.play(position, ours[text])
        played += 1
        assert game.format_position(position) == board.fen(), text
    return played


def test_random_playouts_match_python_chess():
    rng = random.Random(20240607)
    plies = 0
    for _ in range(25):
        plies += _compare_with_python_chess(STANDARD, chess.Board(), 300, rng)
    assert plies >= 3000


def test_playouts_from_oracle_positions_match_python_chess(random_positions, tricky):
    rng = random.Random(7)
    for case in rng.sample(random_positions, 40) + [c for c in tricky if c["id"] not in CHESS960_IDS]:
        _compare_with_python_chess(STANDARD, chess.Board(case["fen"] + " 0 1"), 40, rng)


def test_chess960_playouts_match_python_chess(tricky):
    rng = random.Random(960)
    for case in tricky:
        if case["id"] in CHESS960_IDS:
            for _ in range(5):
                board = chess.Board(case["fen"] + " 0 1", chess960=True)
                position = CHESS960.parse_position(board.fen())
                for _ in range(30):
                    ours = {CHESS960.format_move(position, m): m for m in CHESS960.legal_moves(position)}
                    assert set(ours) == {m.uci() for m in board.legal_moves}, board.fen()
                    if not ours:
                        break
                    text = rng.choice(sorted(ours))
                    board.push_uci(text)
                    position = CHESS960.play(position, ours[text])
                    assert CHESS960.format_position(position) == board.fen(), text


def test_promotions_castling_and_en_passant_are_generated():
    position = STANDARD.parse_position("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    moves = {STANDARD.format_move(position, m) for m in STANDARD.legal_moves(position)}
    assert {"e1g1", "e1c1", "e5d6", "b7b8q", "b7b8n", "b7a8r", "b7a8b"} <= moves
    buffer = np.empty(STANDARD.max_moves, dtype=np.int32)
    assert all(0 <= m < STANDARD.move_space for m in buffer[:STANDARD.kernels.legal_moves(position, buffer)])
