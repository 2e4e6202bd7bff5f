"""Chess endgame tables (3 to 5 pieces, plus the trivial KvK): names, dependencies and indexing.

Tables are named like Syzygy's (``KQvKR``): the stronger side first, pieces in the order
K Q R B N P. A position whose stronger material is Black's is looked up in the table of the
colour-swapped position (ranks mirrored, side to move swapped).

Pieces of a table (its *spec*) are listed as ``WK, BK``, then White's other pieces strongest
first, then Black's: piece codes ``colour * 6 + type`` (type 0..5 = P N B R Q K), as in
:mod:`games.chess.position`.

Two index spaces (GUIDE.md, "two index spaces")
    *Generation index* ``g = stm * 64^n + sum(square[i] * 64^i)`` over the spec's pieces in
    order: every placement, including impossible ones; a move of piece ``i`` from ``a`` to ``b``
    is ``g + (b - a) * 64^i``. Used only while building (one byte per entry).

    *Storage index* (what the files hold), per side to move::

        index = stm * per_side + ((pawns * pairs + kings) * G1 + g1) * G2 + g2

    where ``pawns`` is the mixed-radix number of the pawn groups' digits (White's group
    first) and ``G1, G2`` are the other groups (spec order): a table's positions with one
    placement of the pawns (a *pawn slice*, what the generators solve one at a time) are one
    run of entries per side to move.

    ``kings``: the number of the king pair among the pairs that can stand on the board
    (not on one square, not side by side; ``KING_PAIR``), the white king's square major, the
    black king's minor. Without pawns the 8 board symmetries put the white king in the
    triangle a1-d1-d4 (if it is on the a1-h8 diagonal, the black king on or below it): 462
    pairs, as Syzygy's; with pawns only the left-right mirror applies (the white king on files
    a-d): 1806 pairs.
    The groups of like pieces (up to three; pawns and pieces alike): one piece takes its
    square (pawns: the square minus 8, 48 values), two or three like pieces the combinatorial
    index ``a + C(b, 2) + C(c, 3)`` of their sorted squares ``a < b < c`` (``C(64, 2)`` = 2016
    values for a pair, pawns ``C(48, 2)`` = 1128). Indices of impossible placements hold
    INVALID.

Castling rights are never in a table; an en-passant right is handled by the reader, which
looks one ply ahead (see ``needs_children``).
"""
from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from math import comb, prod

import numba as nb
import numpy as np
from numba import types

from games.chess.bitops import lsb, popcount
from games.chess.moves import move_origin, move_target, move_promotion
from games.chess.position import (BLACK, CASTLING, KING, PAWN, PAWNS, STATE, WHITE, clear_position,
                                  opponent_in_check, place_piece, set_side_to_move)
from games.chess.makemove import play
from games.kernels import POSITION
from games.table_family import (NEEDS_CHILDREN, RANK_CHILDREN_SIGNATURE, RANK_SIGNATURE,
                                TABLE_SHIFT, UNRANK_SIGNATURE)

LETTERS = "PNBRQK"  # by piece type
STRENGTH = {"Q": 5, "R": 4, "B": 3, "N": 2, "P": 1}
MAX_PIECES = 5
MAX_GROUPS = MAX_PIECES - 2  # groups of like pieces besides the kings
INDEX_SCHEME = "chess-kk-binomial"
# 3: with pawns, the pawn groups outside the king pair (2 had them inside, with the pieces);
# 2: the king pairs that can stand (462, 1806); 1 had 640 and 2048.
INDEX_VERSION = 3
PAWNLESS_UNCHANGED_SINCE = 2  # tables without pawns are indexed alike from this version on

# --- names and specs ----------------------------------------------------------------------


def _side_key(pieces: str):
    return (len(pieces), sorted((STRENGTH[p] for p in pieces), reverse=True))


def _side_text(pieces: str) -> str:
    return "K" + "".join(sorted(pieces, key=lambda p: -STRENGTH[p]))


def canonical_name(white: str, black: str) -> tuple[str, bool]:
    """(table name, colours swapped) for White's and Black's non-king pieces (letters)."""
    if _side_key(white) >= _side_key(black):
        return f"{_side_text(white)}v{_side_text(black)}", False
    return f"{_side_text(black)}v{_side_text(white)}", True


def _all_names(max_pieces: int) -> list[str]:
    names = set()
    for extra in range(max_pieces - 1):
        for pieces in combinations_with_replacement("QRBNP", extra):
            for split in range(extra + 1):
                for white in set(combinations(pieces, split)):
                    black = list(pieces)
                    for p in white:
                        black.remove(p)
                    names.add(canonical_name("".join(white), "".join(black))[0])
    return sorted(names)


def sides_of(name: str) -> tuple[str, str]:
    """The non-king pieces of each side of a table name: ``KQvKR`` -> ("Q", "R")."""
    white, black = name.split("v")
    return white[1:], black[1:]


def dependencies_of(name: str) -> list[str]:
    """Tables a move can leave ``name`` for: captures, promotions, and both at once."""
    return sorted(child_sides_to_move(name))


def child_sides_to_move(name: str) -> dict[str, set[int]]:
    """Each table a move can leave ``name`` for, with the sides to move (in that table's
    colours: 0 for its first side) that such moves leave there. A child's material tells who
    moved into it, so most children are reached with one side to move only."""
    white, black = sides_of(name)
    result: dict[str, set[int]] = {}
    for mover, other, colour in ((white, black, WHITE), (black, white, BLACK)):
        captures = [other.replace(p, "", 1) for p in set(other)] + [other]
        for remaining in captures:
            options = [mover] if remaining != other else []
            if "P" in mover:
                options += [mover.replace("P", q, 1) for q in "QRBN"]
            for new_mover in options:
                w, b = (new_mover, remaining) if colour == WHITE else (remaining, new_mover)
                if (w, b) == (white, black):
                    continue
                child, swapped = canonical_name(w, b)
                if child != name:
                    result.setdefault(child, set()).add((1 - colour) ^ int(swapped))
    return result


def _build_order(names: list[str]) -> list[str]:
    ordered, done = [], set()

    def visit(name):
        if name in done:
            return
        done.add(name)
        for dep in dependencies_of(name):
            visit(dep)
        ordered.append(name)

    for name in sorted(names, key=lambda n: (len(n), n)):
        visit(name)
    return ordered


TABLES = _build_order(_all_names(MAX_PIECES))
TABLE_IDS = {name: i for i, name in enumerate(TABLES)}


def tables_up_to(max_pieces: int) -> list[str]:
    """The tables of at most ``max_pieces`` pieces, dependencies first."""
    return [name for name in TABLES if len(name) - 1 <= max_pieces]


def spec_of(name: str) -> list[int]:
    """Piece codes of a table in spec order (WK, BK, White's others, Black's others)."""
    white, black = sides_of(name)
    codes = [KING, 6 + KING]
    codes += [LETTERS.index(p) for p in white]
    codes += [6 + LETTERS.index(p) for p in black]
    return codes


def _group_sizes(codes: list[int]) -> list[tuple[int, int, int]]:
    """(first slot, count, values) of each like-piece group after the kings."""
    groups = []
    slot = 2
    while slot < len(codes):
        count = 1
        while slot + count < len(codes) and codes[slot + count] == codes[slot]:
            count += 1
        squares = 48 if codes[slot] % 6 == PAWN else 64
        groups.append((slot, count, comb(squares, count)))
        slot += count
    return groups


def has_pawns(name: str) -> bool:
    """Whether either side has a pawn."""
    return "P" in name


def per_side_size(name: str) -> int:
    """Storage indices per side to move."""
    size = KING_PAIRS[int(has_pawns(name))]
    for _, _, values in _group_sizes(spec_of(name)):
        size *= values
    return size


def _groups_by_kind(name: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """``(pieces, pawns)``: the like-piece groups of each kind as ``(group, values)``, in
    spec order."""
    codes = spec_of(name)
    pieces, pawns = [], []
    for g, (first, _, values) in enumerate(_group_sizes(codes)):
        (pawns if codes[first] % 6 == PAWN else pieces).append((g, values))
    return pieces, pawns


def index_dimensions(name: str) -> list[int]:
    """The sizes of the storage index's dimensions, fastest-varying first (module docstring):
    the groups of pieces from the last, the king pair (462, or 1806 with pawns), the groups of
    pawns from the last, the side to move (2)."""
    pieces, pawns = _groups_by_kind(name)
    return [values for _, values in pieces[::-1]] + [KING_PAIRS[int(has_pawns(name))]] \
        + [values for _, values in pawns[::-1]] + [2]


def pawn_placements(name: str) -> int:
    """How many values the pawns' digits take together (1 without pawns)."""
    return prod(values for _, values in _groups_by_kind(name)[1])


def pack_dimensions(name: str) -> list[int]:
    """The packed WDL50's dimensions, fastest first: :func:`index_dimensions` with the pawns'
    groups moved first (``ChessEndgames.pack_order``)."""
    pieces, pawns = _groups_by_kind(name)
    return [values for _, values in pawns[::-1] + pieces[::-1]] \
        + [KING_PAIRS[int(has_pawns(name))], 2]


def _strides(name: str) -> tuple[list[int], int]:
    """Each group's stride in the storage index (spec order) and the king pair's."""
    pieces, pawns = _groups_by_kind(name)
    strides = [0] * (len(pieces) + len(pawns))
    stride = 1
    for g, values in pieces[::-1]:
        strides[g] = stride
        stride *= values
    kings_stride = stride
    stride *= KING_PAIRS[int(has_pawns(name))]
    for g, values in pawns[::-1]:
        strides[g] = stride
        stride *= values
    return strides, kings_stride


def _in_frame(white_king: int, black_king: int, pawnful: bool) -> bool:
    """Whether the storage index keeps the kings where they stand (module docstring)."""
    file, rank = white_king & 7, white_king >> 3
    if pawnful:
        return file <= 3
    return file <= 3 and rank <= file \
        and not (rank == file and (black_king >> 3) > (black_king & 7))


def _apart(a: int, b: int) -> bool:
    """Whether two kings on ``a`` and ``b`` can stand on the board together."""
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) > 1


# The king pairs of the storage index, without pawns (row 0) and with them (row 1):
# KING_PAIR[pawnful, wk * 64 + bk] is the pair's number (-1 for a pair outside the frame or
# that cannot stand), KING_PAIR_SQUARES[pawnful, pair] = (wk, bk).
KING_PAIRS = (462, 1806)
KING_PAIRS_OF = np.array(KING_PAIRS, dtype=np.int64)  # for the kernels
KING_PAIR = np.full((2, 64 * 64), -1, dtype=np.int64)
KING_PAIR_SQUARES = np.zeros((2, max(KING_PAIRS), 2), dtype=np.int64)
for _pawnful in range(2):
    _pairs = [(w, b) for w in range(64) for b in range(64)
              if _in_frame(w, b, bool(_pawnful)) and _apart(w, b)]
    assert len(_pairs) == KING_PAIRS[_pawnful]
    for _pair, (_w, _b) in enumerate(_pairs):
        KING_PAIR[_pawnful, _w * 64 + _b] = _pair
        KING_PAIR_SQUARES[_pawnful, _pair] = _w, _b

# Arrays for the kernels: per table id.
N_TABLES = len(TABLES)
SPEC = np.full((N_TABLES, MAX_PIECES), -1, dtype=np.int8)
COUNT = np.zeros(N_TABLES, dtype=np.int64)
PAWNFUL = np.zeros(N_TABLES, dtype=np.bool_)
# The groups after the kings: (first slot, count, values), zero-filled when absent.
GROUPS = np.zeros((N_TABLES, MAX_GROUPS, 3), dtype=np.int64)
PER_SIDE = np.zeros(N_TABLES, dtype=np.int64)
# Each group's stride in the storage index (PAWN_GROUP: whether it holds pawns), the king pair's.
GROUP_STRIDE = np.zeros((N_TABLES, MAX_GROUPS), dtype=np.int64)
PAWN_GROUP = np.zeros((N_TABLES, MAX_GROUPS), dtype=np.bool_)
KINGS_STRIDE = np.zeros(N_TABLES, dtype=np.int64)
for _t, _name in enumerate(TABLES):
    _codes = spec_of(_name)
    SPEC[_t, :len(_codes)] = _codes
    COUNT[_t] = len(_codes)
    PAWNFUL[_t] = has_pawns(_name)
    _group_strides, KINGS_STRIDE[_t] = _strides(_name)
    for _g, _group in enumerate(_group_sizes(_codes)):
        GROUPS[_t, _g] = _group
        GROUP_STRIDE[_t, _g] = _group_strides[_g]
        PAWN_GROUP[_t, _g] = _codes[_group[0]] % 6 == PAWN
    PER_SIDE[_t] = per_side_size(_name)

# Material key: the counts of the 10 non-king coloured pieces as digits in base KEY_BASE (a
# count is at most MAX_GROUPS). The keys of the tables' materials, both colourings, with
# ``table_id * 2 + colours swapped`` for each, are looked up in a small hash table: slot
# ``key % MATERIAL_MODULUS``, the smallest modulus under which no two of them share a slot. (It
# runs for every child a verify or a search leaf ranks; a binary search cost 25-75 ns there.)
KEY_BASE = MAX_GROUPS + 1
KEY_POWERS = np.array([KEY_BASE ** i for i in range(10)], dtype=np.int64)


def _key_of_codes(codes) -> int:
    return sum(KEY_BASE ** ((code // 6) * 5 + code % 6) for code in codes if code % 6 != KING)


def _material_entries() -> dict[int, int]:
    """``{material key: table_id * 2 + colours swapped}`` for every table, both colourings."""
    entries: dict[int, int] = {}
    for name in TABLES:
        codes = spec_of(name)
        entries[_key_of_codes(codes)] = TABLE_IDS[name] * 2
        entries.setdefault(_key_of_codes([(c + 6) % 12 for c in codes]), TABLE_IDS[name] * 2 + 1)
    return entries


def _material_hash(entries: dict[int, int]) -> tuple[int, np.ndarray, np.ndarray]:
    """``(modulus, slot keys, slot entries)``: the smallest modulus that gives every key a
    slot of its own, and per slot its key (-1 if none) and entry."""
    keys = np.array(sorted(entries), dtype=np.int64)
    modulus = keys.size
    while np.unique(keys % modulus).size < keys.size:
        modulus += 1
    slot_keys = np.full(modulus, -1, dtype=np.int64)
    slot_entries = np.full(modulus, -1, dtype=np.int64)
    slot_keys[keys % modulus] = keys
    slot_entries[keys % modulus] = [entries[k] for k in keys]
    return modulus, slot_keys, slot_entries


MATERIAL_MODULUS, MATERIAL_SLOT_KEYS, MATERIAL_SLOT_ENTRIES = _material_hash(_material_entries())

TRIANGLE = np.full(64, -1, dtype=np.int64)  # a1-d1-d4 triangle squares -> 0..9
TRIANGLE_SQUARES = np.zeros(10, dtype=np.int64)
_n = 0
for _sq in range(64):
    if (_sq & 7) <= 3 and (_sq >> 3) <= (_sq & 7):
        TRIANGLE[_sq] = _n
        TRIANGLE_SQUARES[_n] = _sq
        _n += 1

# Decoding a combinatorial index: the largest b with C(b, 2) <= part, and the largest c with
# C(c, 3) <= part, for every part a pair or a triple of like pieces can have.
PAIR_TOP = np.zeros(comb(64, 2), dtype=np.int8)
for _b in range(1, 64):
    PAIR_TOP[comb(_b, 2):comb(_b + 1, 2)] = _b
TRIPLE_TOP = np.zeros(comb(64, 3), dtype=np.int8)
for _c in range(2, 64):
    TRIPLE_TOP[comb(_c, 3):comb(_c + 1, 3)] = _c

# The eight board symmetries, as a symmetry number (1: flip the files, 2: flip the ranks, 4:
# mirror in the a1-h8 diagonal, applied in that order) -> square -> image.
FLIP_FILE, FLIP_RANK, DIAGONAL = 1, 2, 4
SYMMETRY = np.zeros((8, 64), dtype=np.int64)
for _symmetry in range(8):
    for _sq in range(64):
        _image = _sq ^ (7 if _symmetry & FLIP_FILE else 0) ^ (56 if _symmetry & FLIP_RANK else 0)
        if _symmetry & DIAGONAL:
            _image = ((_image & 7) << 3) | (_image >> 3)
        SYMMETRY[_symmetry, _sq] = _image

# --- index kernels ----------------------------------------------------------------------------
SQUARES = types.Array(types.int64, 1, "C")
CODES8 = types.Array(types.int8, 1, "C")


@nb.njit(cache=True, inline="always")
def transform(square, flip_file, flip_rank, diagonal):
    """A square under the chosen board symmetry."""
    return SYMMETRY[np.int64(flip_file) * FLIP_FILE + np.int64(flip_rank) * FLIP_RANK
                    + np.int64(diagonal) * DIAGONAL, square]


@nb.njit(types.int64(types.int64, types.int64, types.int64), cache=True)
def storage_index_packed(table, packed_squares, stm):
    """Storage index of the placement whose spec-order squares are packed 6 bits each
    (slot i at bits 6i..6i+5; like pieces in any order) with ``stm`` to move, -1 if the kings
    stand side by side or on one square. Applies the symmetry reduction."""
    wk = packed_squares & 63
    bk = (packed_squares >> 6) & 63
    symmetry = FLIP_FILE if (wk & 7) > 3 else 0
    pawnful = PAWNFUL[table]
    if not pawnful:
        if (wk >> 3) > 3:
            symmetry |= FLIP_RANK
        w = SYMMETRY[symmetry, wk]
        bk_image = SYMMETRY[symmetry, bk]
        if (w >> 3) > (w & 7) or ((w >> 3) == (w & 7) and (bk_image >> 3) > (bk_image & 7)):
            symmetry |= DIAGONAL
    pair = KING_PAIR[np.int64(pawnful), SYMMETRY[symmetry, wk] * 64 + SYMMETRY[symmetry, bk]]
    if pair < 0:  # kings side by side or on one square: no position
        return -1
    index = pair * KINGS_STRIDE[table]
    for g in range(MAX_GROUPS):
        first = GROUPS[table, g, 0]
        count = GROUPS[table, g, 1]
        values = GROUPS[table, g, 2]
        if count == 0:
            break
        offset = 8 if SPEC[table, first] % 6 == PAWN else 0
        # The group's squares under the symmetry, as a < b < c (the last ones of a smaller group).
        c = SYMMETRY[symmetry, (packed_squares >> (6 * first)) & 63] - offset
        if count == 1:
            part = c
        else:
            y = SYMMETRY[symmetry, (packed_squares >> (6 * first + 6)) & 63] - offset
            b, c = min(c, y), max(c, y)
            if count == 2:
                part = b + c * (c - 1) // 2
            else:
                z = SYMMETRY[symmetry, (packed_squares >> (6 * first + 12)) & 63] - offset
                if z < b:
                    a = z
                elif z < c:
                    a, b = b, z
                else:
                    a, b, c = b, c, z
                part = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6
        index += part * GROUP_STRIDE[table, g]
    return stm * PER_SIDE[table] + index


@nb.njit(types.int64(types.int64, SQUARES, types.int64), cache=True)
def storage_index(table, squares, stm):
    """Storage index of the placement ``squares`` (spec order; like pieces in any order) with
    ``stm`` to move, in table ``table``. Applies the symmetry reduction."""
    packed = 0
    for i in range(COUNT[table]):
        packed |= squares[i] << (6 * i)
    return storage_index_packed(table, packed, stm)


@nb.njit(types.UniTuple(types.int64, 2)(types.int64, types.int64), cache=True)
def storage_unrank_packed(table, index):
    """Inverse of :func:`storage_index`: ``(side to move, squares)``, the (canonical) squares in
    spec order packed 6 bits each (slot i at bits 6i..6i+5). The side is -1 if two pieces would
    share a square; the squares are decoded all the same."""
    per_side = PER_SIDE[table]
    stm = index // per_side
    rest = index % per_side
    packed = 0
    for g in range(MAX_GROUPS - 1, -1, -1):
        count = GROUPS[table, g, 1]
        if count == 0:
            continue
        first = GROUPS[table, g, 0]
        values = GROUPS[table, g, 2]
        offset = 8 if PAWN_GROUP[table, g] else 0
        part = (rest // GROUP_STRIDE[table, g]) % values
        if count == 3:
            c = np.int64(TRIPLE_TOP[part])
            part -= c * (c - 1) * (c - 2) // 6
            packed |= (c + offset) << (6 * (first + 2))
        if count >= 2:
            b = np.int64(PAIR_TOP[part])
            part -= b * (b - 1) // 2
            packed |= (b + offset) << (6 * (first + 1))
        packed |= (part + offset) << (6 * first)
    pawnful = np.int64(PAWNFUL[table])
    pair = (rest // KINGS_STRIDE[table]) % KING_PAIRS_OF[pawnful]
    packed |= KING_PAIR_SQUARES[pawnful, pair, 0] | (KING_PAIR_SQUARES[pawnful, pair, 1] << 6)
    occupied = 0
    for i in range(COUNT[table]):
        bit = np.int64(1) << ((packed >> (6 * i)) & 63)
        if occupied & bit:
            return -1, packed
        occupied |= bit
    return stm, packed


@nb.njit(types.int64(types.int64, types.int64, SQUARES), cache=True)
def storage_unrank(table, index, squares):
    """:func:`storage_unrank_packed` with the squares written to ``squares`` (spec order);
    returns the side to move, or -1."""
    stm, packed = storage_unrank_packed(table, index)
    for i in range(COUNT[table]):
        squares[i] = (packed >> (6 * i)) & 63
    return stm


@nb.njit(types.int64(types.int64), cache=True)
def material_entry(key):
    """``table_id * 2 + colours swapped`` of material ``key`` (a key as ``_key_of_codes`` makes
    it), -1 if no table has that material."""
    slot = key % MATERIAL_MODULUS
    if MATERIAL_SLOT_KEYS[slot] != key:
        return -1
    return MATERIAL_SLOT_ENTRIES[slot]


@nb.njit(types.int64(types.int64, types.int64, types.int64, types.int64), cache=True)
def locate_packed(packed_codes, packed_squares, count, stm):
    """``table << TABLE_SHIFT | storage index`` of the position with pieces ``i < count`` of
    code ``(packed_codes >> 4i) & 15`` on square ``(packed_squares >> 6i) & 63`` and ``stm``
    to move, or -1 if no table holds it."""
    if count > MAX_PIECES or count < 2:
        return -1
    key = 0
    for i in range(count):
        code = (packed_codes >> (4 * i)) & 15
        if code % 6 != KING:
            key += KEY_POWERS[(code // 6) * 5 + code % 6]
    entry = material_entry(key)
    if entry < 0:
        return -1
    table = entry >> 1
    swapped = entry & 1
    used = 0
    spec_squares = 0
    for slot in range(COUNT[table]):
        want = SPEC[table, slot]
        for i in range(count):
            code = (packed_codes >> (4 * i)) & 15
            if swapped:
                code = (code + 6) % 12
            if code == want and not (used >> i) & 1:
                used |= 1 << i
                square = (packed_squares >> (6 * i)) & 63
                spec_squares |= (square ^ 56 if swapped else square) << (6 * slot)
                break
    index = storage_index_packed(table, spec_squares, stm ^ 1 if swapped else stm)
    return -1 if index < 0 else (table << TABLE_SHIFT) | index


@nb.njit(types.int64(CODES8, SQUARES, types.int64, types.int64, SQUARES), cache=True)
def locate_pieces(codes, squares, count, stm, spec_squares):
    """:func:`locate_packed` for pieces given as arrays (``spec_squares`` is unused scratch)."""
    if count > MAX_PIECES:
        return -1
    packed_codes = 0
    packed_squares = 0
    for i in range(count):
        packed_codes |= np.int64(codes[i]) << (4 * i)
        packed_squares |= squares[i] << (6 * i)
    return locate_packed(packed_codes, packed_squares, count, stm)


# --- the family over the chess position layout --------------------------------------------------


@nb.njit(types.UniTuple(types.int64, 3)(POSITION), cache=True)
def table_placement(pos):
    """``(table, colours swapped, spec squares)`` of a position's pieces: the squares in the
    table's spec order packed 6 bits each (seen from the other side when the colours are
    swapped); table -1 when it has castling rights or no table has its material."""
    if pos[CASTLING] != 0:
        return -1, 0, 0
    kings = pos[PAWNS + KING]
    if popcount(pos[WHITE] | pos[BLACK]) > MAX_PIECES or popcount(pos[WHITE] & kings) != 1 \
            or popcount(pos[BLACK] & kings) != 1:
        return -1, 0, 0
    key = 0  # from the piece sets: beside two kings no count can pass a digit (MAX_GROUPS)
    for colour in range(2):
        for kind in range(KING):
            key += popcount(pos[colour] & pos[PAWNS + kind]) * KEY_POWERS[colour * 5 + kind]
    entry = material_entry(key)
    if entry < 0:
        return -1, 0, 0
    table = entry >> 1
    swapped = entry & 1
    # Each slot of the table's spec takes the lowest square of its piece not taken yet; with
    # the colours swapped the board is seen from the other side.
    taken = types.uint64(0)
    spec_squares = 0
    for slot in range(COUNT[table]):
        code = np.int64(SPEC[table, slot])
        if swapped:
            code = (code + 6) % 12
        square = lsb(pos[code // 6] & pos[PAWNS + code % 6] & ~taken)
        taken |= types.uint64(1) << types.uint64(square)
        spec_squares |= (square ^ 56 if swapped else square) << (6 * slot)
    return table, swapped, spec_squares


@nb.njit(RANK_SIGNATURE, cache=True)
def rank_ignoring_en_passant(pos):
    """Like :func:`rank`, but the index of the position as if it had no en-passant right."""
    table, swapped, spec_squares = table_placement(pos)
    if table < 0:
        return -1
    side = np.int64(pos[STATE] & types.uint64(1))
    index = storage_index_packed(table, spec_squares, side ^ swapped)
    return -1 if index < 0 else (table << TABLE_SHIFT) | index


@nb.njit(RANK_SIGNATURE, cache=True)
def rank(pos):
    """Table and storage index of a chess position (games.chess.position layout); -1 when it
    has castling rights or more than MAX_PIECES pieces; NEEDS_CHILDREN when it has an en-passant
    right (its entry holds the position without it)."""
    # The search asks this of every node: most have too many men or castling rights, and
    # answering them here, before any nested call, keeps the probe cheap.
    if pos[CASTLING] != 0 or popcount(pos[WHITE] | pos[BLACK]) > MAX_PIECES:
        return -1
    if (pos[STATE] >> types.uint64(8)) & types.uint64(63):
        return NEEDS_CHILDREN
    return rank_ignoring_en_passant(pos)


@nb.njit(RANK_CHILDREN_SIGNATURE, cache=True)
def rank_children(pos, moves, count, child, ranks):
    """``ranks[i] = rank(position after moves[i])`` for the first ``count`` legal moves of
    ``pos`` (``child`` is scratch). A quiet move (no capture, no promotion, no castling, not a
    double push that may give an en-passant right) keeps the table and every other piece: its
    child's index is the parent's placement with one square changed, so only the others are
    played and ranked in full."""
    table, swapped, spec_squares = table_placement(pos)
    occupied = pos[WHITE] | pos[BLACK]
    pawns = pos[PAWNS + PAWN]
    flip = 56 if swapped else 0
    child_side = np.int64(pos[STATE] & types.uint64(1)) ^ 1 ^ swapped
    for i in range(count):
        move = np.int64(moves[i])
        origin = move_origin(move)
        to = move_target(move)
        step = to - origin
        pawn = (pawns >> types.uint64(origin)) & types.uint64(1)
        if table < 0 or move_promotion(move) or (occupied >> types.uint64(to)) & types.uint64(1) \
                or (pawn and step != 8 and step != -8):
            play(pos, moves[i], child)
            ranks[i] = rank(child)
            continue
        seen_from = origin ^ flip
        slot = 0
        while (spec_squares >> (6 * slot)) & 63 != seen_from:
            slot += 1
        moved = (spec_squares & ~(np.int64(63) << (6 * slot))) | ((to ^ flip) << (6 * slot))
        ranks[i] = (table << TABLE_SHIFT) | storage_index_packed(table, moved, child_side)


@nb.njit(UNRANK_SIGNATURE, cache=True)
def unrank(table, index, pos):
    """The canonical position at a storage index; False if squares collide, a pawn stands on
    the first or last rank, or the side not to move is in check. (No allocation: it runs once
    per entry when a table is verified.)"""
    stm, packed = storage_unrank_packed(table, index)
    if stm < 0:
        return False
    clear_position(pos)
    for i in range(COUNT[table]):
        piece = np.int64(SPEC[table, i])
        square = (packed >> (6 * i)) & 63
        if piece % 6 == PAWN and (square < 8 or square >= 56):
            return False
        place_piece(pos, piece, square)
    set_side_to_move(pos, stm)
    return not opponent_in_check(pos)


@nb.njit(types.Array(types.int64, 1, "C")(types.Array(types.uint64, 2, "C")), cache=True)
def rank_many(positions):
    """:func:`rank` of every row of ``positions`` (statically bound, for batch probes)."""
    out = np.empty(positions.shape[0], dtype=np.int64)
    for row in range(positions.shape[0]):
        out[row] = rank(positions[row])
    return out
