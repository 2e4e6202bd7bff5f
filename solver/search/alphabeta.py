"""The alpha-beta search: negamax with principal-variation search, and quiescence, in numba.

Written once over the kernel interface (:mod:`games.kernels`, "Player kernels"): the game's
kernels arrive as arguments typed ``numba.types.FunctionType``, so one compiled search, served
from numba's cache, plays every game. ``search`` reads top to bottom in numbered steps; the
iterative deepening and the aspiration windows around it are in :mod:`solver.search.player`.

Arguments, in three named tuples (:class:`SearchKernels`, :class:`SearchBuffers`, the tables'
:class:`~solver.search.table_leaves.TableArrays`): numba compiles
no call of more than 30 arguments, and grouped, new per-ply state costs no argument at the
eight call sites. The recursion passes the three as one pointer (``FRAME``, made once by
``search_root``; :mod:`runtime.frame`): passed as tuples, numba copied their 230 words into
every call, and the pointer made the search 16% faster at the same nodes. Buffers (allocated
once by the player, one row per ply, no allocation inside the search):

* ``positions[ply]``: the position at ``ply`` (copy-make);
* ``move_rows[MOVES, ply]``, ``move_rows[KEYS, ply]``: its moves and their sort keys;
  ``move_rows[TRIED, ply]``: the quiet moves tried there without a cutoff;
* ``ply_info[WINDOW, ply]``: plies since the last null move (repetitions are not looked for
  across one); ``ply_info[PV_LENGTH, ply]``: the end of the principal variation in ``pv[ply]``
  (the triangular PV table); ``ply_info[STATIC_EVAL, ply]``: the node's static evaluation
  (``NO_EVAL`` in check), for the "improving" test two plies on; ``ply_info[PREVIOUS_MOVE, ply]``:
  the move that led to the node (-1 at the root and after a null move), and
  ``ply_info[PREVIOUS_PIECE_TO, ply]`` its ``piece_to`` (with the continuation history on);
  ``ply_info[EXCLUDED_MOVE, ply]``: the move a singular-extension search leaves out (-1: none);
* ``path``: the hashes of the game history (``state[P_HISTORY]`` entries), then of the positions
  along the search path;
* ``killers[ply]``, ``history[ply & 1, move]``, ``counter_moves[ply & 1, previous move]``,
  ``continuation[k, context, piece_to]``: see :mod:`solver.search.ordering`;
* ``mate_misses``: the positions whose mate probe failed (:mod:`solver.search.mate_probe`);
* ``state``: the parameters (``P_*``), the statistics and results (``S_*``) and the stop flag
  (``C_STOP``, written by other threads while the search runs) in one int64 array.

Measured Elo (docs/benchmarks.md) is noted beside the steps as Ethereal does: ``[+74 Elo, with
the seven]`` marks the heuristics of issue 41 (IIR, improving, SEE pruning, LMR history,
counter-moves, continuation history, singular extensions), measured together so far.

Switches (``state[P_FLAGS]``, :mod:`solver.search.switches`): every pruning, reduction or
extension that can change the value of the root can be switched off, so that a search with none
of them returns the plain alpha-beta value of the depth-limited tree (with quiescence at its
horizon).

Fail-soft throughout: a node's return value may lie outside the window it was given; a value
``<= alpha`` is an upper bound, ``>= beta`` a lower bound, in between exact.
"""
import math
from typing import NamedTuple

import numba as nb
import numpy as np
from numba import types

from databases.packed import NOT_PACKED, is_packed, probe_packed_entry
from games import kernels as K
from games.table_family import NEEDS_CHILDREN, RankKernel
import runtime.recursion_typing  # noqa: F401  (search and quiescence call themselves: typed by their signatures)
from runtime.frame import frame_member, frame_of
from runtime.stopping import poll_due
from solver.search import transposition as tt
from solver.search.mate_probe import (MATE_PROBE_DECISIVE, MATE_PROBE_DEPTH, MATE_PROBE_MARGIN, MATE_PROBE_NODES,
                                      MATE_PROBE_PLIES, MATE_PROBE_SHARE, missed_before, probe_mate)
from solver.search.ordering import (TT_MOVE, is_quiet_key, pick_next, reward_continuation, reward_quiet_cutoff,
                                    score_moves)
from solver.search.scores import (DRAW, INFINITE, MATE, MATE_BOUND, MAX_PLY, from_table, table_score,
                                  to_table, wdl50_score)
from solver.search.switches import (USE_CHECK_EXTENSION, USE_CONTINUATION_HISTORY, USE_COUNTER_MOVES, USE_FUTILITY,
                                    USE_IIR, USE_IMPROVING, USE_LMR, USE_LMR_HISTORY, USE_MATE_PROBE, USE_MULTI_CUT,
                                    USE_NULL_MOVE, USE_QUIESCENCE_SEE, USE_RAZORING, USE_REVERSE_FUTILITY,
                                    USE_SEE_PRUNING, USE_SINGULAR, USE_TT_CUTOFFS, USE_TT_EVAL)
from solver.search.table_leaves import TABLES, probe_tables

# --- state[...]: parameters, then statistics and results, then control ------------------------
(P_FLAGS, P_HISTORY, P_FIFTY, P_GENERATION, P_NODE_LIMIT, P_ROOT_MOVES, P_ROOT_DEPTH, P_MC_MOVES,
 P_MC_CUTS, P_MC_REDUCTION, P_MC_DEPTH, P_TABLES) = range(12)
(S_NODES, S_SELDEPTH, S_STOPPED, S_ROOT_BEST, S_ROOT_SCORE, S_ROOT_IMPROVED, S_NULL_CUTS,
 S_MULTI_CUTS, S_TABLE_HITS, S_MATE_PROBES, S_MATE_HITS, S_MATE_NODES) = range(16, 28)
STATS = slice(16, 28)
C_STOP = 32  # set by another thread to stop the search
STATE_SIZE = 33

# --- the per-ply buffers' rows -----------------------------------------------------------------
MOVES, KEYS, TRIED = 0, 1, 2
MOVE_ROWS = 3
WINDOW, PV_LENGTH, STATIC_EVAL, PREVIOUS_MOVE, PREVIOUS_PIECE_TO, EXCLUDED_MOVE = 0, 1, 2, 3, 4, 5
PLY_INFO_ROWS = 6
NO_EVAL = -(1 << 40)  # ply_info[STATIC_EVAL]: in check, no static evaluation

RFP_DEPTH = 6
RFP_MARGIN = 90  # per ply of remaining depth
NULL_MIN_DEPTH = 3
FUTILITY_DEPTH = 3
FUTILITY_MARGIN = 100  # per ply of remaining depth, plus one
LATE_MOVE_COUNT = 4  # quiet moves searched at depth d before the rest are skipped: 4 + d * d
NO_LATE_LIMIT = 1 << 30  # no late-move pruning
LMR_MIN_DEPTH = 3
LMR_HISTORY_DIVISOR = 8192  # history (within +-16384) shortens or lengthens a reduction by up to 2
IIR_MIN_DEPTH = 4
SINGULAR_MIN_DEPTH = 8
SINGULAR_TT_DEPTH = 3  # the TT entry may be this much shallower than the node
SINGULAR_MARGIN = 2  # centipawns per ply of depth below the TT score
SEE_PRUNING_DEPTH = 4
RAZOR_DEPTH = 3
RAZOR_BASE = 150  # centipawns below alpha at which a node is razored: base + margin * depth^2
RAZOR_MARGIN = 150
# A node whose static evaluation is this far from level (either side) extends no check: in a won
# ending the queen checks every other ply, and extending them all doubled the tree (KQvK reached
# 11 plies in 3 s where 18 find the mate).
CHECK_EXTENSION_DECIDED = 1000
# From this far (a queen against a rook: the winning side checks at will) a quiet check is
# reduced by LMR like any quiet move: long KQvKR mates at 1,000,000 nodes 15 -> 20 of 20 (from
# 1000). Between the two a late quiet check is both extended and reduced.
CHECK_REDUCTION_DECIDED = 800
TABLE_DEPTH_BONUS = 6  # a table value is stored as if searched this much deeper: nothing beats it
PLY_ROWS = MAX_PLY + 2

I32_1D = types.Array(types.int32, 1, "C")
I32_2D = types.Array(types.int32, 2, "C")
I32_3D = types.Array(types.int32, 3, "C")
I64_1D = types.Array(types.int64, 1, "C")
I64_2D = types.Array(types.int64, 2, "C")
U64_1D = types.Array(types.uint64, 1, "C")
U64_2D = types.Array(types.uint64, 2, "C")

# The search's arguments in three groups, so that a call passes a handful of names and new
# per-ply state costs no argument (numba compiles no call of more than 30). Each group is a named
# tuple: numba types it by its class, so the kernels read every member by its name and no two
# members of one type (four buffers are int32 matrices) can be swapped by their position.


class SearchKernels(NamedTuple):
    """The game's kernels (games.kernels, "Player kernels") the search calls."""

    legal_moves: object
    play: object
    outcome: object
    hash_position: object
    evaluate: object
    in_check: object
    gives_check: object
    play_null: object
    move_keys: object
    noisy_moves: object
    reversible_plies: object
    rank: object  # the tables' rank kernel (games.table_family), a stand-in without tables
    piece_to: object


class SearchBuffers(NamedTuple):
    """The player's buffers (see the module docstring), allocated once, one row per ply."""

    positions: np.ndarray
    move_rows: np.ndarray
    ply_info: np.ndarray
    path: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    tt_table: np.ndarray
    pv: np.ndarray
    root_moves: np.ndarray
    state: np.ndarray
    mate_misses: np.ndarray
    counter_moves: np.ndarray
    continuation: np.ndarray


KERNEL_TYPES = (K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.HashKernel, K.EvaluateKernel,
                K.InCheckKernel, K.GivesCheckKernel, K.PlayNullKernel, K.MoveKeysKernel, K.LegalMovesKernel,
                K.ReversiblePliesKernel, RankKernel, K.PieceToKernel)
# numba turns the kernels (dispatchers) into first-class functions only inside a plain tuple:
# search_root takes them so and names them (SearchKernels(*kernels)).
KERNEL_ARGUMENTS = types.Tuple(KERNEL_TYPES)
KERNELS = types.NamedTuple(KERNEL_TYPES, SearchKernels)
BUFFERS = types.NamedTuple((U64_2D, I32_3D, I64_2D, U64_1D, I32_2D, I32_2D, tt.TABLE, I32_2D, I32_1D, I64_1D,
                            U64_1D, I32_2D, I32_3D), SearchBuffers)
# What the recursion passes instead: one pointer to the three (runtime.frame), which no call changes.
FRAME = types.CPointer(types.Tuple((KERNELS, BUFFERS, TABLES)))


def reduction_table(size: int = 64) -> np.ndarray:
    """Late-move reductions by [depth, moves searched]: logarithmic in both."""
    table = np.zeros((size, size), dtype=np.int8)
    for depth in range(1, size):
        for searched in range(1, size):
            table[depth, searched] = int(0.75 + math.log(depth) * math.log(searched) / 2.25)
    return table


LMR = reduction_table()  # 4 KiB: read as a global, frozen into the compiled search


@nb.njit(cache=True, inline="always")
def terminal_score(result, ply):
    """The score of a finished game at ``ply`` (a result from ``outcome``)."""
    if result == K.LOSS:
        return -(MATE - ply)
    if result == K.WIN:
        return MATE - ply
    return DRAW


@nb.njit(cache=True, inline="always")
def repeated(path, index, lookback):
    """Whether ``path[index]`` occurred before within ``lookback`` plies, at the same side to
    move (every second entry)."""
    earliest = max(0, index - lookback)
    back = index - 2
    while back >= earliest:
        if path[back] == path[index]:
            return True
        back -= 2
    return False


@nb.njit(types.void(I64_1D), cache=True)
def poll(state):
    """Stop when another thread raised the stop flag or the node limit is reached."""
    limit = state[P_NODE_LIMIT]
    if state[C_STOP] != 0 or (limit > 0 and state[S_NODES] >= limit):
        state[S_STOPPED] = 1


@nb.njit(cache=True, inline="always")
def enter_node(state, ply_info, ply):
    """Count a node at ``ply`` (nodes, selective depth, an empty PV), poll for a stop every
    ``POLL_MASK + 1`` nodes (runtime.stopping); whether the search is stopping."""
    state[S_NODES] += 1
    if poll_due(state[S_NODES]):
        poll(state)
    ply_info[PV_LENGTH, ply] = ply
    if ply > state[S_SELDEPTH]:
        state[S_SELDEPTH] = ply
    return state[S_STOPPED] != 0


@nb.njit(cache=True, inline="always")
def update_pv(pv, ply_info, ply, move):
    """The principal variation at ``ply`` becomes ``move`` followed by the child's."""
    pv[ply, ply] = move
    end = ply_info[PV_LENGTH, ply + 1]
    for i in range(ply + 1, end):
        pv[ply, i] = pv[ply + 1, i]
    ply_info[PV_LENGTH, ply] = max(end, ply + 1)


@nb.njit(cache=True, inline="always")
def is_improving(ply_info, ply):
    """Whether the static evaluation at ``ply`` is above the side to move's last one, two plies
    back (four when that node was in check; true when there is none)."""
    for back in (2, 4):
        if ply >= back and ply_info[STATIC_EVAL, ply - back] != NO_EVAL:
            return ply_info[STATIC_EVAL, ply] > ply_info[STATIC_EVAL, ply - back]
    return True


NO_TABLE_SCORE = -INFINITE - 1  # table_leaf_score: the tables do not cover the position


@nb.njit(cache=True, inline="always")
def table_leaf_score(noisy_moves, play, rank, reversible_plies, tables, state, pos, ply):
    """The endgame tables' score of ``pos`` at ``ply`` (counted in ``tbhits``), or
    ``NO_TABLE_SCORE`` when the search has no tables or they do not cover it. A packed probe
    follows only the noisy moves: every move out of a table is a capture or a promotion."""
    if state[P_TABLES] == 0:
        return NO_TABLE_SCORE
    entry = rank(pos)
    if entry < 0 and entry != NEEDS_CHILDREN:
        return NO_TABLE_SCORE  # no table holds it: most nodes, answered by one call
    if reversible_plies(pos) == 0:
        wdl = probe_packed_entry(noisy_moves, play, rank, tables.packs, pos, entry, 0)
        if wdl != NOT_PACKED:
            state[S_TABLE_HITS] += 1
            return wdl50_score(wdl, ply)
    elif is_packed(tables.packs, entry):
        # A packed WDL50 is exact from a zeroing move; once the count runs, the rule may draw
        # a win it calls won, so the search goes on (such positions come only below a root
        # the tables already play, or below a leaf they already valued).
        return NO_TABLE_SCORE
    code = probe_tables(tables, entry)
    if code <= 0:
        return NO_TABLE_SCORE
    state[S_TABLE_HITS] += 1
    return table_score(code, ply, reversible_plies(pos), state[P_FIFTY])


@nb.njit(types.int64(FRAME, types.int64, types.int64, types.int64), cache=True, nogil=True)
def quiescence(frame, ply, alpha, beta):
    """The value of ``positions[ply]`` when only noisy moves are searched: the side to move may
    stand pat on its static evaluation, or try its noisy moves; in check, every evasion."""
    kernels, buffers, tables = frame_member(frame, 0), frame_member(frame, 1), frame_member(frame, 2)
    play, hash_position, evaluate = kernels.play, kernels.hash_position, kernels.evaluate
    positions, state, tt_table = buffers.positions, buffers.state, buffers.tt_table
    # 1. Count the node, poll for a stop.
    if enter_node(state, buffers.ply_info, ply):
        return 0
    pos = positions[ply]
    moves = buffers.move_rows[MOVES]
    keys = buffers.move_rows[KEYS]
    flags = state[P_FLAGS]
    checked = kernels.in_check(pos)
    if ply >= MAX_PLY - 1:
        return 0 if checked else np.int64(evaluate(pos))

    # 2. Transposition table: any stored depth is enough here.
    position_hash = hash_position(pos)
    slot = tt.probe(tt_table, position_hash)
    tt_move = np.int64(-1)
    static_eval = np.int64(-INFINITE)
    if slot >= 0:
        word = tt.entry(tt_table, slot)
        tt_move = tt.entry_move(word)
        static_eval = tt.entry_eval(word)
        score = from_table(tt.entry_score(word), ply)
        bound = tt.entry_bound(word)
        if beta - alpha == 1 and flags & USE_TT_CUTOFFS:
            if tt.bound_decides(bound, score, alpha, beta):
                return score

    # 3. Endgame tables: a covered position has its exact value, stored so that the next visit
    # is answered by the transposition table: a probe costs more than a lookup (it may decode
    # a packed block and follows the captures out of the table).
    score = table_leaf_score(kernels.noisy_moves, play, kernels.rank, kernels.reversible_plies, tables, state, pos,
                             ply)
    if score != NO_TABLE_SCORE:
        tt.store(tt_table, position_hash, -1, to_table(score, ply), 0, TABLE_DEPTH_BONUS,
                 tt.BOUND_EXACT, state[P_GENERATION])
        return score

    # 4. Moves: every evasion in check (no standing pat), else the noisy moves after standing pat.
    if checked:
        count = kernels.legal_moves(pos, moves[ply])
        result = kernels.outcome(pos, count)
        if result != K.ONGOING:
            return terminal_score(result, ply)
        best = np.int64(-INFINITE)
    else:
        result = kernels.outcome(pos, -1)
        if result != K.ONGOING:
            return terminal_score(result, ply)
        if slot < 0:
            static_eval = np.int64(evaluate(pos))
        best = static_eval
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        count = kernels.noisy_moves(pos, moves[ply])
    score_moves(kernels.move_keys, kernels.piece_to, pos, moves[ply], keys[ply], count, tt_move, buffers.killers,
                buffers.history, buffers.continuation, ply, -1, -1, -1)

    # 5. Move loop.
    best_move = np.int64(-1)
    child = positions[ply + 1]
    for i in range(count):
        move = pick_next(moves[ply], keys[ply], i, count)
        if not checked and flags & USE_QUIESCENCE_SEE and keys[ply, i] <= -K.ORDER_NOISY:
            break  # sorted: every move from here on loses material
        play(pos, np.int32(move), child)
        tt.prefetch(tt_table, hash_position(child))
        score = -quiescence(frame, ply + 1, -beta, -alpha)
        if state[S_STOPPED]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                best_move = move
                alpha = score
                if alpha >= beta:
                    break

    # 6. Store.
    bound = tt.BOUND_LOWER if best >= beta else tt.BOUND_UPPER
    tt.store(tt_table, position_hash, best_move, to_table(best, ply),
             static_eval if not checked else 0, 0, bound, state[P_GENERATION])
    return best


NO_MATE = np.int64(0)  # probe_mate_here: no mate found (or no probe made)


@nb.njit(types.int64(FRAME, types.int64, types.int64, types.int64, types.int64, types.uint64), cache=True,
         nogil=True)
def probe_mate_here(frame, ply, depth, beta, static_eval, position_hash):
    """The prover inside the tree (switch ``mate_probe``, off: it measured a cost in play): near
    the horizon, where the side to move holds its own, a checks-only mate search
    (:mod:`solver.search.mate_probe`), each position at most once, within a share of the search's
    nodes. Returns the mate's score (a lower bound: a shorter one may exist), stored in the
    transposition table, or ``NO_MATE``; the caller checks ``state[S_STOPPED]``."""
    kernels, buffers = frame_member(frame, 0), frame_member(frame, 1)
    state, mate_misses = buffers.state, buffers.mate_misses
    pos = buffers.positions[ply]
    if (depth > MATE_PROBE_DEPTH or abs(beta) >= MATE_BOUND or static_eval + MATE_PROBE_MARGIN < beta
            or ply + MATE_PROBE_PLIES + 2 >= PLY_ROWS
            or (state[P_FIFTY] > 0 and kernels.reversible_plies(pos) + MATE_PROBE_PLIES >= state[P_FIFTY])
            or state[S_MATE_NODES] * MATE_PROBE_SHARE > state[S_NODES]
            or missed_before(mate_misses, position_hash)):
        return NO_MATE
    before = state[S_NODES]
    limit = before + MATE_PROBE_NODES
    if state[P_NODE_LIMIT] > 0:
        limit = min(limit, state[P_NODE_LIMIT])
    plies, mate_move = probe_mate(kernels.legal_moves, kernels.play, kernels.outcome, kernels.gives_check,
                                  buffers.positions, buffers.move_rows[MOVES], state, mate_misses, position_hash, ply,
                                  MATE_PROBE_PLIES, limit, S_NODES, C_STOP, static_eval >= MATE_PROBE_DECISIVE)
    state[S_MATE_NODES] += state[S_NODES] - before
    state[S_MATE_PROBES] += 1
    poll(state)
    if state[S_STOPPED] or plies <= 0:
        return NO_MATE
    state[S_MATE_HITS] += 1
    score = MATE - (ply + plies)
    tt.store(buffers.tt_table, position_hash, mate_move, to_table(score, ply), static_eval,
             min(depth + TABLE_DEPTH_BONUS, MAX_PLY), tt.BOUND_LOWER, state[P_GENERATION])
    return score


@nb.njit(types.int64(FRAME, types.int64, types.int64, types.int64, types.int64, types.boolean),
         cache=True, nogil=True)
def search(frame, ply, depth, alpha, beta, cut_node):
    """The negamax value of ``positions[ply]`` searched ``depth`` plies deep within the window
    (``alpha``, ``beta``); ``cut_node``: a node expected to fail high (the first child of a
    non-PV node alternates). At ply 0, the moves searched are ``root_moves[:state[P_ROOT_MOVES]]``
    and every improvement of the best move is recorded in ``state`` as it happens, so an
    interrupted iteration still yields its best move so far."""
    kernels, buffers, tables = frame_member(frame, 0), frame_member(frame, 1), frame_member(frame, 2)
    legal_moves, play, outcome, hash_position = kernels.legal_moves, kernels.play, kernels.outcome, kernels.hash_position
    evaluate, in_check, gives_check, piece_to = kernels.evaluate, kernels.in_check, kernels.gives_check, kernels.piece_to
    positions, ply_info, state, tt_table = buffers.positions, buffers.ply_info, buffers.state, buffers.tt_table
    killers, history, counter_moves, continuation = (buffers.killers, buffers.history, buffers.counter_moves,
                                                     buffers.continuation)
    # 1. Count the node, poll for a stop.
    if enter_node(state, ply_info, ply):
        return 0
    pos = positions[ply]
    moves = buffers.move_rows[MOVES]
    keys = buffers.move_rows[KEYS]
    tried = buffers.move_rows[TRIED]
    window = ply_info[WINDOW]
    path = buffers.path
    flags = state[P_FLAGS]
    continuing = (flags & USE_CONTINUATION_HISTORY) != 0
    history_length = state[P_HISTORY]
    position_hash = hash_position(pos)
    path[history_length + ply] = position_hash
    is_pv = beta - alpha > 1
    root = ply == 0
    # The children's cut-node flags as values, not literals: a literal True/False argument makes
    # numba compile a second copy of this recursive function, which its cache cannot link.
    expect_cut = depth == depth
    expect_all = not expect_cut

    if not root:
        # 2. Draws by repetition (along the path and the game history) and by the 50-move rule.
        reversible = kernels.reversible_plies(pos)
        if repeated(path, history_length + ply, min(reversible, window[ply])):
            return DRAW
        fifty = state[P_FIFTY]
        if fifty > 0 and reversible >= fifty:
            if not in_check(pos) or legal_moves(pos, moves[ply]) > 0:
                return DRAW
            return -(MATE - ply)
        if ply >= MAX_PLY - 1:
            return np.int64(evaluate(pos))

        # 3. Mate-distance pruning: no score here can beat a mate found nearer the root.
        alpha = max(alpha, -(MATE - ply))
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha

    # 4. At the horizon, quiescence decides.
    if depth <= 0:
        return quiescence(frame, ply, alpha, beta)

    # 5. Transposition table: its move always, its score when the depth and bound allow.
    # A singular-extension search of this node (step 13) leaves one move out: the stored result
    # is not about the same set of moves, so it neither cuts here nor is stored.
    excluded = ply_info[EXCLUDED_MOVE, ply]
    slot = tt.probe(tt_table, position_hash)
    tt_move = np.int64(-1)
    tt_score = np.int64(-INFINITE)
    tt_bound = np.int64(0)
    tt_depth = np.int64(-1)
    static_eval = np.int64(-INFINITE)
    if slot >= 0:
        word = tt.entry(tt_table, slot)
        tt_move = tt.entry_move(word)
        static_eval = tt.entry_eval(word)
        tt_score = from_table(tt.entry_score(word), ply)
        tt_bound = tt.entry_bound(word)
        tt_depth = tt.entry_depth(word)
        if (not is_pv and excluded < 0 and flags & USE_TT_CUTOFFS and tt_depth >= depth
                and tt.bound_decides(tt_bound, tt_score, alpha, beta)):
            return tt_score

    # 6. Endgame tables: a covered position has its exact value, stored like a deep search's.
    # (The root is played from the tables by the player, before any search.)
    if not root:
        score = table_leaf_score(kernels.noisy_moves, play, kernels.rank, kernels.reversible_plies, tables, state,
                                 pos, ply)
        if score != NO_TABLE_SCORE:
            tt.store(tt_table, position_hash, -1, to_table(score, ply), 0, min(depth + TABLE_DEPTH_BONUS, MAX_PLY),
                     tt.BOUND_EXACT, state[P_GENERATION])
            return score

    # 7. A game the rules have already ended (as far as they tell without counting moves: a
    # line made, dead material); the static evaluation.
    result = outcome(pos, -1)
    if result != K.ONGOING:
        return terminal_score(result, ply)
    checked = in_check(pos)
    if slot < 0 and not checked:
        static_eval = np.int64(evaluate(pos))
    child = positions[ply + 1]
    ply_info[STATIC_EVAL, ply] = NO_EVAL if checked else static_eval
    # [+74 Elo, with the seven; the six without it: +0 [-30, +30] at 50k nodes]
    improving = np.int64(1 if flags & USE_IMPROVING and not checked and is_improving(ply_info, ply) else 0)
    # The pruning steps judge by the stored score where its bound says it is nearer the truth
    # than the static evaluation (switch tt_eval); "improving" keeps comparing static evaluations.
    # [+64 Elo at 50k nodes, with razoring]
    eval_estimate = static_eval
    if (flags & USE_TT_EVAL and slot >= 0 and not checked and abs(tt_score) < MATE_BOUND
            and tt.bound_refines(tt_bound, tt_score, static_eval)):
        eval_estimate = tt_score

    # 8. Internal iterative reduction: a node that matters but has no TT move to try first is
    # searched a ply shallower; the next iteration finds it with a move. [+74 Elo, with the seven;
    # the six without it: -31 at 50k nodes]
    if (flags & USE_IIR and not root and excluded < 0 and tt_move < 0 and depth >= IIR_MIN_DEPTH
            and (is_pv or cut_node)):
        depth -= 1

    # 9. The prover inside the tree (switch mate_probe, off): a checks-only mate search.
    if flags & USE_MATE_PROBE and not root and excluded < 0 and not checked:
        score = probe_mate_here(frame, ply, depth, beta, static_eval, position_hash)
        if state[S_STOPPED]:
            return 0
        if score != NO_MATE:
            return score

    # Forward pruning, before any move is generated (a stalemate is not seen by it).
    if not is_pv and not checked and excluded < 0 and abs(beta) < MATE_BOUND:
        # 10. Reverse futility: far enough above beta that the few plies left will not bring it down.
        if (flags & USE_REVERSE_FUTILITY and depth <= RFP_DEPTH
                and eval_estimate - RFP_MARGIN * (depth - improving) >= beta):
            return eval_estimate

        # 11. Razoring: so far below alpha that only a capture could help; if quiescence agrees,
        # the node fails low without generating its moves. [+64 Elo at 50k nodes, with tt_eval]
        if (flags & USE_RAZORING and depth <= RAZOR_DEPTH
                and eval_estimate + RAZOR_BASE + RAZOR_MARGIN * depth * depth <= alpha):
            score = quiescence(frame, ply, alpha, alpha + 1)
            if state[S_STOPPED]:
                return 0
            if score <= alpha:
                return score

        # 12. Null move: if passing still fails high after a reduced search, so will a real move.
        if (flags & USE_NULL_MOVE and depth >= NULL_MIN_DEPTH and eval_estimate >= beta and window[ply] > 0
                and kernels.play_null(pos, child)):
            reduction = 3 + depth // 4
            window[ply + 1] = 0
            ply_info[PREVIOUS_MOVE, ply + 1] = -1
            ply_info[PREVIOUS_PIECE_TO, ply + 1] = -1
            score = -search(frame, ply + 1, depth - 1 - reduction, -beta, -beta + 1, not cut_node)
            if state[S_STOPPED]:
                return 0
            if score >= beta:
                state[S_NULL_CUTS] += 1
                return beta if score >= MATE_BOUND else score

    # 13. Singular extension with multi-cut [+74 Elo, with the seven; the six without it: -37 at
    # 50k nodes]: when the TT move's stored score is a reliable lower bound, search the node a
    # little shallower without it against a bar below that score. If every other move fails
    # low, the TT move is singular: it is searched a ply deeper. If the bar is above beta and
    # another move still clears it, several moves cut here: the node cuts (multi-cut).
    singular_extension = 0
    if (flags & USE_SINGULAR and not root and excluded < 0 and tt_move >= 0 and depth >= SINGULAR_MIN_DEPTH
            and tt_depth >= depth - SINGULAR_TT_DEPTH and tt_bound != tt.BOUND_UPPER
            and abs(tt_score) < MATE_BOUND and ply < 2 * state[P_ROOT_DEPTH]):
        singular_beta = tt_score - SINGULAR_MARGIN * depth
        ply_info[EXCLUDED_MOVE, ply] = tt_move
        score = search(frame, ply, (depth - 1) // 2, singular_beta - 1, singular_beta, cut_node)
        ply_info[EXCLUDED_MOVE, ply] = -1
        if state[S_STOPPED]:
            return 0
        if score < singular_beta:
            singular_extension = 1
        elif singular_beta >= beta:
            state[S_MULTI_CUTS] += 1
            return singular_beta

    # 14. The moves (the root's: those given), ordered: the TT move, then by the game's key,
    # killers, counter-move and histories (counter-moves and continuation history: [+74 Elo,
    # with the seven]). None: checkmate or stalemate.
    if root:
        count = state[P_ROOT_MOVES]
        for i in range(count):
            moves[0, i] = buffers.root_moves[i]
    else:
        count = legal_moves(pos, moves[ply])
    result = outcome(pos, count)
    if result != K.ONGOING:
        return terminal_score(result, ply)
    previous = ply_info[PREVIOUS_MOVE, ply] if ply > 0 else np.int64(-1)
    counter = counter_moves[ply & 1, previous] if flags & USE_COUNTER_MOVES and previous >= 0 else -1
    context_1 = ply_info[PREVIOUS_PIECE_TO, ply] if continuing and ply >= 1 else np.int64(-1)
    context_2 = ply_info[PREVIOUS_PIECE_TO, ply - 1] if continuing and ply >= 2 else np.int64(-1)
    tt_key = score_moves(kernels.move_keys, piece_to, pos, moves[ply], keys[ply], count, tt_move, killers, history,
                         continuation, ply, np.int64(counter), context_1, context_2)

    # 15. Multi-cut (switch multi_cut, off: it measured a loss): at an expected cut node, if
    # several of the first moves fail high at a reduced depth, one of them will most likely fail
    # high at full depth. (Here, not in a function of its own: numba caches no pair of mutually
    # recursive functions.)
    if (flags & USE_MULTI_CUT and cut_node and not is_pv and not checked and excluded < 0
            and depth >= state[P_MC_DEPTH] and abs(beta) < MATE_BOUND):
        cuts = 0
        for i in range(min(count, state[P_MC_MOVES])):
            move = pick_next(moves[ply], keys[ply], i, count)
            ply_info[PREVIOUS_PIECE_TO, ply + 1] = piece_to(pos, np.int32(move)) if continuing else -1
            play(pos, np.int32(move), child)
            tt.prefetch(tt_table, hash_position(child))
            window[ply + 1] = window[ply] + 1
            ply_info[PREVIOUS_MOVE, ply + 1] = move
            score = -search(frame, ply + 1, depth - 1 - state[P_MC_REDUCTION], -beta, -beta + 1, expect_all)
            if state[S_STOPPED]:
                return 0
            if score >= beta:
                cuts += 1
                if cuts >= state[P_MC_CUTS]:
                    state[S_MULTI_CUTS] += 1
                    return beta

    # 16. Move loop: principal-variation search with late-move reductions (history- and
    # improving-adjusted, SEE pruning: [+74 Elo, with the seven]). Futility and
    # late-move pruning: near the horizon, quiet moves are skipped when the node is far below
    # alpha, or after the first few (never the first move, a check, or in check).
    best = np.int64(-INFINITE)
    best_move = np.int64(-1)
    searched = 0
    quiets_tried = 0
    prunable = flags & USE_FUTILITY and not is_pv and not checked and depth <= FUTILITY_DEPTH
    futile = prunable and eval_estimate + FUTILITY_MARGIN * (depth + 1) <= alpha
    late = LATE_MOVE_COUNT + depth * depth if prunable else NO_LATE_LIMIT
    if prunable and flags & USE_IMPROVING and not improving:
        late = (late + 1) // 2  # a position getting worse: fewer quiet moves deserve a look
    # SEE pruning: [+74 Elo, with the seven; the six without it: -26 [-56, +4] at 50k nodes]
    see_prunable = flags & USE_SEE_PRUNING and not is_pv and not checked and depth <= SEE_PRUNING_DEPTH
    for i in range(count):
        pruning = best > -MATE_BOUND and (futile or searched >= late)
        move = pick_next(moves[ply], keys[ply], i, count)
        if move == excluded:
            continue
        key = np.int64(keys[ply, i])
        if key == TT_MOVE:  # the TT move: the game's own key says what kind of move it is
            key = tt_key
        quiet = is_quiet_key(key)
        checking = gives_check(pos, np.int32(move))
        if pruning and quiet and not checking:
            continue
        if see_prunable and best > -MATE_BOUND and key <= -K.ORDER_NOISY and not checking:
            continue  # a capture the game ranks as losing material, near the horizon
        ply_info[PREVIOUS_PIECE_TO, ply + 1] = piece_to(pos, np.int32(move)) if continuing else -1
        play(pos, np.int32(move), child)
        tt.prefetch(tt_table, hash_position(child))  # the child's bucket loads meanwhile [+10% nodes/s]
        window[ply + 1] = window[ply] + 1
        ply_info[PREVIOUS_MOVE, ply + 1] = move
        # Check extension: switched off, +2.3 Elo [-25.3, +30.0] at 50k nodes (300 games): kept.
        # Not where the node is already decided (CHECK_EXTENSION_DECIDED; a node in check, whose
        # static evaluation is not taken, still extends) [+15 Elo from endgame starts, 25k nodes].
        extension = 1 if (flags & USE_CHECK_EXTENSION and checking and ply < 2 * state[P_ROOT_DEPTH]
                          and (checked or abs(static_eval) < CHECK_EXTENSION_DECIDED)) else 0
        if move == tt_move:
            extension = max(extension, singular_extension)
        new_depth = depth - 1 + extension
        if searched == 0:
            score = -search(frame, ply + 1, new_depth, -beta, -alpha,
                            expect_all if is_pv else not cut_node)
        else:
            reduction = 0
            # A quiet check is reduced only where the node is decided: there the winning side has
            # a check at almost every ply and searching each one at full depth starves the mating
            # line (long mates at 1 s: 243 -> 252 of 260 from 1000 cp, 258 from 800; from endgame
            # starts at 25k nodes -3.3 Elo [-10.9, +4.4] and +2.2 [-7.3, +11.7]).
            if (flags & USE_LMR and quiet and depth >= LMR_MIN_DEPTH and not checked
                    and (not checking or abs(static_eval) >= CHECK_REDUCTION_DECIDED)
                    and searched >= (3 if is_pv else 1)):
                reduction = np.int64(LMR[min(depth, 63), min(searched, 63)])
                if is_pv:
                    reduction -= 1
                if cut_node:
                    reduction += 1
                if flags & USE_IMPROVING and not improving:
                    reduction += 1
                if flags & USE_LMR_HISTORY:
                    reduction -= history[ply & 1, move] // LMR_HISTORY_DIVISOR
                reduction = max(0, min(reduction, new_depth - 1))
            score = -search(frame, ply + 1, new_depth - reduction, -alpha - 1, -alpha, expect_cut)
            if score > alpha and reduction > 0:
                score = -search(frame, ply + 1, new_depth, -alpha - 1, -alpha, not cut_node)
            if is_pv and alpha < score < beta:
                score = -search(frame, ply + 1, new_depth, -beta, -alpha, expect_all)
        if state[S_STOPPED]:
            return 0
        searched += 1
        if score > best:
            best = score
            if score > alpha:
                best_move = move
                alpha = score
                if is_pv:
                    update_pv(buffers.pv, ply_info, ply, move)
                if root:
                    state[S_ROOT_BEST] = move
                    state[S_ROOT_SCORE] = score
                    state[S_ROOT_IMPROVED] = 1
                if alpha >= beta:
                    if quiet:
                        reward_quiet_cutoff(killers, history, counter_moves, ply, move, previous, depth, tried[ply],
                                            quiets_tried)
                        if continuing:
                            reward_continuation(piece_to, pos, continuation, context_1, context_2, move, depth,
                                                tried[ply], quiets_tried)
                    break
        if quiet:
            tried[ply, quiets_tried] = move
            quiets_tried += 1

    # 17. Store the result: a lower bound after a cutoff, exact when a PV move raised alpha.
    if excluded >= 0:
        return best
    if best >= beta:
        bound = tt.BOUND_LOWER
    elif is_pv and best_move >= 0:
        bound = tt.BOUND_EXACT
    else:
        bound = tt.BOUND_UPPER
    tt.store(tt_table, position_hash, best_move, to_table(best, ply),
             static_eval if not checked else 0, depth, bound, state[P_GENERATION])
    return best


@nb.njit(types.int64(KERNEL_ARGUMENTS, BUFFERS, TABLES, types.int64, types.int64, types.int64), cache=True,
         nogil=True)
def search_root(kernels, buffers, tables, depth, alpha, beta):
    """The value of the root, ``positions[0]`` (see :func:`search`); ``kernels``: a
    :class:`SearchKernels` made a plain tuple. The kernels, buffers and
    tables are handed down as one pointer to a copy in this call's frame
    (:func:`runtime.frame.frame_of`), their arrays lent for the call (:mod:`runtime.borrow`):
    the nodes then pay no atomic reference counts for them, a third of the search's time
    otherwise."""
    return search(frame_of((SearchKernels(*kernels), buffers, tables)), 0, depth, alpha, beta, False)
