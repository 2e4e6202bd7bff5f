"""Which entries of a chess pawn table's promotion children each advancement group reaches.

The pawn generators (:mod:`retrograde.chess_dtm_pawns`, :mod:`retrograde.chess_dtz50_pawns`)
solve a table one advancement group of pawn slices at a time. A promotion without a capture
leads into a child with as many pieces as the table and, when another pawn is left, as large
as the table itself: KBPvKP's eight (KBQvKP ... KBPvKN) hold 5.7 G entries, ten times the
table. But a slice's promotion reaches only the child's entries with the remaining pawns
where the slice puts them (or their mirror image, where the child's frame turns the board)
and the promoter's opponent to move; in the storage index (version 3: the pawns' digits
outside the king pair and the pieces) those are whole *runs* of ``kings * pieces`` entries.
So a group needs about one part in twelve of such a child, read before the group and let go
after it (:class:`retrograde.tables.ChildrenByGroup`).

The runs are found the way the generators find the entries, not by reasoning about the
symmetries: for every slice, promotion and promoted piece, a representative position (its
kings on both halves of the board, which decide the child's frame) goes through the exit's
plan (:func:`retrograde.chess_dtz50.plan_row`) and the child's ``storage_index_packed``.
"""
from __future__ import annotations

from games.chess import endgames as E
from games.chess.position import PAWN
from retrograde.chess_dtz50 import PLAN_SLOTS, PLAN_SWAPPED, PLAN_TABLE, plan_row
from retrograde.chess_dtz50_pawns import group_squares, placement_run_length, slices
from retrograde.chess_exits import PROMOTIONS

Runs = dict[str, list[tuple[int, int]]]  # per child table: sorted, disjoint (start, stop)


def sliced_children(table: str) -> list[str]:
    """The children of ``table`` that only promotions without a capture reach and that hold
    pawns: those read by runs (the others are read whole)."""
    table_id = E.TABLE_IDS[table]
    if not E.PAWNFUL[table_id]:
        return []
    spec = list(E.spec_of(table))
    found = []
    for slot, code in enumerate(spec):
        if code % 6 != PAWN:
            continue
        for kind in PROMOTIONS:
            row = plan_row(spec, -1, slot, (code // 6) * 6 + kind)
            child = int(row[PLAN_TABLE])
            if child >= 0 and E.PAWNFUL[child]:
                name = E.TABLES[child]
                if name not in found:
                    found.append(name)
    return found


def promotion_runs(table: str) -> dict[int, Runs]:
    """Per advancement (:func:`retrograde.chess_dtz50_pawns.slices`), the runs of each
    :func:`sliced_children` table that the group's slices reach by a promotion; advancements
    whose slices promote into none are left out."""
    children = set(sliced_children(table))
    if not children:
        return {}
    table_id = E.TABLE_IDS[table]
    spec = list(E.spec_of(table))
    pawn_groups = [(int(first), int(count)) for first, count, _ in E.GROUPS[table_id]
                   if count and spec[first] % 6 == PAWN]
    plans = {(slot, kind): plan_row(spec, -1, slot, (spec[slot] // 6) * 6 + kind)
             for slot, code in enumerate(spec) if code % 6 == PAWN for kind in PROMOTIONS}
    starts: dict[int, dict[str, set[int]]] = {}
    for advancement, variants in slices(table):
        for digits in variants:
            squares = [-1] * len(spec)
            for digit, (first, count) in zip(digits, pawn_groups):
                squares[first:first + count] = group_squares(digit, count)
            for slot, square in enumerate(squares):
                if square < 0 or not promotes_from(spec[slot] // 6, square):
                    continue
                target = square + (8 if spec[slot] < 6 else -8)
                if target in squares:
                    continue  # blocked: no promotion without a capture
                for kind in PROMOTIONS:
                    row = plans[slot, kind]
                    if row[PLAN_TABLE] < 0 or E.TABLES[row[PLAN_TABLE]] not in children:
                        continue
                    child = E.TABLES[row[PLAN_TABLE]]
                    found = starts.setdefault(advancement, {}).setdefault(child, set())
                    moved = squares.copy()
                    moved[slot] = target
                    for index in representative_indices(moved, row, 1 - spec[slot] // 6):
                        found.add(index - index % placement_run_length(child))
    return {advancement: {child: merged_runs(sorted(found), placement_run_length(child))
                          for child, found in by_child.items()}
            for advancement, by_child in starts.items()}


def promotes_from(colour: int, square: int) -> bool:
    """Whether a pawn of ``colour`` on ``square`` promotes with its next push."""
    return square >> 3 == (6 if colour == 0 else 1)


def representative_indices(squares: list[int], row, to_move: int) -> list[int]:
    """The child's storage indices, by the plan ``row``, of positions with the pawns and the
    promoted piece on ``squares`` (-1: a king or a piece still to place) and ``to_move`` to
    move: the kings on each half of the board in turn (the halves decide the child's frame,
    and so where the pawns' digits land), the other pieces anywhere free."""
    child = int(row[PLAN_TABLE])
    swapped = int(row[PLAN_SWAPPED])
    found = []
    for white_left in (True, False):
        for black_left in (True, False):
            placed = place_rest(squares, white_left, black_left)
            packed = 0
            for slot, square in enumerate(placed):
                packed |= (square ^ (56 if swapped else 0)) << (6 * int(row[PLAN_SLOTS + slot]))
            index = int(E.storage_index_packed(child, packed, to_move ^ swapped))
            if index < 0:
                raise RuntimeError(f"{E.TABLES[child]}: no entry for a representative "
                                   f"position {placed}")
            found.append(index)
    return found


def place_rest(squares: list[int], white_left: bool, black_left: bool) -> list[int]:
    """``squares`` with the kings (slots 0 and 1) on the chosen halves (files a-d or e-h),
    apart, and the other unplaced slots on free squares."""
    placed = squares.copy()
    taken = {square for square in placed if square >= 0}
    for slot, left in ((0, white_left), (1, black_left)):
        for square in range(64):
            if ((square & 7) < 4) != left or square in taken:
                continue
            if slot == 1 and max(abs((square & 7) - (placed[0] & 7)),
                                 abs((square >> 3) - (placed[0] >> 3))) < 2:
                continue
            placed[slot] = square
            taken.add(square)
            break
    for slot in range(2, len(placed)):
        if placed[slot] < 0:
            placed[slot] = min(set(range(64)) - taken)
            taken.add(placed[slot])
    return placed


def merged_runs(starts: list[int], length: int) -> list[tuple[int, int]]:
    """Runs of ``length`` entries from each of ``starts`` (sorted), adjacent ones joined."""
    runs: list[tuple[int, int]] = []
    for start in starts:
        if runs and runs[-1][1] == start:
            runs[-1] = (runs[-1][0], start + length)
        else:
            runs.append((start, start + length))
    return runs
