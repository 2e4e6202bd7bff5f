"""The tapered chess evaluation: the linear identity with evaluation_features, colour symmetry,
bounds, hand-checked feature counts and obvious sanity."""
from __future__ import annotations

import random

import chess
import numpy as np

import games
from games.chess import eval_weights
from games.chess.evaluation import (N_FEATURES, OFFSETS, W_EG, W_MG, WEIGHTS_DIGEST, endgame_scale, evaluate,
                                    evaluation_features, flat_weights, weights_digest)
from games.chess.position import build_position
from games.chess.rules import is_noisy
from games.kernels import EVAL_LIMIT

GAME = games.get("chess")


def random_positions(seed: int, count: int) -> list[np.ndarray]:
    """``count`` positions from random games (captures preferred now and then, so that the walks
    reach endgames and imbalances), restarting from the start position when a game ends."""
    rng = random.Random(seed)
    positions = []
    position = GAME.start_position()
    while len(positions) < count:
        moves = GAME.legal_moves(position)
        if not moves or rng.random() < 0.004:
            position = GAME.start_position()
            continue
        captures = [m for m in moves if is_noisy(position, np.int32(m))]
        position = GAME.play(position, rng.choice(captures if captures and rng.random() < 0.5 else moves))
        positions.append(position)
    return positions


def features(position: np.ndarray) -> tuple[np.ndarray, int]:
    out = np.zeros(N_FEATURES, dtype=np.int32)
    phase = int(evaluation_features(position, out))
    return out.astype(np.int64), phase


MOP_UP_VALUES = {chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900}  # the module's PIECE_VALUES


def mop_up_reference(board: chess.Board) -> int:
    """The mop-up bonus from White's side, as the module docstring states it, by python-chess."""
    if board.pieces_mask(chess.PAWN, chess.WHITE) | board.pieces_mask(chess.PAWN, chess.BLACK):
        return 0
    material = {colour: sum(v * len(board.pieces(t, colour)) for t, v in MOP_UP_VALUES.items())
                for colour in chess.COLORS}
    lead = material[chess.WHITE] - material[chess.BLACK]
    if abs(lead) < 400:
        return 0
    strong = chess.WHITE if lead > 0 else chess.BLACK
    weak_king, strong_king = board.king(not strong), board.king(strong)
    file, rank = chess.square_file(weak_king), chess.square_rank(weak_king)
    edge = max(3 - file, file - 4) + max(3 - rank, rank - 4)
    bishops = board.pieces(chess.BISHOP, strong)
    if material[strong] == 650 and bishops and material[not strong] == 0:
        dark = any(chess.BB_DARK_SQUARES & chess.BB_SQUARES[b] for b in bishops)
        corners = (chess.A1, chess.H8) if dark else (chess.H1, chess.A8)
        edge = 6 - min(6, min(chess.square_distance(weak_king, c) for c in corners))
    bonus = 25 * edge + 10 * (14 - chess.square_manhattan_distance(weak_king, strong_king))
    return bonus if strong == chess.WHITE else -bonus


def forces_mate(board: chess.Board, strong: bool) -> bool:
    """Whether ``strong``'s pieces mate a bare king by force: a queen, a rook, bishops on both
    colours, or a bishop and a knight."""
    bishops = board.pieces(chess.BISHOP, strong)
    return bool(board.pieces(chess.QUEEN, strong) or board.pieces(chess.ROOK, strong)
                or (bishops & chess.BB_DARK_SQUARES and bishops & chess.BB_LIGHT_SQUARES)
                or (bishops and board.pieces(chess.KNIGHT, strong)))


def lone_defence_reference(board: chess.Board) -> int | None:
    """Without pawns, against a bare king or against one piece other than a queen when the
    other side has a queen, from White's side: the difference of the two sides' endgame
    material weights plus the mop-up when the lead is 400 (as the mop-up counts it; module
    docstring), and 1000 more when the strong side's pieces force mate; None for other
    positions."""
    if board.pawns:
        return None
    for weak in chess.COLORS:
        defenders = [board.piece_type_at(square) for square in chess.SquareSet(board.occupied_co[weak])
                     if board.piece_type_at(square) != chess.KING]
        lone_piece = (len(defenders) == 1 and defenders[0] != chess.QUEEN
                      and bool(board.pieces(chess.QUEEN, not weak)))
        if defenders and not lone_piece:
            continue
        # Each piece type counted for the strong side and against it for the weak one.
        surplus = {t: len(board.pieces(t, not weak)) - len(board.pieces(t, weak)) for t in MOP_UP_VALUES}
        if sum(MOP_UP_VALUES[t] * n for t, n in surplus.items()) < 400:
            return None
        material = sum(int(W_EG[OFFSETS["MATERIAL"] + t - 1]) * n for t, n in surplus.items())
        if forces_mate(board, not weak):
            material += 1000
        return mop_up_reference(board) + (material if weak == chess.BLACK else -material)
    return None


def is_passed(board: chess.Board, square: int, colour: bool) -> bool:
    """No enemy pawn ahead on the pawn's or a neighbouring file, no own pawn ahead on its file."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    ahead = (lambda r: r > rank) if colour == chess.WHITE else (lambda r: r < rank)
    for other in board.pieces(chess.PAWN, not colour):
        if abs(chess.square_file(other) - file) <= 1 and ahead(chess.square_rank(other)):
            return False
    return not any(chess.square_file(own) == file and ahead(chess.square_rank(own))
                   for own in board.pieces(chess.PAWN, colour))


def scale_reference(board: chess.Board, eg: int) -> int:
    """The endgame scale in 64ths for White's endgame score ``eg``, as the module states it."""
    strong = chess.WHITE if eg > 0 else chess.BLACK
    pieces = {colour: sum(v * len(board.pieces(t, colour)) for t, v in MOP_UP_VALUES.items())
              for colour in chess.COLORS}
    pawns = board.pieces(chess.PAWN, strong)
    if not pawns:
        if pieces[strong] - pieces[not strong] > 330:
            return 64
        if pieces[strong] < 500:
            return 0
        return 4 if pieces[not strong] <= 330 else 14
    white_bishops, black_bishops = board.pieces(chess.BISHOP, chess.WHITE), board.pieces(chess.BISHOP, chess.BLACK)
    if (len(white_bishops) == 1 and len(black_bishops) == 1
            and len((white_bishops | black_bishops) & chess.SquareSet(chess.BB_DARK_SQUARES)) == 1):
        if pieces[strong] == pieces[not strong] == 330:
            return 18 + 4 * sum(is_passed(board, square, strong) for square in pawns)
        return min(64, 22 + 3 * chess.popcount(board.occupied_co[strong]))
    return min(64, 36 + 7 * len(pawns))


def tapered(position: np.ndarray) -> int:
    """The evaluation recomputed from the features and the weights, the endgame part scaled, plus
    the mop-up, or against a bare king material and mop-up alone (module docstring)."""
    counts, phase = features(position)
    sign = -1 if int(position[9]) & 1 else 1
    board = chess.Board(GAME.format_position(position))
    bare = lone_defence_reference(board)
    if bare is not None:
        value = sign * bare
    else:
        white_eg = int(counts @ W_EG)
        scale = scale_reference(board, white_eg)
        white_eg = abs(white_eg) * scale // 64 * (1 if white_eg >= 0 else -1)
        mg, eg = sign * int(counts @ W_MG), sign * white_eg
        value = (mg * phase + eg * (24 - phase)) // 24
        value += sign * mop_up_reference(board)
    return max(-(EVAL_LIMIT - 1), min(EVAL_LIMIT - 1, value))


def mirrored(position: np.ndarray) -> np.ndarray:
    return GAME.parse_position(chess.Board(GAME.format_position(position)).mirror().fen())


def test_weights_module_matches_the_digest():
    assert weights_digest(*flat_weights(eval_weights)) == WEIGHTS_DIGEST


def test_evaluate_is_the_tapered_dot_product_of_the_features():
    positions = random_positions(seed=1, count=4000)
    phases = set()
    for position in positions:
        assert int(evaluate(position)) == tapered(position), GAME.format_position(position)
        phases.add(features(position)[1])
    assert len(phases) >= 20  # openings to pawn endings


def test_mop_up_drives_the_lone_king_to_the_edge_and_the_right_corner():
    def score(fen: str) -> int:
        return int(evaluate(GAME.parse_position(fen)))

    # KQvK: the defending king in the corner, kings close, is better for the attacker.
    assert score("k7/8/1K6/8/8/8/8/6Q1 w - - 0 1") > score("8/8/8/3k4/8/8/1K6/6Q1 w - - 0 1") + 60
    # KBNvK with a light-squared bishop: the light corner (a8) beats the dark one (a1).
    assert score("k7/8/1K6/8/8/8/8/5BN1 w - - 0 1") > score("8/8/8/8/8/1K6/8/k4BN1 w - - 0 1") + 40
    # A forced mate is decided beyond every threshold of the search; two knights force none.
    assert score("8/8/8/3k4/8/8/8/4KBN1 w - - 0 1") > 1000 + score("8/8/8/3k4/8/8/8/4KNN1 w - - 0 1")
    # A queen against one lesser piece is decided as against a bare king; a rook against a
    # minor piece and a queen against a queen are not.
    assert score("8/8/8/K7/8/6n1/7k/3Q4 w - - 0 1") > 1000 + score("8/8/8/K7/8/6n1/7k/3R4 w - - 0 1")
    assert score("8/8/8/K7/8/6q1/7k/3Q4 w - - 0 1") < 200
    # Every random pawnless decisive ending matches the reference (the dot-product test meets few).
    rng = random.Random(4)
    checked = bare = 0
    for _ in range(300):
        board = chess.Board(None)
        pieces = [chess.Piece(chess.KING, chess.WHITE), chess.Piece(chess.KING, chess.BLACK)]
        pieces += [chess.Piece(rng.choice([chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]),
                               rng.choice(chess.COLORS)) for _ in range(rng.randint(1, 3))]
        for piece, square in zip(pieces, rng.sample(chess.SQUARES, len(pieces))):
            board.set_piece_at(square, piece)
        board.turn = rng.choice(chess.COLORS)
        if not board.is_valid():
            continue
        position = GAME.parse_position(board.fen())
        assert int(evaluate(position)) == tapered(position), board.fen()
        checked += mop_up_reference(board) != 0
        bare += lone_defence_reference(board) is not None
    assert checked > 50 and bare > 20


def test_endgame_scale_by_hand():
    cases = {
        "8/8/4k3/8/8/3BK3/8/8 w - - 0 1": 0,  # a bishop alone cannot win
        "8/8/4k3/8/2b5/3RK3/8/8 w - - 0 1": 4,  # a rook against a minor piece
        "8/8/4k3/3r4/8/3RK3/3N4/8 w - - 0 1": 14,  # a knight up with rooks, no pawns
        "8/8/4k3/3r4/8/3QK3/8/8 w - - 0 1": 64,  # a queen against a rook: the mop-up's
        "8/5b2/6k1/3P4/2P5/4BK2/8/8 w - - 0 1": 18 + 4 * 2,  # opposite bishops alone, two passers
        "8/5b2/6k1/3P4/2P5/4BK2/3N4/8 w - - 0 1": 22 + 3 * 5,  # opposite bishops and a knight (five white men)
        "8/8/6k1/3P4/8/3RK3/8/3r4 w - - 0 1": 36 + 7,  # one pawn with rooks
        "8/8/4k3/8/PPPP4/3RK3/8/3r4 w - - 0 1": 64,  # four pawns: all of it
    }
    for fen, scale in cases.items():
        assert endgame_scale(GAME.parse_position(fen), 1) == scale, fen
        mirror = chess.Board(fen).mirror().fen()
        assert endgame_scale(GAME.parse_position(mirror), -1) == scale, mirror
        assert scale_reference(chess.Board(fen), 1) == scale, fen


def test_colour_symmetry():
    for position in random_positions(seed=2, count=600):
        mirror = mirrored(position)
        assert int(evaluate(position)) == int(evaluate(mirror))
        counts, phase = features(position)
        mirror_counts, mirror_phase = features(mirror)
        assert phase == mirror_phase
        assert np.array_equal(mirror_counts, -counts)


def test_bounds():
    for position in random_positions(seed=3, count=1000):
        assert abs(int(evaluate(position))) < EVAL_LIMIT
    # Forty white queens against a bare king: clamped inside the limit.
    pieces = np.array([5, 11] + [4] * 40, dtype=np.int8)
    squares = np.array([0, 63] + list(range(8, 48)), dtype=np.int8)
    for side in (0, 1):
        position = GAME.new_position()
        build_position(pieces, squares, len(pieces), side, position)
        assert int(evaluate(position)) == (EVAL_LIMIT - 1 if side == 0 else -(EVAL_LIMIT - 1))


def test_sanity():
    start = GAME.start_position()
    assert features(start)[1] == 24
    assert int(evaluate(start)) == 0
    assert int(evaluate(GAME.parse_position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"))) > 800
    assert int(evaluate(GAME.parse_position("4k3/8/8/8/8/8/8/3QK3 b - - 0 1"))) < -800
    # Up a queen in the opening (the d8 queen removed).
    assert int(evaluate(GAME.parse_position("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"))) > 800
    # A far advanced passed pawn is worth more than a blocked one in a pawn ending.
    passed = int(evaluate(GAME.parse_position("4k3/8/1P6/8/8/8/8/4K3 w - - 0 1")))
    blocked = int(evaluate(GAME.parse_position("4k3/1p6/1P6/8/8/8/8/4K3 w - - 0 1")))
    assert passed > blocked + 50


def test_feature_counts_by_hand():
    # White: pawns a2 b2 h2 h3 d5, rooks c1 h1. Black: pawn e7.
    position = GAME.parse_position("4k3/4p3/8/3P4/8/7P/PP5P/2R1K2R w - - 0 1")
    counts, phase = features(position)
    assert phase == 4  # two rooks
    assert counts[OFFSETS["MATERIAL"]] == 5 - 1 and counts[OFFSETS["MATERIAL"] + 3] == 2
    # Passed: a2 b2 (rank 2), h3 (rank 3); not h2 (behind h3), not d5 (e7 is ahead on a
    # neighbouring file), not e7 (d5 is ahead of it on a neighbouring file).
    assert list(counts[OFFSETS["PASSED_PAWN"]:OFFSETS["PASSED_PAWN"] + 6]) == [2, 1, 0, 0, 0, 0]
    assert counts[OFFSETS["ISOLATED_PAWN"]] == 3 - 1  # d5 h2 h3 against e7
    assert counts[OFFSETS["DOUBLED_PAWN"]] == 1  # the second h-pawn
    assert counts[OFFSETS["ROOK_OPEN_FILE"]] == 1  # c1; h1's file holds White's pawns
    assert counts[OFFSETS["ROOK_SEMI_OPEN_FILE"]] == 0
    assert counts[OFFSETS["BISHOP_PAIR"]] == 0
    # Mobility: the knight on a1 of an otherwise empty corner reaches b3 and c2 (count 2).
    position = GAME.parse_position("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    counts, _ = features(position)
    assert counts[OFFSETS["MOBILITY_KNIGHT"] + 2] == 1
    assert counts[OFFSETS["MOBILITY_KNIGHT"]:OFFSETS["MOBILITY_KNIGHT"] + 9].sum() == 1


def block(counts: np.ndarray, name: str, size: int) -> list[int]:
    return [int(v) for v in counts[OFFSETS[name]:OFFSETS[name] + size]]


def test_threat_and_passed_pawn_counts_by_hand():
    # The e4 pawn attacks the undefended rook on d5; the rook attacks e5, so the passer's stop
    # square is not free; kings e1 (4 squares from e5) and e8 (3).
    counts, _ = features(GAME.parse_position("4k3/8/8/3r4/4P3/8/8/4K3 w - - 0 1"))
    assert block(counts, "THREAT_BY_PAWN", 1) == [1]
    assert block(counts, "HANGING", 1) == [1]
    assert block(counts, "THREAT_BY_MINOR", 4) == [0, 0, 0, 0]
    assert block(counts, "PASSED_PAWN", 6) == [0, 0, 1, 0, 0, 0]
    assert block(counts, "PASSED_OWN_KING", 6) == [0, 0, 4, 0, 0, 0]
    assert block(counts, "PASSED_ENEMY_KING", 6) == [0, 0, 3, 0, 0, 0]
    assert block(counts, "PASSED_FREE", 6) == [0] * 6
    # Without the rook the stop square is free.
    counts, _ = features(GAME.parse_position("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1"))
    assert block(counts, "PASSED_FREE", 6) == [0, 0, 1, 0, 0, 0]


def test_piece_placement_and_safe_check_counts_by_hand():
    # The d5 knight is an outpost (defended by e4, no black pawn to chase it); the c7 rook is on
    # the seventh. Safe checks on the e8 king: the knight from f6; the rook from c8 (e7 is the
    # king's own square to guard).
    counts, _ = features(GAME.parse_position("4k3/2R5/8/3N4/4P3/8/8/4K3 w - - 0 1"))
    assert block(counts, "OUTPOST", 2) == [1, 0]
    assert block(counts, "ROOK_ON_SEVENTH", 1) == [1]
    assert block(counts, "SAFE_CHECK", 4) == [1, 0, 1, 0]
    assert block(counts, "MINOR_BEHIND_PAWN", 1) == [0]
    # A dark-squared bishop on c1 behind its c2 pawn; one of a2 b2 c2 (b2) on its colour.
    counts, _ = features(GAME.parse_position("4k3/8/8/8/8/8/PPP5/2B1K3 w - - 0 1"))
    assert block(counts, "BISHOP_PAWNS", 1) == [1]
    assert block(counts, "MINOR_BEHIND_PAWN", 1) == [1]


def test_pawn_structure_counts_by_hand():
    # d3 is backward (c5 attacks d4 and no white pawn can defend it); c5 is not (b6 can).
    # e4 (defended by d3) and c5 (by b6) are connected on their fourth ranks.
    counts, _ = features(GAME.parse_position("4k3/8/1p6/2p5/4P3/3P4/8/4K3 w - - 0 1"))
    assert block(counts, "BACKWARD_PAWN", 1) == [1]
    assert block(counts, "CONNECTED_PAWN", 6) == [0] * 6
    # A phalanx: d4 and e4 side by side.
    counts, _ = features(GAME.parse_position("4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1"))
    assert block(counts, "CONNECTED_PAWN", 6) == [0, 0, 2, 0, 0, 0]
