"""Syzygy WDL files read in bulk: the value each file stores for every position of one of our
tables, for the exhaustive oracle check (tests/test_retrograde_chess.py).

python-chess probes about 5,000 positions a second, so checking the 136 M positions of the
3-4-piece tables through it takes most of a day. Here python-chess only parses each file's
header (``WdlTable.init_table_wdl``: the piece order, normalisation and index factors of each
side and pawn file, and the parameters of the compressed blocks); numba decodes every block of
the file once, then finds each position's value through python-chess's ``encode_piece`` and
``encode_pawn`` (repeated here), for every entry of our table at once.

What a Syzygy file stores is not always the position's value: where a capture is at least as
good, the generator may store a lower value that compresses better, and a prober takes the
better of the stored value and the captures (python-chess's ``probe_ab``). So
:func:`stored_values` gives the stored value (-2..2, cursed wins and blessed losses as 1 and -1)
and the test decides what follows from it (see there).
"""
from __future__ import annotations

import chess.syzygy as S
import numba as nb
import numpy as np
from numba import prange

from games.chess import endgames as E
from games.table_family import INDEX_MASK, NEEDS_CHILDREN, TABLE_SHIFT
from games.value_codes import INVALID, is_loss, is_win

# python-chess's index tables, as arrays (data of the installed library, read not copied)
TRIANGLE = np.array(S.TRIANGLE, dtype=np.int64)
DIAG = np.array(S.DIAG, dtype=np.int64)
LOWER = np.array(S.LOWER, dtype=np.int64)
FLAP = np.array(S.FLAP, dtype=np.int64)
PTWIST = np.array(S.PTWIST, dtype=np.int64)
FILE_TO_FILE = np.array(S.FILE_TO_FILE, dtype=np.int64)
KK_IDX = np.array(S.KK_IDX, dtype=np.int64)
PAWNIDX = np.array(S.PAWNIDX, dtype=np.int64)
BINOMIAL = np.array([[S.binom(x, y) for y in range(8)] for x in range(65)], dtype=np.int64)

MOST_PIECES = 8
# A slot's block parameters (python-chess's PairsData), by field: idxbits, min_len, sizetable,
# blocks (where the first block starts), offset, sympat, blocksize, and where its symbol
# lengths and code bases start in the file's concatenated arrays
PAIR_FIELDS = 9
NO_VALUE = -3  # not a position (an INVALID entry of ours); of captures: no capture
SPAN = 1 << 16  # entries per parallel task
SLOTS = 8  # pawn file (4) x side of the stored table (2); pawnless tables use the first two


class SyzygyFile:
    """One WDL file as arrays for :func:`stored_values`: per slot (pawn file ``f``, stored
    side ``bside``: ``2 f + bside``) the piece order, normalisation and factors python-chess
    read from its header, and every value it stores (``values[first_value[slot] + idx]``,
    -2..2), decoded from its blocks."""

    def __init__(self, path: str):
        table = S.WdlTable(path)
        try:
            self._read(table)
        finally:
            table.close()

    def _read(self, table) -> None:
        table.init_table_wdl()
        self.key, self.symmetric = table.key, table.symmetric
        self.has_pawns, self.num = table.has_pawns, table.num
        self.enc_type = getattr(table, "enc_type", -1)
        self.leading_pawns, self.trailing_pawns = table.pawns if table.has_pawns else (0, 0)
        self.pieces = np.zeros((SLOTS, MOST_PIECES), dtype=np.int64)
        self.norm = np.zeros((SLOTS, MOST_PIECES), dtype=np.int64)
        self.factor = np.zeros((SLOTS, MOST_PIECES), dtype=np.int64)
        pairs = np.full((SLOTS, PAIR_FIELDS), -1, dtype=np.int64)
        symlens, bases = [], []
        for f in range(4 if table.has_pawns else 1):
            for bside in range(2):
                source = table.files[f] if table.has_pawns else table
                if bside not in source.precomp:
                    continue  # a symmetric table stores one side
                slot = 2 * f + bside
                self.pieces[slot, :self.num] = source.pieces[bside][:self.num]
                self.norm[slot, :self.num] = source.norm[bside][:self.num]
                factor = list(source.factor[bside])[:MOST_PIECES]
                self.factor[slot, :len(factor)] = factor
                d = source.precomp[bside]
                if not d.idxbits:  # one value throughout
                    pairs[slot, :2] = 0, d.min_len
                    continue
                pairs[slot] = (d.idxbits, d.min_len, d.sizetable, d.data, d.offset, d.sympat,
                               d.blocksize, sum(map(len, symlens)), sum(map(len, bases)))
                symlens.append(np.array(d.symlen, dtype=np.int64))
                bases.append(np.array(d.base, dtype=np.uint64))
        sizes = [table.tb_size[slot] if pairs[slot, 1] >= 0 else 0 for slot in range(SLOTS)]
        self.first_value = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self.values = np.empty(sum(sizes), dtype=np.int8)
        data = np.frombuffer(table.data, dtype=np.uint8).copy()
        symlen = np.concatenate(symlens) if symlens else np.zeros(1, dtype=np.int64)
        base = np.concatenate(bases) if bases else np.zeros(1, dtype=np.uint64)
        for slot, size in enumerate(sizes):
            if size:
                start = self.first_value[slot]
                decompress_slot(data, pairs[slot], symlen, base,
                                self.values[start:start + size])

    def swapped(self, our_pieces: list[int]) -> int:
        """Whether the file holds the positions of our table, whose pieces are
        ``our_pieces`` (python-chess codes: type | colour << 3), with the colours swapped
        (python-chess's ``calc_key(board) != self.key``): 0 or 1."""
        return int(not self.symmetric and S.recalc_key(our_pieces) != self.key)


@nb.njit(cache=True, inline="always")
def read_u16(data, at):
    return np.int64(data[at]) | (np.int64(data[at + 1]) << 8)


@nb.njit(cache=True, inline="always")
def read_u32_be(data, at):
    return ((np.uint64(data[at]) << np.uint64(24)) | (np.uint64(data[at + 1]) << np.uint64(16))
            | (np.uint64(data[at + 2]) << np.uint64(8)) | np.uint64(data[at + 3]))


@nb.njit(cache=True)
def decompress_slot(data, pairs, symlen, base, out):
    """Every value of one slot in index order, into ``out``: its blocks decoded one after
    the other (python-chess's ``decompress_pairs`` finds one value by walking its block from
    the start; decoding each block once makes a table's every position cheap)."""
    idxbits, min_len = pairs[0], pairs[1]
    if idxbits == 0:
        out[:] = min_len - 2
        return
    sizetable, blocks, offset, sympat, blocksize = pairs[2], pairs[3], pairs[4], pairs[5], pairs[6]
    first_symlen, first_base = pairs[7], pairs[8]
    stack = np.empty(symlen.size + 1, dtype=np.int64)  # deeper than any symbol's pair tree
    written = 0
    block = 0
    while written < out.size:
        left_in_block = read_u16(data, sizetable + 2 * block) + 1
        ptr = blocks + (block << blocksize)
        code = (read_u32_be(data, ptr) << np.uint64(32)) | read_u32_be(data, ptr + 4)
        ptr += 8
        bitcnt = 0
        while left_in_block > 0 and written < out.size:
            length = min_len
            while code < base[first_base + length - min_len]:
                length += 1
            sym = read_u16(data, offset + length * 2)
            sym += np.int64((code - base[first_base + length - min_len]) >> np.uint64(64 - length))
            code <<= np.uint64(length)
            bitcnt += length
            if bitcnt >= 32:
                bitcnt -= 32
                code |= read_u32_be(data, ptr) << np.uint64(bitcnt)
                ptr += 4
            # a symbol is a leaf value or a pair of symbols: expand it left to right (the last
            # symbol of a block may run past the block's count: the rest is not the table's,
            # as python-chess's decompress_pairs never reads it either)
            depth = 1
            stack[0] = sym
            while depth > 0 and left_in_block > 0 and written < out.size:
                depth -= 1
                sym = stack[depth]
                w = sympat + 3 * sym
                if symlen[first_symlen + sym] == 0:
                    out[written] = np.int64(data[w]) - 2
                    written += 1
                    left_in_block -= 1
                else:
                    stack[depth] = (np.int64(data[w + 2]) << 4) | (np.int64(data[w + 1]) >> 4)
                    stack[depth + 1] = ((np.int64(data[w + 1]) & 0xF) << 8) | np.int64(data[w])
                    depth += 2
        block += 1


@nb.njit(cache=True, inline="always")
def offdiag(square):
    return (square >> 3) - (square & 7)


@nb.njit(cache=True, inline="always")
def flipdiag(square):
    return ((square >> 3) | (square << 3)) & 63


@nb.njit(cache=True)
def sort_run(pos, start, stop):
    """Sort ``pos[start:stop]`` ascending (a run of like pieces: at most 4)."""
    for j in range(start, stop):
        for k in range(j + 1, stop):
            if pos[j] > pos[k]:
                pos[j], pos[k] = pos[k], pos[j]


@nb.njit(cache=True)
def encode_run(pos, i, t, norm_below, minus):
    """The combination index of the run ``pos[i:i+t]`` over the squares the pieces before
    ``i`` leave (less ``minus``: the 8 squares of a rank pawns cannot stand on)."""
    sort_run(pos, i, i + t)
    s = 0
    for m in range(i, i + t):
        p = pos[m]
        j = 0
        for k in range(norm_below):
            j += p > pos[k]
        x = p - j - minus
        if x >= 0:
            s += BINOMIAL[x, m - i + 1]
    return s


@nb.njit(cache=True)
def other_runs(pos, i, n, norm, factor):
    """The index share of the pieces from ``i`` on, run by run of like pieces."""
    idx = 0
    while i < n:
        idx += encode_run(pos, i, norm[i], i, 0) * factor[i]
        i += norm[i]
    return idx


@nb.njit(cache=True)
def encode_piece(enc_type, n, norm, factor, pos):
    """python-chess's ``encode_piece`` for the two chess encodings (0: three or more unique
    pieces, 2: two)."""
    if pos[0] & 0x04:
        for i in range(n):
            pos[i] ^= 0x07
    if pos[0] & 0x20:
        for i in range(n):
            pos[i] ^= 0x38
    first = 0
    for first in range(n):
        if offdiag(pos[first]):
            break
    if first < (3 if enc_type == 0 else 2) and offdiag(pos[first]) > 0:
        for i in range(n):
            pos[i] = flipdiag(pos[i])
    if enc_type == 0:
        i = np.int64(pos[1] > pos[0])
        j = np.int64(pos[2] > pos[0]) + np.int64(pos[2] > pos[1])
        if offdiag(pos[0]):
            idx = TRIANGLE[pos[0]] * 63 * 62 + (pos[1] - i) * 62 + (pos[2] - j)
        elif offdiag(pos[1]):
            idx = 6 * 63 * 62 + DIAG[pos[0]] * 28 * 62 + LOWER[pos[1]] * 62 + pos[2] - j
        elif offdiag(pos[2]):
            idx = (6 * 63 * 62 + 4 * 28 * 62 + DIAG[pos[0]] * 7 * 28 + (DIAG[pos[1]] - i) * 28
                   + LOWER[pos[2]])
        else:
            idx = (6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + DIAG[pos[0]] * 7 * 6
                   + (DIAG[pos[1]] - i) * 6 + (DIAG[pos[2]] - j))
        i = 3
    else:
        idx = KK_IDX[TRIANGLE[pos[0]], pos[1]]
        i = 2
    idx *= factor[0]
    return idx + other_runs(pos, i, n, norm, factor)


@nb.njit(cache=True)
def encode_pawn(n, leading, trailing, norm, factor, pos):
    """python-chess's ``encode_pawn``: ``leading`` pawns of the leading colour (the first of
    them already the one with the lowest FLAP), then ``trailing`` of the other."""
    if pos[0] & 0x04:
        for i in range(n):
            pos[i] ^= 0x07
    for i in range(1, leading):
        for j in range(i + 1, leading):
            if PTWIST[pos[i]] < PTWIST[pos[j]]:
                pos[i], pos[j] = pos[j], pos[i]
    t = leading - 1
    idx = PAWNIDX[t, FLAP[pos[0]]]
    for i in range(t, 0, -1):
        idx += BINOMIAL[PTWIST[pos[i]], t - i + 1]
    idx *= factor[0]
    i = leading
    if trailing:
        idx += encode_run(pos, i, trailing, i, 8) * factor[i]
        i += trailing
    return idx + other_runs(pos, i, n, norm, factor)


@nb.njit(cache=True)
def fill_squares(pos, at, piece, colour_swap, square_flip, types_, colours, squares, count):
    """Write the squares of our pieces of the stored ``piece`` (python-chess code: type |
    colour << 3, colour after ``colour_swap``) to ``pos`` from ``at``, ascending; how many."""
    want_type = piece & 7
    want_colour = (piece ^ colour_swap) >> 3
    found = 0
    for k in range(count):
        if types_[k] == want_type and colours[k] == want_colour:
            pos[at + found] = squares[k]
            found += 1
    sort_run(pos, at, at + found)
    for m in range(at, at + found):
        pos[m] ^= square_flip
    return found


@nb.njit(cache=True)
def stored_value(values, first_value, pieces, norm, factor, has_pawns, enc_type, n,
                 leading, trailing, swapped, symmetric, stm, types_, colours, squares, pos):
    """What the file stores for one position (python-chess's ``_probe_wdl_table``): -2..2."""
    if symmetric:
        colour_swap, flip, bside = (0, 0, 0) if stm == 0 else (8, 0x38, 0)
    elif swapped:
        colour_swap, flip, bside = 8, 0x38, np.int64(stm == 0)
    else:
        colour_swap, flip, bside = 0, 0, np.int64(stm != 0)
    if not has_pawns:
        i = 0
        while i < n:
            i += fill_squares(pos, i, pieces[bside, i], colour_swap, 0, types_, colours,
                              squares, n)
        idx = encode_piece(enc_type, n, norm[bside], factor[bside], pos)
        return values[first_value[bside] + idx]
    i = fill_squares(pos, 0, pieces[0, 0], colour_swap, flip, types_, colours, squares, n)
    for k in range(1, leading):  # python-chess's pawn_file: the lowest FLAP first
        if FLAP[pos[0]] > FLAP[pos[k]]:
            pos[0], pos[k] = pos[k], pos[0]
    slot = 2 * FILE_TO_FILE[pos[0] & 7] + bside
    while i < n:
        i += fill_squares(pos, i, pieces[slot, i], colour_swap, flip, types_, colours, squares, n)
    idx = encode_pawn(n, leading, trailing, norm[slot], factor[slot], pos)
    return values[first_value[slot] + idx]


@nb.njit(cache=True, parallel=True)
def stored_values(table_id, codes, invalid, types_, colours, values, first_value, pieces, norm,
                  factor, has_pawns, enc_type, leading, trailing, swapped, symmetric):
    """The file's stored value (-2..2) for every entry of our table whose code is not
    ``invalid`` (others: NO_VALUE)."""
    n = types_.size
    stored = np.full(codes.size, NO_VALUE, dtype=np.int8)
    for task in prange((codes.size + SPAN - 1) // SPAN):
        squares = np.empty(E.MAX_PIECES, dtype=np.int64)
        pos = np.empty(MOST_PIECES, dtype=np.int64)
        for index in range(task * SPAN, min(codes.size, (task + 1) * SPAN)):
            if codes[index] == invalid:
                continue
            stm = E.storage_unrank(table_id, index, squares)
            stored[index] = stored_value(values, first_value, pieces, norm, factor, has_pawns,
                                         enc_type, n, leading, trailing, swapped, symmetric, stm,
                                         types_, colours, squares, pos)
    return stored


def file_values(syzygy_dir, table: str, codes: np.ndarray) -> np.ndarray:
    """:func:`stored_values` of our ``table`` (codes ``codes``) from its Syzygy WDL file in
    ``syzygy_dir`` (KvK, which has none: drawn)."""
    spec = E.spec_of(table)  # our codes: type (P N B R Q K) + 6 * colour
    types_ = np.array([code % 6 + 1 for code in spec], dtype=np.int64)
    colours = np.array([code // 6 for code in spec], dtype=np.int64)
    if len(spec) == 2:
        return np.where(codes == INVALID, NO_VALUE, 0).astype(np.int8)
    source = SyzygyFile(f"{syzygy_dir}/{S.normalize_tablename(table)}.rtbw")
    swapped = source.swapped([int(t) | int(c) << 3 for t, c in zip(types_, colours)])
    return stored_values(E.TABLE_IDS[table], codes, INVALID, types_, colours, source.values,
                         source.first_value, source.pieces, source.norm, source.factor,
                         source.has_pawns, source.enc_type, source.leading_pawns,
                         source.trailing_pawns, swapped, source.symmetric)


@nb.njit(cache=True)
def mover_sign(code):
    """The side to move's WDL (-1, 0, 1) in a position of code ``code``."""
    return np.int64(is_win(code)) - np.int64(is_loss(code))


@nb.njit(cache=True, parallel=True)
def capture_values(noisy_moves, play, unrank, rank, table_id, size, pieces, other_codes,
                   offsets, table_pieces, template, max_moves):
    """For every entry of our table: the best WDL the side to move gets by a capture (-1, 0,
    1), valued by our child tables; NO_VALUE if it has none (or the entry is not a position). A
    capture is a move of ``noisy_moves`` (captures and promotions) into a table of fewer
    pieces. Also how many captures no loaded table holds (0, or the caller is wrong)."""
    best = np.full(size, NO_VALUE, dtype=np.int8)
    tasks = (size + SPAN - 1) // SPAN
    unvalued = np.zeros(tasks, dtype=np.int64)
    for task in prange(tasks):
        pos, child = np.empty_like(template), np.empty_like(template)
        moves = np.empty(max_moves, dtype=np.int32)
        for index in range(task * SPAN, min(size, (task + 1) * SPAN)):
            if not unrank(table_id, index, pos):
                continue
            for i in range(noisy_moves(pos, moves)):
                play(pos, moves[i], child)
                entry = rank(child)
                if entry == NEEDS_CHILDREN:  # an en-passant right: never after a capture
                    continue
                child_table = entry >> TABLE_SHIFT
                if entry >= 0 and table_pieces[child_table] >= pieces:
                    continue
                if entry < 0 or offsets[child_table] < 0:
                    unvalued[task] += 1  # a capture into no table, or one not loaded
                    continue
                value = -mover_sign(other_codes[offsets[child_table] + (entry & INDEX_MASK)])
                if value > best[index]:
                    best[index] = value
    return best, unvalued.sum()


def prober_values(syzygy_dir, root, table: str) -> tuple[np.ndarray, np.ndarray]:
    """(ours, Syzygy's) WDL (-1, 0, 1; NO_VALUE where our entry is not a position) of every
    entry of our ``table`` in ``root``. Syzygy's is what python-chess's ``probe_wdl`` answers
    (cursed wins and blessed losses as wins and losses): the better of the value the file
    stores and the captures, whose children are valued here by our own child tables. So a
    table agrees with Syzygy on every position once its child tables do; checked the same way
    down to KvK (no file: drawn), that is every table."""
    from databases.families import get_family
    from retrograde.tables import load_children, read_codes

    family = get_family("chess")
    codes = read_codes(root, "chess", table)
    children, offsets, _ = load_children(root, family, family.dependencies(table))
    table_pieces = np.array([len(E.spec_of(name)) for name in family.table_names()],
                            dtype=np.int64)
    captures, unvalued = capture_values(family.game.player.noisy_moves, family.game.kernels.play,
                              family.unrank, family.rank, family.table_id(table), codes.size,
                              len(E.spec_of(table)), children, offsets, table_pieces,
                              family.game.new_position(), family.game.max_moves)
    if unvalued:
        raise ValueError(f"{table}: {unvalued} captures lead to no loaded table")
    stored = np.sign(file_values(syzygy_dir, table, codes))
    ours = np.where(codes == INVALID, NO_VALUE, signs(codes)).astype(np.int8)
    syzygy = np.where(codes == INVALID, NO_VALUE, np.maximum(stored, captures)).astype(np.int8)
    return ours, syzygy


@nb.njit(cache=True)
def signs(codes):
    """:func:`mover_sign` of every code."""
    out = np.empty(codes.size, dtype=np.int8)
    for i in range(codes.size):
        out[i] = mover_sign(codes[i])
    return out
