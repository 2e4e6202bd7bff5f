"""The df-pn transposition table: a fixed-size array of buckets, each one 64-byte cache line
holding three entries.

Bucket layout (one row of a ``uint64[buckets, 8]`` array, aligned on a cache line)::

    words 0-2   the three entries' keys: a position's 64-bit hash mixed with the search's
                salt (0 = empty slot)
    words 3-5   the three entries' numbers: bits 0-31 phi, bits 32-63 delta (0xFFFFFFFF =
                infinity)
    word 6      the metadata of entries 0 (bits 0-31) and 1 (bits 32-63)
    word 7      the metadata of entry 2 (bits 0-31; bits 32-63 unused)

Metadata (32 bits)::

    bits  0-7   work: nodes expanded below this entry when it was stored, on a logarithmic
                scale (four steps per power of two; see :func:`work_code`)
    bits  8-13  generation of the search that stored it (modulo 64)
    bits 14-15  flags (FLAG_BOUNDED: the proof or disproof leans on the depth horizon)
    bits 16-31  length of a solved entry: plies from the position to the end of the game along
                the proof or disproof the search found (saturating; 0 while unsolved). For a
                proven ``win`` it bounds the mate: mate within that many plies, not
                necessarily the shortest.

An entry is named by its *slot*, ``bucket * 4 + i`` (``i`` in 0-2). A probe reads one cache line:
with entries of 24 bytes in buckets of four it read two.

phi and delta are seen from the side to move, whose own goal is part of the key (the attacker's
goal at its nodes, the dual goal at the defender's: ``win`` and ``draw`` are each other's
duals), so searches from different roots share entries.

Index: ``key & (buckets - 1)`` picks the bucket; a probe scans its three keys for the full key.

Replacement rule: a store overwrites the entry holding the same key; otherwise it takes an empty
slot, else one from an older generation, else the one with the least work (ties: the first).
Solved entries are stored like any other, so a solved position that cost much work is kept
longest. Only path-independent results are ever stored as solved (see :mod:`proofsearch.dfpn`),
so an entry never carries a repetition-dependent proof or disproof: this is the graph-history
interaction rule.

Memory is ``16 * size`` bytes for ``size`` slots (``3 * size / 4`` entries), fixed when the
table is made.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.cpython.unsafe.numbers import leading_zeros
from numba.extending import intrinsic

from runtime.memory import cache_line_aligned_zeros

INFINITY = 0xFFFFFFFF  # proof/disproof number of a solved node's losing side
ENTRIES = 3  # entries in a bucket
SLOTS = 4  # slot numbers a bucket takes (``slot = bucket * SLOTS + i``)
BUCKET_WORDS = 8  # one 64-byte cache line
KEY_WORD, NUMBERS_WORD, META_WORD = 0, 3, 6
FLAG_BOUNDED = 1
GENERATIONS = 64
LENGTH_MASK = 0xFFFF
M32 = 0xFFFFFFFF

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


@nb.njit(cache=True, inline="always")
def prefetch(table, key):
    """Start loading the bucket of ``key`` into the cache, so that a later :func:`probe` or
    :func:`store` of it does not wait on memory."""
    bucket = np.int64(key & types.uint64(table.shape[0] - 1))
    _prefetch_address(table.ctypes.data + bucket * (BUCKET_WORDS * 8))


@nb.njit(types.int64(TABLE, types.uint64), cache=True)
def probe(table, key):
    """Slot holding ``key``, or -1."""
    bucket = np.int64(key & types.uint64(table.shape[0] - 1))
    for i in range(ENTRIES):
        if table[bucket, KEY_WORD + i] == key:
            return bucket * SLOTS + i
    return -1


@nb.njit(cache=True, inline="always")
def _metadata(table, slot):
    """The 32 metadata bits of ``slot`` (layout in the module docstring)."""
    i = slot & (SLOTS - 1)
    return (table[slot >> 2, META_WORD + (i >> 1)] >> types.uint64(32 * (i & 1))) & types.uint64(M32)


@nb.njit(cache=True, inline="always")
def entry_length(table, slot):
    """The length (plies to the end along its solution) stored in a solved slot."""
    return np.int64(_metadata(table, slot) >> types.uint64(16))


@nb.njit(cache=True, inline="always")
def entry_flags(table, slot):
    """The flags (``FLAG_BOUNDED``) stored in a slot."""
    return np.int64(_metadata(table, slot) >> types.uint64(14)) & 3


@nb.njit(cache=True, inline="always")
def work_code(work):
    """``work`` (nodes, >= 0) in 8 bits, increasing with it: four steps per power of two."""
    if work <= 0:
        return np.int64(0)
    top = 63 - np.int64(leading_zeros(types.uint64(work)))  # the index of the highest set bit
    below = ((work << 2) >> top) & 3  # the two bits under the highest
    return min(np.int64(4) * (top + 1) + below, np.int64(255))


@nb.njit(types.void(TABLE, types.uint64, types.int64, types.int64, types.int64, types.int64,
                    types.int64, types.int64), cache=True)
def store(table, key, pn, dn, work, flags, generation, length):
    """Store an entry by the replacement rule in the module docstring."""
    bucket = np.int64(key & types.uint64(table.shape[0] - 1))
    generation &= GENERATIONS - 1
    victim = -1
    victim_score = np.int64(1) << 62
    for i in range(ENTRIES):
        stored = table[bucket, KEY_WORD + i]
        if stored == key:
            victim = i
            break
        meta = _metadata(table, bucket * SLOTS + i)
        if stored == 0:
            score = np.int64(-2)
        elif np.int64((meta >> types.uint64(8)) & types.uint64(GENERATIONS - 1)) != generation:
            score = np.int64(-1)
        else:
            score = np.int64(meta & types.uint64(0xFF))
        if score < victim_score:
            victim_score = score
            victim = i
    length = min(max(length, 0), LENGTH_MASK)
    meta = (types.uint64(work_code(work)) | (types.uint64(generation) << types.uint64(8))
            | (types.uint64(flags & 3) << types.uint64(14)) | (types.uint64(length) << types.uint64(16)))
    table[bucket, KEY_WORD + victim] = key
    table[bucket, NUMBERS_WORD + victim] = types.uint64(pn) | (types.uint64(dn) << types.uint64(32))
    shift = types.uint64(32 * (victim & 1))
    word = META_WORD + (victim >> 1)
    table[bucket, word] = (table[bucket, word] & ~(types.uint64(M32) << shift)) | (meta << shift)


# Mixed into a key: the goal of the side to move (when it is the dual one) and the remaining depth.
# The goal's salt leaves the low 40 bits alone, so that a position's entries for both goals
# share a bucket (one cache line): a search for one goal reads the other's at no memory cost.
DEPTH_SALT = np.uint64(0x9E3779B97F4A7C15)
GOAL_SALT = np.uint64(0xE8FEB80000000000)


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True, inline="always")
def other_goal_key(key):
    """The key of the same position (and depth) for the other goal of its mover: ``win`` for
    ``draw`` and back. It names a slot in the same bucket."""
    return key ^ GOAL_SALT


@nb.njit(cache=True, inline="always")
def read_entry(table, slot):
    """(phi, delta) of a slot."""
    word = table[slot >> 2, NUMBERS_WORD + (slot & (SLOTS - 1))]
    return np.int64(word & types.uint64(M32)), np.int64(word >> types.uint64(32))


@nb.njit(cache=True, inline="always")
def is_disproven(table, slot):
    """Whether a slot holds a disproof for its mover (phi infinite, delta 0)."""
    phi, delta = read_entry(table, slot)
    return phi == INFINITY and delta == 0


class TranspositionTable:
    """A fixed-size table of ``size`` slots (a power of two >= 4; three entries for every four
    slots) reused across searches.

    Each search takes a new generation: entries of earlier searches stay valid (they hold only
    path-independent results) but are the first to be replaced. The salt, fixed per table,
    keeps keys of unrelated tables apart.
    """

    def __init__(self, size: int = 1 << 20):
        if size < SLOTS or size & (size - 1):
            raise ValueError(f"table size must be a power of two >= {SLOTS}, got {size}")
        self.size = size
        buckets = size // SLOTS
        self.rows = cache_line_aligned_zeros(buckets * BUCKET_WORDS).reshape(buckets, BUCKET_WORDS)
        self.generation = 0
        self.salt = int(np.random.default_rng().integers(1, 2**63, dtype=np.int64))

    @classmethod
    def from_megabytes(cls, megabytes: float) -> "TranspositionTable":
        """The largest power-of-two table that fits in ``megabytes``."""
        slots = max(SLOTS, int(megabytes * 2**20) // (BUCKET_WORDS * 8 // SLOTS))
        return cls(1 << (slots.bit_length() - 1))

    def new_search(self) -> int:
        """The generation number of a new search."""
        self.generation = (self.generation + 1) % GENERATIONS
        return self.generation

    def clear(self) -> None:
        """Forget every entry."""
        self.rows[:] = 0
