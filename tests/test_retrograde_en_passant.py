"""En passant in the chess generator's ``evaluate`` (games/chess/retrograde_kernels.py): a double
push whose capture answer is decided in a child table, but at a distance the levels have not
reached yet, must not decide the position early (a quicker win by another move may still
come): the engine is asked to look again at that answer's level."""
from __future__ import annotations

import chess
import numpy as np

from games.chess import endgames as E
from games.chess import retrograde_kernels as K
from games.table_family import NO_LEVEL, REVISIT_SHIFT
from games.value_codes import GEN_UNKNOWN, loss_code, win_code

TABLE = "KPvKP"
# White to move: d2-d4 lets c4xd3 en passant; the other moves' children are left unknown.
POSITION = "7k/8/8/8/2p5/8/3P4/K7 w - - 0 1"
AFTER_PUSH = "7k/8/8/8/2pP4/8/8/K7 b - - 0 1"  # the push's child without the en-passant right


def node_of(space, fen: str) -> int:
    """The generation node of ``fen``'s placement in ``TABLE`` (pieces in the spec's order)."""
    board = chess.Board(fen)
    spec, n, pawnful, _, powers, domain, _ = K.table_views(space.params, space.aux)
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    taken = set()
    for slot in range(n):
        colour, kind = divmod(int(spec[slot]), 6)
        piece = chess.Piece(kind + 1, chess.WHITE if colour == 0 else chess.BLACK)
        square = next(sq for sq in sorted(board.pieces(piece.piece_type, piece.color))
                      if sq not in taken)
        taken.add(square)
        squares[slot] = square
    stm = 0 if board.turn == chess.WHITE else 1
    return int(K.node_index(pawnful, squares, n, stm, powers, domain))


def evaluate_at(d: int, capture_child: int, push_child: int) -> int:
    """``evaluate`` of POSITION at level ``d``, its push's child coded ``push_child`` and every
    position after the en-passant capture (KPvK with colours swapped, white to move)
    ``capture_child``."""
    space = K.generation_space(TABLE)
    size = space.size + (-space.size) % 8
    codes = np.full(size, GEN_UNKNOWN, dtype=np.uint8)
    g = node_of(space, POSITION)
    codes[node_of(space, AFTER_PUSH)] = push_child
    exit_win = np.full(size, NO_LEVEL, dtype=np.uint8)
    exit_floor = np.zeros(size, dtype=np.uint8)
    child_codes = np.full(2 * E.per_side_size("KPvK"), capture_child, dtype=np.uint16)
    child_offsets = np.full(E.N_TABLES, -1, dtype=np.int64)
    child_offsets[E.TABLE_IDS["KPvK"]] = 0  # (colours swapped)
    aux = K.with_children(space, child_codes, child_offsets)
    results = np.zeros(1, dtype=np.int64)
    K.evaluate_entries(space.params, aux, np.array([g]), 1, d, codes, exit_win, exit_floor,
                       np.zeros(size, dtype=np.uint8), child_codes, child_offsets, results, 0)
    return int(results[0])


def test_a_capture_answer_known_only_later_asks_for_a_revisit():
    # The push's child is lost in 3 for Black, but capturing loses only in 7 (the capture's
    # child is won in 6 for White): the push wins in 8, which level 4 must not decide yet.
    result = evaluate_at(4, capture_child=win_code(6), push_child=loss_code(3))
    assert result > GEN_UNKNOWN and result >> REVISIT_SHIFT == 8
    assert evaluate_at(8, capture_child=win_code(6), push_child=loss_code(3)) == win_code(8)


def test_a_capture_answer_already_known_decides_at_once():
    # Capturing would lose in 2 for Black, quicker than the push's child (lost in 3): Black
    # does not capture, and the push wins in 4, decided at level 4.
    assert evaluate_at(4, capture_child=win_code(1), push_child=loss_code(3)) == win_code(4)
