"""The generic retrograde engine: forward passes over any game's table family.

Codes follow :mod:`databases.format`; ``UNKNOWN`` marks unresolved entries while building.
Pass ``d`` (d = 1, 2, ...) resolves every unresolved position whose children decide it at
distance ``d``:

- a win in ``d`` if some child is a loss in ``d - 1``;
- a loss in ``d`` if every child is a win, the longest in ``d - 1``.

A child counts as known in pass ``d`` only if its distance is below ``d``, so entries written
during the pass are never read by it: the result does not depend on the order positions are
visited (or on how many threads visit them). When a pass resolves nothing and no child table
holds longer distances, the rest are draws.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from databases import format as F
from games import kernels as K
from games.table_family import INDEX_MASK, TABLE_SHIFT, RankKernel, UnrankKernel
from games.value_codes import code_distance, is_loss, loss_code, win_code

CODES = types.Array(types.uint16, 1, "C")
OFFSETS = types.Array(types.int64, 1, "C")


@nb.njit(types.int64(K.LegalMovesKernel, K.OutcomeKernel, UnrankKernel, types.int64, CODES,
                     K.POSITION, K.MOVE_BUFFER, types.int64, types.int64), cache=True)
def initialise(legal_moves, outcome, unrank, table_id, codes, pos, moves, start, stop):
    """Codes for ``[start, stop)``: INVALID, the result of finished games, or UNKNOWN.
    Returns the number of valid positions."""
    valid = 0
    for index in range(start, stop):
        if not unrank(table_id, index, pos):
            codes[index] = F.INVALID
            continue
        valid += 1
        count = legal_moves(pos, moves)
        result = outcome(pos, count)
        if result == K.ONGOING:
            codes[index] = F.UNKNOWN
        elif result == K.DRAW:
            codes[index] = F.CODE_DRAW
        elif result == K.WIN:
            codes[index] = 3
        else:
            codes[index] = 2
    return valid


@nb.njit(cache=True, inline="always")
def child_code(entry, table_id, codes, other_codes, offsets):
    """The code of the child at ``entry`` (table << TABLE_SHIFT | index)."""
    child_table = entry >> TABLE_SHIFT
    index = entry & INDEX_MASK
    if child_table == table_id:
        return np.int64(codes[index])
    return np.int64(other_codes[offsets[child_table] + index])


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, UnrankKernel, RankKernel, types.int64,
                     CODES, CODES, OFFSETS, types.int64, K.POSITION, K.POSITION, K.MOVE_BUFFER,
                     types.int64, types.int64), cache=True)
def forward_pass(legal_moves, play, unrank, rank, table_id, codes, other_codes, offsets, d,
                 pos, child, moves, start, stop):
    """Pass ``d`` over ``[start, stop)``; returns the number of positions resolved."""
    resolved = 0
    for index in range(start, stop):
        if codes[index] != F.UNKNOWN:
            continue
        unrank(table_id, index, pos)
        count = legal_moves(pos, moves)
        win = False
        all_wins = True
        for i in range(count):
            play(pos, moves[i], child)
            entry = rank(child)
            if entry < 0:  # a child outside every table: this family cannot decide it
                all_wins = False
                continue
            code = child_code(entry, table_id, codes, other_codes, offsets)
            if code == F.UNKNOWN or code == F.CODE_DRAW:
                all_wins = False
                continue
            dtm = code_distance(code)
            if dtm >= d:  # not known yet in this pass
                all_wins = False
                continue
            if is_loss(code):  # the child loses
                if dtm == d - 1:
                    win = True
                    break
                all_wins = False  # (cannot happen: it would have been a win earlier)
        if win:
            codes[index] = win_code(d)
            resolved += 1
        elif all_wins:
            codes[index] = loss_code(d)
            resolved += 1
    return resolved


@nb.njit(types.void(CODES), cache=True)
def finish_draws(codes):
    """Every entry still unresolved is a draw."""
    for index in range(codes.shape[0]):
        if codes[index] == F.UNKNOWN:
            codes[index] = F.CODE_DRAW


def solve_forward(family, table: str, other_codes: np.ndarray, offsets: np.ndarray,
                  longest_elsewhere: int, progress, chunk: int = 1 << 18) -> np.ndarray:
    """All codes of ``table`` by forward passes (child tables' codes in ``other_codes`` at
    ``offsets[table_id]``)."""
    game = family.game
    kernels = game.kernels
    table_id = family.table_id(table)
    size = family.size(table)
    codes = np.empty(size, dtype=np.uint16)
    pos, child = game.new_position(), game.new_position()
    moves = np.empty(game.max_moves, dtype=np.int32)
    for start in range(0, size, chunk):
        stop = min(size, start + chunk)
        initialise(kernels.legal_moves, kernels.outcome, family.unrank, table_id, codes, pos,
                   moves, start, stop)
        progress.update("initialise", stop, size, stop - start)
    d = 1
    while True:
        resolved = 0
        for start in range(0, size, chunk):
            stop = min(size, start + chunk)
            resolved += forward_pass(kernels.legal_moves, kernels.play, family.unrank, family.rank,
                                     table_id, codes, other_codes, offsets, d, pos, child, moves,
                                     start, stop)
            progress.update(f"pass {d}", stop, size, stop - start)
        if resolved == 0 and d > longest_elsewhere:
            break
        d += 1
    finish_draws(codes)
    return codes
