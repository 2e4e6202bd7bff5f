"""The df-pn prover inside the tree: a small bounded df-pn at nodes near the horizon.

The checks-only probe (:mod:`solver.search.mate_probe`) cannot see a mate whose attacker needs a
quiet move on the way (a king walked into a net, a square taken before the check). This one asks
:func:`proofsearch.dfpn.dfpn_kernel` instead, over every move of the attacker: is there a mate
within ``TREE_PROVER_PLIES`` plies, within ``TREE_PROVER_NODES`` expansions? It runs where the
mate probe would (the same signals and failure memory, :mod:`solver.search.alphabeta` step 8),
in place of it when the ``tree_prover`` switch is on.

Its transposition table (``TREE_PROVER_TABLE_MB``) is its own and is kept across calls, moves
and iterations until a new game: the proof numbers one call leaves behind make the next call at
a neighbouring position cheaper, so that small budgets add up. Every call is a search from ply 0
with the same depth bound, so the same position meets the same entries whichever node asked.

What it does not see: the game's history. A proof may pass through a position the game has
already seen (a draw by repetition in fact); over at most ``TREE_PROVER_PLIES`` plies with the
attacker to choose, that is rare, and the search's own iterations correct such a score.
"""
import numba as nb
import numpy as np
from numba import types

from databases.cache import ARENA, DIRECTORY
from databases.leaves import empty_leaf_arrays
from games import kernels as K
from games.game import Game
from games.table_family import RankKernel
from proofsearch.dfpn import (CHILD_FIELDS, FRAME_FIELDS, GOAL_WIN, P_BUDGET, P_CANDIDATES, P_DATABASE, P_EPSILON,
                              P_FIXED_PLIES, P_GENERATION, P_GOAL, P_HISTORY, P_MAX_DEPTH, P_SALT, PARAMS, S_BEST,
                              S_BOUNDED, S_LENGTH, S_NODES, S_PN, STATS, dfpn_kernel)
from proofsearch.settings import prover_settings
from proofsearch.table import (INT32_2D, INT64_1D, INT64_2D, INT64_3D, TABLE, UINT64_1D, UINT64_2D,
                              TranspositionTable)

TREE_PROVER_PLIES = 7  # the longest mate tried: four moves of the attacker
TREE_PROVER_NODES = 1000  # df-pn expansions of one call
TREE_PROVER_TABLE_MB = 8
TREE_PROVER_NODE_COST = 8  # one expansion takes about the time of this many alpha-beta nodes (bench)
TREE_PROVER_SALT = 0x5EED_7EE5  # fixed: entries must meet their keys again in later calls

# positions, move_buffer, child_moves, child_hashes, child_vals, frames, path_hash, table, params,
# stats, and the stand-ins for a database (none is consulted: the search has its own tables).
TREE_PROVER = types.Tuple((UINT64_2D, INT32_2D, INT32_2D, UINT64_2D, INT64_3D, INT64_2D, UINT64_1D, TABLE, INT64_1D,
                           INT64_1D, DIRECTORY, INT64_1D, ARENA))


def new_tree_prover(game: Game, table_mb: float = TREE_PROVER_TABLE_MB) -> tuple:
    """The buffers and table of :func:`prove_in_tree` for ``game`` (allocated once per player)."""
    stack = TREE_PROVER_PLIES + 2
    width, moves = game.position_width, game.max_moves
    params = np.zeros(PARAMS, dtype=np.int64)
    params[P_GOAL] = GOAL_WIN
    params[P_MAX_DEPTH] = TREE_PROVER_PLIES
    params[P_EPSILON] = int(round((1 + prover_settings(game).epsilon) * 1024))
    params[P_GENERATION] = 1
    params[P_SALT] = TREE_PROVER_SALT
    params[P_HISTORY] = 0
    params[P_CANDIDATES] = 0
    params[P_DATABASE] = 0
    params[P_FIXED_PLIES] = int(game.plies_fixed_by_position)
    directory, bases, arena = empty_leaf_arrays()
    return (np.zeros((stack + 1, width), dtype=np.uint64), np.zeros((stack + 1, moves), dtype=np.int32),
            np.zeros((stack, moves), dtype=np.int32), np.zeros((stack, moves), dtype=np.uint64),
            np.zeros((stack, moves, CHILD_FIELDS), dtype=np.int64), np.zeros((stack, FRAME_FIELDS), dtype=np.int64),
            np.zeros(stack + 1, dtype=np.uint64), TranspositionTable.from_megabytes(table_mb).rows, params,
            np.zeros(STATS, dtype=np.int64), directory, bases, arena)


def clear_tree_prover(prover: tuple) -> None:
    """Forget every proof (a new game)."""
    prover[7][:] = 0


@nb.njit(types.UniTuple(types.int64, 3)(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.HashKernel,
                                        K.EvaluateKernel, RankKernel, TREE_PROVER, K.POSITION, types.int64),
         cache=True, nogil=True)
def prove_in_tree(legal_moves, play, outcome, hash_position, evaluate, rank, prover, pos, budget):
    """A mate for the side to move in ``pos`` within ``TREE_PROVER_PLIES`` plies, by df-pn in at
    most ``budget`` expansions: (plies to mate at most, first move, expansions), or (0, -1,
    expansions) when none is proven. ``rank`` is never called (no database leaves): any kernel
    of its type will do."""
    (positions, move_buffer, child_moves, child_hashes, child_vals, frames, path_hash, table, params, stats,
     directory, bases, arena) = prover
    positions[0] = pos
    params[P_BUDGET] = max(budget, 1)
    stats[S_BEST] = -1
    expanded = dfpn_kernel(legal_moves, legal_moves, play, outcome, hash_position, evaluate, positions, move_buffer,
                           child_moves, child_hashes, child_vals, frames, path_hash, table, params, stats,
                           rank, directory, bases, arena)
    if stats[S_PN] == 0 and stats[S_BOUNDED] == 0 and stats[S_BEST] >= 0 and stats[S_LENGTH] > 0:
        return stats[S_LENGTH], stats[S_BEST], expanded
    return np.int64(0), np.int64(-1), expanded


__all__ = ["TREE_PROVER", "TREE_PROVER_NODE_COST", "TREE_PROVER_NODES", "TREE_PROVER_PLIES", "clear_tree_prover", "new_tree_prover",
           "prove_in_tree"]
