"""Un-move generation for chess tables: the kernels :mod:`retrograde.unmove` solves them with
(:class:`games.table_family.UnmoveKernels`).

They work in a *generation index* (every placement of the table's pieces with White's king in
the a1-d1-d4 triangle without pawns, the first pawn on files a-d with pawns; pawns only on
ranks 2-7; one byte per entry), where a move or un-move of any piece (but the white king,
without pawns) is a single addition, and
``store_range`` maps the result to the compact storage index of :mod:`games.chess.endgames`.
Codes are value codes (:mod:`games.value_codes`), ``GEN_UNKNOWN`` while unresolved. Attack
sets, piece types and the between-squares table are the move generator's
(:mod:`games.chess.attacks`, :mod:`games.chess.position`, :mod:`games.chess.tables`).

- ``initialise_range``: invalid placements (code 0), mates and stalemates, and for every
  position a summary of its moves out of the table (captures, promotions), looked up once in
  the child tables: the level at which one of them wins, and the level from which all of them
  are known lost (never, if one draws or wins). The last slot is the index's lowest digit, so
  a run of consecutive nodes differs only in the last piece: what the other pieces decide
  about the placement's validity is computed once per run. Captures are read from the
  capture tables ``with_children`` fills once per captured slot (the child's code for every
  placement of the pieces left, indexed by their squares), promotions by ranking the child.
- ``mark_predecessors_of``: the un-moves of the side that just moved (never captures or
  promotions) from positions decided at the previous level; a batch's predecessors are
  gathered first and their codes touched after, in one tight loop (the table is far larger
  than the caches: many misses in flight at once is what makes this pass fast).
- ``evaluate_entries``: every move of a flagged position; lost if every child is known won
  (distance below the level) and the moves out of the table allow it. A position remembers
  its first unknown child (``hints``), so the next look starts there.

A position may instead count its legal moves inside the table (``legal_quiet_count``, from
attack sets, when it is initialised); each un-move from a won child then decrements the count
(``atomic_decrement``: threads may meet at a predecessor), and at 0 the position is lost, with
no look at its moves. This needs the un-moves to reach the position's node exactly once per
move. In the pawn index they do: no move or un-move inside the table changes the frame (the
anchor pawn keeps its file; like pieces only swap places). Positions with an en-passant push
are looked at in full (below), so they are flagged instead. Without pawns they do as long as
each child position generates its un-moves once: one of two twins does (below), and a child
that is its own mirror image generates one of each mirrored pair of un-moves. A position that
is its own mirror image would be reached once for a mirrored pair of its moves, so it is
flagged. Counting took the settle pass off pawn tables: KBBvKP's build, one thread, 207 ->
170 s of CPU (settle 55 -> 6 s, initialisation 67 -> 77 s).

Positions whose white king stands on the long diagonal have a mirror twin in the generation
index (the same position, always holding the same code); un-moves mark both, so only the
first of two twins generates the predecessors of both. Like pieces are another matter: only
one order of them is a node (ascending squares; see the generation index below), so each such
position is solved once.

A double pawn push after which the opponent can capture en passant leads to a position that
is not the table's entry: its value is the opponent's best of the entry and the en-passant
capture; positions with such a push are always looked at in full.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from games.chess import endgames as E
from games.chess.attacks import (bishop_attacks, king_attacks, knight_attacks, pawn_attacks,
                                 queen_attacks, rook_attacks)
from games.chess.bitops import lsb, popcount
from games.chess.position import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from games.chess.tables import BETWEEN, BISHOP_RAYS, ROOK_RAYS
from games.table_family import (GEN_AUX, GEN_EVALUATE_SIGNATURE, GEN_INITIALISE_SIGNATURE,
                                GEN_MARK_SIGNATURE, GEN_PARAMS, GEN_STORE_SIGNATURE,
                                GEN_WINS_BY_MOVES_SIGNATURE, INDEX_MASK, NO_LEVEL,
                                TABLE_SHIFT, GenerationSpace, UnmoveKernels, revisit_at,
                                touch)
from games.bits import atomic_decrement
from games.value_codes import (CODE_DRAW, COUNT_BASE, GEN_FLAGGED, GEN_UNKNOWN, INVALID,
                               MOST_COUNTED, better, code_distance, count_code, is_count, is_loss,
                               is_unresolved, is_win, loss_code, parent_code, rule_class, shifted,
                               stored_code, win_code)
from runtime.borrow import borrowed

MAX_MOVES = 96
BLOCK_ENTRIES = 4096  # capture-table entries per parallel task

SPEC8 = types.Array(types.int8, 1, "C")
U8 = types.Array(types.uint8, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
I64 = types.Array(types.int64, 1, "C")


@nb.njit(types.uint64(types.int64, types.int64, types.int64, types.uint64), cache=True)
def attacks_from(code, square, colour, occupied):
    """Squares attacked by piece ``code`` on ``square``."""
    kind = code % 6
    if kind == KING:
        return king_attacks(square)
    if kind == KNIGHT:
        return knight_attacks(square)
    if kind == PAWN:
        return pawn_attacks(colour, square)
    if kind == ROOK:
        return rook_attacks(occupied, square)
    if kind == BISHOP:
        return bishop_attacks(occupied, square)
    return queen_attacks(occupied, square)


@nb.njit(types.boolean(types.int64, types.int64, SPEC8, I64, types.int64, types.uint64,
                       types.int64), cache=True)
def is_attacked(target, by_colour, spec, squares, n, occupied, skip):
    """Whether a piece of ``by_colour`` (other than slot ``skip``) attacks ``target``."""
    bit = types.uint64(1) << types.uint64(target)
    for j in range(n):
        if j == skip:
            continue
        code = np.int64(spec[j])
        if code // 6 != by_colour:
            continue
        kind = code % 6
        square = squares[j]
        if kind == KING:
            if king_attacks(square) & bit:
                return True
        elif kind == KNIGHT:
            if knight_attacks(square) & bit:
                return True
        elif kind == PAWN:
            if pawn_attacks(by_colour, square) & bit:
                return True
        else:
            if kind == ROOK:
                rays = ROOK_RAYS[square]
            elif kind == BISHOP:
                rays = BISHOP_RAYS[square]
            else:
                rays = ROOK_RAYS[square] | BISHOP_RAYS[square]
            if rays & bit and not BETWEEN[square * 64 + target] & occupied:
                return True
    return False


@nb.njit(types.boolean(SPEC8, I64, types.int64, types.int64), cache=True)
def placement_valid(spec, squares, n, stm):
    """Distinct squares, pawns off the first and last ranks, the side not to move not in check."""
    occupied = types.uint64(0)
    for i in range(n):
        bit = types.uint64(1) << types.uint64(squares[i])
        if occupied & bit:
            return False
        occupied |= bit
        if spec[i] % 6 == PAWN and (squares[i] < 8 or squares[i] >= 56):
            return False
    return not is_attacked(squares[1 - stm], stm, spec, squares, n, occupied, -1)


@nb.njit(types.int64(SPEC8, I64, types.int64, types.int64, types.uint64, I64, types.boolean,
                     types.boolean, types.boolean), cache=True)
def pseudo_moves(spec, squares, n, stm, occupied, moves, leaving_only, double_pushes,
                 pawns_leave):
    """Pseudo-legal moves of ``stm`` packed as ``slot | to << 3 | promotion << 9 |
    (captured slot + 1) << 12 | double push << 16`` (promotion: piece type, 0 none). With
    ``leaving_only``, only captures and promotions (and double pushes if ``double_pushes``;
    every pawn move if ``pawns_leave``, a DTZ50 space's exits)."""
    count = 0
    own = types.uint64(0)
    for i in range(n):
        if spec[i] // 6 == stm:
            own |= types.uint64(1) << types.uint64(squares[i])
    for i in range(n):
        code = np.int64(spec[i])
        if code // 6 != stm:
            continue
        sq = squares[i]
        if code % 6 == PAWN:
            forward = 8 if stm == 0 else -8
            targets = pawn_attacks(stm, sq) & occupied & ~own
            one = sq + forward
            if not (occupied >> types.uint64(one)) & types.uint64(1):
                if not leaving_only or one >= 56 or one < 8 or pawns_leave:
                    targets |= types.uint64(1) << types.uint64(one)
                start_rank = 1 if stm == 0 else 6
                two = one + forward
                if (sq >> 3) == start_rank and not (occupied >> types.uint64(two)) & types.uint64(1) \
                        and (double_pushes or not leaving_only or pawns_leave):
                    moves[count] = i | (two << 3) | (1 << 16)
                    count += 1
        else:
            targets = attacks_from(code, sq, stm, occupied) & ~own
            if leaving_only:
                targets &= occupied
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            captured = 0
            if (occupied >> types.uint64(to)) & types.uint64(1):
                for j in range(n):
                    if squares[j] == to:
                        captured = j + 1
            base = i | (to << 3) | (captured << 12)
            if code % 6 == PAWN and (to >= 56 or to < 8):
                for promotion in (QUEEN, ROOK, BISHOP, KNIGHT):
                    moves[count] = base | (promotion << 9)
                    count += 1
            else:
                moves[count] = base
                count += 1
    return count


@nb.njit(types.boolean(SPEC8, I64, types.int64, types.int64, types.int64), cache=True)
def move_is_legal(spec, squares, n, stm, move):
    """Whether the pseudo-legal ``move`` leaves the mover's king safe (squares restored)."""
    slot = move & 7
    to = (move >> 3) & 63
    captured = ((move >> 12) & 7) - 1
    start = squares[slot]
    squares[slot] = to
    occupied = types.uint64(0)
    for j in range(n):
        if j != captured:
            occupied |= types.uint64(1) << types.uint64(squares[j])
    safe = not is_attacked(squares[stm], 1 - stm, spec, squares, n, occupied, captured)
    squares[slot] = start
    return safe


@nb.njit(cache=True, inline="always")
def quiet_targets(piece, square, stm, occupied):
    """Squares piece code ``piece`` of ``stm`` on ``square`` can move to inside the table: no
    capture, no promotion (pawns: the single push and, from the start rank, the double push,
    which may block a check the single cannot)."""
    if piece % 6 == PAWN:
        forward = 8 if stm == 0 else -8
        one = square + forward
        if one >= 56 or one < 8 or (occupied >> types.uint64(one)) & types.uint64(1):
            return types.uint64(0)  # promotions leave the table; blocked pawns do not move
        targets = types.uint64(1) << types.uint64(one)
        two = one + forward
        if (square >> 3) == (1 if stm == 0 else 6) \
                and not (occupied >> types.uint64(two)) & types.uint64(1):
            targets |= types.uint64(1) << types.uint64(two)
        return targets
    return attacks_from(piece, square, stm, occupied) & ~occupied


@nb.njit(types.boolean(SPEC8, I64, types.int64, types.int64, types.uint64), cache=True)
def has_legal_quiet_move(spec, squares, n, stm, occupied):
    """Whether ``stm`` has a legal move that neither captures nor promotes (king first)."""
    for k in range(n):
        i = stm if k == 0 else (1 - stm if k == 1 else k)  # the mover's king, then the rest
        code = np.int64(spec[i])
        if code // 6 != stm:
            continue
        targets = quiet_targets(code, squares[i], stm, occupied)
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            if move_is_legal(spec, squares, n, stm, i | (to << 3)):
                return True
    return False


@nb.njit(types.int64(SPEC8, I64, types.int64, types.int64, types.uint64, types.boolean),
         cache=True)
def legal_quiet_count(spec, squares, n, stm, occupied, pawns_leave):
    """How many legal moves ``stm`` has that neither capture nor promote (the moves inside the
    table; no pawn move when ``pawns_leave``), from attack sets: the king's targets no enemy
    piece attacks (its own square seen through), and the other pieces' targets, kept to the
    squares between a checker and the king when in check (none in double check) and to their
    pin line when pinned."""
    king = squares[stm]
    king_bit = types.uint64(1) << types.uint64(king)
    through = occupied & ~king_bit
    attacked = types.uint64(0)
    checkers = 0
    blocks = ~types.uint64(0)  # where a move must land to answer a check
    for j in range(n):
        code = np.int64(spec[j])
        if code // 6 == stm:
            continue
        reach = attacks_from(code, squares[j], 1 - stm, through)
        attacked |= reach
        if reach & king_bit:
            checkers += 1
            blocks = BETWEEN[squares[j] * 64 + king]  # 0 for a contact check
    count = popcount(quiet_targets(stm * 6 + KING, king, stm, occupied) & ~attacked)
    if checkers > 1:
        return count
    for i in range(n):
        code = np.int64(spec[i])
        if code // 6 != stm or code % 6 == KING or (pawns_leave and code % 6 == PAWN):
            continue
        square = squares[i]
        targets = quiet_targets(code, square, stm, occupied)
        if checkers:
            targets &= blocks
        bit = types.uint64(1) << types.uint64(square)
        for j in range(n):  # an enemy slider behind this piece, on a line with the king
            enemy = np.int64(spec[j])
            kind = enemy % 6
            if enemy // 6 == stm or not (kind == ROOK or kind == BISHOP or kind == QUEEN):
                continue
            line = BETWEEN[squares[j] * 64 + king]
            if line & occupied != bit:
                continue
            if (kind == ROOK and not ROOK_RAYS[squares[j]] & king_bit) \
                    or (kind == BISHOP and not BISHOP_RAYS[squares[j]] & king_bit):
                continue
            targets &= line  # pinned: it may only move along the line
        count += popcount(targets)
    return count


PREFIX = types.Tuple((types.boolean, types.uint64, types.int64))


@nb.njit(PREFIX(SPEC8, I64, types.int64, types.int64, types.Array(types.uint64, 1, "C")),
         cache=True)
def placement_prefix(spec, squares, n, stm, rays):
    """What :func:`placement_valid` can tell from every piece but the last: whether they
    stand on distinct squares with pawns off the first and last ranks, the squares they
    occupy, and how many of ``stm``'s pieces attack the other king past them; their
    ``rays[k]`` hold the squares between each such attacker and the king (a piece there
    blocks it; 0 for a king, knight or pawn)."""
    occupied = types.uint64(0)
    valid = True
    for i in range(n - 1):
        bit = types.uint64(1) << types.uint64(squares[i])
        if occupied & bit or (spec[i] % 6 == PAWN and (squares[i] < 8 or squares[i] >= 56)):
            valid = False
        occupied |= bit
    target = squares[1 - stm]
    target_bit = types.uint64(1) << types.uint64(target)
    attackers = 0
    for j in range(n - 1):
        code = np.int64(spec[j])
        if code // 6 != stm:
            continue
        if attacks_from(code, squares[j], stm, occupied) & target_bit:
            kind = code % 6
            sliding = kind == ROOK or kind == BISHOP or kind == QUEEN
            rays[attackers] = BETWEEN[squares[j] * 64 + target] if sliding else types.uint64(0)
            attackers += 1
    return valid, occupied, attackers


@nb.njit(cache=True, inline="always")
def placement_completes(spec, squares, n, stm, occupied, rays, attackers):
    """:func:`placement_valid` of a placement whose other pieces passed
    :func:`placement_prefix` (``occupied``, ``rays``, ``attackers`` from it), given the last
    piece's square."""
    last = n - 1
    bit = types.uint64(1) << types.uint64(squares[last])
    if occupied & bit:
        return False
    for k in range(attackers):
        if not rays[k] & bit:
            return False  # an attack the last piece does not block
    code = np.int64(spec[last])
    target = squares[1 - stm]
    return not (code // 6 == stm and attacks_from(code, squares[last], stm, occupied | bit)
                & (types.uint64(1) << types.uint64(target)))


@nb.njit(types.int64(SPEC8, I64, types.int64, types.int64, types.int64, types.int64, U16, I64,
                     SPEC8, I64, I64), cache=True)
def exit_code(spec, squares, n, stm, move, ep_victim, child_codes, child_offsets,
              child_pieces, child_squares, scratch):
    """Code (for the side to move after it) of the child a capture/promotion leads to, -1 if
    its table is not among those loaded. ``ep_victim`` >= 0 removes that slot instead (en
    passant). The last three arguments are scratch arrays of MAX_PIECES."""
    slot = move & 7
    to = (move >> 3) & 63
    promotion = (move >> 9) & 7
    captured = ((move >> 12) & 7) - 1
    if ep_victim >= 0:
        captured = ep_victim
    count = 0
    for j in range(n):
        if j == captured:
            continue
        code = spec[j]
        square = squares[j]
        if j == slot:
            square = to
            if promotion:
                code = np.int8((code // 6) * 6 + promotion)
        child_pieces[count] = code
        child_squares[count] = square
        count += 1
    entry = E.locate_pieces(child_pieces, child_squares, count, 1 - stm, scratch)
    if entry < 0:
        return INVALID  # the kings side by side: no entry (an illegal move)
    table = entry >> TABLE_SHIFT
    if child_offsets[table] < 0:
        return -1  # a table of another group (see GEN_INITIALISE_SIGNATURE's ``first``)
    return np.int64(child_codes[child_offsets[table] + (entry & INDEX_MASK)])


@nb.njit(types.int64(SPEC8, I64, types.int64, types.int64, types.int64, U16, I64, SPEC8,
                     I64, I64), cache=True)
def en_passant_option(spec, squares, n, stm, move, child_codes, child_offsets,
                      child_pieces, child_squares, scratch):
    """After the double push ``move`` by ``stm``: the opponent's best code (as the parent of
    the capture's child) among its legal en-passant captures, or -1 if it has none."""
    slot = move & 7
    to = (move >> 3) & 63
    target = to - 8 if stm == 0 else to + 8
    them = 1 - stm
    best = -1
    start = squares[slot]
    squares[slot] = to
    for j in range(n):
        if spec[j] != them * 6 + PAWN:
            continue
        sq = squares[j]
        if (sq >> 3) != (to >> 3) or abs((sq & 7) - (to & 7)) != 1:
            continue
        squares[j] = target
        occupied = types.uint64(0)
        for k in range(n):
            if k != slot:
                occupied |= types.uint64(1) << types.uint64(squares[k])
        safe = not is_attacked(squares[them], stm, spec, squares, n, occupied, slot)
        squares[j] = sq
        if not safe:
            continue
        child = exit_code(spec, squares, n, them, j | (target << 3), slot, child_codes,
                          child_offsets, child_pieces, child_squares, scratch)
        option = parent_code(child)
        if best < 0 or better(option, best):
            best = option
    squares[slot] = start
    return best


@nb.njit(types.boolean(SPEC8, I64, types.int64, types.int64, types.int64), cache=True)
def may_allow_en_passant(spec, squares, n, stm, move):
    """Cheap test: after the double push ``move`` stands an enemy pawn beside the pawn?"""
    if not (move >> 16) & 1:
        return False
    to = (move >> 3) & 63
    for j in range(n):
        if spec[j] == (1 - stm) * 6 + PAWN and (squares[j] >> 3) == (to >> 3) \
                and abs((squares[j] & 7) - (to & 7)) == 1:
            return True
    return False


@nb.njit(types.int64(SPEC8, I64, types.int64, types.int64, types.int64, U16, I64, SPEC8, I64,
                     I64), cache=True)
def pawn_move_exit(spec, squares, n, stm, move, child_codes, child_offsets, child_pieces,
                   child_squares, scratch):
    """In a DTZ50 space: the code, for the opponent, of the position a pawn move (no capture,
    no promotion) leads to, cut to its rule class (:func:`rule_class`), from this table's own
    codes among the children: its entry, or after a double push the opponent may answer en
    passant, the better for it of the entry and the capture."""
    child = exit_code(spec, squares, n, stm, move, -1, child_codes, child_offsets,
                      child_pieces, child_squares, scratch)
    if may_allow_en_passant(spec, squares, n, stm, move):
        option = en_passant_option(spec, squares, n, stm, move, child_codes, child_offsets,
                                   child_pieces, child_squares, scratch)
        if option >= 0 and better(option, child):
            child = option
    return rule_class(child)


# --- the generation index ------------------------------------------------------------------
# Node g = stm * powers[n] + sum_i digit_i * powers[i], the last slot's digit lowest and slot 0's
# highest (the storage index's order, so the pass to storage reads nearly in order). Without pawns the
# white king's digit is its triangle square (radix 10) and every other piece's its square (64);
# the 8 board symmetries bring the white king into the triangle. With pawns the first pawn of the
# spec is the *anchor*: the left-right mirror puts it on files a-d, its digit is
# (rank - 1) * 4 + file (radix 24); other pawns' digits are square - 8 (48), other pieces' their
# square (64). Pawns never change file inside a table, so with pawns every move and un-move is a
# single addition (:func:`move_delta`), the kings' included.
# ``powers`` (a view of the params) holds powers[0..n], then the anchor slot, then the n radices,
# then the *like pairs*: bit i set when slots i and i + 1 hold like pieces (neither the anchor),
# kept in ascending square order. Their other orders are the same positions; they hold 0
# (invalid), so each position is solved once (KBBvKQ: half the nodes), and a move or un-move
# that takes a like piece past its partner goes through ``node_index``, which sorts them.
KING_DOMAIN = np.full((2, 64), -1, dtype=np.int64)  # [0, square] -> triangle slot or -1
KING_SQUARES = np.zeros((2, 32), dtype=np.int64)
for _sq in range(64):
    if E.TRIANGLE[_sq] >= 0:
        KING_DOMAIN[0, _sq] = E.TRIANGLE[_sq]
        KING_SQUARES[0, E.TRIANGLE[_sq]] = _sq
I64_2D = types.Array(types.int64, 2, "C")
ANCHOR_RADIX, PAWN_RADIX, SQUARE_RADIX, TRIANGLE_RADIX = 24, 48, 64, 10


@nb.njit(cache=True, inline="always")
def digit_square(digit, radix):
    """The square of a generation digit in a slot of ``radix`` (see ``decode_node``)."""
    if radix == ANCHOR_RADIX:
        return ((digit >> 2) + 1) * 8 + (digit & 3)
    if radix == PAWN_RADIX:
        return digit + 8
    return digit


@nb.njit(cache=True, inline="always")
def like_pairs(powers, n):
    """The like-pairs bits (see above)."""
    return powers[2 * n + 2]


@nb.njit(cache=True, inline="always")
def anchor_group_end(powers, n):
    """The last slot of the anchor pawn's like pawns (the anchor's own slot if it has none;
    see the anchor group above)."""
    return powers[2 * n + 3]


@nb.njit(cache=True, inline="always")
def pawn_key(square):
    """A square's rank and distance from the a- or h-file, which the left-right mirror keeps:
    the anchor group's pawn of least key is the anchor."""
    file = square & 7
    return (square >> 3) * 4 + min(file, 7 - file)


@nb.njit(cache=True, inline="always")
def canonical_anchor(squares, n, powers):
    """The slot whose pawn is the anchor of the placement ``squares``: of the anchor group, the
    pawn of least key; of two with the same key (mirror images on one rank), the one whose
    frame puts the white king on files a-d."""
    anchor = powers[n + 1]
    best = anchor
    for slot in range(anchor + 1, anchor_group_end(powers, n) + 1):
        key, least = pawn_key(squares[slot]), pawn_key(squares[best])
        if key < least or (key == least and ((squares[0] ^ squares[slot]) & 4) == 0):
            best = slot  # (same half of the board as the king: the king stays on a-d)
    return best


@nb.njit(cache=True, inline="always")
def anchor_is_canonical(squares, n, powers):
    """Whether a node's squares (its frame: the anchor on files a-d) hold the anchor where
    :func:`canonical_anchor` puts it; the other nodes of the position hold 0."""
    anchor = powers[n + 1]
    key = pawn_key(squares[anchor])
    for slot in range(anchor + 1, anchor_group_end(powers, n) + 1):
        other = pawn_key(squares[slot])
        if other < key or (other == key and (squares[0] & 7) > 3):
            return False
    return True


@nb.njit(cache=True, inline="always")
def anchor_moves(squares, n, powers, slot):
    """Whether moving the piece in ``slot`` may change which pawn is the anchor: a pawn of the
    anchor group, or the white king when two of them tie (see :func:`canonical_anchor`)."""
    anchor = powers[n + 1]
    end = anchor_group_end(powers, n)
    if end == anchor:
        return False
    if anchor <= slot <= end:
        return True
    if slot != 0:
        return False
    for i in range(anchor, end + 1):
        for j in range(i + 1, end + 1):
            if pawn_key(squares[i]) == pawn_key(squares[j]):
                return True
    return False


@nb.njit(cache=True, inline="always")
def like_in_order(like, squares, n):
    """Whether every like pair of ``squares`` stands in ascending order (a canonical node)."""
    for i in range(n - 1):
        if (like >> i) & 1 and squares[i] > squares[i + 1]:
            return False
    return True


@nb.njit(cache=True, inline="always")
def passes_partner(like, squares, slot, to):
    """Whether moving the piece in ``slot`` to ``to`` puts it out of order with a like
    partner (the node is then found by ``node_index``, not by ``move_delta``)."""
    if (like >> slot) & 1 and to > squares[slot + 1]:
        return True
    return slot > 0 and (like >> (slot - 1)) & 1 and to < squares[slot - 1]


@nb.njit(cache=True, inline="always")
def group_part(first, size, d0, d1, d2, powers):
    """The index part of a like group of ``size`` (1-3) slots from ``first`` whose digits are
    ``d0, d1, d2`` (those past ``size`` unused): the digits ascending, slot by slot."""
    if size == 1:
        return d0 * powers[first]
    lo, hi = min(d0, d1), max(d0, d1)
    if size == 2:
        return lo * powers[first] + hi * powers[first + 1]
    low, high = min(lo, d2), max(hi, d2)
    middle = d0 + d1 + d2 - low - high
    return low * powers[first] + middle * powers[first + 1] + high * powers[first + 2]


@nb.njit(cache=True, inline="always")
def frame_digit(square, radix, flip_file, flip_rank, diagonal):
    """The generation digit of ``square`` under the chosen symmetry, in a slot of ``radix``."""
    square = E.transform(square, flip_file, flip_rank, diagonal)
    if radix == ANCHOR_RADIX:
        return ((square >> 3) - 1) * 4 + (square & 7)
    if radix == PAWN_RADIX:
        return square - 8
    return square


@nb.njit(cache=True, inline="always")
def group_size(like, first, n):
    """Slots in the like group starting at ``first`` (1 if the piece has no like partner)."""
    size = 1
    while first + size < n and (like >> (first + size - 1)) & 1:
        size += 1
    return size


@nb.njit(cache=True, inline="always")
def move_delta(slot, start, to, n, powers):
    """Index change when the piece in ``slot`` goes from ``start`` to ``to`` without changing
    the symmetry (any piece but the white king without pawns)."""
    if powers[n + 2 + slot] == ANCHOR_RADIX:
        return ((to - start) // 2) * powers[slot]  # a rank is 4 anchor digits, not 8 squares
    return (to - start) * powers[slot]


@nb.njit(cache=True, inline="always")
def node_symmetry(pawnful, squares, n, powers):
    """(flip_file, flip_rank, diagonal): the symmetry that brings the white king (without
    pawns) or the anchor pawn (with pawns) into its domain, the generation index's frame."""
    if pawnful:
        return (squares[canonical_anchor(squares, n, powers)] & 7) > 3, False, False
    wk = squares[0]
    flip_file = (wk & 7) > 3
    flip_rank = (wk >> 3) > 3
    w = E.transform(wk, flip_file, flip_rank, False)
    return flip_file, flip_rank, (w >> 3) > (w & 7)


@nb.njit(types.int64(types.boolean, I64, types.int64, types.int64, I64, I64_2D), cache=True)
def node_index(pawnful, squares, n, stm, powers, domain):
    """Generation index of a placement (any squares, like pieces in any order): the symmetry
    that brings the white king (without pawns) or the anchor pawn (with pawns, the one
    :func:`canonical_anchor` picks) into its domain is applied first, and like pairs are
    sorted."""
    anchor = chosen = powers[n + 1]
    if pawnful:
        chosen = canonical_anchor(squares, n, powers)
        # Another pawn of the anchor's group takes the anchor's slot (until the end).
        squares[anchor], squares[chosen] = squares[chosen], squares[anchor]
    like = like_pairs(powers, n)
    flip_file, flip_rank, diagonal = node_symmetry(pawnful, squares, n, powers)
    if pawnful:
        g = 0
        first = 0
    else:
        wk = squares[0]
        g = domain[0, E.transform(wk, flip_file, flip_rank, diagonal)] * powers[0]
        first = 1
    while first < n:
        size = group_size(like, first, n)
        radix = powers[n + 2 + first]
        d0 = frame_digit(squares[first], radix, flip_file, flip_rank, diagonal)
        d1 = frame_digit(squares[first + 1], radix, flip_file, flip_rank, diagonal) \
            if size > 1 else 0
        d2 = frame_digit(squares[first + 2], radix, flip_file, flip_rank, diagonal) \
            if size > 2 else 0
        g += group_part(first, size, d0, d1, d2, powers)
        first += size
    squares[anchor], squares[chosen] = squares[chosen], squares[anchor]
    return g + stm * powers[n]


@nb.njit(types.int64(types.int64, types.boolean, types.int64, I64, I64, I64_2D), cache=True)
def decode_node(g, pawnful, n, powers, squares, king_squares):
    """Squares of node ``g``; returns the side to move."""
    if pawnful:
        rest = g
        for i in range(n - 1, -1, -1):
            radix = powers[n + 2 + i]
            if radix == SQUARE_RADIX:
                squares[i] = rest & 63
                rest >>= 6
                continue
            quotient = rest // radix
            digit = rest - quotient * radix
            rest = quotient
            squares[i] = digit_square(digit, radix)
        return rest
    rest = g
    for i in range(n - 1, 0, -1):
        squares[i] = rest & 63
        rest >>= 6
    stm = rest // TRIANGLE_RADIX
    squares[0] = king_squares[0, rest - stm * TRIANGLE_RADIX]
    return stm


@nb.njit(types.int64(types.int64, types.int64, I64, I64, I64_2D, I64_2D), cache=True)
def twin(g, n, powers, squares, domain, king_squares):
    """Without pawns: the node mirrored in the a1-h8 diagonal when the white king stands on it
    (the same position), else -1. ``squares`` is scratch."""
    stm = decode_node(g, False, n, powers, squares, king_squares)
    wk = squares[0]
    if (wk >> 3) != (wk & 7):
        return -1
    for i in range(n):
        squares[i] = E.transform(squares[i], False, False, True)
    other = node_index(False, squares, n, stm, powers, domain)
    return -1 if other == g else other


@nb.njit(types.boolean(SPEC8, I64, types.int64), cache=True)
def is_own_mirror(spec, squares, n):
    """Whether the pawnless placement is its own image in the a1-h8 diagonal: the white
    king on it, and every piece's mirror square held by a piece of the same kind."""
    if (squares[0] >> 3) != (squares[0] & 7):
        return False
    for i in range(1, n):
        image = E.transform(squares[i], False, False, True)
        found = False
        for j in range(1, n):
            if squares[j] == image and spec[j] == spec[i]:
                found = True
        if not found:
            return False
    return True


@nb.njit(types.boolean(SPEC8, I64, types.int64, types.int64), cache=True)
def has_en_passant_push(spec, squares, n, stm):
    """Whether ``stm`` has a pawn whose double push would land beside an enemy pawn."""
    forward = 8 if stm == 0 else -8
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    for i in range(n):
        if spec[i] != stm * 6 + PAWN or (squares[i] >> 3) != (1 if stm == 0 else 6):
            continue
        one = squares[i] + forward
        two = one + forward
        if (occupied >> types.uint64(one)) & types.uint64(1) or (occupied >> types.uint64(two)) & types.uint64(1):
            continue
        for j in range(n):
            if spec[j] == (1 - stm) * 6 + PAWN and (squares[j] >> 3) == (two >> 3) \
                    and abs((squares[j] & 7) - (two & 7)) == 1:
                return True
    return False


@nb.njit(cache=True, inline="always")
def child_node(g, squares, n, stm, slot, to, pawnful, like, powers, domain):
    """The node reached from node ``g`` (``squares``, ``stm`` to move) by moving the piece in
    ``slot`` to ``to`` without a capture: an addition to ``g``, unless the move changes the
    symmetry (the white king leaving the triangle), the order of like pieces or the anchor."""
    start = squares[slot]
    if (slot == 0 and not pawnful and domain[0, to] < 0) \
            or (like and passes_partner(like, squares, slot, to)) \
            or anchor_moves(squares, n, powers, slot):
        squares[slot] = to
        child = node_index(pawnful, squares, n, 1 - stm, powers, domain)
        squares[slot] = start
        return child
    child = g + (1 - 2 * stm) * powers[n]  # the other side to move
    if slot == 0 and not pawnful:
        return child + (domain[0, to] - domain[0, start]) * powers[0]
    return child + move_delta(slot, start, to, n, powers)


@nb.njit(types.boolean(types.int64, SPEC8, I64, types.int64, types.int64, types.boolean,
                       types.int64, I64, I64_2D, U8, types.int64, types.boolean), cache=True)
def has_move_into(g, spec, squares, n, stm, pawnful, like, powers, domain, codes, target,
                  pawns_leave):
    """Whether node ``g`` (``squares``, ``stm`` to move) has a move inside the table (no
    capture, no promotion, no pawn move if ``pawns_leave``) to a position whose code is
    ``target``."""
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    for slot in range(n):
        piece = np.int64(spec[slot])
        if piece // 6 != stm or (pawns_leave and piece % 6 == PAWN):
            continue
        targets = quiet_targets(piece, squares[slot], stm, occupied)
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            if codes[child_node(g, squares, n, stm, slot, to, pawnful, like, powers,
                                domain)] == target:
                return True
    return False


@nb.njit(types.int64(types.int64, SPEC8, I64, types.int64, types.int64, types.int64,
                     types.boolean, types.boolean, U8, U8, U8, U16, I64, I64, I64, SPEC8, I64,
                     I64, I64_2D, U8, types.int64, types.boolean), cache=True)
def evaluate(g, spec, squares, n, stm, d, pawnful, en_passant_possible, codes, exit_win,
             exit_floor, child_codes, child_offsets, powers, moves, child_pieces,
             child_squares, scratch, domain, hints, offset, pawns_leave):
    """The new code of an unresolved position at level ``d``, or GEN_UNKNOWN, from its moves within
    the table (children known only below distance ``d``) and the summary of its leaving moves.

    Without en-passant possibilities it stops at the first child not known yet and remembers
    its ordinal in ``hints`` (when given): the children before it stay known won, so the next
    look starts there; a loss found at level ``d`` is then a loss in ``d`` (its last child was won in
    ``d - 1``, or its leaving moves become known at ``d``). Codes and levels count from
    ``offset`` plies; an en-passant answer read from a child table is shifted to match.
    A double push whose answer is decided (the capture) but known only at a later level
    makes the result ``revisit_at`` the soonest such level when nothing else decides it.
    ``g`` is the position's node (``squares``, ``stm`` to move). With ``pawns_leave`` pawn
    moves are among the moves out of the table (a DTZ50 space)."""
    if exit_win[g] <= d:
        return win_code(np.int64(exit_win[g]))
    if en_passant_possible:  # only positions with a double push the opponent may take need care
        en_passant_possible = has_en_passant_push(spec, squares, n, stm)
    floor = np.int64(exit_floor[g])
    if floor > d and not en_passant_possible:
        return GEN_UNKNOWN
    can_lose = floor <= d
    longest = floor - 1 if floor > 0 else 0
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    like = like_pairs(powers, n)
    remembers = not en_passant_possible and hints.shape[0] > 0
    skip = np.int64(hints[g]) if remembers else 0
    ordinal = -1
    pending = np.int64(NO_LEVEL)  # the soonest level at which an en-passant answer is known
    for slot in range(n):
        piece = np.int64(spec[slot])
        if piece // 6 != stm or (pawns_leave and piece % 6 == PAWN):
            continue
        start = squares[slot]
        targets = quiet_targets(piece, start, stm, occupied)
        while targets:
            to = lsb(targets)
            targets &= targets - types.uint64(1)
            ordinal += 1
            if ordinal < skip:
                continue  # known won at an earlier look
            child = np.int64(codes[child_node(g, squares, n, stm, slot, to, pawnful, like,
                                              powers, domain)])
            if child == 0:
                continue  # the move leaves the mover's king attacked
            known = child != GEN_UNKNOWN and (child == CODE_DRAW or code_distance(child) < d)
            move = slot | (to << 3) | ((1 << 16) if abs(to - start) == 16 and piece % 6 == PAWN else 0)
            if en_passant_possible and may_allow_en_passant(spec, squares, n, stm, move):
                option = en_passant_option(spec, squares, n, stm, move, child_codes,
                                           child_offsets, child_pieces, child_squares,
                                           scratch)
                if option >= 0:
                    option = shifted(option, offset)
                    # Their answer is the capture when it is better than the child's value, or
                    # (that value unknown) a win: they win at least that fast by capturing.
                    if (known and better(option, child)) or (not known and is_win(option)):
                        child = option
                        # Decided, but known only at its own level: a look now could miss a
                        # quicker win by another move (its child not known yet).
                        known = child == CODE_DRAW or code_distance(child) < d
                        if not known:
                            pending = min(pending, code_distance(child) + 1)
            if not known or child == CODE_DRAW:
                if not en_passant_possible:
                    if remembers:
                        hints[g] = ordinal
                    return GEN_UNKNOWN
                can_lose = False
                continue
            distance = code_distance(child)
            if is_win(child):
                if distance > longest:
                    longest = distance
            else:
                return win_code(distance + 1)
    if can_lose:
        if not en_passant_possible:
            return loss_code(d)
        return loss_code(longest + 1)
    if pending < NO_LEVEL:
        return revisit_at(pending)
    return GEN_UNKNOWN


@nb.njit(types.int64(types.int64, SPEC8, I64, types.int64, types.int64, types.boolean,
                     types.boolean, types.boolean, types.boolean, types.boolean, I64, I64,
                     I64_2D, I64_2D, I64, types.int64, types.boolean), cache=True)
def collect_predecessors(g, spec, squares, n, stm, lost, pawnful, en_passant_possible, wins,
                         symmetric, powers, scratch, domain, king_squares, targets, count,
                         pawns_leave):
    """The predecessors of node ``g`` (``squares``, ``stm`` to move; ``lost``: is it lost?) by
    the side not to move un-moving, no capture, appended to ``targets`` from ``count``: with
    ``wins``, those won at once because it is lost; without, the others (they must look at
    all their moves). Returns the new count. Only computes indices: the caller touches the
    codes afterwards in one tight loop, so many cache misses are in flight at once.

    A ``symmetric`` position (without pawns: the same after mirroring in the a1-h8 diagonal)
    has its un-moves in mirrored pairs that lead to the same position; only one of each pair
    is generated (the origin below the diagonal, or on it from a square on or below it), so a
    counting predecessor is decremented once per move. With ``pawns_leave`` (a DTZ50 space)
    pawns have no un-moves: their moves leave the table."""
    them = 1 - stm
    occupied = types.uint64(0)
    for i in range(n):
        occupied |= types.uint64(1) << types.uint64(squares[i])
    g_base = g - stm * powers[n]
    parent_stm_part = them * powers[n]
    like = like_pairs(powers, n)
    # Without pawns and with the white king on the a1-h8 diagonal, every node has a mirror twin
    # (the same position); un-moves of other pieces move both by simple arithmetic.
    king_on_diagonal = not pawnful and (squares[0] >> 3) == (squares[0] & 7)
    mirror_base = 0
    if king_on_diagonal:
        mirror_base = domain[0, squares[0]] * powers[0] + parent_stm_part
        for i in range(1, n):
            mirror_base += E.transform(squares[i], False, False, True) * powers[i]
    for i in range(n):
        piece = np.int64(spec[i])
        if piece // 6 != them or (pawns_leave and piece % 6 == PAWN):
            continue
        sq = squares[i]
        mirrored_sq = E.transform(sq, False, False, True)
        double_rank = -1
        if piece % 6 == PAWN:
            back = -8 if them == 0 else 8
            origins = types.uint64(0)
            one = sq + back
            if 8 <= one < 56 and not (occupied >> types.uint64(one)) & types.uint64(1):
                origins |= types.uint64(1) << types.uint64(one)
                double_rank = 3 if them == 0 else 4
                two = one + back
                if (sq >> 3) == double_rank and not (occupied >> types.uint64(two)) & types.uint64(1):
                    origins |= types.uint64(1) << types.uint64(two)
        else:
            origins = attacks_from(piece, sq, them, occupied) & ~occupied
        while origins:
            origin = lsb(origins)
            origins &= origins - types.uint64(1)
            if symmetric and ((origin >> 3) > (origin & 7) or (
                    (origin >> 3) == (origin & 7) and (sq >> 3) > (sq & 7))):
                continue  # the mirror image of an un-move generated from below the diagonal
            squares[i] = origin
            # An impossible predecessor (the side to move now in check) holds code 0, so the
            # caller's code tests skip it without an attack test here.
            if (i == 0 and not pawnful and domain[0, origin] < 0) \
                    or (like and passes_partner(like, squares, i, origin)) \
                    or anchor_moves(squares, n, powers, i):
                # out of the triangle, a like piece past its partner, or the anchor changes
                parent = node_index(pawnful, squares, n, them, powers, domain)
            elif i == 0 and not pawnful:
                parent = g_base + parent_stm_part + (domain[0, origin] - domain[0, sq]) * powers[0]
            else:
                parent = g_base + parent_stm_part + move_delta(i, sq, origin, n, powers)
            direct = lost
            if lost and en_passant_possible and piece % 6 == PAWN and abs(origin - sq) == 16:
                squares[i] = sq
                direct = not may_allow_en_passant(spec, squares, n, them,
                                                  i | (sq << 3) | (1 << 16))
            if direct == wins:
                targets[count] = parent
                count += 1
                # The predecessor's mirror twin, if it has one: the same position.
                other = -1
                if i == 0:
                    if not pawnful and ((origin >> 3) == (origin & 7)
                                        or (origin >> 3) == 7 - (origin & 7)):
                        other = twin(parent, n, powers, scratch, domain, king_squares)
                elif king_on_diagonal and like:  # the mirror may reorder like pieces
                    other = twin(parent, n, powers, scratch, domain, king_squares)
                elif king_on_diagonal:
                    other = mirror_base + (E.transform(origin, False, False, True)
                                           - mirrored_sq) * powers[i]
                    if other == parent:
                        other = -1
                if other >= 0:
                    targets[count] = other
                    count += 1
            squares[i] = sq
    return count



# --- the kernels of games.table_family.UnmoveKernels -------------------------------------------
# params: [n, pawnful, en-passant possible, table id, the spec's bytes, powers[0..n], anchor
# slot, radices[0..n-1], like pairs];
# aux: KING_DOMAIN and KING_SQUARES flattened.
P_COUNT, P_PAWNFUL, P_EN_PASSANT, P_TABLE, P_SPEC, P_POWERS = 0, 1, 2, 3, 4, 5
# params[P_PAWNFUL] of a DTZ50 space (dtz50_generation_space): pawn moves zero the 50-move
# count, so they leave the table like captures and promotions (exits valued from the table's
# own DTZ50 codes of the round before, given as a child table)
PAWNS_LEAVE = 2
# After them, with_children's capture tables: per slot the offset (in uint16 entries) of the
# child codes of capturing that slot, -1 for none, then the codes.
DOMAIN_AT = 0
KING_SQUARES_AT = DOMAIN_AT + KING_DOMAIN.size
CAPTURES_AT = KING_SQUARES_AT + KING_SQUARES.size
CAPTURE_CODES_AT = CAPTURES_AT + E.MAX_PIECES
AUX = np.concatenate([KING_DOMAIN.ravel().view(np.uint64), KING_SQUARES.ravel().view(np.uint64),
                      np.full(E.MAX_PIECES, -1, dtype=np.int64).view(np.uint64)])

TABLE_VIEWS = types.Tuple((SPEC8, types.int64, types.boolean, types.boolean, I64, I64_2D,
                           I64_2D))


@nb.njit(cache=True, inline="always")
def table_views(params, aux):
    """The table's description unpacked (views, no copies): spec, n, pawnful, en passant
    possible, powers, king domain, king squares."""
    n = params[P_COUNT]
    spec = params[P_SPEC:P_SPEC + 1].view(np.int8)[:n]
    powers = params[P_POWERS:P_POWERS + 2 * n + 4]  # the anchor, radices, like pairs, group
    domain = aux[DOMAIN_AT:KING_SQUARES_AT].view(np.int64).reshape((2, 64))
    king_squares = aux[KING_SQUARES_AT:KING_SQUARES_AT + 64].view(np.int64).reshape((2, 32))
    return (spec, n, params[P_PAWNFUL] != 0, params[P_EN_PASSANT] != 0, powers, domain,
            king_squares)


@nb.njit(cache=True, inline="always")
def pawn_moves_leave(params):
    """Whether the space is a DTZ50 space with pawns: pawn moves are exits, not moves inside
    the table (:data:`PAWNS_LEAVE`)."""
    return params[P_PAWNFUL] == PAWNS_LEAVE


CAPTURE_VIEWS = types.Tuple((I64, U16))
CAPTURE_ABSENT = 0xFFFF  # a capture table's entry whose child table was not loaded


@nb.njit(cache=True, inline="always")
def capture_views(aux):
    """The capture tables of :func:`with_children` (views): per slot the offset of its codes
    (-1: none), and the codes."""
    return (aux[CAPTURES_AT:CAPTURE_CODES_AT].view(np.int64),
            aux[CAPTURE_CODES_AT:].view(np.uint16))


@nb.njit(cache=True, inline="always")
def capture_table_size(n, pawnful):
    """Entries per side to move of one capture table: the squares of the ``n - 1`` pieces
    left, the white king's in the triangle without pawns."""
    size = TRIANGLE_RADIX if not pawnful else SQUARE_RADIX
    for _ in range(n - 2):
        size *= SQUARE_RADIX
    return size


@nb.njit(cache=True, inline="always")
def capture_index(squares, n, captured, mover, to, child_stm, pawnful, domain):
    """Index in the capture table of slot ``captured`` of the position after ``mover`` takes
    it on ``to`` (without pawns the white king is not the mover: it stays in the triangle)."""
    index = child_stm
    for slot in range(n):
        if slot == captured:
            continue
        square = to if slot == mover else squares[slot]
        if slot == 0 and not pawnful:
            index = index * TRIANGLE_RADIX + domain[0, square]
        else:
            index = index * SQUARE_RADIX + square
    return index


@nb.njit(types.void(SPEC8, types.int64, types.boolean, types.int64, I64_2D, U16, I64, U16),
         cache=True, parallel=True)
def fill_capture_table(spec, n, pawnful, captured, king_squares, child_codes, child_offsets,
                       out):
    """The child code of every placement of the pieces left when slot ``captured`` is taken,
    with the captured piece's side to move (:func:`capture_index`); 0 where squares collide or
    a pawn stands on the first or last rank, and with the capturer to move (never reached)."""
    per_side = capture_table_size(n, pawnful)
    reached = spec[captured] // 6  # the captured piece's side moves next
    blocks = (out.shape[0] + BLOCK_ENTRIES - 1) // BLOCK_ENTRIES
    for block in prange(blocks):
        pieces = np.empty(E.MAX_PIECES, dtype=np.int8)
        squares = np.empty(E.MAX_PIECES, dtype=np.int64)
        scratch = np.empty(E.MAX_PIECES, dtype=np.int64)
        count = 0
        for slot in range(n):
            if slot != captured:
                pieces[count] = spec[slot]
                count += 1
        for index in range(block * BLOCK_ENTRIES, min(out.shape[0], (block + 1) * BLOCK_ENTRIES)):
            child_stm = index // per_side
            if child_stm != reached:
                out[index] = 0
                continue
            rest = index - child_stm * per_side
            for k in range(count - 1, 0, -1):
                squares[k] = rest & 63
                rest >>= 6
            squares[0] = rest if pawnful else king_squares[0, rest]
            occupied = types.uint64(0)
            usable = True
            for k in range(count):
                bit = types.uint64(1) << types.uint64(squares[k])
                if occupied & bit or (pieces[k] % 6 == PAWN
                                      and (squares[k] < 8 or squares[k] >= 56)):
                    usable = False
                occupied |= bit
            out[index] = 0
            if usable:
                entry = E.locate_pieces(pieces, squares, count, child_stm, scratch)
                if entry >= 0:
                    table = entry >> TABLE_SHIFT
                    out[index] = CAPTURE_ABSENT if child_offsets[table] < 0 else \
                        child_codes[child_offsets[table] + (entry & INDEX_MASK)]


def with_children(space: GenerationSpace, child_codes: np.ndarray,
                  child_offsets: np.ndarray) -> np.ndarray:
    """The space's ``aux`` with a capture table per capturable slot (every piece but the
    kings): looking a capture up there is index arithmetic instead of ranking the child."""
    params = space.params
    n = int(params[P_COUNT])
    pawnful = bool(params[P_PAWNFUL])
    spec = params[P_SPEC:P_SPEC + 1].view(np.int8)[:n].copy()
    per_table = 2 * int(capture_table_size(n, pawnful))
    slots = range(2, n)
    codes = np.empty(per_table * len(slots) + 3, dtype=np.uint16)  # whole uint64 words
    offsets = np.full(E.MAX_PIECES, -1, dtype=np.int64)
    for k, slot in enumerate(slots):
        offsets[slot] = k * per_table
        fill_capture_table(spec, n, pawnful, slot, KING_SQUARES, child_codes, child_offsets,
                           codes[k * per_table:(k + 1) * per_table])
    words = codes[:codes.size - codes.size % 4].view(np.uint64)
    return np.concatenate([space.aux[:CAPTURES_AT], offsets.view(np.uint64), words])


@nb.njit(cache=True, inline="always")
def folded_exit(child, win, floor):
    """(win, floor) levels with one more move out of the table, to a child of code ``child``
    (for its side to move): the soonest win, and the level from which every such move is
    known lost (NO_LEVEL once one draws or wins)."""
    after = code_distance(child) + 1  # plies to the end through this move
    if child == CODE_DRAW:
        return win, NO_LEVEL
    if is_win(child):  # they win: we lose at best in distance + 1
        return win, (floor if floor == NO_LEVEL or after <= floor else after)
    return min(win, after), NO_LEVEL  # we win by it, so we never lose


@nb.njit(cache=True, inline="always")
def no_promotion_table_elsewhere():
    """Per promotion piece type, whether the child table of promoting to it without a capture
    is known to lie in another group of child tables: none yet. That table is the same for
    every position, so once :func:`exit_code` finds it missing, its ranking is not done again."""
    return np.zeros(8, dtype=np.bool_)


@nb.njit(cache=True, inline="always")
def may_promote(spec, squares, n, stm):
    """Whether ``stm`` has a pawn on the rank before promotion (among the first ``n`` slots)."""
    rank = 6 if stm == 0 else 1
    for i in range(n):
        if spec[i] == stm * 6 + PAWN and (squares[i] >> 3) == rank:
            return True
    return False


@nb.njit(cache=True, inline="always")
def promotion_pushes(spec, squares, n, stm, occupied, moves):
    """The pseudo-legal promotions of ``stm`` without a capture, packed as by
    :func:`pseudo_moves`; their number."""
    count = 0
    forward = 8 if stm == 0 else -8
    rank = 6 if stm == 0 else 1
    for i in range(n):
        if spec[i] != stm * 6 + PAWN or (squares[i] >> 3) != rank:
            continue
        to = squares[i] + forward
        if (occupied >> types.uint64(to)) & types.uint64(1):
            continue
        for promotion in (QUEEN, ROOK, BISHOP, KNIGHT):
            moves[count] = i | (to << 3) | (promotion << 9)
            count += 1
    return count


@nb.njit(types.int64(SPEC8, I64, types.int64, types.int64, I64, types.int64, types.int64, U8,
                     U8, U16, I64, SPEC8, I64, I64, types.Array(types.boolean, 1, "C")),
         cache=True)
def fold_moves(spec, squares, n, stm, moves, count, node, exit_win, exit_floor, child_codes,
               child_offsets, child_pieces, child_squares, scratch, elsewhere):
    """Fold the legal captures and promotions among ``moves[:count]`` that lead into the
    child tables loaded now into ``node``'s levels; the later of the two levels (0 if
    neither is set). ``elsewhere`` (see :func:`no_promotion_table_elsewhere`) is updated."""
    win = np.int64(exit_win[node])
    floor = np.int64(exit_floor[node])
    for m in range(count):
        move = moves[m]
        promotion = (move >> 9) & 7
        capture = (move >> 12) & 7
        if not (promotion or capture) or (not capture and elsewhere[promotion]) \
                or not move_is_legal(spec, squares, n, stm, move):
            continue
        child = exit_code(spec, squares, n, stm, move, -1, child_codes, child_offsets,
                          child_pieces, child_squares, scratch)
        if child < 0 and not capture:
            elsewhere[promotion] = True
        if child > 0:  # 0: in another part of its table (no move's child is invalid)
            win, floor = folded_exit(child, win, floor)
    exit_win[node] = win
    exit_floor[node] = floor
    latest = 0
    for level in (win, floor):
        if level != NO_LEVEL and level > latest:
            latest = level
    return latest


MOST_PREDECESSORS = 2 * 4 * 27  # un-moves of one side's pieces, twins included (a generous bound)
TARGETS = 2048  # predecessors gathered before the codes are touched

# The scratch arrays of one call of a batch kernel: squares, moves, child pieces, child
# squares, scratch squares, rays, promotion tables elsewhere, gathered predecessors. Each
# kernel allocates them once and hands them, lent (runtime/borrow.py), to a worker that does
# the work: the per-position functions then take them without counting references, which
# took about half of a table build's time. (Borrowing them in the kernel that allocates them
# would not do: numba frees a local after its last use, the borrowing.)
WORKSPACE = types.Tuple((I64, I64, SPEC8, I64, I64, types.Array(types.uint64, 1, "C"),
                         types.Array(types.boolean, 1, "C"), I64))


@nb.njit(WORKSPACE(), cache=True)
def new_workspace():
    """Fresh scratch arrays for one call of a batch kernel (:data:`WORKSPACE`)."""
    return (np.empty(E.MAX_PIECES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64),
            np.empty(E.MAX_PIECES, dtype=np.int8), np.empty(E.MAX_PIECES, dtype=np.int64),
            np.empty(E.MAX_PIECES, dtype=np.int64), np.empty(E.MAX_PIECES, dtype=np.uint64),
            no_promotion_table_elsewhere(),
            np.empty(TARGETS + MOST_PREDECESSORS, dtype=np.int64))


@nb.njit(types.int64(GEN_PARAMS, GEN_AUX, types.int64, types.int64, U8, U8, U8, U16, I64,
                     WORKSPACE), cache=True)
def fold_exits(params, aux, start, stop, codes, exit_win, exit_floor, child_codes,
               child_offsets, workspace):
    """:func:`initialise_range` for a later group of child tables: the moves of every
    unresolved position into the tables loaded now folded into its levels. A run of nodes
    (all slots but the last fixed) is decoded once. When the tables loaded all have the
    table's piece count, only promotions reach them: only the nodes where the side to move
    has a pawn on the rank before promotion are looked at."""
    spec, n, pawnful, en_passant_possible, powers, domain, king_squares = \
        table_views(params, aux)
    pawns_leave = pawn_moves_leave(params)
    promotions_only = not pawns_leave  # (a DTZ50 space gets its children in one group)
    for table in range(child_offsets.shape[0]):
        if child_offsets[table] >= 0 and E.COUNT[table] < n:
            promotions_only = False
    squares, moves, child_pieces, child_squares, scratch, _, elsewhere, _ = workspace
    latest = 0
    last = n - 1
    last_radix = powers[n + 2 + last]
    run = start // last_radix
    while run * last_radix < stop:
        base = run * last_radix
        first, end = max(start, base), min(stop, base + last_radix)
        run += 1
        stm = decode_node(base, pawnful, n, powers, squares, king_squares)
        whole_run = not promotions_only or may_promote(spec, squares, last, stm)
        if not whole_run and spec[last] != stm * 6 + PAWN:
            continue  # no pawn of the side to move among the other slots, nor in the last
        rank = 6 if stm == 0 else 1
        for node in range(first, end):
            square = digit_square(node - base, last_radix)
            if not (whole_run or (square >> 3) == rank) or not is_unresolved(codes[node]):
                continue
            squares[last] = square
            occupied = types.uint64(0)
            for i in range(n):
                occupied |= types.uint64(1) << types.uint64(squares[i])
            if promotions_only:
                count = promotion_pushes(spec, squares, n, stm, occupied, moves)
            else:
                count = pseudo_moves(spec, squares, n, stm, occupied, moves, True, False,
                                     pawns_leave)
            latest = max(latest, fold_moves(spec, squares, n, stm, moves, count, node,
                                            exit_win, exit_floor, child_codes, child_offsets,
                                            child_pieces, child_squares, scratch, elsewhere))
    return latest


@nb.njit(types.int64(*GEN_INITIALISE_SIGNATURE.args, WORKSPACE), cache=True)
def initialise_range_with(params, aux, start, stop, codes, exit_win, exit_floor, wake,
                          child_codes, child_offsets, first, workspace):
    """:func:`initialise_range` with its scratch arrays (lent)."""
    workspace = borrowed(workspace)
    if not first:
        return fold_exits(params, aux, start, stop, codes, exit_win, exit_floor, child_codes,
                          child_offsets, workspace)
    spec, n, pawnful, en_passant_possible, powers, domain, king_squares = \
        table_views(params, aux)
    pawns_leave = pawn_moves_leave(params)
    capture_offsets, capture_codes = capture_views(aux)
    squares, moves, child_pieces, child_squares, scratch, rays, elsewhere, _ = workspace
    last = n - 1
    last_radix = powers[n + 2 + last]
    like = like_pairs(powers, n)
    run = -1  # the nodes of a run differ only in the last slot's digit (its lowest)
    latest = 0
    for g in range(start, stop):
        exit_win[g] = NO_LEVEL
        exit_floor[g] = 0
        if en_passant_possible:
            wake[g] = NO_LEVEL
        if g // last_radix != run:
            run = g // last_radix
            stm = decode_node(g, pawnful, n, powers, squares, king_squares)
            run_valid, run_occupied, attackers = placement_prefix(spec, squares, n, stm, rays)
        squares[last] = digit_square(g - run * last_radix, last_radix)
        if last < 2:  # the last piece is a king: no prefix to share (KvK)
            run_valid = placement_valid(spec, squares, n, stm)
        if not (run_valid and (last < 2 or placement_completes(
                spec, squares, n, stm, run_occupied, rays, attackers))) \
                or (like and not like_in_order(like, squares, n)) \
                or not anchor_is_canonical(squares, n, powers):
            codes[g] = 0  # no position, or not its canonical node (another node holds it)
            continue
        occupied = run_occupied | (types.uint64(1) << types.uint64(squares[last]))
        count = pseudo_moves(spec, squares, n, stm, occupied, moves, True,
                             en_passant_possible, pawns_leave)
        legal = 0
        win = NO_LEVEL
        floor = 0
        soonest = NO_LEVEL
        for m in range(count):
            move = moves[m]
            leaves = (move >> 9) & 7 or (move >> 12) & 7
            if legal > 0 and not leaves and not (en_passant_possible and (move >> 16) & 1) \
                    and not pawns_leave:
                continue
            if not move_is_legal(spec, squares, n, stm, move):
                continue
            legal += 1
            if not leaves and pawns_leave:  # a pawn move: into this table, zeroing
                child = pawn_move_exit(spec, squares, n, stm, move, child_codes, child_offsets,
                                       child_pieces, child_squares, scratch)
                if child >= 0:  # (-1: the table's own codes not given)
                    win, floor = folded_exit(child, win, floor)
                continue
            if not leaves:
                if en_passant_possible and may_allow_en_passant(spec, squares, n, stm, move):
                    option = en_passant_option(spec, squares, n, stm, move, child_codes,
                                               child_offsets, child_pieces,
                                               child_squares, scratch)
                    if option >= 2 and code_distance(option) + 1 < soonest:
                        soonest = code_distance(option) + 1
                continue
            captured = ((move >> 12) & 7) - 1
            mover = move & 7
            if captured >= 0 and not (move >> 9) & 7 and capture_offsets[captured] >= 0 \
                    and (pawnful or mover != 0):
                child = np.int64(capture_codes[capture_offsets[captured] + capture_index(
                    squares, n, captured, mover, (move >> 3) & 63, 1 - stm, pawnful, domain)])
            else:
                child = CAPTURE_ABSENT
            promotion = (move >> 9) & 7
            if child == CAPTURE_ABSENT:
                if promotion and captured < 0 and elsewhere[promotion]:
                    continue
                child = exit_code(spec, squares, n, stm, move, -1, child_codes, child_offsets,
                                  child_pieces, child_squares, scratch)
                if child < 0 and promotion and captured < 0:
                    elsewhere[promotion] = True
            if child >= 0:
                win, floor = folded_exit(child, win, floor)
        # A position counts its moves inside the table when the un-moves reach its node(s)
        # exactly once per move (see mark_predecessors_of): in pawn tables every position but
        # those with an en-passant push (looked at in full); without pawns every position but
        # those that are their own mirror image (reached once per mirrored pair of moves).
        if pawnful:
            counts = not (en_passant_possible and has_en_passant_push(spec, squares, n, stm))
        else:
            counts = not is_own_mirror(spec, squares, n)
        if counts:
            quiet = legal_quiet_count(spec, squares, n, stm, occupied, pawns_leave)
            if legal == 0 and quiet == 0:
                checked = is_attacked(squares[stm], 1 - stm, spec, squares, n, occupied, -1)
                codes[g] = loss_code(0) if checked else CODE_DRAW
                continue
            codes[g] = count_code(quiet) if quiet <= MOST_COUNTED else GEN_UNKNOWN
        elif legal == 0 and not has_legal_quiet_move(spec, squares, n, stm, occupied):
            checked = is_attacked(squares[stm], 1 - stm, spec, squares, n, occupied, -1)
            codes[g] = loss_code(0) if checked else CODE_DRAW
            continue
        else:
            codes[g] = GEN_UNKNOWN
        exit_win[g] = win
        exit_floor[g] = floor
        if en_passant_possible:
            wake[g] = soonest
        for level in (win, floor, soonest):
            if level != NO_LEVEL and level > latest:
                latest = level
    return latest


@nb.njit(GEN_INITIALISE_SIGNATURE, cache=True)
def initialise_range(params, aux, start, stop, codes, exit_win, exit_floor, wake, child_codes,
                     child_offsets, first):
    """Invalid placements, mates and stalemates; and the summary of each position's moves
    out of the table: ``exit_win`` = the level at which one of them wins (child lost in k:
    k + 1; NO_LEVEL if none), ``exit_floor`` = 0 with no such moves, NO_LEVEL if one of them
    draws, else the level from which all of them are known lost (longest + 1); ``wake`` = the
    level at which an en-passant answer to a double push becomes known. Returns the latest
    such level. Moves into child tables not loaded are left out; without ``first`` only those
    into the tables loaded now are folded into the levels of the unresolved positions (a
    table with en passant always gets every child at once)."""
    return initialise_range_with(params, aux, start, stop, codes, exit_win, exit_floor, wake,
                                 child_codes, child_offsets, first, new_workspace())


PLAIN, SKIPPED, SYMMETRIC = 0, 1, 2  # how a node generates its predecessors (unmove_role)


@nb.njit(types.int64(types.int64, types.boolean, types.int64, I64, I64, I64, I64_2D, I64_2D),
         cache=True)
def unmove_role(g, pawnful, n, squares, powers, scratch, domain, king_squares):
    """How node ``g`` (its ``squares`` decoded) generates its predecessors: ``SKIPPED`` if its
    mirror twin, the same position, comes first and generates them for both; ``SYMMETRIC`` if
    its position is its own mirror image (one of each mirrored pair of un-moves); else
    ``PLAIN``. Only pawnless nodes with the white king on the long diagonal have a mirror."""
    if pawnful or (squares[0] >> 3) != (squares[0] & 7):
        return PLAIN
    other = twin(g, n, powers, scratch, domain, king_squares)
    if 0 <= other < g:
        return SKIPPED
    return SYMMETRIC if other < 0 else PLAIN


@nb.njit(types.int64(*GEN_MARK_SIGNATURE.args, WORKSPACE), cache=True)
def mark_predecessors_with(params, aux, entries, count, codes, exit_floor, wins, touched,
                           workspace):
    """:func:`mark_predecessors_of` with its scratch arrays (lent)."""
    workspace = borrowed(workspace)
    spec, n, pawnful, en_passant_possible, powers, domain, king_squares = \
        table_views(params, aux)
    pawns_leave = pawn_moves_leave(params)
    squares, _, _, _, scratch, _, _, targets = workspace
    win = GEN_UNKNOWN
    gathered = 0
    marked = 0
    for k in range(count + 1):
        if k < count:
            g = entries[k]
            code = np.int64(codes[g])
            if not wins and is_loss(code) and not en_passant_possible:
                continue  # every predecessor of a lost position is won, in the other pass
            win = win_code(code_distance(code) + 1)
            stm = decode_node(g, pawnful, n, powers, squares, king_squares)
            role = unmove_role(g, pawnful, n, squares, powers, scratch, domain, king_squares)
            if role == SKIPPED:
                continue  # the same position: its twin marks the predecessors of both
            gathered = collect_predecessors(g, spec, squares, n, stm, is_loss(code), pawnful,
                                            en_passant_possible, wins, role == SYMMETRIC,
                                            powers, scratch, domain, king_squares, targets,
                                            gathered, pawns_leave)
            if gathered < TARGETS:
                continue
        if wins:
            for t in range(gathered):
                if is_unresolved(codes[targets[t]]):
                    codes[targets[t]] = win
                    touch(touched, targets[t])
                    marked += 1
        else:
            level = code_distance(win)  # entries won at level - 1 (so `win` is level + 1's)
            for t in range(gathered):
                target = targets[t]
                code = np.int64(codes[target])
                if code == GEN_UNKNOWN:
                    codes[target] = GEN_FLAGGED
                    touch(touched, target)
                elif is_count(code) and code != COUNT_BASE:
                    if atomic_decrement(codes, target) == COUNT_BASE + 1 \
                            and exit_floor[target] <= level:
                        codes[target] = loss_code(level)
                        touch(touched, target)
                        marked += 1
        gathered = 0
    return marked


@nb.njit(GEN_MARK_SIGNATURE, cache=True)
def mark_predecessors_of(params, aux, entries, count, codes, exit_floor, wins, touched):
    """The predecessors (:func:`collect_predecessors`) of each of ``entries[:count]``, all
    decided at the same level: with ``wins`` the unresolved ones are won, else the unknown
    ones flagged and the counts decremented. Returns how many were won, or lost.

    A counting predecessor appears once per move that leads to the entry. In pawn tables no
    move or un-move changes the index's frame, so each node's un-moves are its moves
    backwards. Without pawns a counting position is not its own mirror image, so each of its
    moves into the entry's position is one un-move of the entry's position. That un-move is
    generated once: by one node of two twins only (``unmove_role``), and from an entry that
    is its own mirror image, one of each mirrored pair of un-moves only
    (``collect_predecessors``). It marks the predecessor's node, and its twin if it has one
    (the white king on the diagonal): twins count in step."""
    return mark_predecessors_with(params, aux, entries, count, codes, exit_floor, wins, touched,
                                  new_workspace())


@nb.njit(types.void(*GEN_EVALUATE_SIGNATURE.args, WORKSPACE), cache=True)
def evaluate_entries_with(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                          child_codes, child_offsets, results, offset, workspace):
    """:func:`evaluate_entries` with its scratch arrays (lent)."""
    workspace = borrowed(workspace)
    spec, n, pawnful, en_passant_possible, powers, domain, king_squares = \
        table_views(params, aux)
    squares, moves, child_pieces, child_squares, scratch, _, _, _ = workspace
    for k in range(count):
        g = entries[k]
        stm = decode_node(g, pawnful, n, powers, squares, king_squares)
        results[k] = evaluate(g, spec, squares, n, stm, d, pawnful, en_passant_possible, codes,
                              exit_win, exit_floor, child_codes, child_offsets, powers,
                              moves, child_pieces, child_squares, scratch, domain, hints, offset,
                              pawn_moves_leave(params))


@nb.njit(GEN_EVALUATE_SIGNATURE, cache=True)
def evaluate_entries(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                     child_codes, child_offsets, results, offset):
    """:func:`evaluate` of each of ``entries[:count]`` into ``results``."""
    evaluate_entries_with(params, aux, entries, count, d, codes, exit_win, exit_floor, hints,
                          child_codes, child_offsets, results, offset, new_workspace())


@nb.njit(types.void(*GEN_WINS_BY_MOVES_SIGNATURE.args, WORKSPACE), cache=True)
def wins_by_moves_with(params, aux, entries, count, d, codes, results, workspace):
    """:func:`wins_by_moves_of` with its scratch arrays (lent)."""
    workspace = borrowed(workspace)
    spec, n, pawnful, en_passant_possible, powers, domain, king_squares = \
        table_views(params, aux)
    squares = workspace[0]
    like = like_pairs(powers, n)
    target = loss_code(d - 1)
    for k in range(count):
        g = entries[k]
        stm = decode_node(g, pawnful, n, powers, squares, king_squares)
        won = has_move_into(g, spec, squares, n, stm, pawnful, like, powers, domain, codes,
                            target, pawn_moves_leave(params))
        results[k] = win_code(d) if won else GEN_UNKNOWN


@nb.njit(GEN_WINS_BY_MOVES_SIGNATURE, cache=True)
def wins_by_moves_of(params, aux, entries, count, d, codes, results):
    """For each of ``entries[:count]`` (unresolved): won in ``d`` if one of its moves inside
    the table leads to a position lost in ``d - 1``. Exact without en passant only: a double
    push the opponent may answer en passant does not lead to its entry's value."""
    wins_by_moves_with(params, aux, entries, count, d, codes, results, new_workspace())


@nb.njit(types.int64(types.boolean, I64, types.int64, types.int64, I64, I64_2D, types.int64),
         cache=True)
def run_base(pawnful, squares, n, stm, powers, domain, square):
    """The node of ``squares`` with the last slot on ``square``, less that slot's part: the
    other nodes of the run (the last slot elsewhere, the same symmetry) add theirs to it.
    ``squares[n - 1]`` is scratch."""
    last = n - 1
    squares[last] = square
    flip_file, flip_rank, diagonal = node_symmetry(pawnful, squares, n, powers)
    return node_index(pawnful, squares, n, stm, powers, domain) - frame_digit(
        square, powers[n + 2 + last], flip_file, flip_rank, diagonal) * powers[last]


@nb.njit(types.void(types.int64, types.int64, SPEC8, I64, I64_2D, types.int64, types.int64, U8,
                    U16, types.int64, I64), cache=True)
def store_like_group_last(table, n, spec, powers, domain, start, stop, codes, out, offset,
                          squares):
    """:func:`store_range` of a table without pawns whose last slots hold like pieces. Their
    storage part is lowest first (``a + b(b-1)/2 + ...``), so consecutive indices move the
    lowest of them up until it meets the next one; a canonical placement has the white king
    in the triangle, so its node has no symmetry applied and keeps the like squares in the
    same ascending slots: along such a run only the lowest one's digit changes. One
    ``node_index`` per run, the rest by arithmetic; a square another piece holds makes an
    invalid node (code 0), as storage wants."""
    first = n - 1
    while spec[first - 1] == spec[n - 1]:
        first -= 1
    per_side = E.PER_SIDE[table]
    low = ceiling = base = 0
    absent = False
    for index in range(start, stop):
        if index == start or low == ceiling:
            E.storage_unrank(table, index, squares)
            wk, bk = squares[0], squares[1]
            absent = (wk >> 3) == (wk & 7) and (bk >> 3) > (bk & 7)  # the twin storage skips
            low, ceiling = squares[first], squares[first + 1]
            base = node_index(False, squares, n, index // per_side, powers, domain) \
                - low * powers[first]
        if absent:
            out[index - start] = 0
        else:
            code = stored_code(np.int64(codes[base + low * powers[first]]), offset)
            if code >= 0:
                out[index - start] = code
        low += 1


@nb.njit(types.void(types.int64, types.int64, SPEC8, I64, I64_2D, types.int64, types.int64, U8,
                    U16, types.int64, I64), cache=True)
def store_pawn_group_last(table, n, spec, powers, domain, start, stop, codes, out, offset,
                          squares):
    """:func:`store_range` of a table whose last slots hold the anchor pawn's like pawns.
    Consecutive indices move the lowest of them up until it meets the next one. While it
    stands on a lower rank than the others it is the anchor (:func:`canonical_anchor`), and
    along the run only its digit changes, and the frame, which flips when it crosses to files
    e-h: two ``node_index`` calls per run (one per frame), the rest by arithmetic. On the next
    one's rank the anchor may be another pawn: ``node_index`` for each square. A square
    another piece holds makes an invalid node (code 0), as storage wants."""
    anchor = powers[n + 1]
    per_side = E.PER_SIDE[table]
    low = ceiling = base = base_flipped = stm = 0
    for index in range(start, stop):
        if index == start or low == ceiling:
            E.storage_unrank(table, index, squares)  # colliding squares: see above
            low, ceiling = squares[anchor], squares[anchor + 1]
            stm = index // per_side
            squares[anchor] = 8  # a2: the frame as it is
            base = node_index(True, squares, n, stm, powers, domain)
            squares[anchor] = 12  # e2: the frame flipped, the anchor's digit that of d2
            base_flipped = node_index(True, squares, n, stm, powers, domain) \
                - frame_digit(12, ANCHOR_RADIX, True, False, False) * powers[anchor]
        if (low >> 3) < (ceiling >> 3):
            flipped = (low & 7) > 3
            node = (base_flipped if flipped else base) \
                + frame_digit(low, ANCHOR_RADIX, flipped, False, False) * powers[anchor]
        else:
            squares[anchor] = low
            node = node_index(True, squares, n, stm, powers, domain)
        code = stored_code(np.int64(codes[node]), offset)
        if code >= 0:
            out[index - start] = code
        low += 1


@nb.njit(GEN_STORE_SIGNATURE, cache=True)
def store_range(params, aux, start, stop, codes, out, offset):
    """Storage codes of indices ``[start, stop)`` into ``out[0:stop - start]`` from generation codes counted from ``offset``
    (:func:`games.value_codes.stored_code`)."""
    spec, n, pawnful, en_passant_possible, powers, domain, king_squares = \
        table_views(params, aux)
    table = params[P_TABLE]
    if not pawnful and E.PER_SIDE[table] == powers[n]:
        # No pawns and no like pieces: the two indices coincide on the canonical placements.
        for index in range(start, stop):
            rest = index - (index // powers[n]) * powers[n]
            wk = king_squares[0, rest // powers[0]]
            bk = (rest // powers[1]) & 63
            if (wk >> 3) == (wk & 7) and (bk >> 3) > (bk & 7):
                out[index - start] = 0  # the diagonal mirror's twin: storage never uses it
                continue
            code = stored_code(np.int64(codes[index]), offset)
            if code >= 0:
                out[index - start] = code
        return
    squares = np.empty(E.MAX_PIECES, dtype=np.int64)
    last = n - 1
    if not pawnful and spec[last - 1] == spec[last]:
        store_like_group_last(table, n, spec, powers, domain, start, stop, codes, out, offset,
                              squares)
        return
    # The runs below need the last slot's group to be the storage index's lowest digit: with
    # pawns, the pawns' groups stand above the king pair (index version 3).
    last_group = 0
    while last_group + 1 < E.MAX_GROUPS and E.GROUPS[table, last_group + 1, 1] > 0:
        last_group += 1
    lowest = E.GROUP_STRIDE[table, last_group] == 1
    if pawnful and spec[last - 1] == spec[last] and spec[powers[n + 1]] == spec[last] and lowest:
        store_pawn_group_last(table, n, spec, powers, domain, start, stop, codes, out, offset,
                              squares)
        return
    # Along a run of the last slot's storage digit (the lowest digit of both indices), when
    # that slot is alone in its group, only its generation digit changes, or, if it holds the
    # anchor pawn, also the symmetry on crossing to files e-h: one or two node_index calls per
    # run, the rest by arithmetic. Colliding squares need no test: their node holds 0
    # (invalid), as storage wants.
    square_offset = 8 if spec[last] % 6 == PAWN else 0
    run_length = PAWN_RADIX if square_offset else SQUARE_RADIX
    runs = spec[last] != spec[last - 1] and lowest
    anchor_last = pawnful and powers[n + 1] == last
    last_radix = powers[n + 2 + last]
    per_side = E.PER_SIDE[table]
    base = base_flipped = 0  # the run's node less the last slot's part (files a-d, e-h)
    flip_file = flip_rank = diagonal = False
    absent = False  # the run's placements are never stored (a symmetric duplicate)
    for index in range(start, stop):
        digit = index % run_length
        if not runs or digit == 0 or index == start:
            absent = E.storage_unrank(table, index, squares) < 0
            stm = index // per_side
            if not runs:
                if absent:
                    out[index - start] = 0
                    continue
                code = stored_code(np.int64(codes[node_index(pawnful, squares, n, stm, powers,
                                                             domain)]), offset)
                if code >= 0:
                    out[index - start] = code
                continue
            wk, bk = squares[0], squares[1]
            absent = not pawnful and (wk >> 3) == (wk & 7) and (bk >> 3) > (bk & 7)
            if anchor_last:
                base = run_base(pawnful, squares, n, stm, powers, domain, 8)  # a2
                base_flipped = run_base(pawnful, squares, n, stm, powers, domain, 15)  # h2
            else:
                flip_file, flip_rank, diagonal = node_symmetry(pawnful, squares, n, powers)
                base = run_base(pawnful, squares, n, stm, powers, domain, squares[last])
        if absent:
            out[index - start] = 0
            continue
        square = digit + square_offset
        if anchor_last:
            flip_file = (square & 7) > 3
        node = (base_flipped if anchor_last and flip_file else base) + frame_digit(
            square, last_radix, flip_file, flip_rank, diagonal) * powers[last]
        code = stored_code(np.int64(codes[node]), offset)
        if code >= 0:
            out[index - start] = code


def generation_space(table: str) -> GenerationSpace:
    """The generation index of a chess table and its description for the kernels."""
    table_id = E.TABLE_IDS[table]
    spec = np.array(E.spec_of(table), dtype=np.int8)
    n = len(spec)
    pawnful = bool(E.PAWNFUL[table_id])
    white, black = E.sides_of(table)
    if pawnful:
        anchor = next(i for i in range(n) if spec[i] % 6 == PAWN)
        radices = [ANCHOR_RADIX if i == anchor else PAWN_RADIX if spec[i] % 6 == PAWN
                   else SQUARE_RADIX for i in range(n)]
    else:
        anchor = 0
        radices = [TRIANGLE_RADIX] + [SQUARE_RADIX] * (n - 1)
    # The last slot is the lowest digit, the white king the highest (the storage index's
    # order: the last piece's moves stay in one cache line, and storage reads run in order).
    powers = [1] * (n + 1)
    for i in range(n - 1, -1, -1):
        powers[i] = powers[i + 1] * radices[i]
    powers = [powers[i + 1] for i in range(n)] + [powers[0]]
    packed_spec = np.zeros(8, dtype=np.int8)
    packed_spec[:n] = spec
    like = 0  # like pairs kept in order (see the generation index); never the anchor pawn
    for i in range(n - 1):
        if spec[i] == spec[i + 1] and spec[i] % 6 != KING and not (
                pawnful and anchor in (i, i + 1)):
            like |= 1 << i
    group_end = anchor  # the last slot of the anchor's like pawns
    while pawnful and group_end + 1 < n and spec[group_end + 1] == spec[anchor]:
        group_end += 1
    params = np.array([n, pawnful, "P" in white and "P" in black, table_id,
                       int(packed_spec.view(np.int64)[0])] + powers + [anchor] + radices
                      + [like, group_end], dtype=np.int64)
    # Only en passant is answered from a child table during the levels: by a capture, into a
    # table of one piece fewer.
    read_later = tuple(child for child in E.dependencies_of(table)
                       if params[P_EN_PASSANT] and E.COUNT[E.TABLE_IDS[child]] < n)
    return GenerationSpace(size=2 * powers[n], storage_size=2 * int(E.PER_SIDE[table_id]),
                           params=params, aux=AUX, wake=bool(params[P_EN_PASSANT]),
                           wins_by_moves=not params[P_EN_PASSANT],
                           children_read_later=read_later, child_ranges=child_ranges(table))


def dtz50_generation_space(table: str) -> GenerationSpace:
    """The generation space of ``table``'s DTZ50 table when it has pawns: the same index, with
    pawn moves as moves out of the table (:data:`PAWNS_LEAVE`), valued from the table's own
    DTZ50 codes of the round before (a child table like the others, every child in one group).
    No move inside it gives an en-passant right, so nothing waits for one."""
    space = generation_space(table)
    params = space.params.copy()
    params[P_PAWNFUL] = PAWNS_LEAVE
    params[P_EN_PASSANT] = 0
    return GenerationSpace(size=space.size, storage_size=space.storage_size, params=params,
                           aux=space.aux, wake=False, wins_by_moves=True,
                           children_read_later=None, child_ranges=space.child_ranges)


def child_ranges(table: str) -> dict[str, tuple[int, int]]:
    """The storage index range each child table is reached in, where moves reach it with one
    side to move only: that side's half (the storage index starts with the side to move)."""
    ranges = {}
    for child, sides in E.child_sides_to_move(table).items():
        if len(sides) == 1:
            per_side = int(E.PER_SIDE[E.TABLE_IDS[child]])
            side = next(iter(sides))
            ranges[child] = (side * per_side, (side + 1) * per_side)
    return ranges


UNMOVE_KERNELS = UnmoveKernels(space=generation_space, initialise=initialise_range,
                               mark_predecessors=mark_predecessors_of,
                               evaluate=evaluate_entries, to_storage=store_range,
                               with_children=with_children, wins_by_moves=wins_by_moves_of,
                               zeroing_space=dtz50_generation_space)
