"""The prover inside the tree: a small checks-only mate search near the horizon.

Alpha-beta sees a mate only when its whole line fits under the horizon. Near the horizon, at
nodes where the side to move is at least holding its own, the search asks this module whether a
mate is forced within a few moves by checks alone: the attacker tries only its checking moves,
the defender every reply (all of them evasions). Such a proof is cheap, because checks are few
and the defender's replies to a check fewer still, and it is exactly the kind of mate a
depth-limited search misses: a sequence of checks whose end lies beyond the horizon.

Where the side to move is already far ahead (a static evaluation of at least
``MATE_PROBE_DECISIVE``), mates often start with a quiet move that takes the last squares from
the king (the lone king of a won ending): there the attacker's first move may be quiet, and only
the moves after it must check.

A probe deepens one move at a time (mates in 2, 3, ... ``MATE_PROBE_PLIES`` plies) within a
node budget. A proven mate is a lower bound for the node (a shorter mate by a quiet move may
exist), stored in the transposition table as such with its first move; a failure is remembered
in ``misses`` (a hash-indexed array of position hashes) so the same position is not probed
twice while the player keeps its memory. The probe's nodes count in the search's nodes, and all
probes together may spend at most one node in ``MATE_PROBE_SHARE`` of a search.

A small bounded df-pn in this probe's place (quiet moves of the attacker too, its own table
kept across calls) was built and measured (4aaf7f5): no more mates at 1 s than the search alone,
and its buffers, passed down every call, slowed the search by 8% even when off. It was removed
(docs/benchmarks.md); long mates are the root prover's (solver.search.prover_leaves) and the
search's own: this probe on or off found the same count of long mates at 1 s (245 and 245 of
260, 2026-12-01). The search calls it at its step 9 (``probe_mate_here`` in
solver.search.alphabeta), switch ``mate_probe``, off by default.

The probe uses the search's own per-ply rows above the node (``positions``, ``moves``), which
are free until the node's own move loop starts.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
import runtime.recursion_typing  # noqa: F401  (mate_node calls itself: typed by its signature)

MATE_PROBE_DEPTH = 1  # remaining depth at or below which a node may be probed
MATE_PROBE_MARGIN = 300  # probed when the static evaluation is at most this far below beta (a sacrifice)
MATE_PROBE_PLIES = 7  # the longest mate probed: four moves of the attacker
MATE_PROBE_NODES = 3000  # the budget of one probe
MATE_PROBE_SHARE = 8  # all probes together: at most one node in this many of the search
MATE_PROBE_DECISIVE = 500  # a static evaluation this far ahead lets the first move be quiet
MISSES_SIZE = 1 << 16  # entries of the failure memory (512 KiB)

PROVEN, UNPROVEN, OUT_OF_BUDGET = 1, 0, -1

I32_2D = types.Array(types.int32, 2, "C")
I64_1D = types.Array(types.int64, 1, "C")
U64_1D = types.Array(types.uint64, 1, "C")
U64_2D = types.Array(types.uint64, 2, "C")


def new_misses() -> np.ndarray:
    """An empty failure memory for :func:`probe_mate`."""
    return np.zeros(MISSES_SIZE, dtype=np.uint64)


@nb.njit(cache=True, inline="always")
def missed_before(misses, position_hash):
    """Whether a probe of the position with this hash failed before."""
    return misses[position_hash & np.uint64(MISSES_SIZE - 1)] == position_hash


@nb.njit(types.int64(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.GivesCheckKernel, U64_2D, I32_2D,
                     I64_1D, types.int64, types.int64, types.int64, types.boolean, types.int64, types.int64),
         cache=True, nogil=True)
def mate_node(legal_moves, play, outcome, gives_check, positions, moves, counters, ply, plies_left, node_limit,
              attacking, nodes_slot, stop_slot):
    """Whether the attacker mates from ``positions[ply]`` within ``plies_left`` plies by checks
    alone: ``PROVEN``, ``UNPROVEN`` or ``OUT_OF_BUDGET`` (the node count ``counters[nodes_slot]``
    reached ``node_limit``, or ``counters[stop_slot]`` was raised). ``attacking``: the attacker is
    to move (it tries its checks); otherwise the defender is, in check (it tries every reply)."""
    counters[nodes_slot] += 1
    if counters[nodes_slot] >= node_limit or counters[stop_slot] != 0:
        return OUT_OF_BUDGET
    pos = positions[ply]
    count = legal_moves(pos, moves[ply])
    result = outcome(pos, count)
    if not attacking:
        if result == K.LOSS:
            return PROVEN  # the defender is mated
        if result != K.ONGOING or plies_left <= 0:
            return UNPROVEN
    elif result != K.ONGOING or plies_left <= 0:
        return UNPROVEN
    child = positions[ply + 1]
    for i in range(count):
        move = moves[ply, i]
        if attacking and not gives_check(pos, move):
            continue
        play(pos, move, child)
        found = mate_node(legal_moves, play, outcome, gives_check, positions, moves, counters, ply + 1,
                          plies_left - 1, node_limit, not attacking, nodes_slot, stop_slot)
        if found == OUT_OF_BUDGET:
            return found
        if attacking and found == PROVEN:
            return PROVEN
        if not attacking and found != PROVEN:
            return UNPROVEN
    return UNPROVEN if attacking else PROVEN


@nb.njit(types.UniTuple(types.int64, 2)(K.LegalMovesKernel, K.PlayKernel, K.OutcomeKernel, K.GivesCheckKernel,
                                        U64_2D, I32_2D, I64_1D, U64_1D, types.uint64, types.int64, types.int64,
                                        types.int64, types.int64, types.int64, types.boolean),
         cache=True, nogil=True)
def probe_mate(legal_moves, play, outcome, gives_check, positions, moves, counters, misses, position_hash, ply,
               max_plies, node_limit, nodes_slot, stop_slot, quiet_first):
    """A checks-only mate for the side to move at ``positions[ply]`` (with ``quiet_first``, the
    first move may be quiet; the checks are tried first): (plies to mate, first move), or
    (0, -1) when none is found within ``max_plies`` plies before ``counters[nodes_slot]``
    reaches ``node_limit`` (the position is then remembered in ``misses`` and not probed again;
    unless ``counters[stop_slot]`` was raised). Mates in one are left to the search; the probe
    deepens from mates in two moves."""
    pos = positions[ply]
    child = positions[ply + 1]
    plies = 3
    count = legal_moves(pos, moves[ply])  # the children use the rows above this one
    while plies <= max_plies:
        out_of_budget = False
        for checks in (True, False):  # the checks, then (quiet_first) the other moves
            if not checks and not quiet_first:
                break
            for i in range(count):
                move = moves[ply, i]
                if gives_check(pos, move) != checks:
                    continue
                play(pos, move, child)
                found = mate_node(legal_moves, play, outcome, gives_check, positions, moves, counters, ply + 1,
                                  plies - 1, node_limit, False, nodes_slot, stop_slot)
                if found == PROVEN:
                    return plies, np.int64(move)
                if found == OUT_OF_BUDGET:
                    out_of_budget = True
                    break
            if out_of_budget:
                break
        if out_of_budget:
            break  # ends the deepening
        plies += 2
    if counters[stop_slot] == 0:
        misses[position_hash & np.uint64(MISSES_SIZE - 1)] = position_hash
    return 0, np.int64(-1)
