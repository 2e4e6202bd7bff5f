"""DTZ50: the distance to the next zeroing move, and with it the value under the 50-move rule.

A chess table ignores the 50-move rule: its values are game-theoretic and its distances count
to mate. Under the rule a win counts only if the winner can force a *zeroing* move (a capture
or a pawn move, which resets the count) or mate within 100 plies, again and again until mate.
This module builds, for a table whose rule-free codes and whose children's DTZ50 tables are
built, the DTZ50 of every position, in the same value codes (:mod:`games.value_codes`)::

    win_code(n)   the side to move wins; it forces a zeroing move (or mate) in n plies
    loss_code(n)  the side to move loses; the opponent forces one in n plies (n = 0: mated)
    CODE_DRAW     a draw (exactly the rule-free draws)

It is Syzygy's DTZ with its cursed wins folded in: a zeroing move into a position that is lost
for the opponent within the rule is worth 1 ply; one into a position whose loss the rule
saves (a *blessed* loss) is worth ``CURSED_WORTH`` = 101, so a win whose DTZ50 exceeds 100
is *cursed* (won, but drawn under the rule), and its distance is either the plies to its
zeroing move or 100 more, as python-chess's ``probe_dtz`` documents for Syzygy's values. The
winner minimises the distance and the loser maximises it (a slower loss is better), so the
rule-free winner keeps a real win whenever one exists. The codes' arithmetic (``wdl50``:
python-chess's five values 2 / 1 / 0 / -1 / -2) is :mod:`games.value_codes`'.

Chess tables are built by the one-byte generators (:mod:`retrograde.chess_dtz50`, and by pawn
slices :mod:`retrograde.chess_dtz50_pawns`: :func:`solve_dtz50_in_one_byte`). The two ways
below are generic, for any family: the un-move engine with exits cut to their rule class
(:func:`solve_dtz50_by_unmoves`), and forward passes, which the tests keep as an independent
check of the generators.

How the forward passes work: over the table's storage index (generic: any family whose game has a
``reversible_plies`` kernel; a move is zeroing when its child's count is 0). Only the rule-free
wins and losses are open; pass ``d`` decides those whose best zeroing move is worth ``d``
(``exit_levels``, found once per round) or whose moves inside the table reach a position
decided at ``d - 1``. A child counts as known only below distance ``d``, so the result does not
depend on the order of the scan or the number of threads.

Pawn moves are zeroing moves that stay in the table (the pawn advances). Their worth depends
only on whether the position they reach is won or lost *within the rule*, which this table
decides. The first round assumes every such position is decided within the rule; a round that
finds a cursed win or a blessed loss runs again with the classes it found, until the classes no
longer change. Pawns only advance, so the classes settle from the most advanced pawns down:
each round fixes at least one more pawn move of every chain, and tables without curses (most
of them) need one round.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from databases.location import DTZ50
from games import kernels as K
from games.table_family import (INDEX_MASK, NEEDS_CHILDREN, TABLE_SHIFT, RankChildrenKernel,
                                RankKernel, UnrankKernel)
from games.value_codes import (CODE_DRAW, CURSE_PLIES, INVALID, STORE_UNKNOWN,
                               better, code_distance, is_loss, is_win, loss_code, parent_code,
                               rule_class, win_code, within_rule, zeroing_class,
                               zeroing_value)
from retrograde.verify import RANKS, no_rank_children, rank_every_child
from runtime.borrow import borrowed

NO_EXIT = 0  # an exit level: no zeroing move decides the position
MOST_ROUNDS = 64  # rounds of pawn-move classes before giving up (each fixes a pawn move more)
CHUNK = 1 << 14  # positions per parallel task

CODES = types.Array(types.uint16, 1, "C")
LEVELS = types.Array(types.uint8, 1, "C")
OFFSETS = types.Array(types.int64, 1, "C")
ReversibleKernel = types.FunctionType(K.REVERSIBLE_PLIES_SIGNATURE)


@nb.njit(cache=True, inline="always")
def code_at(entry, table_id, own, others, offsets):
    """The code at ``entry`` (table << TABLE_SHIFT | index): from ``own`` for this table,
    else from the child tables ``others`` (STORE_UNKNOWN when not loaded)."""
    table = entry >> TABLE_SHIFT
    index = entry & INDEX_MASK
    if table == table_id:
        return np.int64(own[index])
    if offsets[table] < 0:
        return np.int64(STORE_UNKNOWN)
    return np.int64(others[offsets[table] + index])


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, RankKernel, RankKernel, ReversibleKernel,
                     types.int64, K.POSITION, K.POSITION, K.MOVE_BUFFER, CODES, CODES, OFFSETS),
         cache=True)
def zeroing_child_code(legal_moves, play, rank, rank_entry, reversible_plies, table_id, child,
                       grandchild, moves, classes, others, offsets):
    """The DTZ50 code of ``child``, a position just reached by a zeroing move, whose entry
    does not give its value (an en-passant right): the better, for its side to move, of its
    entry (the same position without the right, which has every other move) and its zeroing
    moves (the en-passant capture among them). Entries of this table come from ``classes``."""
    best = code_at(rank_entry(child), table_id, classes, others, offsets)
    if best == STORE_UNKNOWN or best == INVALID:
        return np.int64(STORE_UNKNOWN)
    count = legal_moves(child, moves)
    for i in range(count):
        play(child, moves[i], grandchild)
        if reversible_plies(grandchild) != 0:
            continue
        entry = rank(grandchild)
        if entry < 0:  # a double push giving an en-passant right: its value is in the entry
            continue
        code = code_at(entry, table_id, classes, others, offsets)
        if code == STORE_UNKNOWN or code == INVALID:
            return np.int64(STORE_UNKNOWN)
        mine = zeroing_value(code)
        if better(mine, best):
            best = mine
    return best


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, RankKernel, RankKernel, ReversibleKernel,
                     types.int64, K.POSITION, K.POSITION, K.MOVE_BUFFER, CODES, CODES, OFFSETS),
         cache=True)
def child_code(legal_moves, play, rank, rank_entry, reversible_plies, table_id, child,
               grandchild, moves, own, others, offsets):
    """The DTZ50 code of ``child`` (this table's entries from ``own``); STORE_UNKNOWN when no
    loaded table holds it."""
    entry = rank(child)
    if entry == NEEDS_CHILDREN:
        return zeroing_child_code(legal_moves, play, rank, rank_entry, reversible_plies,
                                  table_id, child, grandchild, moves, own, others, offsets)
    if entry < 0:
        return np.int64(STORE_UNKNOWN)
    return code_at(entry, table_id, own, others, offsets)


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, RankKernel,
                     ReversibleKernel, types.int64, types.int64, types.int64, CODES, CODES, CODES,
                     OFFSETS, LEVELS, types.int64, types.int64), cache=True, parallel=True)
def find_exit_levels(legal_moves, play, unrank, rank, rank_entry, reversible_plies, width,
                     max_moves, table_id, dtz, classes, others, offsets, exit_levels, start,
                     stop):
    """For every open position of ``[start, stop)`` (``dtz`` STORE_UNKNOWN), the level at
    which its zeroing moves decide it: for a rule-free win the quickest winning one, for a
    rule-free loss the slowest (every move of a lost position loses); NO_EXIT when it has
    none that decides it. ``classes`` holds this table's codes assumed for positions reached
    by a pawn move (see the module docstring). Returns the number of children that could not
    be valued (0 unless a child table is missing)."""
    chunks = (stop - start + CHUNK - 1) // CHUNK
    unknown = np.zeros(chunks, dtype=np.int64)
    for chunk in prange(chunks):
        pos = np.zeros(width, dtype=np.uint64)
        child = np.zeros(width, dtype=np.uint64)
        grandchild = np.zeros(width, dtype=np.uint64)
        moves = np.empty(max_moves, dtype=np.int32)
        replies = np.empty(max_moves, dtype=np.int32)
        first = start + chunk * CHUNK
        for index in range(first, min(stop, first + CHUNK)):
            if dtz[index] != STORE_UNKNOWN:
                continue
            unrank(table_id, index, pos)
            winning = is_win(classes[index])
            level = NO_EXIT
            count = legal_moves(pos, moves)
            for i in range(count):
                play(pos, moves[i], child)
                if reversible_plies(child) != 0:
                    continue
                code = child_code(legal_moves, play, rank, rank_entry, reversible_plies,
                                  table_id, child, grandchild, replies, classes, others,
                                  offsets)
                if code == STORE_UNKNOWN or code == INVALID:
                    unknown[chunk] += 1
                    continue
                mine = zeroing_value(code)
                if winning:
                    if is_win(mine) and (level == NO_EXIT or code_distance(mine) < level):
                        level = code_distance(mine)
                elif is_loss(mine) and code_distance(mine) > level:
                    level = code_distance(mine)
            exit_levels[index] = level
    return unknown.sum()


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel,
                     ReversibleKernel, types.int64, types.int64, types.int64, CODES, CODES,
                     LEVELS, types.int64, types.int64, types.int64), cache=True, parallel=True)
def dtz_pass(legal_moves, play, unrank, rank, reversible_plies, width, max_moves, table_id, dtz,
             rule_free, exit_levels, d, start, stop):
    """Pass ``d`` over the open positions of ``[start, stop)``: a rule-free win is won in
    ``d`` if its zeroing moves win at level ``d`` or a move inside the table reaches a
    position lost in ``d - 1``; a rule-free loss is lost in ``d`` once every move inside the
    table reaches a position won below ``d`` and the slowest of those and of its zeroing moves
    loses at ``d``. Returns the number decided."""
    chunks = (stop - start + CHUNK - 1) // CHUNK
    decided = np.zeros(chunks, dtype=np.int64)
    for chunk in prange(chunks):
        pos = np.zeros(width, dtype=np.uint64)
        child = np.zeros(width, dtype=np.uint64)
        moves = np.empty(max_moves, dtype=np.int32)
        first = start + chunk * CHUNK
        for index in range(first, min(stop, first + CHUNK)):
            if dtz[index] != STORE_UNKNOWN:
                continue
            level = np.int64(exit_levels[index])
            winning = is_win(rule_free[index])
            if winning and level == d:
                dtz[index] = win_code(d)
                decided[chunk] += 1
                continue
            if not winning and level > d:
                continue
            unrank(table_id, index, pos)
            count = legal_moves(pos, moves)
            slowest = level - 1  # a loss: the slowest child known so far, one ply short
            known = True
            for i in range(count):
                play(pos, moves[i], child)
                if reversible_plies(child) == 0:
                    continue
                code = np.int64(dtz[rank(child) & INDEX_MASK])
                if code == STORE_UNKNOWN or code_distance(code) >= d:
                    known = False
                    if not winning:
                        break
                    continue
                if winning:
                    if is_loss(code) and code_distance(code) == d - 1:
                        dtz[index] = win_code(d)
                        decided[chunk] += 1
                        break
                elif code_distance(code) > slowest:
                    slowest = code_distance(code)
            if not winning and known and slowest + 1 == d:
                dtz[index] = loss_code(d)
                decided[chunk] += 1
    return decided.sum()


@nb.njit(types.void(CODES, CODES), cache=True, parallel=True)
def open_entries(rule_free, dtz):
    """DTZ50 codes before the passes: invalid and drawn entries as they are, mated positions
    lost in 0, every other win or loss open (STORE_UNKNOWN)."""
    for index in prange(rule_free.shape[0]):
        code = rule_free[index]
        if code == INVALID or code == CODE_DRAW or code == loss_code(0):
            dtz[index] = code
        else:
            dtz[index] = STORE_UNKNOWN


@nb.njit(types.void(CODES, CODES), cache=True, parallel=True)
def assume_within_rule(rule_free, classes):
    """The first round's classes: every rule-free win or loss taken as holding under the rule
    (distance 1; mates keep 0)."""
    for index in prange(rule_free.shape[0]):
        code = rule_free[index]
        if code == INVALID or code == CODE_DRAW or code == loss_code(0):
            classes[index] = code
        elif is_win(code):
            classes[index] = win_code(1)
        else:
            classes[index] = loss_code(1)


@nb.njit(types.boolean(CODES, CODES), cache=True)
def same_classes(a, b):
    """Whether two DTZ50 code arrays agree on every entry's value under the rule (wdl50)."""
    for index in range(a.shape[0]):
        x, y = a[index], b[index]
        if (x < 2) != (y < 2) or (x < 2 and x != y):
            return False
        if x >= 2 and ((x & 1) != (y & 1) or within_rule(x) != within_rule(y)):
            return False
    return True


@nb.njit(types.void(CODES), cache=True, parallel=True)
def keep_rule_class(codes):
    """DTZ50 codes (in place) as a zeroing move into them is worth (``rule_class``): a win
    or loss within the rule at distance 0, one the rule overturns at ``CURSE_PLIES``. Values
    a table's exits for the un-move engine: a capture into a position lost within the rule
    wins in 1 ply, into a blessed loss in 101 (``zeroing_value``), and the rest is the
    engine's own minimax (wins as quick, losses as slow as can be)."""
    for index in prange(codes.shape[0]):
        code = codes[index]
        if code >= 2:  # (entries never read stay 0, and their memory untouched)
            codes[index] = rule_class(code)


class DtzError(RuntimeError):
    """A DTZ50 build that cannot finish: a child table missing, or codes that contradict."""


def can_use_unmoves(family, table: str) -> bool:
    """Whether the un-move engine can solve ``table``'s DTZ50 table: the family has one, and
    either every zeroing move leaves the table or the family gives the space in which its
    zeroing moves are exits (``UnmoveKernels.zeroing_space``)."""
    kernels = family.unmoves
    return kernels is not None and (family.zeroing_moves_leave(table)
                                    or kernels.zeroing_space is not None)


@nb.njit(types.Array(types.uint8, 1, "C")(types.Array(types.uint16, 1, "C")),
          cache=True)
def zeroing_classes(codes):
    """DTZ50 codes cut to their ``zeroing_class``, a byte each."""
    out = np.empty(codes.shape[0], dtype=np.uint8)
    for index in range(codes.shape[0]):
        out[index] = zeroing_class(codes[index])
    return out


def load_zeroing_classes(root, family, tables: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The DTZ50 codes of ``tables`` (a table's children) cut to their ``zeroing_class``
    (``uint8``, concatenated) and their offsets by table id, as
    :func:`retrograde.tables.load_children` (cut page by page as they are read: no child is
    ever held as ``uint16`` whole). What a capture or a promotion into a child is worth under
    the rule depends on nothing more."""
    from retrograde.tables import load_children

    codes, offsets, _ = load_children(root, family, tables, metric=DTZ50,
                                      convert=to_zeroing_classes, dtype=np.uint8)
    return codes, offsets


def to_zeroing_classes(chunk: np.ndarray) -> np.ndarray:
    """A chunk of DTZ50 codes as read from a file, cut to their ``zeroing_class``."""
    return zeroing_classes(np.ascontiguousarray(chunk, dtype=np.uint16))


def solve_dtz50_in_one_byte(family, table: str, root, progress) -> np.ndarray | None:
    """The DTZ50 codes of a chess ``table`` by the one-byte generators
    (:mod:`retrograde.chess_dtz50` without pawns, :mod:`retrograde.chess_dtz50_pawns` by pawn
    slices with them), from its children's DTZ50 tables on disk (its own rule-free table is
    not read); None for another game (the caller then uses another way)."""
    if family.game.name != "chess":
        return None
    if "P" in table:
        return solve_chess_pawn_dtz50(family, table, root, progress)[0]
    from retrograde import chess_dtz50

    codes, offsets = load_zeroing_classes(root, family, family.dependencies(table))
    return chess_dtz50.solve(table, codes, offsets, progress)


def solve_chess_pawn_dtz50(family, table: str, root, progress,
                           stored_bytes: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The DTZ50 codes of the chess ``table`` with pawns (:mod:`retrograde.chess_dtz50_pawns`),
    its promotion children read by advancement group, and with ``stored_bytes`` its pack's
    stored bytes made beside it, group by group with the same children
    (:class:`retrograde.pack.StoredBytesByGroup`; else None)."""
    from retrograde import chess_dtz50_pawns
    from retrograde.chess_promotion_runs import promotion_runs
    from retrograde.tables import ChildrenByGroup

    children = ChildrenByGroup(root, family, family.dependencies(table), promotion_runs(table),
                               metric=DTZ50, convert=to_zeroing_classes, dtype=np.uint8)
    stored = None
    if stored_bytes:
        from retrograde.pack import StoredBytesByGroup

        stored = StoredBytesByGroup(table, children, family.size(table))
    codes = chess_dtz50_pawns.solve(table, children.codes, children.offsets, progress,
                                    before_group=children.before_group,
                                    after_group=stored.after_group if stored else None,
                                    leaving=stored.values if stored else None)
    return codes, stored.values if stored else None


def solve_dtz50_by_unmoves(family, table: str, root, progress) -> np.ndarray:
    """The DTZ50 codes of ``table`` by the un-move engine that builds rule-free tables, with
    the children's DTZ50 codes cut to their rule class (:func:`keep_rule_class`): as fast
    as the rule-free build. A table whose zeroing moves all leave it
    (``family.zeroing_moves_leave``) is solved once, its children read in groups as there.
    Otherwise (chess: pawn moves) its zeroing moves into itself are exits of the family's
    ``zeroing_space``, valued from its own codes of the round before (which the family's
    kernels cut to their rule class as they read them), in rounds until the rule classes
    settle (see the module docstring)."""
    from retrograde.tables import ChildCodes, ChildLoader, load_children, read_codes
    from retrograde.unmove import solve_by_unmoves

    dependencies = family.dependencies(table)
    if family.zeroing_moves_leave(table):
        children = ChildLoader(root, family, dependencies, DTZ50, keep_rule_class)
        return solve_by_unmoves(family, table, children, progress)
    space = family.unmoves.zeroing_space(table)
    size = family.size(table)
    # the children and, after them, the table's own codes of the round before: one array
    codes, offsets, _ = load_children(root, family, dependencies, space.child_ranges, DTZ50,
                                      extra=size)
    # The table's own codes of the round before, uncut: the kernels cut a pawn move's target
    # to its rule class as they read it (cutting twice would lose the curse: ``rule_class``
    # puts an overturned result at CURSE_PLIES, which ``within_rule`` still counts as held).
    own = codes[codes.size - size:]
    keep_rule_class(codes[:codes.size - size])
    offsets[family.table_id(table)] = codes.size - size
    children = ChildCodes(codes, offsets)
    assume_within_rule(np.ascontiguousarray(read_codes(root, family.game.name, table),
                                            np.uint16), own)
    for round_number in range(1, MOST_ROUNDS + 1):
        progress.update(f"dtz50 round {round_number}")
        dtz = np.ascontiguousarray(solve_by_unmoves(family, table, children, progress, space),
                                   dtype=np.uint16)
        if same_classes(dtz, own):
            return dtz
        own[:] = dtz
    raise DtzError(f"{table}: the 50-move classes did not settle in {MOST_ROUNDS} rounds")


def solve_dtz50(family, table: str, rule_free: np.ndarray, children: np.ndarray,
                offsets: np.ndarray, progress) -> np.ndarray:
    """The DTZ50 codes of ``table`` by forward passes, from its rule-free codes and the
    DTZ50 codes of its child tables (``children`` at ``offsets[table_id]``, as
    :func:`retrograde.tables.load_children` gives them). Any table; the only way for one
    with pawns (their moves are zeroing moves that stay in the table)."""
    game = family.game
    if game.fifty_move_plies != CURSE_PLIES:
        raise DtzError(f"{game.name}: DTZ50 tables are for a {CURSE_PLIES}-ply rule, "
                       f"the game has {game.fifty_move_plies}")
    kernels = game.kernels
    reversible_plies = game.player.reversible_plies
    rank_entry = family.rank_entry or family.rank
    table_id = family.table_id(table)
    rule_free = np.ascontiguousarray(rule_free, dtype=np.uint16)
    size = rule_free.size
    classes = np.empty(size, dtype=np.uint16)
    assume_within_rule(rule_free, classes)
    exit_levels = np.zeros(size, dtype=np.uint8)
    for round_number in range(1, MOST_ROUNDS + 1):
        dtz = np.empty(size, dtype=np.uint16)
        open_entries(rule_free, dtz)
        for start in range(0, size, 1 << 20):
            stop = min(size, start + (1 << 20))
            unknown = find_exit_levels(kernels.legal_moves, kernels.play, family.unrank,
                                       family.rank, rank_entry, reversible_plies,
                                       game.position_width, game.max_moves, table_id, dtz,
                                       classes, children, offsets, exit_levels, start, stop)
            if unknown:
                raise DtzError(f"{table}: {unknown} zeroing moves lead to positions no loaded "
                               "table holds")
            progress.update(f"dtz50 round {round_number}: zeroing moves", stop, size,
                            stop - start)
        run_passes(family, table_id, dtz, rule_free, exit_levels, progress, round_number)
        if same_classes(dtz, classes):
            return dtz
        classes = dtz
    raise DtzError(f"{table}: the 50-move classes did not settle")


def run_passes(family, table_id: int, dtz: np.ndarray, rule_free: np.ndarray,
               exit_levels: np.ndarray, progress, round_number: int) -> None:
    """Passes d = 1, 2, ... until every open entry is decided (DtzError if some never is)."""
    kernels = family.game.kernels
    reversible_plies = family.game.player.reversible_plies
    size = dtz.size
    open_count = int(np.count_nonzero(dtz == STORE_UNKNOWN))
    d = 1
    while open_count:
        decided = dtz_pass(kernels.legal_moves, kernels.play, family.unrank, family.rank,
                           reversible_plies, family.game.position_width,
                           family.game.max_moves, table_id, dtz, rule_free, exit_levels, d, 0,
                           size)
        open_count -= decided
        progress.update(f"dtz50 round {round_number}: pass {d}", size - open_count, size, 0)
        if decided == 0 and open_count:
            # Nothing at d: nothing at d + 1 either but zeroing moves decided at a later level.
            waiting = exit_levels[(dtz == STORE_UNKNOWN) & (exit_levels > d)]
            if waiting.size == 0:
                raise DtzError(f"{family.table_name(table_id)}: {open_count} wins or losses "
                               "with no DTZ50 (the rule-free codes contradict the moves)")
            d = int(waiting.min())
            continue
        d += 1


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, RankKernel,
                     RankChildrenKernel, types.boolean, ReversibleKernel, types.int64, CODES,
                     CODES, CODES, OFFSETS, K.POSITION, K.POSITION, K.POSITION, K.MOVE_BUFFER,
                     K.MOVE_BUFFER, RANKS, types.int64, types.int64), cache=True)
def count_dtz_disagreements_in(legal_moves, play, unrank, rank, rank_entry, rank_children,
                               batched, reversible_plies, table_id, dtz, rule_free, others,
                               offsets, pos, child, grandchild, moves, replies, ranks, start,
                               stop):
    """:func:`count_dtz_disagreements` of ``[start, stop)`` on one thread, with its own
    positions and move buffers; ``batched`` as :func:`retrograde.verify.rank_every_child`'s."""
    # Lent (runtime/borrow.py): counting references to them took about a fifth of the time.
    dtz, rule_free, others, offsets, pos, child, grandchild, moves, replies, ranks = borrowed(
        (dtz, rule_free, others, offsets, pos, child, grandchild, moves, replies, ranks))
    errors = 0
    for index in range(start, stop):
        expected = np.int64(rule_free[index])
        code = np.int64(dtz[index])
        if expected == INVALID or expected == CODE_DRAW or expected == loss_code(0):
            if code != expected:
                errors += 1
            continue
        if code < 2 or (code & 1) != (expected & 1) or not unrank(table_id, index, pos):
            errors += 1
            continue
        count = legal_moves(pos, moves)
        rank_every_child(play, rank, rank_children, batched, pos, moves, count, child, ranks)
        best = np.int64(-1)
        for i in range(count):
            play(pos, moves[i], child)  # (for its count of reversible plies)
            if ranks[i] == NEEDS_CHILDREN:
                value = zeroing_child_code(legal_moves, play, rank, rank_entry,
                                           reversible_plies, table_id, child, grandchild,
                                           replies, dtz, others, offsets)
            elif ranks[i] < 0:
                value = np.int64(STORE_UNKNOWN)
            else:
                value = code_at(ranks[i], table_id, dtz, others, offsets)
            if value == STORE_UNKNOWN or value == INVALID:
                best = np.int64(-2)
                break
            if reversible_plies(child) == 0:
                mine = np.int64(zeroing_value(value))
            else:
                mine = np.int64(parent_code(value))
            if best == -1 or better(mine, best):
                best = mine
        if best != code:
            errors += 1
    return errors


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, RankKernel,
                     RankChildrenKernel, types.boolean, ReversibleKernel, types.int64,
                     types.int64, types.int64, CODES, CODES, CODES, OFFSETS, types.int64,
                     types.int64), cache=True, parallel=True)
def count_dtz_disagreements(legal_moves, play, unrank, rank, rank_entry, rank_children, batched,
                            reversible_plies, width, max_moves, table_id, dtz, rule_free, others,
                            offsets, start, stop):
    """Entries of ``[start, stop)`` whose DTZ50 code is not what their moves give: a draw or
    invalid entry exactly as the rule-free table has it; a mated position lost in 0; any
    other win or loss the best, for the side to move, of its zeroing moves
    (``zeroing_value`` of the child's code) and its other moves (``parent_code``), with the
    sign of the rule-free value. Only this table's and its children's DTZ50 codes are read
    (none of the builder's state)."""
    chunks = (stop - start + CHUNK - 1) // CHUNK
    errors = np.zeros(chunks, dtype=np.int64)
    for chunk in prange(chunks):
        first = start + chunk * CHUNK
        errors[chunk] = count_dtz_disagreements_in(
            legal_moves, play, unrank, rank, rank_entry, rank_children, batched,
            reversible_plies, table_id, dtz, rule_free, others, offsets,
            np.zeros(width, dtype=np.uint64), np.zeros(width, dtype=np.uint64),
            np.zeros(width, dtype=np.uint64), np.empty(max_moves, dtype=np.int32),
            np.empty(max_moves, dtype=np.int32), np.empty(max_moves, dtype=np.int64), first,
            min(stop, first + CHUNK))
    return errors.sum()


def verify_dtz50(game: str, table: str, root, progress=None, chunk: int = 1 << 22) -> dict:
    """``{"table", "entries", "errors"}`` for the DTZ50 table of ``table`` on disk, checked
    against its rule-free table and against its successors (its children's DTZ50 tables must
    exist), on every thread numba has."""
    from databases.families import get_family
    from retrograde.progress import Silent
    from retrograde.tables import load_children, read_codes
    family = get_family(game)
    progress = progress or Silent()
    dtz = read_codes(root, game, table, metric=DTZ50)
    rule_free = read_codes(root, game, table)
    children, offsets, _ = load_children(root, family, family.dependencies(table), metric=DTZ50)
    kernels = family.game.kernels
    rank_entry = family.rank_entry or family.rank
    batched = family.rank_children is not None
    rank_children = family.rank_children if batched else no_rank_children
    errors = 0
    for start in range(0, dtz.size, chunk):
        stop = min(dtz.size, start + chunk)
        errors += int(count_dtz_disagreements(
            kernels.legal_moves, kernels.play, family.unrank, family.rank, rank_entry,
            rank_children, batched, family.game.player.reversible_plies,
            family.game.position_width,
            family.game.max_moves, family.table_id(table), dtz, rule_free, children, offsets,
            start, stop))
        progress.update("verify DTZ50", stop, dtz.size, stop - start)
    progress.done()
    return {"table": table, "entries": int(dtz.size), "errors": errors}
