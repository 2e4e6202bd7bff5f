"""Chess table family: names, dependencies and the storage index (games/chess/endgames.py)."""
from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from databases.families import get_family
from games.chess import endgames as E
from games.chess.random_positions import random_board

SYZYGY_3_4 = {  # the 35 Syzygy 3-4 piece files (KvK is ours only)
    "KBvK", "KNvK", "KPvK", "KQvK", "KRvK", "KBBvK", "KBNvK", "KBPvK", "KBvKB", "KBvKN",
    "KBvKP", "KNNvK", "KNPvK", "KNvKN", "KNvKP", "KPPvK", "KPvKP", "KQBvK", "KQNvK", "KQPvK",
    "KQQvK", "KQRvK", "KQvKB", "KQvKN", "KQvKP", "KQvKQ", "KQvKR", "KRBvK", "KRNvK", "KRPvK",
    "KRRvK", "KRvKB", "KRvKN", "KRvKP", "KRvKR",
}


def test_table_names_match_syzygy():
    assert {name for name in E.TABLES if len(name) <= 5} == SYZYGY_3_4 | {"KvK"}
    five = [name for name in E.TABLES if len(name) == 6]
    assert len(five) == 110  # Syzygy's 5-piece set
    assert {"KQRvKR", "KRRvKR", "KRBvKR", "KRNvKR", "KRPvKR", "KPPPvK", "KBBBvK"} <= set(five)


def test_four_piece_tables_keep_their_ids():
    # Table ids are packed into probe results: the 5-piece tables come after every smaller one.
    assert all(len(name) <= 5 for name in E.TABLES[:36])


def test_dependencies_come_first():
    seen = set()
    for name in E.TABLES:
        assert set(E.dependencies_of(name)) <= seen, name
        seen.add(name)
    assert set(E.dependencies_of("KPvKP")) >= {"KQvKP", "KPvK", "KQvK"}


def test_material_lookup_finds_each_table_and_nothing_else():
    expected = {}
    for name in E.TABLES:
        codes = E.spec_of(name)
        expected[E._key_of_codes(codes)] = E.TABLE_IDS[name] * 2
        swapped = E._key_of_codes([(code + 6) % 12 for code in codes])
        expected.setdefault(swapped, E.TABLE_IDS[name] * 2 + 1)
    assert len(expected) > 2 * 110
    # Every key of two kings and up to four more pieces (four: no table, so -1).
    for counts in np.ndindex(*(E.KEY_BASE,) * 10):
        if sum(counts) > E.MAX_GROUPS + 1:
            continue
        key = sum(int(count) * int(power) for count, power in zip(counts, E.KEY_POWERS))
        assert E.material_entry(key) == expected.get(key, -1), counts


def test_the_king_pairs_are_those_that_can_stand_in_the_frame():
    assert E.KING_PAIRS == (462, 1806)  # Syzygy's 462 without pawns
    for pawnful, pairs in enumerate(E.KING_PAIRS):
        assert (E.KING_PAIR[pawnful] >= 0).sum() == pairs
        for pair in range(pairs):
            wk, bk = E.KING_PAIR_SQUARES[pawnful, pair]
            assert E.KING_PAIR[pawnful, wk * 64 + bk] == pair
            assert max(abs(wk % 8 - bk % 8), abs(wk // 8 - bk // 8)) > 1
            assert wk % 8 <= 3 and (pawnful or wk // 8 <= wk % 8)


def test_kings_side_by_side_have_no_index():
    table_id = E.TABLE_IDS["KQvKR"]
    squares = np.array([4, 12, 0, 63, 0], dtype=np.int64)  # e1, e2: side by side
    assert E.storage_index(table_id, squares, 0) == -1
    squares[1] = 28  # e4: apart
    assert E.storage_index(table_id, squares, 0) >= 0
    codes = np.array(E.spec_of("KQvKR"), dtype=np.int8)
    squares[1] = 12
    assert E.locate_pieces(codes, squares, 4, 0, np.zeros(5, dtype=np.int64)) == -1


@pytest.mark.parametrize("table", ["KQvKR", "KPvKP", "KNNvK", "KPPvK", "KBvKP", "KvK", "KQvK", "KQRvKR",
                                   "KRPvKR", "KPPPvK", "KBBBvK", "KRRvKR", "KPPvKP", "KNNvKN"])
def test_storage_index_round_trip(table):
    table_id = E.TABLE_IDS[table]
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    rng = np.random.default_rng(7)
    valid = 0
    for index in rng.integers(0, 2 * E.PER_SIDE[table_id], 5000):
        stm = E.storage_unrank(table_id, index, squares)
        if stm >= 0:
            valid += 1
            assert E.storage_index(table_id, squares, stm) == index
    assert valid > 1000


@pytest.mark.parametrize("table", ["KQRvKR", "KBBBvK", "KRPvKR", "KBPvKP", "KPPvKP", "KNPPvK"])
def test_the_generators_decoding_agrees_with_storage_unrank(table):
    from retrograde.chess_dtz50 import decode_valid

    table_id = E.TABLE_IDS[table]
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    decoded = np.zeros(E.MAX_PIECES, dtype=np.int64)
    n = int(E.COUNT[table_id])
    for index in np.random.default_rng(11).integers(0, 2 * E.PER_SIDE[table_id], 3000):
        stm = E.storage_unrank(table_id, index, squares)
        if stm >= 0:
            assert decode_valid(table_id, index, decoded) == stm
            assert decoded[:n].tolist() == squares[:n].tolist()


@pytest.mark.parametrize("table", ["KQPvK", "KBPvKP", "KPPvKP", "KPPvK"])
def test_a_pawn_slice_is_one_run_of_entries_per_side_to_move(table):
    """The generators solve a table one placement of its pawns at a time: in the index
    (version 3) those positions are one run per side to move, so a slice is read and written
    where it lies, not spread over the whole table."""
    from retrograde.chess_dtz50_pawns import slice_layout, slices

    table_id = E.TABLE_IDS[table]
    per_side = int(E.PER_SIDE[table_id])
    pawn_strides, unit_bases, inner = slice_layout(table)
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    for _, variants in slices(table)[::97]:
        for digits in variants:
            entries = np.sort((unit_bases[:, None] + inner[None, :]).ravel()
                              + int(np.dot(digits, pawn_strides)))
            for stm in range(2):
                run = entries[(entries >= stm * per_side) & (entries < (stm + 1) * per_side)]
                assert run.size == run[-1] - run[0] + 1
            pawns = None
            for index in entries[::251]:  # the pawns stand where the slice puts them
                E.storage_unrank(table_id, index, squares)
                placed = tuple(int(squares[s]) for s in range(E.COUNT[table_id])
                               if E.SPEC[table_id, s] % 6 == 0)
                assert pawns in (None, placed)
                pawns = placed


@pytest.mark.parametrize("table", ["KPPPvK", "KBBBvK", "KRRvKR", "KPPvKP"])
def test_like_pieces_in_any_order_share_an_index(table):
    table_id = E.TABLE_IDS[table]
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    rng = np.random.default_rng(11)
    groups = [(int(first), int(count)) for first, count, _ in E.GROUPS[table_id] if count > 1]
    checked = 0
    for index in rng.integers(0, 2 * E.PER_SIDE[table_id], 2000):
        stm = E.storage_unrank(table_id, index, squares)
        if stm < 0:
            continue
        for first, count in groups:
            squares[first:first + count] = rng.permutation(squares[first:first + count])
        assert E.storage_index(table_id, squares, stm) == index
        checked += 1
    assert checked > 300


def images(board: chess.Board, pawns: bool):
    """The board under every symmetry the tables use, and colour-swapped."""
    boards = [board, board.transform(chess.flip_horizontal)]
    if not pawns:
        boards += [board.transform(t) for t in (chess.flip_vertical, chess.flip_diagonal,
                                                chess.flip_anti_diagonal)]
    return boards + [b.mirror() for b in boards]


@pytest.mark.parametrize("table", ["KQvKR", "KPvKP", "KBNvK", "KRvKP", "KQvK", "KRPvKR", "KQRvKR", "KPPPvK"])
def test_symmetric_positions_share_an_entry(table):
    family = get_family("chess")
    game = family.game
    rng = random.Random(3)
    for _ in range(200):
        board = random_board(table, rng, en_passant=False)
        located = {family.locate(game.parse_position(b.fen())) for b in images(board, "P" in table)}
        assert {name for name, _ in located} == {table}
        # Ties the index leaves unbroken (both entries hold the position): both kings on one
        # long diagonal without pawns, or the same material on both sides.
        white, black = E.sides_of(table)
        kings = [board.king(chess.WHITE), board.king(chess.BLACK)]
        on_diagonal = "P" not in table and (
            all(chess.square_file(k) == chess.square_rank(k) for k in kings)
            or all(chess.square_file(k) == 7 - chess.square_rank(k) for k in kings))
        if not on_diagonal and white != black:
            assert len(located) == 1, board.fen()


@pytest.mark.parametrize("table", ["KQvKR", "KPvKP", "KNNvK", "KRBvKR", "KPPvKP", "KBBBvK"])
def test_unrank_then_rank_is_identity(table):
    family = get_family("chess")
    table_id = family.table_id(table)
    pos = family.game.new_position()
    rng = np.random.default_rng(5)
    checked = 0
    for index in rng.integers(0, family.size(table), 3000):
        if family.unrank(table_id, int(index), pos):
            checked += 1
            assert family.locate(pos) == (table, int(index))
    assert checked > 500


@pytest.mark.parametrize("table", ["KQvKR", "KPvKP", "KNNvK", "KRBvKR", "KPPvKP", "KBBBvK",
                                   "KRPvKR", "KBvKP", "KQQvKQ", "KPPPvK"])
def test_rank_children_agrees_with_play_then_rank(table):
    # Positions of either colouring (so the children are seen from both sides), en passant
    # rights among them, and castling rights in a few: every move's child ranked both ways.
    family = get_family("chess")
    game = family.game
    kernels = game.kernels
    pos, child = game.new_position(), game.new_position()
    moves = np.empty(game.max_moves, dtype=np.int32)
    ranks = np.empty(game.max_moves, dtype=np.int64)
    rng = random.Random(table)
    quiet = others = 0
    for _ in range(300):
        board = random_board(table, rng)
        pos[:] = game.parse_position(board.fen())
        count = kernels.legal_moves(pos, moves)
        family.rank_children(pos, moves, count, child, ranks)
        for i in range(count):
            kernels.play(pos, moves[i], child)
            assert ranks[i] == family.rank(child), (board.fen(), int(moves[i]))
            quiet += int(family.rank(child) >> E.TABLE_SHIFT == family.rank(pos) >> E.TABLE_SHIFT)
            others += 1
    assert quiet > 1000 and others > quiet
    # Castling rights: no table holds such a position, nor the children of Black's moves.
    for fen in ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "4k3/8/8/8/8/8/8/R3K3 b Q - 0 1"):
        pos[:] = game.parse_position(fen)
        count = kernels.legal_moves(pos, moves)
        family.rank_children(pos, moves, count, child, ranks)
        for i in range(count):
            kernels.play(pos, moves[i], child)
            assert ranks[i] == family.rank(child)
        if fen.split()[1] == "b":
            assert (ranks[:count] == -1).all()


def test_castling_rights_and_six_pieces_are_not_covered():
    family = get_family("chess")
    game = family.game
    with pytest.raises(KeyError, match="castling"):
        family.locate(game.parse_position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"))
    with pytest.raises(KeyError, match="6 pieces"):
        family.locate(game.parse_position("4k3/8/8/8/8/8/1PPP4/R3K3 w - - 0 1"))
    assert family.locate(game.parse_position("4k3/8/8/8/8/8/1PP5/R3K3 w - - 0 1"))[0] == "KRPPvK"


@pytest.mark.parametrize("table", ["KBBvKQ", "KBBBvK", "KBBvKP", "KRRPvK", "KPPPvK"])
def test_generation_index_keeps_like_pieces_in_order(table):
    # The generator holds each position once: like pieces (but the anchor pawn) in ascending
    # square order, the anchor the canonical one of its like pawns. Any order of them gives
    # the same node, that node decodes to the sorted order, and a move that keeps the order
    # and the anchor is the plain index arithmetic the kernels use.
    from games.chess import retrograde_kernels as RK

    space = RK.generation_space(table)
    spec, n, pawnful, _, powers, domain, king_squares = RK.table_views(space.params, space.aux)
    like = RK.like_pairs(powers, n)
    assert like
    rng = np.random.default_rng(5)
    decoded = np.zeros(E.MAX_PIECES, dtype=np.int64)
    checked = 0
    while checked < 2000:
        g = int(rng.integers(0, space.size))
        stm = RK.decode_node(g, pawnful, n, powers, decoded, king_squares)
        squares = decoded.copy()
        if len(set(squares[:n])) < n or not RK.like_in_order(like, squares, n) \
                or not RK.anchor_is_canonical(squares, n, powers):
            continue
        assert RK.node_index(pawnful, squares, n, stm, powers, domain) == g
        for i in range(n - 1):
            if (like >> i) & 1:
                swapped = squares.copy()
                swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
                assert RK.node_index(pawnful, swapped, n, stm, powers, domain) == g
        slot = int(rng.integers(1 if not pawnful else 0, n))
        if spec[slot] % 6 == 0 or (pawnful and slot == powers[n + 1]) \
                or RK.anchor_moves(squares, n, powers, slot):
            continue  # pawns move along files; the anchor decides the symmetry
        to = int(rng.integers(0, 64))
        if to in squares[:n]:
            continue
        moved = squares.copy()
        moved[slot] = to
        child = RK.node_index(pawnful, moved, n, stm, powers, domain)
        if RK.passes_partner(like, squares, slot, to):
            RK.decode_node(child, pawnful, n, powers, decoded, king_squares)
            assert RK.like_in_order(like, decoded, n)
        else:
            assert child == g + RK.move_delta(slot, squares[slot], to, n, powers)
        checked += 1


@pytest.mark.parametrize("table", ["KQRvKR", "KBBvKQ", "KRPvKR", "KBBvKP", "KPPvKB", "KPPPvK",
                                   "KNPvKB", "KQvKP", "KRRvK"])
def test_storage_codes_follow_the_storage_index(table):
    # store_range takes shortcuts along runs of the last slot's digit (one or two node_index
    # calls per run, a symmetry change when the anchor pawn is last); every entry must still
    # be the storage code of the node its storage placement has, 0 where storage has no
    # position, and untouched where the code was floored by a shift (stored before it).
    from games.chess import retrograde_kernels as RK
    from games.value_codes import stored_code

    space = RK.generation_space(table)
    spec, n, pawnful, _, powers, domain, _ = RK.table_views(space.params, space.aux)
    table_id = E.TABLE_IDS[table]
    rng = np.random.default_rng(11)
    codes = rng.integers(1, 200, space.size, dtype=np.uint8)  # distinct codes per node
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    for start in rng.integers(0, space.storage_size - 300, 40):
        stop = int(start) + int(rng.integers(1, 300))
        for index in range(int(start), stop):  # as the generator leaves them: 0 if no position
            if E.storage_unrank(table_id, index, squares) < 0 and len(set(squares[:n])) < n:
                codes[RK.node_index(pawnful, squares, n, index // E.PER_SIDE[table_id], powers,
                                    domain)] = 0
        offset = int(rng.integers(0, 2)) * 40  # codes counted from 40 plies: some floored
        out = np.full(stop - start, 0xFFFF, dtype=np.uint16)
        RK.store_range(space.params, space.aux, int(start), stop, codes, out, offset)
        for index in range(int(start), stop):
            stm = E.storage_unrank(table_id, index, squares)
            expected = 0 if stm < 0 else stored_code(int(codes[RK.node_index(
                pawnful, squares, n, stm, powers, domain)]), offset)
            assert out[index - start] == (0xFFFF if expected < 0 else expected), (table, index)


@pytest.mark.parametrize("table", ["KBPPvK", "KRPvKR", "KPvKP", "KBPvKP", "KRvKR", "KQvKQ"])
def test_moves_out_land_in_the_range_read_of_each_child(table):
    # The generator reads of a child table only the range with the side to move that moves
    # into it leave there (``child_ranges``; the rest of the table stays 0, which would drop
    # a move silently): every capture and promotion must land inside it.
    from games.chess.notation import parse_fen
    from games.chess.retrograde_kernels import child_ranges
    from games.table_family import INDEX_MASK, TABLE_SHIFT

    ranges = child_ranges(table)
    assert set(ranges) <= set(E.dependencies_of(table))
    white = sorted(E.sides_of(table)[0])
    rng = random.Random(11)
    reached = set()
    for _ in range(3000):
        board = random_board(table, rng)
        if sorted(p.symbol() for p in board.piece_map().values() if p.symbol().isupper()
                  and p.symbol() != "K") != white:
            board = board.mirror()  # the generator's positions have the table's colours
        for move in list(board.legal_moves):
            if not (board.is_capture(move) or move.promotion):
                continue
            board.push(move)
            entry = E.rank(parse_fen(board.fen()))
            board.pop()
            child = E.TABLES[entry >> TABLE_SHIFT]
            start, stop = ranges.get(child, (0, 2 * int(E.PER_SIDE[entry >> TABLE_SHIFT])))
            assert start <= entry & INDEX_MASK < stop, (board.fen(), move.uci(), child)
            reached.add(child)
    assert set(ranges) & reached  # the check saw children read in part


@pytest.mark.parametrize("table", ["KPPvK", "KPPPvK", "KBPPvK", "KPPvKP", "KPPvKB"])
def test_like_pawns_share_one_node_whichever_is_the_anchor(table):
    # A position whose anchor pawn has like partners has one node: any of them in the anchor's
    # slot, and the board's left-right mirror, give the same node, and it is canonical.
    from games.chess import retrograde_kernels as RK

    space = RK.generation_space(table)
    spec, n, pawnful, _, powers, domain, king_squares = RK.table_views(space.params, space.aux)
    anchor, end = powers[n + 1], RK.anchor_group_end(powers, n)
    assert end > anchor
    rng = np.random.default_rng(11)
    squares = np.zeros(E.MAX_PIECES, dtype=np.int64)
    checked = 0
    while checked < 2000:
        g = int(rng.integers(0, space.size))
        stm = RK.decode_node(g, pawnful, n, powers, squares, king_squares)
        if len(set(squares[:n])) < n:
            continue
        node = RK.node_index(pawnful, squares, n, stm, powers, domain)
        canonical = np.zeros(E.MAX_PIECES, dtype=np.int64)
        RK.decode_node(node, pawnful, n, powers, canonical, king_squares)
        assert RK.anchor_is_canonical(canonical, n, powers)
        for slot in range(anchor + 1, end + 1):
            swapped = squares.copy()
            swapped[anchor], swapped[slot] = swapped[slot], swapped[anchor]
            assert RK.node_index(pawnful, swapped, n, stm, powers, domain) == node
        mirrored = squares.copy()
        mirrored[:n] ^= 7
        assert RK.node_index(pawnful, mirrored, n, stm, powers, domain) == node
        checked += 1
