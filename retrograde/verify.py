"""Verifying tables: every entry re-derived from its successors by forward moves alone.

This code shares nothing with the builders' propagation: for each index it unranks the
position, plays every legal move, ranks the child, and recomputes the value as a one-ply
minimax over the stored children (win: the quickest mate, loss: the slowest, else draw).
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from databases import format as F
from databases.families import get_family
from games import kernels as K
from games.table_family import INDEX_MASK, TABLE_SHIFT, RankKernel, UnrankKernel
from retrograde.progress import Silent
from retrograde.tables import load_children, read_codes

CODES = types.Array(types.uint16, 1, "C")
OFFSETS = types.Array(types.int64, 1, "C")


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, UnrankKernel, RankKernel,
                     types.int64, CODES, CODES, OFFSETS, K.POSITION, K.POSITION, K.MOVE_BUFFER,
                     types.int64, types.int64), cache=True)
def count_disagreements(legal_moves, play, outcome, unrank, rank, table_id, codes, other_codes,
                        offsets, pos, child, moves, start, stop):
    """Entries in ``[start, stop)`` whose stored code differs from the one-ply minimax."""
    errors = 0
    for index in range(start, stop):
        stored = np.int64(codes[index])
        if not unrank(table_id, index, pos):
            if stored != F.INVALID:
                errors += 1
            continue
        count = legal_moves(pos, moves)
        if count == 0:
            result = outcome(pos, count)
            expected = F.CODE_DRAW if result == K.DRAW else (3 if result == K.WIN else 2)
            if result == K.ONGOING:
                expected = -1
            errors += expected != stored
            continue
        # Best over children, from the mover's side: (class, distance) with class 2 = win.
        best_class = -1
        best_distance = 0
        for i in range(count):
            play(pos, moves[i], child)
            packed = rank(child)
            if packed < 0:
                best_class = -2  # cannot be decided from the tables
                break
            child_table = packed >> TABLE_SHIFT
            child_index = packed & INDEX_MASK
            if child_table == table_id:
                code = np.int64(codes[child_index])
            elif offsets[child_table] < 0:
                best_class = -2
                break
            else:
                code = np.int64(other_codes[offsets[child_table] + child_index])
            if code == F.INVALID or code == F.UNKNOWN:
                best_class = -2
                break
            if code == F.CODE_DRAW:
                mine, distance = 1, 0
            elif code & 1:  # child wins: we lose, later is better
                mine, distance = 0, ((code - 2) >> 1) + 1
            else:  # child loses: we win, sooner is better
                mine, distance = 2, ((code - 2) >> 1) + 1
            if (mine > best_class or (mine == best_class and mine == 2 and distance < best_distance)
                    or (mine == best_class and mine == 0 and distance > best_distance)):
                best_class = mine
                best_distance = distance
        if best_class == -2:
            errors += 1
            continue
        if best_class == 2:
            expected = 3 + 2 * best_distance
        elif best_class == 0:
            expected = 2 + 2 * best_distance
        else:
            expected = F.CODE_DRAW
        errors += expected != stored
    return errors


def verify_table(game: str, table: str, root, progress=None, chunk: int = 1 << 18) -> dict:
    """``{"table", "entries", "errors"}`` for one table on disk (its child tables must exist)."""
    family = get_family(game)
    progress = progress or Silent()
    codes = read_codes(root, game, table)
    children, offsets, _ = load_children(root, family, family.dependencies(table))
    kernels = family.game.kernels
    verifier = getattr(family, "verify_kernels", None)
    legal_moves, play, outcome = (verifier() if verifier else
                                  (kernels.legal_moves, kernels.play, kernels.outcome))
    pos, child = family.game.new_position(), family.game.new_position()
    moves = np.empty(family.game.max_moves, dtype=np.int32)
    table_id = family.table_id(table)
    errors = 0
    for start in range(0, codes.size, chunk):
        stop = min(codes.size, start + chunk)
        errors += int(count_disagreements(legal_moves, play, outcome, family.unrank, family.rank,
                                          table_id, codes, children, offsets, pos, child, moves,
                                          start, stop))
        progress.update("verify", stop, codes.size, stop - start)
    progress.done()
    return {"table": table, "entries": int(codes.size), "errors": errors}
