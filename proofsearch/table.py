"""The df-pn transposition table: a fixed-size array of entries in buckets of four.

Entry layout (one row of a ``uint64[size, 3]`` array)::

    word 0   key: the position's 64-bit hash mixed with the search's salt (0 = empty slot)
    word 1   bits  0-31  phi   (0xFFFFFFFF = infinity)
             bits 32-63  delta (0xFFFFFFFF = infinity)
    word 2   bits  0-31  work: nodes expanded below this entry when it was stored (saturating)
             bits 32-39  generation of the search that stored it
             bits 40-47  flags (FLAG_BOUNDED: the proof or disproof leans on the depth horizon)
             bits 48-63  length of a solved entry: plies from the position to the end of the
                         game along the proof or disproof the search found (saturating; 0 while
                         unsolved). For a proven ``win`` it bounds the mate: mate within that
                         many plies, not necessarily the shortest.

phi and delta are seen from the side to move, whose own goal is part of the key (the attacker's
goal at its nodes, the dual goal at the defender's: ``win`` and ``draw`` are each other's
duals), so searches from different roots share entries.

Index: ``key & (size - 1)`` rounded down to a multiple of four picks a bucket of four
consecutive rows; a probe scans the bucket for the full key.

Replacement rule: a store overwrites the row holding the same key; otherwise it takes an empty
row, else a row from an older generation, else the row with the least work (ties: the first).
Solved entries are stored like any other, so a solved position that cost much work is kept
longest. Only path-independent results are ever stored as solved (see :mod:`proofsearch.dfpn`),
so an entry never carries a repetition-dependent proof or disproof: this is the graph-history
interaction rule.

Memory is ``24 * size`` bytes, fixed when the table is made.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

INFINITY = 0xFFFFFFFF  # proof/disproof number of a solved node's losing side
BUCKET = 4
WORDS = 3
FLAG_BOUNDED = 1
WORK_MASK = 0xFFFFFFFF
LENGTH_MASK = 0xFFFF

TABLE = types.Array(types.uint64, 2, "C")
# The array types of the search kernels' buffers (one place for df-pn, alpha-beta and the walk).
INT32_2D = types.Array(types.int32, 2, "C")
INT64_1D = types.Array(types.int64, 1, "C")
INT64_2D = types.Array(types.int64, 2, "C")
INT64_3D = types.Array(types.int64, 3, "C")
UINT64_1D = types.Array(types.uint64, 1, "C")
UINT64_2D = types.Array(types.uint64, 2, "C")


@intrinsic
def _prefetch_address(typingctx, address):
    """Hint the processor to bring the cache line at ``address`` (an integer) in (LLVM's
    ``llvm.prefetch``: a read, kept in every cache level). Never faults."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i8_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [i8_pointer, i32, i32, i32]))
        pointer = builder.inttoptr(args[0], i8_pointer)
        builder.call(function, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(address), codegen


@nb.njit(types.void(TABLE, types.uint64), cache=True, inline="always")
def prefetch(table, key):
    """Start loading the bucket of ``key`` into the cache, so that a later :func:`probe` or
    :func:`store` of it does not wait on memory. A bucket spans two cache lines."""
    mask = types.uint64(table.shape[0] - 1)
    base = np.int64(key & mask) & ~np.int64(BUCKET - 1)
    address = table.ctypes.data + base * (WORDS * 8)
    _prefetch_address(address)
    _prefetch_address(address + BUCKET * WORDS * 8 - 1)


@nb.njit(types.int64(TABLE, types.uint64), cache=True)
def probe(table, key):
    """Row index holding ``key``, or -1."""
    mask = types.uint64(table.shape[0] - 1)
    base = np.int64(key & mask) & ~np.int64(BUCKET - 1)
    for row in range(base, base + BUCKET):
        if table[row, 0] == key:
            return row
    return -1


@nb.njit(types.int64(TABLE, types.int64), cache=True, inline="always")
def entry_length(table, row):
    """The length (plies to the end along its solution) stored in a solved row."""
    return np.int64(table[row, 2] >> types.uint64(48))


@nb.njit(types.void(TABLE, types.uint64, types.int64, types.int64, types.int64, types.int64,
                    types.int64, types.int64), cache=True)
def store(table, key, pn, dn, work, flags, generation, length):
    """Store an entry by the replacement rule in the module docstring."""
    mask = types.uint64(table.shape[0] - 1)
    base = np.int64(key & mask) & ~np.int64(BUCKET - 1)
    victim = -1
    victim_score = np.int64(1) << 62
    for row in range(base, base + BUCKET):
        stored = table[row, 0]
        if stored == key:
            victim = row
            break
        if stored == 0:
            score = np.int64(-2)
        elif np.int64((table[row, 2] >> types.uint64(32)) & types.uint64(0xFF)) != generation:
            score = np.int64(-1)
        else:
            score = np.int64(table[row, 2] & types.uint64(WORK_MASK))
        if score < victim_score:
            victim_score = score
            victim = row
    if work > WORK_MASK:
        work = WORK_MASK
    length = min(max(length, 0), LENGTH_MASK)
    table[victim, 0] = key
    table[victim, 1] = types.uint64(pn) | (types.uint64(dn) << types.uint64(32))
    table[victim, 2] = (types.uint64(work) | (types.uint64(generation & 0xFF) << types.uint64(32))
                        | (types.uint64(flags & 0xFF) << types.uint64(40)) | (types.uint64(length) << types.uint64(48)))


# Mixed into a key: the goal of the side to move (when it is the dual one) and the remaining depth.
DEPTH_SALT = np.uint64(0x9E3779B97F4A7C15)
GOAL_SALT = np.uint64(0xD6E8FEB86659FD93)


@nb.njit(types.uint64(types.uint64, types.uint64, types.int64, types.int64, types.int64), cache=True,
         inline="always")
def table_key(position_hash, salt, goal, max_depth, ply):
    """The table key of a position at ``ply``: its hash, the table's salt, the goal of the side
    to move there (the root's goal at even plies, its dual at odd ones) and, under a depth bound,
    the remaining depth."""
    key = position_hash ^ salt
    if (goal ^ (ply & 1)) != 0:
        key ^= GOAL_SALT
    if max_depth >= 0:
        key ^= types.uint64(max_depth - ply + 1) * DEPTH_SALT
    if key == 0:
        key = types.uint64(1)
    return key


@nb.njit(types.UniTuple(types.int64, 2)(TABLE, types.int64), cache=True, inline="always")
def read_entry(table, row):
    """(phi, delta) of a table row."""
    word = table[row, 1]
    return np.int64(word & types.uint64(0xFFFFFFFF)), np.int64(word >> types.uint64(32))


class TranspositionTable:
    """A fixed-size table (``size`` rows, a power of two >= 4) reused across searches.

    Each search takes a new generation: entries of earlier searches stay valid (they hold only
    path-independent results) but are the first to be replaced. The salt, fixed per table,
    keeps keys of unrelated tables apart.
    """

    def __init__(self, size: int = 1 << 20):
        if size < BUCKET or size & (size - 1):
            raise ValueError(f"table size must be a power of two >= {BUCKET}, got {size}")
        self.size = size
        self.rows = np.zeros((size, WORDS), dtype=np.uint64)
        self.generation = 0
        self.salt = int(np.random.default_rng().integers(1, 2**63, dtype=np.int64))

    @classmethod
    def from_megabytes(cls, megabytes: float) -> "TranspositionTable":
        """The largest power-of-two table that fits in ``megabytes``."""
        rows = max(BUCKET, int(megabytes * 2**20) // (8 * WORDS))
        return cls(1 << (rows.bit_length() - 1))

    def new_search(self) -> int:
        """The generation number of a new search."""
        self.generation = (self.generation + 1) & 0xFF
        return self.generation

    def clear(self) -> None:
        """Forget every entry."""
        self.rows[:] = 0
