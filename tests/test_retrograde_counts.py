"""Positions that count their moves inside the table instead of being flagged and evaluated
(games/chess/retrograde_kernels.py): the count, the atomic decrement, and who counts."""
from __future__ import annotations

import numba as nb
import numpy as np
import pytest
from numba import prange, types

import games.chess.retrograde_kernels as K
from games.bits import atomic_decrement
from games.chess import endgames as E
from games.value_codes import (COUNT_BASE, GEN_FLAGGED, GEN_UNKNOWN, LONGEST_BYTE_DISTANCE,
                               MOST_COUNTED, count_code, is_count, is_unresolved, shifted,
                               stored_code, win_code)


@nb.njit(cache=True)
def _count_by_legal_moves(spec, squares, n, stm, occupied, pawns_leave):
    """The legal moves that neither capture nor promote (nor move a pawn, if ``pawns_leave``:
    a DTZ50 space), one legality test each."""
    count = 0
    for i in range(n):
        code = np.int64(spec[i])
        if code // 6 != stm or (pawns_leave and code % 6 == K.PAWN):
            continue
        targets = K.quiet_targets(code, squares[i], stm, occupied)
        while targets:
            to = K.lsb(targets)
            targets &= targets - types.uint64(1)
            if K.move_is_legal(spec, squares, n, stm, i | (to << 3)):
                count += 1
    return count


@nb.njit(cache=True)
def _disagreements(params, aux, nodes):
    """Valid placements among ``nodes`` whose attack-set count differs from the move-by-move
    one, and how many valid placements there were."""
    spec, n, pawnful, _, powers, _, king_squares = K.table_views(params, aux)
    pawns_leave = K.pawn_moves_leave(params)
    squares = np.empty(E.MAX_PIECES, dtype=np.int64)
    wrong = 0
    valid = 0
    for g in nodes:
        stm = K.decode_node(g, pawnful, n, powers, squares, king_squares)
        if not K.placement_valid(spec, squares, n, stm):
            continue
        occupied = types.uint64(0)
        for i in range(n):
            occupied |= types.uint64(1) << types.uint64(squares[i])
        valid += 1
        wrong += K.legal_quiet_count(spec, squares, n, stm, occupied, pawns_leave) != \
            _count_by_legal_moves(spec, squares, n, stm, occupied, pawns_leave)
    return wrong, valid


def space_of(table: str, dtz50: bool = False):
    """The table's generation space, or its DTZ50 space (pawn moves leave the table)."""
    return K.dtz50_generation_space(table) if dtz50 else K.generation_space(table)


@pytest.mark.parametrize("table, dtz50", [("KPvK", False), ("KRvKP", False), ("KPvKP", False),
                                          ("KQvKN", False), ("KBvKB", False), ("KRvKP", True),
                                          ("KPvKP", True)])
def test_attack_set_count_is_the_legal_move_count_everywhere(table, dtz50):
    space = space_of(table, dtz50)
    wrong, valid = _disagreements(space.params, space.aux, np.arange(space.size))
    assert wrong == 0 and valid > space.size // 3


@pytest.mark.parametrize("table", ["KQQvKP", "KRPvKR", "KBBvKP", "KNPvKQ", "KPPvKP", "KQRvKR"])
def test_attack_set_count_is_the_legal_move_count_on_five_pieces(table):
    space = K.generation_space(table)
    nodes = np.random.default_rng(3).integers(0, space.size, 300_000)
    wrong, valid = _disagreements(space.params, space.aux, nodes)
    assert wrong == 0 and valid > 50_000


@nb.njit(parallel=True, cache=True)
def _decrement_everywhere(values, tasks, rounds):
    """Every task decrements each entry ``rounds`` times (the bytes wrap round); returns how
    many decrements found an entry at 1. Every thread works on the same eight bytes."""
    at_one = np.zeros(tasks, dtype=np.int64)
    for task in prange(tasks):
        for _ in range(rounds):
            for k in range(values.shape[0]):
                if atomic_decrement(values, k) == 1:
                    at_one[task] += 1
    return at_one.sum()


def test_atomic_decrements_are_never_lost():
    # 256 x 1000 decrements of each byte: back to 0, passing 1 a thousand times. A plain
    # read-then-write loses thousands of them here on two threads.
    values = np.zeros(8, dtype=np.uint8)
    assert _decrement_everywhere(values, 256, 1000) == 8 * 1000
    assert np.all(values == 0)


def _initial_codes(table, dtz50=False):
    space = space_of(table, dtz50)
    size = space.size
    codes, win, floor = (np.zeros(size, dtype=np.uint8) for _ in range(3))
    wake = np.zeros(size if space.wake else 0, dtype=np.uint8)
    no_children = np.zeros(1, dtype=np.uint16)
    offsets = np.full(len(E.TABLES), -1, dtype=np.int64)
    K.initialise_range(space.params, space.aux, 0, size, codes, win, floor, wake, no_children,
                       offsets, True)
    return codes


def test_pawn_tables_count_everywhere():
    pawn = _initial_codes("KRvKP")
    assert np.count_nonzero(np.vectorize(is_count)(pawn[::97])) > 1000
    assert not np.any(pawn == GEN_UNKNOWN)  # no en passant here, never more than 47 moves


def test_pawnless_tables_count_all_but_their_own_mirror_images():
    # Such a position is reached once for a mirrored pair of its moves: flagged instead.
    codes = _initial_codes("KQvKR")
    space = K.generation_space("KQvKR")
    spec, n, pawnful, _, powers, _, king_squares = K.table_views(space.params, space.aux)
    squares = np.empty(E.MAX_PIECES, dtype=np.int64)

    def own_mirror(g):
        K.decode_node(g, pawnful, n, powers, squares, king_squares)
        return all(squares[i] >> 3 == squares[i] & 7 for i in range(n))

    flagged = np.flatnonzero(codes == GEN_UNKNOWN)  # never more than 47 moves here
    assert flagged.size > 100 and all(own_mirror(g) for g in flagged)
    counted = np.flatnonzero((codes >= COUNT_BASE) & (codes < GEN_FLAGGED))
    assert not any(own_mirror(g) for g in counted[::101])


@nb.njit(cache=True)
def _times_reached(params, aux, codes):
    """For every node, how many times the un-moves of every position reach it (each node
    generating as mark_predecessors_of has it: twins once, symmetric ones by halves)."""
    spec, n, pawnful, en_passant, powers, domain, king_squares = K.table_views(params, aux)
    pawns_leave = K.pawn_moves_leave(params)
    squares = np.empty(E.MAX_PIECES, dtype=np.int64)
    scratch = np.empty(E.MAX_PIECES, dtype=np.int64)
    targets = np.empty(K.MOST_PREDECESSORS, dtype=np.int64)
    reached = np.zeros(codes.size, dtype=np.int64)
    for g in range(codes.size):
        if codes[g] == 0:
            continue  # no position
        stm = K.decode_node(g, pawnful, n, powers, squares, king_squares)
        role = K.unmove_role(g, pawnful, n, squares, powers, scratch, domain, king_squares)
        if role == K.SKIPPED:
            continue
        count = K.collect_predecessors(g, spec, squares, n, stm, False, pawnful, en_passant,
                                       False, role == K.SYMMETRIC, powers, scratch, domain,
                                       king_squares, targets, 0, pawns_leave)
        for t in range(count):
            reached[targets[t]] += 1
    return reached


@pytest.mark.parametrize("table, dtz50", [("KQvKR", False), ("KRRvK", False), ("KBNvK", False),
                                          ("KQvK", False), ("KRvKP", False), ("KPPvK", False),
                                          ("KRvKP", True), ("KPPvK", True), ("KPvKP", True)])
def test_un_moves_reach_a_counting_node_once_per_move(table, dtz50):
    # The invariant counting rests on: a count reaches 0 exactly when every move is known won
    # for the opponent. Symmetric positions (all pieces on the a1-h8 diagonal, say) are where
    # pawnless tables would reach a node twice.
    codes = _initial_codes(table, dtz50)
    space = space_of(table, dtz50)
    reached = _times_reached(space.params, space.aux, codes)
    counting = (codes >= COUNT_BASE) & (codes < GEN_FLAGGED)
    assert np.count_nonzero(counting) > codes.size // 4
    assert np.array_equal(reached[counting], codes[counting].astype(np.int64) - COUNT_BASE)


def test_positions_with_an_en_passant_push_are_not_counted():
    codes = _initial_codes("KPvKP")
    space = K.generation_space("KPvKP")
    spec, n, pawnful, _, powers, _, king_squares = K.table_views(space.params, space.aux)
    squares = np.empty(E.MAX_PIECES, dtype=np.int64)
    unknown = np.flatnonzero(codes == GEN_UNKNOWN)
    assert unknown.size > 100
    for g in unknown[::37]:
        stm = K.decode_node(g, pawnful, n, powers, squares, king_squares)
        assert K.has_en_passant_push(spec, squares, n, stm)


def test_counts_are_unresolved_and_never_a_distance():
    assert COUNT_BASE + MOST_COUNTED == GEN_FLAGGED - 1
    assert win_code(LONGEST_BYTE_DISTANCE) < COUNT_BASE
    for count in (0, 1, MOST_COUNTED):
        code = count_code(count)
        assert is_count(code) and is_unresolved(code)
        assert shifted(code, 5) == code and stored_code(code, 0) == 1  # a draw if never decided
    assert not is_count(GEN_FLAGGED) and not is_count(GEN_UNKNOWN)
    assert not is_count(win_code(LONGEST_BYTE_DISTANCE))
