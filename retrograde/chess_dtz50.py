"""The one-byte DTZ50 generator for chess tables without pawns, and the byte, the moves and
the level passes that :mod:`retrograde.chess_dtz50_pawns` shares for the tables with pawns.

One byte per position of the table's *storage* index (:mod:`games.chess.endgames`), the
same index the file holds, so the working array becomes the table with no mapping pass and
no second array. A resolved byte is the position's final DTZ50 code
(:mod:`games.value_codes`, the codes :mod:`retrograde.dtz50` defines); an open one says what
its captures are worth, as a class, since a capture zeroes the count and so never carries a
distance (Syzygy's rtbgen works the same way, ``CAPT_WIN`` ... ``CAPT_CLOSS``)::

    0 .. 241     a value code: INVALID, CODE_DRAW, loss_code(d) / win_code(d), d <= 119
    242 .. 247   past 119 plies, a marker (LOSS_OLD ... WIN_NOW): lost or won at the level
                 before, at this one or earlier; the code goes to a two-byte result array
    OPEN         open; no capture, or every capture loses within the rule
    OPEN_CLOSS   open; the best capture reaches a blessed loss (lost in 101 at the latest)
    HOLDS_DRAW   open; a capture draws, so the position is drawn or won
    HOLDS_CWIN   open; a capture wins cursed (won in 101 at the latest)
    FLAGGED, FLAGGED_CLOSS   OPEN, OPEN_CLOSS to be looked at in this level

Initialisation, as rtbgen's: first which indices hold legal positions (``mark_positions``),
then every capture, child to parent (``seed_captures``): each placement of the pieces but the
victim is read once in the child table (by the per-slot plans of ``capture_plans``), and every
square the capturer may have come from gives a parent whose best capture class is raised to
it; a capture that wins within the rule decides the position (won in 1), one that loses flags
it for level 1. Then the mates (``find_mates``): only a position in check (the same placement
with the other side to move is INVALID) with no capture looks for a legal move. No position
looks for its quiet moves: one that has none is decided by its captures when it is settled
(lost at level 1 if they lose, at the curse level if the best is a cursed loss; a stalemate is
left open, and drawn). No move's legality is tested: the entry it reaches is INVALID (its side
not to move in check) in this table or the child's.

Level ``d`` = 1, 2, ... (like :mod:`retrograde.unmove`, with nothing but the byte):

1. wins: the un-moves of every position lost at ``d - 1`` reach open positions: won in ``d``
   (at ``d`` = 101 also every HOLDS_CWIN);
2. flags: the un-moves of every position won at ``d - 1`` flag open positions that might now
   be lost (not HOLDS_*: those cannot lose; OPEN_CLOSS only from level 101, where all of them
   are flagged once);
3. settle: a flagged position whose quiet moves all reach positions won below ``d`` is lost
   in ``d``; the others are unflagged.

Passes 1 and 2 go the other way round for a side to move where that reads fewer entries
(``ways_of_level``, from the positions open and decided per side, counted at level 2 and
kept up to date from what each level decides): once a side has fewer open positions than
the other side lost at ``d - 1``, each of its open positions looks for a quiet move into one
of those (``pull_wins``); when the other side won many at ``d - 1`` against the positions of
this side that may be lost, all of those are flagged at once (``flag_every_open``: settling
finds the same losses). Either way the same positions are decided.

A child counts as known only below distance ``d``, so what a level writes is never read as
known by it: the result does not depend on the order of the scan or the number of threads.
Levels with nothing to do are skipped up to 101, where the cursed captures come due; the loop
ends at the first empty level past it, and what is still open is drawn.

A position whose two kings stand on the a1-h8 diagonal has two storage indices (it and its
mirror image, see ``storage_index_packed``); each is solved as a position of its own and both
get the same code, since the code is the position's.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from games.chess import endgames as E
from games.chess.attacks import (bishop_attacks, king_attacks, knight_attacks, pawn_attacks,
                                 queen_attacks, rook_attacks)
from games.chess.bitops import lsb
from games.chess.position import BISHOP, KING, KNIGHT, PAWN, ROOK
from games.chess.tables import BETWEEN
from retrograde.unmove import HIGHS, ONES, has_byte, scatter_stride
from games.value_codes import (CODE_DRAW, CURSED_WORTH, INVALID, code_distance, is_win,
                               loss_code, win_code, within_rule)
from runtime.borrow import borrowed

OPEN = 248
OPEN_CLOSS = 249
HOLDS_DRAW = 250
HOLDS_CWIN = 251
FLAG = 4  # OPEN + FLAG: flagged
FLAGGED = OPEN + FLAG
FLAGGED_CLOSS = OPEN_CLOSS + FLAG
LONGEST = 119  # win_code(119) = 241: the longest distance whose code the byte holds
# Past it, a resolved byte is only a marker (the code goes to a two-byte result): decided at
# the level before (PREV, the frontier), at this level (NOW), or earlier (OLD); losses even,
# wins odd, as the codes.
LOSS_OLD, WIN_OLD, LOSS_PREV, WIN_PREV, LOSS_NOW, WIN_NOW = range(242, 248)
CURSE_LEVEL = CURSED_WORTH  # the level at which cursed captures come due

# What a position's best capture is worth, in order for the side to move.
NO_CAPTURE, CAPTURE_LOSES, CAPTURE_CLOSS, CAPTURE_DRAWS, CAPTURE_CWIN, CAPTURE_WINS = range(6)

BLOCK = 1 << 12  # entries per parallel task
WORDS_PER_BLOCK = BLOCK // 8  # the level scans read 8 entries at a time
MISSING_CHILD = -1
PLAN_TABLE, PLAN_SWAPPED, PLAN_OFFSET, PLAN_SLOTS = 0, 1, 2, 3  # capture_plans' columns
KINGS_STRIDE_AT = E.MAX_PIECES - 1  # where index_strides keeps the king pair's stride
GATHERED = 1024  # predecessors gathered before their bytes are touched
MOST_PREDECESSORS = 2 * 4 * 27  # un-moves of one position, twins included (generous)
WORD_OPEN = 0x8000  # two-byte words (retrograde.chess_dtm): resolved codes are below
LOW_SEVENS = types.uint64(0x7F7F7F7F7F7F7F7F)

U8 = types.Array(types.uint8, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
ZEROING_CLASSES = U8  # the children's DTZ50 codes cut to their zeroing class, a byte each
# (retrograde.dtz50.load_zeroing_classes): what a zeroing move is worth
I64 = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")


@nb.njit(cache=True, inline="always")
def zero_byte_highs(word):
    """The high bit of each byte of ``word`` that is 0 (exact: no carry crosses a byte)."""
    return ~(((word & LOW_SEVENS) + LOW_SEVENS) | word) & HIGHS


@nb.njit(cache=True, inline="always")
def piece_attacks(kind, square, occupied):
    """Squares a piece of ``kind`` (no pawns here) on ``square`` attacks."""
    if kind == KING:
        return king_attacks(square)
    if kind == KNIGHT:
        return knight_attacks(square)
    if kind == ROOK:
        return rook_attacks(occupied, square)
    if kind == BISHOP:
        return bishop_attacks(occupied, square)
    return queen_attacks(occupied, square)


@nb.njit(cache=True, inline="always")
def reach(code, slot, squares, occupied):
    """Squares the piece of ``code`` in ``slot`` (not a pawn) attacks; for a king (slots 0
    and 1) not those beside the other king, where it cannot stand: the index has no entry
    for kings side by side (``E.KING_PAIR``)."""
    if slot < 2:
        return king_attacks(squares[slot]) & ~king_attacks(squares[1 - slot])
    return piece_attacks(code % 6, squares[slot], occupied)


@nb.njit(cache=True, inline="always")
def slot_on(squares, n, square):
    """The slot of the piece on ``square`` (a capture's victim), -1 if none."""
    for j in range(n):
        if squares[j] == square:
            return j
    return -1


@nb.njit(cache=True, inline="always")
def attacked(target, by_colour, n, codes, squares, occupied, skip):
    """Whether a piece of ``by_colour`` (other than slot ``skip``) attacks ``target``."""
    bit = types.uint64(1) << types.uint64(target)
    for j in range(n):
        code = codes[j]
        if j == skip or code // 6 != by_colour:
            continue
        if code % 6 == PAWN:
            if pawn_attacks(by_colour, squares[j]) & bit:
                return True
        elif piece_attacks(code % 6, squares[j], occupied) & bit:
            return True
    return False


@nb.njit(cache=True, inline="always")
def spec_codes(table):
    """The piece code of each of ``table``'s slots (its row of ``E.SPEC``), as the move
    functions here read them."""
    n = E.COUNT[table]
    codes = np.empty(n, dtype=np.int64)
    for i in range(n):
        codes[i] = E.SPEC[table, i]
    return codes


@nb.njit(cache=True, inline="always")
def occupancy(codes, squares, n, side):
    """``(occupied, own)``: the squares of every piece and of ``side``'s pieces."""
    occupied = types.uint64(0)
    own = types.uint64(0)
    for i in range(n):
        bit = types.uint64(1) << types.uint64(squares[i])
        occupied |= bit
        if codes[i] // 6 == side:
            own |= bit
    return occupied, own


@nb.njit(cache=True, inline="always")
def peel_group(table, group, rest, offset, squares):
    """The squares of like-piece ``group`` from the lowest digit of ``rest`` (a storage index
    from this group's digit up; pawns' squares ``offset`` 8) into ``squares``; returns the
    rest above that digit."""
    values = E.GROUPS[table, group, 2]
    first = E.GROUPS[table, group, 0]
    if values == 64:  # a piece alone: its square by shifts, not a division
        squares[first] = rest & 63
        return rest >> 6
    count = E.GROUPS[table, group, 1]
    part = rest % values
    if count == 3:
        c = np.int64(E.TRIPLE_TOP[part])
        part -= c * (c - 1) * (c - 2) // 6
        squares[first + 2] = c + offset
    if count >= 2:
        b = np.int64(E.PAIR_TOP[part])
        part -= b * (b - 1) // 2
        squares[first + 1] = b + offset
    squares[first] = part + offset
    return rest // values


@nb.njit(cache=True, inline="always")
def decode_valid(table, index, squares):
    """The squares (spec order) and side to move of storage ``index``, as
    ``storage_unrank_packed`` decodes them but without its checks, digit by digit from the
    lowest (the pieces' groups, the king pair, the pawns' groups): returns the side to move."""
    per_side = E.PER_SIDE[table]
    stm = 1 if index >= per_side else 0
    rest = index - stm * per_side
    for g in range(E.MAX_GROUPS - 1, -1, -1):
        if E.GROUPS[table, g, 1] and not E.PAWN_GROUP[table, g]:
            rest = peel_group(table, g, rest, 0, squares)
    pawnful = np.int64(E.PAWNFUL[table])
    pairs = E.KING_PAIRS_OF[pawnful]
    pair = rest % pairs
    rest //= pairs
    squares[0] = E.KING_PAIR_SQUARES[pawnful, pair, 0]
    squares[1] = E.KING_PAIR_SQUARES[pawnful, pair, 1]
    for g in range(E.MAX_GROUPS - 1, -1, -1):
        if E.PAWN_GROUP[table, g]:
            rest = peel_group(table, g, rest, 8, squares)
    return stm


@nb.njit(cache=True, inline="always")
def decode_in_row(table, index, squares, fast, row):
    """``(side to move, row)`` of storage ``index``, its squares in ``squares``: where a lone
    piece's square is the fastest digit (``fast``, its slot: :func:`fastest_piece_slot`) and
    ``squares`` hold an entry of the same row of 64 (``row``: ``index >> 6`` of the entry they
    hold, -1 for none), only that piece's square is set, else every digit is decoded."""
    if fast >= 0 and index >> 6 == row:
        squares[fast] = index & 63
        return np.int64(1 if index >= E.PER_SIDE[table] else 0), row
    return decode_valid(table, index, squares), index >> 6


@nb.njit(cache=True, inline="always")
def index_with(table, squares, n, stm):
    """Storage index of ``squares`` (spec order) with ``stm`` to move."""
    packed = 0
    for i in range(n):
        packed |= squares[i] << (6 * i)
    return E.storage_index_packed(table, packed, stm)


@nb.njit(cache=True, inline="always")
def group_part(table, group, squares):
    """The index digit of like-piece group ``group`` for ``squares`` (spec order, already in
    the index's frame): a square (pawns: minus 8), or the combinatorial index of two or three
    sorted squares (``storage_index_packed``)."""
    first = E.GROUPS[table, group, 0]
    count = E.GROUPS[table, group, 1]
    offset = 8 if E.SPEC[table, first] % 6 == PAWN else 0
    c = squares[first] - offset
    if count == 1:
        return c
    y = squares[first + 1] - offset
    b, c = min(c, y), max(c, y)
    if count == 2:
        return b + c * (c - 1) // 2
    z = squares[first + 2] - offset
    if z < b:
        a = z
    elif z < c:
        a, b = b, z
    else:
        a, b, c = b, c, z
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6


@nb.njit(cache=True, inline="always")
def moved_index(table, index, strides, squares, slot, start, stm):
    """The storage index after the piece in ``slot`` (not a king) went from ``start`` to
    ``squares[slot]`` in the index's frame (the kings keep it) and the move passed to the
    other side: the group's digit replaced, the side flipped (``stm``: the side to move
    before)."""
    group = strides[E.MAX_PIECES + slot]
    if E.GROUPS[table, group, 1] == 1:  # a piece alone in its group: its square is the digit
        return index + E.PER_SIDE[table] * (1 - 2 * stm) \
            + (squares[slot] - start) * strides[group]
    after = group_part(table, group, squares)
    moved = squares[slot]
    squares[slot] = start
    before = group_part(table, group, squares)
    squares[slot] = moved
    side = E.PER_SIDE[table] * (1 - 2 * stm)
    return index + side + (after - before) * strides[group]


@nb.njit(cache=True, inline="always")
def king_moved_index(table, index, strides, squares, slot, start, stm):
    """:func:`moved_index` for a king (``squares[slot]``, slot 0 or 1, moved from ``start``
    to a square not beside the other king: :func:`king_targets`; ``stm``: the side to move
    before): the king pair's digit replaced if the pair stays in the index's frame (the white
    king in the a1-d1-d4 triangle, the black king not above the diagonal when the white one is
    on it; with pawns the white king on files a-d), else the whole index afresh."""
    wk, bk = squares[0], squares[1]
    pawnful = np.int64(E.PAWNFUL[table])
    after = E.KING_PAIR[pawnful, wk * 64 + bk]
    if after < 0:  # out of the frame
        return index_with(table, squares, E.COUNT[table], 1 - stm)
    old_wk = start if slot == 0 else wk
    old_bk = start if slot == 1 else bk
    before = E.KING_PAIR[pawnful, old_wk * 64 + old_bk]
    side = E.PER_SIDE[table] * (1 - 2 * stm)
    return index + side + (after - before) * strides[KINGS_STRIDE_AT]


@nb.njit(I64(types.int64), cache=True)
def index_strides(table):
    """Per like-piece group its stride in the storage index, at ``KINGS_STRIDE_AT`` the king
    pair's, and from ``MAX_PIECES`` on per slot its group (-1 for the kings)."""
    strides = np.full(2 * E.MAX_PIECES, -1, dtype=np.int64)
    strides[KINGS_STRIDE_AT] = E.KINGS_STRIDE[table]
    for group in range(E.MAX_GROUPS):
        count = E.GROUPS[table, group, 1]
        if count == 0:
            continue
        strides[group] = E.GROUP_STRIDE[table, group]
        first = E.GROUPS[table, group, 0]
        for slot in range(first, first + count):
            strides[E.MAX_PIECES + slot] = group
    return strides


@nb.njit(cache=True, inline="always")
def on_one_diagonal(wk, bk):
    """Whether both kings stand on the a1-h8 diagonal or both on the a8-h1 one."""
    return ((wk >> 3) == (wk & 7) and (bk >> 3) == (bk & 7)) \
        or ((wk >> 3) + (wk & 7) == 7 and (bk >> 3) + (bk & 7) == 7)


@nb.njit(cache=True, inline="always")
def twin_index(table, squares, n, stm):
    """The storage index of the position's other node, or -1: with both kings on one long
    diagonal the symmetry that keeps them there is not applied (``storage_index_packed``), so
    the position's mirror image in that diagonal has an index of its own."""
    wk, bk = squares[0], squares[1]
    if (wk >> 3) == (wk & 7) and (bk >> 3) == (bk & 7):
        anti = False
    elif (wk >> 3) + (wk & 7) == 7 and (bk >> 3) + (bk & 7) == 7:
        anti = True
    else:
        return -1
    packed = 0
    for i in range(n):
        rank, file = squares[i] >> 3, squares[i] & 7
        image = ((7 - file) << 3) | (7 - rank) if anti else (file << 3) | rank
        packed |= image << (6 * i)
    return E.storage_index_packed(table, packed, stm)


@nb.njit(cache=True, inline="always")
def frontier_byte(d, losses, longest):
    """The byte of the positions lost (``losses``) or won at level ``d - 1`` (codes up to
    distance ``longest``, markers past it)."""
    if d - 1 <= longest:
        return loss_code(d - 1) if losses else win_code(d - 1)
    return LOSS_PREV if losses else WIN_PREV


@nb.njit(cache=True, inline="always")
def won_before(byte, d):
    """Whether ``byte`` is a position won below level ``d``."""
    if byte < LOSS_OLD:
        return is_win(byte) and code_distance(byte) < d
    return byte == WIN_OLD or byte == WIN_PREV


@nb.njit(cache=True, inline="always")
def may_be_lost(byte, d):
    """Whether an open ``byte`` may be lost at level ``d`` (what a flag marks)."""
    return byte == OPEN or (byte == OPEN_CLOSS and d >= CURSE_LEVEL)


@nb.njit(cache=True, inline="always")
def mark(work, parent, d, wins, won, far, touched):
    """One predecessor of :func:`mark_predecessors`: won in ``d`` if open (``wins``: the
    byte ``won``, and where that is the marker WIN_NOW the code into ``far``), else flagged
    if it might now be lost. Returns 1 if written."""
    byte = work[parent]
    if wins:
        if byte >= OPEN:
            work[parent] = won
            if won == WIN_NOW:
                far[parent] = win_code(d)
            touched[parent // BLOCK] = 1
            return 1
    elif may_be_lost(byte, d):
        work[parent] = byte + FLAG
        touched[parent // BLOCK] = 1
        return 1
    return 0


def plan_row(spec: list[int], removed: int, changed: int = -1, new_code: int = -1) -> np.ndarray:
    """Where an exit of a table of piece codes ``spec`` lands: its child without slot
    ``removed`` (-1: none) and with slot ``changed`` holding piece code ``new_code`` (a
    promotion; -1: none), as a row of ``PLAN_SLOTS + MAX_PIECES`` columns: the child table's
    id, whether its colours are swapped (the child named from the other side: squares
    mirrored, side to move swapped), its offset among the loaded children (-1 here: the
    caller fills it), and from ``PLAN_SLOTS`` on, per slot of ``spec``, its slot in the child
    (-1 for the removed piece). A row of -1 where no table has the child's material."""
    row = np.full(PLAN_SLOTS + E.MAX_PIECES, -1, dtype=np.int64)
    codes = [new_code if slot == changed else code for slot, code in enumerate(spec)]
    rest = [code for slot, code in enumerate(codes) if slot != removed and code % 6 != KING]
    name, swapped = E.canonical_name("".join(E.LETTERS[c % 6] for c in rest if c < 6),
                                     "".join(E.LETTERS[c % 6] for c in rest if c >= 6))
    if name not in E.TABLE_IDS:
        return row
    row[PLAN_TABLE], row[PLAN_SWAPPED] = E.TABLE_IDS[name], swapped
    child_spec = list(E.spec_of(name))
    for slot, code in enumerate(codes):
        if slot == removed:
            continue
        wanted = (code + 6) % 12 if swapped else code
        target = child_spec.index(wanted)
        child_spec[target] = -1  # taken (like pieces fill the next slot)
        row[PLAN_SLOTS + slot] = target
    return row


def capture_plans(table: str, rows: int | None = None) -> np.ndarray:
    """Row ``c``: where a capture of slot ``c`` of ``table`` lands (:func:`plan_row`); rows
    ``rows`` in all (the pawn generator adds its promotions after them)."""
    spec = E.spec_of(table)
    plans = np.full((rows or len(spec), PLAN_SLOTS + E.MAX_PIECES), -1, dtype=np.int64)
    for captured in range(2, len(spec)):
        plans[captured] = plan_row(spec, captured)
    return plans


def fill_offsets(plans: np.ndarray, child_offsets: np.ndarray) -> np.ndarray:
    """``plans`` with each row's child offset from ``child_offsets`` (by table id)."""
    used = plans[:, PLAN_TABLE] >= 0
    plans[used, PLAN_OFFSET] = child_offsets[plans[used, PLAN_TABLE]]
    return plans


@nb.njit(cache=True, inline="always")
def capture_child_code(squares, n, captured, victim, plan, child_dtz):
    """The code of the child reached by a capture of slot ``captured`` (the mover's piece
    already on its square in ``squares``), with ``victim`` (the captured side) to move, by
    the row ``plan`` of :func:`capture_plans`, from the children's codes ``child_dtz``
    (DTZ50 zeroing classes here, DTM codes for :mod:`retrograde.chess_dtm`); MISSING_CHILD
    when its table is not loaded."""
    offset = plan[PLAN_OFFSET]
    if offset < 0:
        return MISSING_CHILD
    child = plan[PLAN_TABLE]
    swapped = plan[PLAN_SWAPPED]
    mirror = 56 if swapped else 0
    packed = 0
    for i in range(n):
        if i != captured:
            packed |= (squares[i] ^ mirror) << (6 * plan[PLAN_SLOTS + i])
    return np.int64(child_dtz[offset + E.storage_index_packed(child, packed, victim ^ swapped)])


@nb.njit(cache=True, inline="always")
def capture_class(child):
    """The class, for the mover, of a capture into a position with DTZ50 code ``child``."""
    if child == CODE_DRAW:
        return CAPTURE_DRAWS
    if is_win(child):  # the victim wins
        return CAPTURE_LOSES if within_rule(child) else CAPTURE_CLOSS
    return CAPTURE_WINS if within_rule(child) else CAPTURE_CWIN


@nb.njit(cache=True, inline="always")
def byte_of_exits(best, quiet, in_check):
    """``(byte, level)`` of a legal position whose best exit has class ``best``, with or
    without a legal ``quiet`` move (``in_check``: mated rather than stalemated when it has no
    move at all): decided by its exits alone when it has no quiet move (``level``: the level
    it counts as decided at), else its open state (level -1)."""
    if not quiet:
        if best == NO_CAPTURE:  # no legal move: mated or stalemated
            return (loss_code(0), 0) if in_check else (CODE_DRAW, -1)
        if best == CAPTURE_LOSES:
            return loss_code(1), 1
        if best == CAPTURE_CLOSS:
            return loss_code(CURSED_WORTH), CURSE_LEVEL
        if best == CAPTURE_DRAWS:
            return CODE_DRAW, -1
        return win_code(CURSED_WORTH), CURSE_LEVEL
    if best == CAPTURE_CLOSS:
        return OPEN_CLOSS, -1
    if best == CAPTURE_DRAWS:
        return HOLDS_DRAW, -1
    if best == CAPTURE_CWIN:
        return HOLDS_CWIN, -1
    return OPEN, -1


@nb.njit(types.boolean(types.int64, types.int64, I64, I64, types.int64), cache=True)
def holds_position(table, index, codes, squares, n):
    """Whether storage ``index`` holds a legal position: one ``storage_index_packed`` gives
    (see ``storage_unrank_packed``), with the side not to move not in check."""
    codes, squares = borrowed((codes, squares))
    stm = decode_valid(table, index, squares)
    occupied = types.uint64(0)
    for i in range(n):
        bit = types.uint64(1) << types.uint64(squares[i])
        if occupied & bit:
            return False  # two pieces on one square
        occupied |= bit
    return not attacked(squares[1 - stm], stm, n, codes, squares, occupied, -1)


@nb.njit(types.int64(types.int64), cache=True)
def fastest_piece_slot(table):
    """The slot of the piece alone in its group whose square is the storage index's fastest
    digit (stride 1, 64 values), or -1 if no such piece (the fastest digit is a group of
    like pieces or the king pair)."""
    for g in range(E.MAX_GROUPS):
        if E.GROUPS[table, g, 1] == 1 and E.GROUPS[table, g, 2] == 64 \
                and not E.PAWN_GROUP[table, g] and E.GROUP_STRIDE[table, g] == 1:
            return E.GROUPS[table, g, 0]
    return -1


@nb.njit(cache=True, inline="always")
def mark_row(table, work, base, open_value, fast, codes, squares):
    """:func:`mark_positions` of the 64 entries from ``base`` (a multiple of 64), which
    differ only in the square of the piece in slot ``fast``: the others decoded once, the
    squares where that piece would leave the king of the side not to move attacked found as
    one attack set (a piece added can only block the others' attacks, so when none attacks
    that king without it, only its own attack can)."""
    n = E.COUNT[table]
    stm = decode_valid(table, base, squares)
    occupied = types.uint64(0)
    for i in range(n):
        bit = types.uint64(1) << types.uint64(squares[i])
        if i != fast and occupied & bit:  # two of the others on one square
            work[base:base + 64] = INVALID
            return
        if i != fast:
            occupied |= bit
    king = squares[1 - stm]
    if attacked(king, stm, n, codes, squares, occupied, fast):  # perhaps blocked by it
        for square in range(64):
            bit = types.uint64(1) << types.uint64(square)
            squares[fast] = square
            work[base + square] = INVALID if occupied & bit or attacked(
                king, stm, n, codes, squares, occupied | bit, -1) else open_value
        return
    barred = occupied
    if codes[fast] // 6 == stm:
        barred |= piece_attacks(codes[fast] % 6, king, occupied)
    for square in range(64):
        work[base + square] = INVALID if (barred >> types.uint64(square)) & types.uint64(1) \
            else open_value


@nb.njit([types.void(types.int64, U8, types.int64), types.void(types.int64, U16, types.int64)],
         cache=True, parallel=True)
def mark_positions(table, work, open_value):
    """``work``: ``open_value`` where the index holds a legal position, else INVALID (a
    byte per position here, two for :mod:`retrograde.chess_dtm`): 64 entries at a time
    (:func:`mark_row`) where a lone piece's square is the fastest digit, else entry by
    entry (:func:`holds_position`)."""
    n = E.COUNT[table]
    size = work.shape[0]
    fast = fastest_piece_slot(table)
    blocks = (size + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        codes = spec_codes(table)  # (one array a block: allocating them a row is what the
        squares = np.empty(n, dtype=np.int64)  # threads wait on)
        if fast >= 0:  # (the size is a multiple of 64, and BLOCK too)
            for base in range(block * BLOCK, min(size, (block + 1) * BLOCK), 64):
                mark_row(table, work, base, open_value, fast, codes, squares)
            continue
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            work[index] = open_value if holds_position(table, index, codes, squares, n) \
                else INVALID


@nb.njit(cache=True, inline="always")
def class_byte(capture):
    """The byte a position starts the levels with when its best capture has class
    ``capture`` (``NO_CAPTURE`` .. ``CAPTURE_WINS``): a losing capture flags it for level 1,
    a winning one decides it (won in 1)."""
    if capture == CAPTURE_WINS:
        return win_code(1)
    if capture == CAPTURE_CWIN:
        return HOLDS_CWIN
    if capture == CAPTURE_DRAWS:
        return HOLDS_DRAW
    if capture == CAPTURE_CLOSS:
        return OPEN_CLOSS
    if capture == CAPTURE_LOSES:
        return FLAGGED
    return OPEN


@nb.njit(cache=True, inline="always")
def byte_class(byte):
    """The class of the best capture seeded so far into an open ``byte`` (the inverse of
    :func:`class_byte`)."""
    if byte == OPEN:
        return NO_CAPTURE
    if byte == FLAGGED:
        return CAPTURE_LOSES
    if byte == OPEN_CLOSS:
        return CAPTURE_CLOSS
    if byte == HOLDS_DRAW:
        return CAPTURE_DRAWS
    if byte == HOLDS_CWIN:
        return CAPTURE_CWIN
    return CAPTURE_WINS


@nb.njit(cache=True, inline="always")
def raise_class(work, parent, child):
    """Raise the best capture seeded into the legal position at ``parent`` (a byte) to one
    into a position with DTZ50 code ``child`` (:func:`capture_class`)."""
    byte = work[parent]
    capture = capture_class(child)
    if byte != INVALID and capture > byte_class(byte):
        work[parent] = class_byte(capture)


@nb.njit(cache=True, inline="always")
def seed_from(table, work, children, plans, strides, codes, squares, n, base, victim,
              members, count, side, merge):
    """The captures of ``victim`` reaching the placement in ``squares`` (every slot but
    ``victim``'s; its group's digit 0 in ``base``, ``side`` to move): the child is that
    placement with the victim's side to move, read once; each of the ``count`` capturer
    slots in ``members`` stands on a square the victim may have stood on, and every square
    it may have come from gives a parent, to which ``merge(work, parent, child)`` adds the
    capture. Returns 1 if the child's table is not loaded."""
    occupied = types.uint64(0)
    for i in range(n):
        if i == victim:
            continue
        bit = types.uint64(1) << types.uint64(squares[i])
        if occupied & bit:
            return 0  # two pieces on one square: no placement
        occupied |= bit
    child = capture_child_code(squares, n, victim, 1 - side, plans[victim], children)
    if child == MISSING_CHILD:
        return 1
    if child == INVALID:  # the capture would leave the capturer's king attacked
        return 0
    group = strides[E.MAX_PIECES + victim]
    per_side = E.PER_SIDE[table]
    for m in range(count):
        capturer = members[m]
        square = squares[capturer]
        squares[victim] = square
        # the parents' indices, from the placement with the victim on the capture square
        # as if the other side were to move (``moved_index`` flips the side back)
        flipped = base + group_part(table, group, squares) * strides[group] \
            + (per_side if side == 0 else -per_side)
        origins = reach(codes[capturer], capturer, squares, occupied) & ~occupied
        while origins:
            origin = lsb(origins)
            origins &= origins - types.uint64(1)
            squares[capturer] = origin
            if capturer < 2:
                parent = king_moved_index(table, flipped, strides, squares, capturer, square,
                                          1 - side)
                if on_one_diagonal(squares[0], squares[1]):  # its other node: seeded here
                    merge(work, twin_index(table, squares, n, side), child)
            else:
                parent = moved_index(table, flipped, strides, squares, capturer, square,
                                     1 - side)
            merge(work, parent, child)
        squares[capturer] = square
    return 0


SEED_BASES = 1 << 10  # placements per parallel task of a seeding pass


@nb.njit(cache=True, inline="always")
def seed_tasks(table, victim, capturers):
    """``(tasks, per_task)``: how the placements of a seeding pass (:func:`seed_task`) are
    split. A parent is reached once by a lone non-king capturer of a lone victim (its other
    node, kings on the long diagonal, from that placement's own other node), so those
    passes run on every thread; a king's origin may leave the frame and like pieces reach
    one parent twice, so those run as one task."""
    strides = index_strides(table)
    victims = E.GROUPS[table, strides[E.MAX_PIECES + victim]]  # (first, count, values)
    bases = E.PER_SIDE[table] // victims[2]
    alone = capturers >= 2 and victims[1] == 1 \
        and E.GROUPS[table, strides[E.MAX_PIECES + capturers], 1] == 1
    per_task = SEED_BASES if alone else bases
    return (bases + per_task - 1) // per_task, per_task


@nb.njit(cache=True, inline="always")
def seed_task(table, work, children, plans, victim, capturers, task, merge):
    """Task ``task`` (:func:`seed_tasks`) of the pass seeding every capture of the piece in
    slot ``victim`` (the first of its group of like pieces) by the group whose first slot is
    ``capturers`` (or that king), child to parent: each placement of the other pieces is
    read once in the child table (``children``, by ``plans``), and ``merge`` adds it to the
    parents it is reached from (:func:`seed_from`). Returns how many children are in tables
    not loaded."""
    n = E.COUNT[table]
    per_side = E.PER_SIDE[table]
    side = E.SPEC[table, capturers] // 6
    strides = index_strides(table)
    codes = spec_codes(table)
    squares = np.empty(n, dtype=np.int64)
    group = strides[E.MAX_PIECES + victim]
    like = E.GROUPS[table, group, 1]
    values = E.GROUPS[table, group, 2]
    stride = strides[group]
    members = np.empty(3, dtype=np.int64)
    count = 1
    members[0] = capturers
    if capturers >= 2:
        count = E.GROUPS[table, strides[E.MAX_PIECES + capturers], 1]
        for m in range(count):
            members[m] = capturers + m
    bases = per_side // values
    per_task = seed_tasks(table, victim, capturers)[1]
    missing = 0
    for b in range(task * per_task, min(bases, (task + 1) * per_task)):
        base = side * per_side + (b // stride) * stride * values + b % stride
        decode_valid(table, base, squares)
        if like == 1:
            missing += seed_from(table, work, children, plans, strides, codes, squares, n,
                                 base, victim, members, count, side, merge)
        elif like == 2:
            for other in range(64):
                squares[victim + 1] = other
                missing += seed_from(table, work, children, plans, strides, codes, squares,
                                     n, base, victim, members, count, side, merge)
        else:
            for high in range(64):
                for low in range(high):
                    squares[victim + 1] = low
                    squares[victim + 2] = high
                    missing += seed_from(table, work, children, plans, strides, codes,
                                         squares, n, base, victim, members, count, side,
                                         merge)
    return missing


@nb.njit(types.int64(types.int64, U8, ZEROING_CLASSES, I64_2D, types.int64, types.int64),
         cache=True, parallel=True)
def seed_captures(table, work, child_dtz, plans, victim, capturers):
    """Every capture of ``victim`` by ``capturers`` (:func:`seed_task`) raising its parents'
    best capture class (:func:`raise_class`). Returns how many children are in tables not
    loaded."""
    tasks = seed_tasks(table, victim, capturers)[0]
    missing = np.zeros(tasks, dtype=np.int64)
    for task in prange(tasks):
        missing[task] = seed_task(table, work, child_dtz, plans, victim, capturers, task,
                                  raise_class)
    return missing.sum()


@nb.njit(cache=True, inline="always")
def checks_given(mover, n, codes, squares, occupied):
    """``(first, first_line, second, second_line)``: the slots of the pieces of ``mover``
    that give check (-1 for none) and the squares strictly between each and the king."""
    king = squares[1 - mover]
    bit = types.uint64(1) << types.uint64(king)
    first, second = -1, -1
    first_line, second_line = types.uint64(0), types.uint64(0)
    for j in range(2, n):  # (kings never stand side by side here: no king gives check)
        code = codes[j]
        if code // 6 != mover:
            continue
        if code % 6 == PAWN:
            hit = pawn_attacks(mover, squares[j]) & bit
        else:
            hit = piece_attacks(code % 6, squares[j], occupied) & bit
        if hit:
            if first < 0:
                first, first_line = j, BETWEEN[squares[j] * 64 + king]
            else:
                second, second_line = j, BETWEEN[squares[j] * 64 + king]
    return first, first_line, second, second_line


@nb.njit(types.int64(types.int64, types.int64, I64, I64, I64, types.int64, types.int64, I64,
                     types.int64), cache=True)
def gather_predecessors(table, index, strides, codes, squares, n, child_stm, parents, count):
    """The storage indices of the predecessors of ``index`` (``squares``, ``child_stm`` to
    move): its un-moves (no capture) by the side that just moved, both nodes of a position
    that has two (:func:`twin_index`), appended to ``parents`` from ``count`` on; returns the
    new count. Without pawns, un-moves into a parent whose side not to move is in check are
    left out where the squares show it (at KQRvKR's third level 72% of the predecessors were
    such INVALID entries, each a read at random). (The table is larger than the caches:
    gathering the indices first, and touching the bytes after in one tight loop, keeps many
    misses in flight.)"""
    strides, codes, squares, parents = borrowed((strides, codes, squares, parents))
    mover = 1 - child_stm
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    king = squares[child_stm]
    pawnless = not E.PAWNFUL[table]
    # (in a pawn slice the entries are in cache: reading an INVALID one costs less than
    # telling it from the squares; KBPvKN's slices took 7-10% longer with it)
    first, first_line, second, second_line = checks_given(mover, n, codes, squares, occupied) \
        if pawnless else (-1, types.uint64(0), -1, types.uint64(0))
    # twins only where both kings stand on one long diagonal: for the other pieces' un-moves
    # that is known once
    kings_on_diagonal = pawnless and on_one_diagonal(squares[0], squares[1])
    for i in range(n):
        if codes[i] // 6 != mover or codes[i] % 6 == PAWN:
            continue  # (a pawn's un-move leaves the slice: chess_dtz50_pawns)
        start = squares[i]
        origins = reach(codes[i], i, squares, occupied) & ~occupied
        # Origins whose parent has the king of the side to move here in check are INVALID
        # entries: a check by another piece stands unless the piece comes from a square
        # that blocks it, and the piece must not give check itself from where it comes.
        if first >= 0 and first != i:
            origins &= first_line
        if second >= 0 and second != i:
            origins &= second_line
        if pawnless and i >= 2 and origins:
            origins &= ~piece_attacks(codes[i] % 6, king,
                                      occupied & ~(types.uint64(1) << types.uint64(start)))
        while origins:
            origin = lsb(origins)
            origins &= origins - types.uint64(1)
            squares[i] = origin
            # An illegal predecessor (the other king in check) is INVALID in the table since
            # the initialisation, so :func:`mark` passes it over: no test here.
            if i < 2:  # a king: the frame may change
                parent = king_moved_index(table, index, strides, squares, i, start, child_stm)
                twins = pawnless and on_one_diagonal(squares[0], squares[1])
            else:
                parent = moved_index(table, index, strides, squares, i, start, child_stm)
                twins = kings_on_diagonal
            parents[count] = parent
            count += 1
            if twins:
                twin = twin_index(table, squares, n, mover)
                if twin != parent:
                    parents[count] = twin
                    count += 1
            squares[i] = start
    return count


@nb.njit(types.int64(I64, types.int64, U8, types.int64, types.boolean, U16, types.int64, U8),
         cache=True)
def mark_all(parents, count, work, d, wins, far, longest, touched):
    """:func:`mark` every one of the first ``count`` ``parents``; returns how many were
    written."""
    parents, work, far, touched = borrowed((parents, work, far, touched))
    written = 0
    won = win_code(d) if d <= longest else WIN_NOW
    for k in range(count):
        written += mark(work, parents[k], d, wins, won, far, touched)
    return written


@nb.njit(cache=True, inline="always")
def side_blocks(table, side, size):
    """``(first, last, first_block, blocks)``: the entries of ``side`` to move (-1: both;
    white's come first in the storage index) and the blocks that hold them."""
    per_side = E.PER_SIDE[table]
    first = 0 if side <= 0 else per_side
    last = size if side == 1 or side < 0 else per_side
    first_block = first // BLOCK
    return first, last, first_block, (last + BLOCK - 1) // BLOCK - first_block


@nb.njit(cache=True, inline="always")
def by_side(table, counts, first_block, flip):
    """Per side to move (white, black) the sum of per-block ``counts`` (from ``first_block``
    on) by the side of their block, the other side with ``flip`` (a count of predecessors);
    a block holding both sides counts as white's."""
    total = np.zeros(2, dtype=np.int64)
    for j in range(counts.shape[0]):
        side = 1 if (first_block + j) * BLOCK >= E.PER_SIDE[table] else 0
        total[side ^ flip] += counts[j]
    return total


@nb.njit(I64(types.int64, U8, types.int64, types.boolean, U16, types.int64, U8, U8, types.int64),
         cache=True, parallel=True)
def spread(table, work, d, wins, far, longest, frontier_blocks, touched, side):
    """Level ``d``, passes 1 and 2: from every position lost (``wins``) or won at ``d - 1``
    with ``side`` to move (-1: either) in the blocks ``frontier_blocks``,
    :func:`mark_predecessors`. Returns how many were written (wins: positions won; flags:
    flags set), by their side to move (:func:`by_side`)."""
    n = E.COUNT[table]
    words = work.view(np.uint64)
    first, last, first_block, blocks = side_blocks(table, side, work.shape[0])
    target = frontier_byte(d, wins, longest)
    written = np.zeros(blocks, dtype=np.int64)
    strides = index_strides(table)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = first_block + k * stride % blocks
        if not frontier_blocks[block]:
            continue
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        parents = np.empty(GATHERED + MOST_PREDECESSORS, dtype=np.int64)
        count = 0
        for w in range(max(block * WORDS_PER_BLOCK, first // 8),
                       min(words.shape[0], (block + 1) * WORDS_PER_BLOCK)):
            if not has_byte(words[w], target):
                continue
            for index in range(max(8 * w, first), min(8 * w + 8, last)):
                if work[index] != target:
                    continue
                child_stm = decode_valid(table, index, squares)
                count = gather_predecessors(table, index, strides, codes, squares, n,
                                            child_stm, parents, count)
                if count >= GATHERED:
                    written[block - first_block] += mark_all(parents, count, work, d, wins,
                                                             far, longest, touched)
                    count = 0
        written[block - first_block] += mark_all(parents, count, work, d, wins, far, longest,
                                                 touched)
    return by_side(table, written, first_block, 1)


@nb.njit(types.int64(U8, types.int64, types.int64, U16, types.int64, U8), cache=True,
         parallel=True)
def replace_all(work, old, new, far, code, touched):
    """Every ``old`` byte becomes ``new``, and where ``new`` is a marker its position's code
    in ``far`` becomes ``code`` (the curse level's events); returns how many."""
    size = work.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    count = np.zeros(blocks, dtype=np.int64)
    marker = LOSS_OLD <= new <= WIN_NOW
    for block in prange(blocks):
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            if work[index] == old:
                work[index] = new
                if marker:
                    far[index] = code
                count[block] += 1
        if count[block]:
            touched[block] = 1
    return count.sum()


REACHED, EVERY_ONE_LOSES, NO_QUIET_MOVE = 1, 0, -1  # what quiet_moves found


@nb.njit(cache=True, inline="always")
def quiet_moves(table, index, stm, strides, codes, squares, n, work, d, target):
    """What the legal quiet moves of ``stm`` (no capture, no pawn move: those are exits)
    reach: REACHED if one reaches a position whose entry is ``target`` or, with ``target``
    -1, one not won (for the opponent) below ``d``; else, with ``target`` -1, NO_QUIET_MOVE
    if none is legal, EVERY_ONE_LOSES if some are (with a ``target``: EVERY_ONE_LOSES).
    ``work`` holds bytes (this module's, markers past LONGEST) or two-byte words
    (:mod:`retrograde.chess_dtm`'s, codes below ``WORD_OPEN``)."""
    strides, codes, squares, work = borrowed((strides, codes, squares, work))
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    verdict = NO_QUIET_MOVE if target < 0 else EVERY_ONE_LOSES
    for k in range(n):
        # last slot first: its moves' entries lie nearest (the smallest stride), a king's
        # farthest (another king pair), and any one move found ends the search
        i = n - 1 - k
        if codes[i] // 6 != stm or codes[i] % 6 == PAWN:
            continue
        start = squares[i]
        targets = reach(codes[i], i, squares, occupied) & ~occupied
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            squares[i] = to
            if i < 2:
                child_index = king_moved_index(table, index, strides, squares, i, start, stm)
            else:
                child_index = moved_index(table, index, strides, squares, i, start, stm)
            squares[i] = start
            child = np.int64(work[child_index])
            if target >= 0:
                if child == target:
                    return REACHED
                continue
            if child == INVALID:  # the move leaves the king in check
                continue
            verdict = EVERY_ONE_LOSES
            if work.itemsize == 1:
                lost = won_before(child, d)
            else:
                lost = child < WORD_OPEN and is_win(child) and code_distance(child) < d
            if not lost:
                return REACHED
    return verdict


@nb.njit([types.boolean(types.int64, types.int64, types.int64, I64, I64, I64, types.int64, U8,
                        types.int64, types.int64),
          types.boolean(types.int64, types.int64, types.int64, I64, I64, I64, types.int64, U16,
                        types.int64, types.int64)], cache=True)
def quiet_move_reaching(table, index, stm, strides, codes, squares, n, work, d, target):
    """Whether a legal quiet move of ``stm`` reaches a position whose entry is ``target``
    or, with ``target`` -1, one not won (for the opponent) below ``d``
    (:func:`quiet_moves`)."""
    return quiet_moves(table, index, stm, strides, codes, squares, n, work, d,
                       target) == REACHED


@nb.njit(cache=True, inline="always")
def every_quiet_move_loses(table, index, stm, strides, codes, squares, n, work, d):
    """Whether every legal quiet move of ``stm`` reaches a position won (for the opponent)
    below ``d`` (:func:`quiet_move_reaching`)."""
    return not quiet_move_reaching(table, index, stm, strides, codes, squares, n, work, d, -1)


@nb.njit(cache=True, inline="always")
def evasion_squares(stm, n, codes, squares, occupied):
    """The squares a piece of ``stm`` other than its king may move to without leaving its
    king to a piece that gives check now: every square when not in check, the checker's and
    those between it and the king in single check, none in double check. A move elsewhere
    is illegal, so :func:`escapes_check` skips it without reading the entry it reaches
    (pins are still told by that read)."""
    king = squares[stm]
    bit = types.uint64(1) << types.uint64(king)
    allowed = ~types.uint64(0)
    checks = 0
    for j in range(2, n):  # (kings never stand side by side here: no king gives check)
        code = codes[j]
        if code // 6 == stm:
            continue
        if code % 6 == PAWN:
            hit = pawn_attacks(1 - stm, squares[j]) & bit
        else:
            hit = piece_attacks(code % 6, squares[j], occupied) & bit
        if hit:
            checks += 1
            if checks == 2:
                return types.uint64(0)
            checker = types.uint64(1) << types.uint64(squares[j])
            allowed = BETWEEN[squares[j] * 64 + king] | checker
    return allowed


@nb.njit(cache=True, inline="always")
def escapes_check(table, index, stm, strides, codes, squares, n, work):
    """Whether ``stm``, in check at storage ``index`` (``squares``), has a legal quiet move:
    its king's first (a king in check mostly has one: a square no enemy piece attacks),
    then the other pieces' to squares that block the check (none in double check), legal
    when the entry reached is not INVALID (a pinned piece's is)."""
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    king = squares[stm]
    without_king = occupied & ~(types.uint64(1) << types.uint64(king))
    covered = types.uint64(0)  # what the other side attacks, through the king's square
    for j in range(2, n):
        if codes[j] // 6 != stm:
            covered |= piece_attacks(codes[j] % 6, squares[j], without_king)
    if reach(codes[stm], stm, squares, occupied) & ~occupied & ~covered:
        return True  # (told by the squares: no entry read)
    evasions = evasion_squares(stm, n, codes, squares, occupied)
    for i in range(2, n):
        if codes[i] // 6 != stm:
            continue
        start = squares[i]
        targets = reach(codes[i], i, squares, occupied) & ~occupied & evasions
        while targets:
            squares[i] = lsb(targets)
            targets &= targets - types.uint64(1)
            child_index = moved_index(table, index, strides, squares, i, start, stm)
            squares[i] = start
            if work[child_index] != INVALID:  # (not pinned)
                return True
    return False


@nb.njit(types.void(types.int64, U8, U8, U8), cache=True, parallel=True)
def find_mates(table, work, first_level, flagged_blocks):
    """After the captures are seeded: a legal position in check with no capture and no
    legal quiet move is mated (``loss_code(0)``). A block holding a position won in 1 is
    marked in ``first_level``, one holding a position whose captures all lose (FLAGGED: it
    is lost at level 1 if it has no quiet move) in ``flagged_blocks``. In check means the
    same placement with the other side to move is INVALID, which no write here changes.
    ``work``: whole words (8 entries at a time are passed over)."""
    n = E.COUNT[table]
    per_side = E.PER_SIDE[table]
    size = 2 * per_side
    words = work.view(np.uint64)
    blocks = (size + BLOCK - 1) // BLOCK
    strides = index_strides(table)
    won_in_one = win_code(1)
    stride = scatter_stride(blocks)  # (positions in check cluster: spread them over the threads)
    for k in prange(blocks):
        block = k * stride % blocks
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        for w in range(block * WORDS_PER_BLOCK, min(words.shape[0], (block + 1) * WORDS_PER_BLOCK)):
            word = words[w]
            if has_byte(word, won_in_one):
                first_level[block] = 1
            if has_byte(word, FLAGGED):
                flagged_blocks[block] = 1
            if not has_byte(word, OPEN):
                continue
            for index in range(8 * w, min(8 * w + 8, size)):
                if work[index] != OPEN or work[index - per_side if index >= per_side
                                              else index + per_side] != INVALID:
                    continue
                stm = decode_valid(table, index, squares)
                if not escapes_check(table, index, stm, strides, codes, squares, n, work):
                    work[index] = loss_code(0)


def capture_passes(table: int) -> list[tuple[int, int]]:
    """``(victim, capturers)`` of every seeding pass of ``table`` (:func:`seed_task`): each
    group of like pieces (its first slot) as the victim, the other side's king and each of
    its groups as the capturers."""
    spec = E.SPEC[table, :E.COUNT[table]]
    firsts = [int(E.GROUPS[table, g, 0]) for g in range(E.MAX_GROUPS) if E.GROUPS[table, g, 1]]
    passes = []
    for victim in firsts:
        theirs = 1 - int(spec[victim]) // 6  # the capturing side (its king's slot)
        passes += [(victim, capturers) for capturers in
                   [theirs] + [first for first in firsts if int(spec[first]) // 6 == theirs]]
    return passes


def initialise(table: int, work: np.ndarray, child_dtz: np.ndarray, plans: np.ndarray,
               first_level: np.ndarray, flagged_blocks: np.ndarray) -> int:
    """Every legal position's byte before the levels (``work``, whole words, as
    :func:`mark_positions` left it): its best capture's class, seeded child to parent
    (:func:`seed_captures`, every pass of :func:`capture_passes`), then the mates
    (:func:`find_mates`, which marks the blocks ``first_level`` and ``flagged_blocks``).
    Returns how many children are in tables not loaded."""
    missing = sum(seed_captures(table, work, child_dtz, plans, victim, capturers)
                  for victim, capturers in capture_passes(table))
    find_mates(table, work, first_level, flagged_blocks)
    return missing


@nb.njit(I64(types.int64, U8, types.int64, U16, types.int64, U8, U8), cache=True,
         parallel=True)
def settle(table, work, d, far, longest, flagged_blocks, touched):
    """Level ``d``, pass 3: every flagged position (in ``flagged_blocks``) whose quiet moves
    all lose is lost in ``d``, the others are unflagged; one with no quiet move at all is
    lost if its captures lose (flagged at level 1, or a cursed loss at the curse level), else
    it is a stalemate (left open). A thread writes only in its own block. Returns how many
    were lost (:func:`by_side`)."""
    n = E.COUNT[table]
    words = work.view(np.uint64)
    blocks = flagged_blocks.shape[0]
    lost = np.zeros(blocks, dtype=np.int64)
    strides = index_strides(table)
    stride = scatter_stride(blocks)
    for k in prange(blocks):
        block = k * stride % blocks
        if not flagged_blocks[block]:
            continue
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        for w in range(block * WORDS_PER_BLOCK, min(words.shape[0], (block + 1) * WORDS_PER_BLOCK)):
            if not (has_byte(words[w], FLAGGED) or has_byte(words[w], FLAGGED_CLOSS)):
                continue
            for index in range(8 * w, 8 * w + 8):
                byte = work[index]
                if byte != FLAGGED and byte != FLAGGED_CLOSS:
                    continue
                stm = decode_valid(table, index, squares)
                verdict = quiet_moves(table, index, stm, strides, codes, squares, n, work, d,
                                      -1)
                # with no quiet move at all the captures decide: a flag at level 1 is a
                # capture that loses, a cursed one at the curse level; any other is a
                # stalemate flagged with every open position (drawn: left open)
                if verdict == EVERY_ONE_LOSES or (verdict == NO_QUIET_MOVE and (
                        d == 1 or byte == FLAGGED_CLOSS)):
                    if d <= longest:
                        work[index] = loss_code(d)
                    else:
                        work[index] = LOSS_NOW
                        far[index] = loss_code(d)
                    lost[block] += 1
                else:
                    work[index] = byte - FLAG
        if lost[block]:
            touched[block] = 1
    return by_side(table, lost, 0, 0)


@nb.njit(I64(types.int64, U8, types.int64, U16, types.int64, U8, types.int64), cache=True,
         parallel=True)
def pull_wins(table, work, d, far, longest, touched, side):
    """Level ``d``, pass 1 the other way round (what :func:`spread` with ``wins`` decides
    for them): every open position with ``side`` to move that has a quiet move into a
    position lost at ``d - 1`` is won in ``d``; returns how many (:func:`by_side`). A byte
    written here is never the one looked for, so the result does not depend on the threads'
    timing."""
    n = E.COUNT[table]
    words = work.view(np.uint64)
    first, last, first_block, blocks = side_blocks(table, side, work.shape[0])
    target = frontier_byte(d, True, longest)
    won_byte = win_code(d) if d <= longest else WIN_NOW
    won = np.zeros(blocks, dtype=np.int64)
    strides = index_strides(table)
    stride = scatter_stride(blocks)
    fast = fastest_piece_slot(table)
    for k in prange(blocks):
        block = first_block + k * stride % blocks
        codes = spec_codes(table)
        squares = np.empty(n, dtype=np.int64)
        row = -1
        for w in range(max(block * WORDS_PER_BLOCK, first // 8),
                       min(words.shape[0], (block + 1) * WORDS_PER_BLOCK)):
            if not words[w] & HIGHS:  # an open byte has its high bit set
                continue
            for index in range(max(8 * w, first), min(8 * w + 8, last)):
                if work[index] < OPEN:
                    continue
                stm, row = decode_in_row(table, index, squares, fast, row)
                if quiet_move_reaching(table, index, stm, strides, codes, squares, n, work, d,
                                       target):
                    work[index] = won_byte
                    if won_byte == WIN_NOW:
                        far[index] = win_code(d)
                    won[block - first_block] += 1
        if won[block - first_block]:
            touched[block] = 1
    return by_side(table, won, first_block, 0)


@nb.njit(types.int64(types.int64, U8, types.int64, U8, types.int64), cache=True, parallel=True)
def flag_every_open(table, work, d, flagged_blocks, side):
    """Level ``d``, pass 2 the other way round: flag every open position with ``side`` to
    move that may be lost (a superset of what :func:`spread` flags: settling finds the same
    losses, at the price of looking at more positions); returns how many."""
    first, last, first_block, blocks = side_blocks(table, side, work.shape[0])
    flags = np.zeros(blocks, dtype=np.int64)
    for k in prange(blocks):
        block = first_block + k
        for index in range(max(block * BLOCK, first), min((block + 1) * BLOCK, last)):
            byte = work[index]
            if may_be_lost(byte, d):
                work[index] = byte + FLAG
                flags[k] += 1
        if flags[k]:
            flagged_blocks[block] = 1
    return flags.sum()


OPEN_COUNT, MAY_LOSE_COUNT, LOST_COUNT, WON_COUNT = range(4)  # side_counts' columns


@nb.njit(cache=True, inline="always")
def zero_bytes(word):
    """How many of the 8 bytes of ``word`` are 0 (a carry-free test of each byte)."""
    return np.int64(((zero_byte_highs(word) >> types.uint64(7)) * ONES) >> types.uint64(56))


@nb.njit(cache=True, inline="always")
def bytes_equal(word, value):
    """How many of the 8 bytes of ``word`` equal ``value``."""
    return zero_bytes(word ^ (ONES * types.uint64(value)))


OPEN_BITS = types.uint64(0xF8F8F8F8F8F8F8F8)  # OPEN .. FLAGGED_CLOSS: these five bits set


@nb.njit(I64_2D(types.int64, U8, types.int64, types.int64), cache=True, parallel=True)
def side_counts(table, work, d, longest):
    """Per side to move (rows: white, black): how many positions are open, how many of them
    may be lost at level ``d``, how many were lost and how many won at ``d - 1`` (8 entries
    at a time: the count is a pass over the table)."""
    per_side = E.PER_SIDE[table]
    lost_byte = frontier_byte(d, True, longest)
    won_byte = frontier_byte(d, False, longest)
    cursed_may_lose = d >= CURSE_LEVEL
    words = work.view(np.uint64)
    blocks = (work.shape[0] + BLOCK - 1) // BLOCK
    counts = np.zeros((blocks, 8), dtype=np.int64)
    for block in prange(blocks):
        first, last = block * BLOCK, min(work.shape[0], (block + 1) * BLOCK)
        if first < per_side < last:  # the block straddles the sides: entry by entry
            for index in range(first, last):
                byte = work[index]
                column = 4 if index >= per_side else 0
                counts[block, column + OPEN_COUNT] += byte >= OPEN
                counts[block, column + MAY_LOSE_COUNT] += may_be_lost(byte, d)
                counts[block, column + LOST_COUNT] += byte == lost_byte
                counts[block, column + WON_COUNT] += byte == won_byte
            continue
        opened, may_lose, lost, won = 0, 0, 0, 0
        for w in range(first // 8, (last + 7) // 8):
            word = words[w]
            if word & HIGHS:
                opened += zero_bytes((word & OPEN_BITS) ^ OPEN_BITS)
                may_lose += bytes_equal(word, OPEN)
                if cursed_may_lose:
                    may_lose += bytes_equal(word, OPEN_CLOSS)
            if has_byte(word, lost_byte):
                lost += bytes_equal(word, lost_byte)
            if has_byte(word, won_byte):
                won += bytes_equal(word, won_byte)
        column = 4 if first >= per_side else 0
        counts[block, column + OPEN_COUNT] = opened
        counts[block, column + MAY_LOSE_COUNT] = may_lose
        counts[block, column + LOST_COUNT] = lost
        counts[block, column + WON_COUNT] = won
    total = np.zeros((2, 4), dtype=np.int64)
    for block in range(blocks):
        for column in range(8):
            total[column // 4, column % 4] += counts[block, column]
    return total


@nb.njit(types.void(U8), cache=True, parallel=True)
def age_markers(work):
    """After a level past the byte's codes: PREV markers become OLD, NOW ones PREV."""
    for index in prange(work.shape[0]):
        byte = work[index]
        if LOSS_PREV <= byte <= WIN_NOW:
            work[index] = byte - 2


@nb.njit(types.void(U8, U16), cache=True, parallel=True)
def close_far(work, far):
    """The two-byte result of a table that went past the byte's codes: what is still open
    is drawn; codes decided before the byte ran out were copied into ``far`` then."""
    for index in prange(work.shape[0]):
        if work[index] >= OPEN:
            far[index] = CODE_DRAW


@nb.njit(types.void(U8), cache=True, parallel=True)
def close(work):
    """What is still open is drawn."""
    for index in prange(work.shape[0]):
        if work[index] >= OPEN:
            work[index] = CODE_DRAW


@nb.njit(types.int64(U8, types.int64, types.int64), cache=True, parallel=True)
def count_between(work, low, high):
    """How many bytes lie in ``[low, high]``."""
    size = work.shape[0]
    blocks = (size + BLOCK - 1) // BLOCK
    count = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        for index in range(block * BLOCK, min(size, (block + 1) * BLOCK)):
            if low <= work[index] <= high:
                count[block] += 1
    return count.sum()


# Each level's two passes run the cheaper way, per side to move (the codes do not depend on it):
PULL_WINS_BELOW = 1.0  # pull a side's wins when it has fewer open positions than this times
# the losses at the level before they would be un-moved from (about as many moves either way)
FLAG_ALL_ABOVE = 0.2  # flag every open position of a side that may be lost when the other
# side's wins at the level before are more than this share of them (un-moving from so many
# flags most of them anyway)
SCAN_FROM = 256  # either only when that frontier is at least this fraction of the side's
# entries (both read every entry of the side)


def ways_of_level(sides: np.ndarray | None, per_side: int
                  ) -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """Per side to move (``per_side`` entries each), from the counts of :func:`side_counts`
    (None: not counted, un-move everywhere): whether its wins are pulled
    (:func:`pull_wins`) and whether every open position is flagged
    (:func:`flag_every_open`) rather than un-moved to from the other side's frontier."""
    if sides is None:
        return (False, False), (False, False)
    pulled = tuple(bool(sides[1 - side, LOST_COUNT] * SCAN_FROM >= per_side
                        and sides[side, OPEN_COUNT]
                        < PULL_WINS_BELOW * sides[1 - side, LOST_COUNT]) for side in (0, 1))
    flagged_all = tuple(flag_every_open_pays(sides[1 - side, WON_COUNT],
                                             sides[side, MAY_LOSE_COUNT], per_side)
                        for side in (0, 1))
    return pulled, flagged_all


def flag_every_open_pays(won: int, may_lose: int, per_side: int) -> bool:
    """Whether flagging every open position of a side that may be lost (``may_lose`` of its
    ``per_side`` entries) should cost less than un-moving to them from the other side's
    ``won`` positions at the level before."""
    return bool(won * SCAN_FROM >= per_side and won > FLAG_ALL_ABOVE * may_lose)


def follow_level(sides: np.ndarray, won: np.ndarray, lost: np.ndarray) -> None:
    """``sides`` (:func:`side_counts`) brought to the next level from what a level won and
    lost per side (those were open; a won one may have been a position that could not be
    lost: what may be lost is an upper bound)."""
    sides[:, OPEN_COUNT] -= won + lost
    sides[:, MAY_LOSE_COUNT] -= lost
    sides[:, LOST_COUNT] = lost
    sides[:, WON_COUNT] = won


def find_wins(table_id, work, d, far, longest, frontier, touched, pulled) -> np.ndarray:
    """Level ``d``, pass 1, each side's way (``pulled``: :func:`ways_of_level`); returns how
    many positions were won, per side to move."""
    if not any(pulled):
        return spread(table_id, work, d, True, far, longest, frontier, touched, -1)
    won = np.zeros(2, dtype=np.int64)
    for side in (0, 1):  # (a side's predecessors are un-moved from the other side's losses)
        if pulled[side]:
            won += pull_wins(table_id, work, d, far, longest, touched, side)
        else:
            won += spread(table_id, work, d, True, far, longest, frontier, touched, 1 - side)
    return won


def find_flags(table_id, work, d, far, longest, frontier, flagged, flagged_all) -> None:
    """Level ``d``, pass 2, each side's way (``flagged_all``: :func:`ways_of_level`)."""
    if not any(flagged_all):
        spread(table_id, work, d, False, far, longest, frontier, flagged, -1)
        return
    for side in (0, 1):
        if flagged_all[side]:
            flag_every_open(table_id, work, d, flagged, side)
        else:
            spread(table_id, work, d, False, far, longest, frontier, flagged, 1 - side)


def solve(table: str, child_dtz: np.ndarray, child_offsets: np.ndarray, progress,
          longest: int = LONGEST) -> np.ndarray:
    """The DTZ50 codes (storage index) of the pawnless chess ``table``, from its children's
    DTZ50 codes (``child_dtz`` at ``child_offsets[table id]``, as
    :func:`retrograde.tables.load_children` gives them): ``uint8``, the working array itself,
    when every distance fits the byte's codes (up to ``longest`` plies), else ``uint16``
    (a second array, from the first level past them). RuntimeError if a child is missing."""
    table_id = E.TABLE_IDS[table]
    if E.PAWNFUL[table_id]:
        raise ValueError(f"{table}: the one-byte DTZ50 generator is for tables without pawns")
    if not 0 < longest <= LONGEST:
        raise ValueError(f"longest: {longest} is not in 1..{LONGEST}")
    size = 2 * int(E.PER_SIDE[table_id])
    work = np.zeros(size + (-size) % 8, dtype=np.uint8)  # whole words (the rest INVALID)
    far = np.zeros(0, dtype=np.uint16)  # the codes, once a level passes ``longest``
    blocks = (size + BLOCK - 1) // BLOCK
    first_level = np.zeros(blocks, dtype=np.uint8)
    flagged = np.zeros(blocks, dtype=np.uint8)  # level 1's: the positions whose captures lose
    plans = fill_offsets(capture_plans(table), child_offsets)
    mark_positions(table_id, work[:size], OPEN)
    missing = initialise(table_id, work, child_dtz, plans, first_level, flagged)
    if missing:
        raise RuntimeError(f"{table}: {missing} captures lead to tables that are not loaded")
    progress.update("initialise", 1, 1, size)
    cursed = count_between(work, OPEN_CLOSS, OPEN_CLOSS) + count_between(
        work, HOLDS_CWIN, HOLDS_CWIN)
    frontier = np.ones(blocks, dtype=np.uint8)  # the mates: anywhere
    touched = np.zeros(blocks, dtype=np.uint8)
    sides = None  # per side to move, side_counts, kept up to date level by level
    d = 1
    while True:
        if d == longest + 1:  # the byte's codes end here: markers, the codes beside
            far = work.astype(np.uint16)
        if d == 2 or d == CURSE_LEVEL + 1:  # the captures decided some at d - 1
            sides = side_counts(table_id, work[:size], d, longest)
        pulled, flagged_all = ways_of_level(sides, size // 2)
        won = find_wins(table_id, work, d, far, longest, frontier, touched, pulled)
        decided = int(won.sum())
        if d == CURSE_LEVEL:
            cursed_win = win_code(CURSE_LEVEL)
            decided += replace_all(work, HOLDS_CWIN, cursed_win if d <= longest else WIN_NOW,
                                   far, cursed_win, touched)
        find_flags(table_id, work, d, far, longest, frontier, flagged, flagged_all)
        if d == CURSE_LEVEL:
            replace_all(work, OPEN_CLOSS, FLAGGED_CLOSS, far, 0, flagged)
        lost = settle(table_id, work, d, far, longest, flagged, touched)
        decided += int(lost.sum())
        if sides is not None:
            follow_level(sides, won, lost)
        if d == 1:
            touched |= first_level
            decided += int(first_level.any())
        if d > longest:
            age_markers(work)
        progress.update(f"dtz50 level {d}", 0, 0, int(decided))
        frontier, touched = touched, frontier
        touched[:] = 0
        flagged[:] = 0
        if decided:
            d += 1
        elif d < CURSE_LEVEL and cursed:
            d = CURSE_LEVEL  # nothing before the cursed captures come due
            frontier[:] = 0
        else:
            break
    if far.size:
        close_far(work, far)
        return far[:size]
    close(work)
    return work[:size]
