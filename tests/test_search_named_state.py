"""The search's state is named: kernels, buffers and tables travel as named tuples whose numba
types are the ones the compiled search declares, and each member is what its name says (four
buffers are int32 matrices and two kernels generate moves: swapped by position, they would
compile and play worse without a word)."""
from __future__ import annotations

import numba
import numpy as np
import pytest

import games
from databases.packed import PACKS, PackArrays, no_packs
from solver.search import alphabeta as ab
from solver.search.player import Limits, Player
from solver.search.table_leaves import TABLES, TableArrays, no_table_arrays, no_tables

CHESS = games.get("chess")


@pytest.fixture(scope="module")
def player():
    return Player(CHESS, hash_mb=1)


def test_the_named_tuples_have_the_types_the_search_declares(player):
    assert numba.typeof(player._search_buffers()) == ab.BUFFERS
    assert numba.typeof(no_table_arrays()) == TABLES
    assert numba.typeof(no_packs()) == PACKS
    for named, declared in ((ab.SearchKernels, ab.KERNELS), (ab.SearchBuffers, ab.BUFFERS),
                            (TableArrays, TABLES), (PackArrays, PACKS)):
        assert declared.instance_class is named and len(declared) == len(named._fields)


def test_each_buffer_is_the_one_its_name_says(player):
    """Shapes and first contents tell the buffers apart: killers and counter moves start at -1
    (no move), history at 0; the PV is square, one row per ply."""
    buffers = player._search_buffers()
    rows, moves = ab.PLY_ROWS, CHESS.move_space
    assert buffers.positions.shape == (rows + 1, CHESS.position_width)
    assert buffers.move_rows.shape == (ab.MOVE_ROWS, rows, CHESS.max_moves)
    assert buffers.ply_info.shape == (ab.PLY_INFO_ROWS, rows)
    assert (buffers.ply_info[ab.EXCLUDED_MOVE] == -1).all() and not buffers.ply_info[ab.WINDOW].any()
    assert buffers.killers.shape == (rows, 2) and (buffers.killers == -1).all()
    assert buffers.history.shape == (2, moves) and not buffers.history.any()
    assert buffers.counter_moves.shape == (2, moves) and (buffers.counter_moves == -1).all()
    assert buffers.pv.shape == (rows, rows)
    assert buffers.root_moves.shape == (CHESS.max_moves,)
    assert buffers.state.shape == (ab.STATE_SIZE,)
    assert buffers.path.shape == (rows,) and buffers.path.dtype == np.uint64
    assert buffers.tt_table is player.table.table
    space = CHESS.continuation_space
    assert buffers.continuation.shape == (2, space, space) and not buffers.continuation.any()


def test_each_kernel_is_the_one_its_name_says(player):
    """Only the two move generators share a type (the others would not compile swapped): from
    the start position every move is quiet, after 1. e4 d5 one capture is on."""
    kernels = player._search_kernels(no_tables)
    moves = np.zeros(CHESS.max_moves, dtype=np.int32)
    start = CHESS.parse_position("startpos")
    assert kernels.legal_moves(start, moves) == 20 and kernels.noisy_moves(start, moves) == 0
    opened = CHESS.parse_position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2")
    assert kernels.noisy_moves(opened, moves) == 1 and kernels.legal_moves(opened, moves) == 31
    assert kernels.hash_position is CHESS.kernels.hash and kernels.rank is no_tables


def test_the_search_fills_its_buffers_by_name(player):
    """After a search the killers, history and counter moves hold what the move loop gave them."""
    player.search(CHESS.parse_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
                  Limits(depth=6))
    buffers = player._search_buffers()
    assert (buffers.killers >= 0).any() and buffers.history.any() and (buffers.counter_moves >= 0).any()

