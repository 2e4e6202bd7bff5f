"""FEN and UCI notation: round trips, refusals with a one-line reason (also through the CLI),
material signatures."""
from __future__ import annotations

import random
import subprocess
import sys

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.chess import material_signature
from solver import cli

GAME = games.get("chess")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

BAD_FENS = {
    "no black king": "8/8/8/8/8/8/8/K7 w - - 0 1",
    "two white kings": "k7/8/8/8/8/8/8/KK6 w - - 0 1",
    "pawn on first rank": "k7/8/8/8/8/8/8/KP6 w - - 0 1",
    "pawn on last rank": "kp6/8/8/8/8/8/8/K7 w - - 0 1",
    "side not to move in check": "k7/8/8/8/8/8/8/R5K1 w - - 0 1",
    "castling without rook": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
    "castling without king at home": "rnbq1bnr/ppppkppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "en passant on wrong rank": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1",
    "en passant without pushed pawn": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
    "more than 16 pieces": "k7/8/8/8/8/NNNNNNNN/PPPPPPPP/NNNNNNNK w - - 0 1",
    "bad halfmove clock": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
    "fullmove zero": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
    "three fields": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
    "seven fields": START + " 1",
    "bad character": "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "short rank": "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "bad side": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
}


def random_game_fens(seed: int, plies: int) -> list[str]:
    """FENs of a random game, written by python-chess."""
    rng = random.Random(seed)
    board = chess.Board()
    fens = [board.fen()]
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        fens.append(board.fen())
    return fens


def test_startpos_keyword():
    assert GAME.format_position(GAME.parse_position("startpos")) == START


def test_epd_four_fields_get_default_counters():
    assert GAME.format_position(GAME.parse_position(START.rsplit(" ", 2)[0])) == START


@given(st.integers(0, 10**6), st.integers(0, 200))
@settings(max_examples=60, deadline=None)
def test_fen_round_trip_on_played_positions(seed, plies):
    fen = random_game_fens(seed, plies)[-1]
    position = GAME.parse_position(fen)
    assert GAME.format_position(position) == fen
    assert np.array_equal(GAME.parse_position(GAME.format_position(position)), position)


@given(st.text(alphabet="rnbqkpRNBQKP12345678/ wb-KQkqe36x0", max_size=70))
@settings(max_examples=300, deadline=None)
def test_fuzzed_fens_are_parsed_or_refused_cleanly(text):
    try:
        position = GAME.parse_position(text)
    except games.NotationError as error:
        assert "\n" not in str(error)
    else:
        assert GAME.format_position(GAME.parse_position(GAME.format_position(position))) == GAME.format_position(position)


EN_PASSANT = [  # FEN with an en-passant square, whether a capture is legal there
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", True),
    ("4k3/8/8/2KPp3/8/8/8/4r3 w - e6 0 2", True),  # the rook on the e-file does not pin d5
    ("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2", False),  # no white pawn beside
    ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", False),  # bxc6 would open the fifth rank to the rook
    ("8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", False),  # exd3 would open the fourth rank to the queen
]


@pytest.mark.parametrize("fen, legal", EN_PASSANT)
def test_en_passant_square_kept_only_when_a_capture_is_legal(fen, legal):
    fields = fen.split()
    without = " ".join(fields[:3] + ["-"] + fields[4:])
    assert chess.Board(fen).has_legal_en_passant() == legal  # the case is what it says
    position = GAME.parse_position(fen)
    assert GAME.format_position(position) == (fen if legal else without)
    if legal:  # the capture is generated, and the position differs from the one without it
        assert fields[3] in {GAME.format_move(position, m)[2:4] for m in GAME.legal_moves(position)}
        assert not np.array_equal(position, GAME.parse_position(without))
        assert GAME.hash(position) != GAME.hash(GAME.parse_position(without))
    else:  # the same position as without the square: same array, same hash
        assert np.array_equal(position, GAME.parse_position(without))
        assert GAME.hash(position) == GAME.hash(GAME.parse_position(without))


@pytest.mark.parametrize("reason", sorted(BAD_FENS))
def test_bad_fens_are_refused(reason):
    with pytest.raises(games.NotationError):
        GAME.parse_position(BAD_FENS[reason])


@pytest.mark.parametrize("reason", sorted(BAD_FENS))
def test_bad_fens_through_the_cli_exit_2_with_one_line(reason, capsys):
    status = cli.main(["perft", "chess", BAD_FENS[reason], "5", "--json"])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


def test_bad_fen_in_a_real_process_exits_2_with_one_line():
    run = subprocess.run([sys.executable, "-m", "solver", "perft", "chess", BAD_FENS["no black king"], "5", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().splitlines() == ["solver perft: error: bad chess position: Black has 0 kings (needs exactly 1)"]


def test_uci_moves_round_trip_and_illegal_ones_are_refused():
    position = GAME.start_position()
    for move in GAME.legal_moves(position):
        assert GAME.parse_move(position, GAME.format_move(position, move)) == move
    for text in ["e2e5", "e1g1", "e7e5", "a1a1", "zz", "e2e4x", "e2e4q"]:
        with pytest.raises(games.NotationError):
            GAME.parse_move(position, text)


def test_castling_in_uci_standard_and_chess960():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    standard = GAME.parse_position(fen)
    assert {"e1g1", "e1c1"} <= {GAME.format_move(standard, m) for m in GAME.legal_moves(standard)}
    chess960 = games.get("chess", chess960=True)
    position = chess960.parse_position(fen)
    texts = {chess960.format_move(position, m) for m in chess960.legal_moves(position)}
    assert {"e1h1", "e1a1"} <= texts and "e1g1" not in texts
    after = chess960.play(position, chess960.parse_move(position, "e1h1"))
    assert chess960.format_position(after) == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"


def test_chess960_castling_letters_round_trip():
    chess960 = games.get("chess", chess960=True)
    for fen in ["1r2k1r1/8/8/8/8/8/8/RR2K3 w Bq - 0 1", "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1"]:
        board = chess.Board(fen, chess960=True)
        assert chess960.format_position(chess960.parse_position(fen)) == board.fen()


@pytest.mark.parametrize("fen, signature", [
    ("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1", "KQvK"),
    ("8/8/3k4/8/8/8/8/K1q5 w - - 0 1", "KQvK"),
    ("8/8/3k1r2/8/8/8/8/K1Q5 b - - 0 1", "KQvKR"),
    ("8/8/3k4/5R2/7q/8/8/K7 b - - 0 1", "KQvKR"),
    ("8/8/3k1n2/8/8/8/8/K1B5 w - - 0 1", "KBvKN"),
    ("8/8/3k1b2/8/8/8/8/K1N5 w - - 0 1", "KBvKN"),
    ("8/3p4/3k4/8/8/8/3P4/K7 w - - 0 1", "KPvKP"),
    (START, "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP"),
])
def test_material_signature_names_tables_like_syzygy(fen, signature):
    assert material_signature(GAME.parse_position(fen)) == signature
