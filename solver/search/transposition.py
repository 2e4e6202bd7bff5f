"""The transposition table: a fixed-size array of buckets, partial keys, depth/age replacement.

Layout. ``table`` is a uint64 array of ``buckets`` rows of eight words, one 64-byte cache line
per bucket of four entries, so that a probe reads one line; ``buckets`` is a power of two and a
position's bucket is the low bits of its hash. Words 0 and 1 hold the four entries' keys, two
32-bit keys to a word (entry ``j`` in word ``j >> 1``, upper half when ``j`` is odd): the hash's
upper 32 bits, a partial key (the bucket index supplies the low bits, so a false match needs both
halves to collide). Words 2 to 5 are the entries' data, one word each; words 6 and 7 are unused.
A slot number is ``4 * bucket + j``. One data word per entry::

Replacement. A store overwrites the entry with the same key, unless that entry is from this
search, deeper by more than two plies and the new one is not exact (the deeper result is worth
more); otherwise it takes the entry that is worth least: the shallowest, with 8 plies of depth
credited per search of age.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from runtime.memory import cache_line_aligned_zeros, prefetch_row

BUCKET = 4
BUCKET_WORDS = 8  # 64 bytes: one cache line
DATA_WORD = 2  # the first entry's data word
BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3
TABLE = types.Array(types.uint64, 2, "C")
M32 = types.uint64(0xFFFFFFFF)

U64 = types.uint64
M16 = types.uint64(0xFFFF)


@nb.njit(cache=True, inline="always")
def entry_key(table, slot):
    """The partial key stored in ``slot``."""
    shift = types.uint64(32 * (slot & 1))
    return (table[slot >> 2, (slot & 3) >> 1] >> shift) & M32


@nb.njit(cache=True, inline="always")
def entry(table, slot):
    """The data word of ``slot`` (0: empty)."""
    return table[slot >> 2, DATA_WORD + (slot & 3)]


@nb.njit(cache=True, inline="always")
def bucket_of(table, position_hash):
    """The bucket (row of ``table``) that holds the entry of ``position_hash``: its low bits."""
    return np.int64(position_hash & types.uint64(table.shape[0] - 1))


@nb.njit(cache=True, inline="always")
def prefetch(table, position_hash):
    """Start loading the bucket of ``position_hash`` from memory and return at once: called
    right after a move is made, so that the child's probe finds its bucket in the cache."""
    prefetch_row(table, bucket_of(table, position_hash))


@nb.njit(cache=True, inline="always")
def probe(table, position_hash):
    """The slot of the entry for ``position_hash``, or -1 when the table has none."""
    first = bucket_of(table, position_hash) * BUCKET
    key = position_hash >> types.uint64(32)
    for slot in range(first, first + BUCKET):
        if entry_key(table, slot) == key and entry(table, slot) != 0:
            return slot
    return -1


@nb.njit(cache=True, inline="always")
def entry_move(word):
    """The move of an entry, -1 for none."""
    return np.int64(word & M16) - 1


@nb.njit(cache=True, inline="always")
def entry_score(word):
    """The stored (table-relative) score of an entry."""
    return np.int64(np.int16(types.uint16((word >> types.uint64(16)) & M16)))


@nb.njit(cache=True, inline="always")
def entry_eval(word):
    """The static evaluation stored with an entry."""
    return np.int64(np.int16(types.uint16((word >> types.uint64(32)) & M16)))


@nb.njit(cache=True, inline="always")
def entry_depth(word):
    """The remaining depth of the search that stored an entry."""
    return np.int64((word >> types.uint64(48)) & types.uint64(0xFF))


@nb.njit(cache=True, inline="always")
def entry_bound(word):
    """BOUND_UPPER, BOUND_LOWER or BOUND_EXACT."""
    return np.int64((word >> types.uint64(56)) & types.uint64(3))


@nb.njit(cache=True, inline="always")
def entry_generation(word):
    """The generation (search counter modulo 64) that wrote an entry."""
    return np.int64(word >> types.uint64(58))


@nb.njit(cache=True, inline="always")
def bound_decides(bound, score, alpha, beta):
    """Whether a stored ``score`` with its ``bound`` settles a node searched with (alpha, beta):
    exact, a lower bound at or above beta, or an upper bound at or below alpha."""
    return bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta) or (
        bound == BOUND_UPPER and score <= alpha)


@nb.njit(cache=True, inline="always")
def bound_refines(bound, score, estimate):
    """Whether a stored ``score`` with its ``bound`` is a better guess of the node's value than
    ``estimate``: exact, a lower bound above it, or an upper bound below it."""
    return bound == BOUND_EXACT or (bound == BOUND_LOWER and score > estimate) or (
        bound == BOUND_UPPER and score < estimate)


@nb.njit(types.void(TABLE, types.uint64, types.int64, types.int64, types.int64, types.int64, types.int64,
                    types.int64), cache=True)
def store(table, position_hash, move, score, static_eval, depth, bound, generation):
    """Record a search result (``score`` already adjusted by ``scores.to_table``)."""
    first = bucket_of(table, position_hash) * BUCKET
    key = position_hash >> types.uint64(32)
    victim = first
    victim_worth = np.int64(1) << 40
    for slot in range(first, first + BUCKET):
        word = entry(table, slot)
        if word == 0:
            if victim_worth > -(np.int64(1) << 40):
                victim, victim_worth = slot, -(np.int64(1) << 40)
            continue
        if entry_key(table, slot) == key:
            if (entry_generation(word) == generation and entry_depth(word) > depth + 2
                    and bound != BOUND_EXACT):
                return
            if move < 0:
                move = entry_move(word)  # keep the known best move
            victim = slot
            break
        age = (generation - entry_generation(word)) & 63
        worth = entry_depth(word) - 8 * age
        if worth < victim_worth:
            victim, victim_worth = slot, worth
    row = victim >> 2
    key_word = (victim & 3) >> 1
    shift = types.uint64(32 * (victim & 1))
    table[row, key_word] = (table[row, key_word] & ~(M32 << shift)) | (key << shift)
    table[row, DATA_WORD + (victim & 3)] = (
        types.uint64(move + 1) & M16
        | (types.uint64(types.uint16(np.int16(score))) << types.uint64(16))
        | (types.uint64(types.uint16(np.int16(static_eval))) << types.uint64(32))
        | (types.uint64(min(depth, 255)) << types.uint64(48))
        | (types.uint64(bound) << types.uint64(56))
        | (types.uint64(generation & 63) << types.uint64(58)))


@nb.njit(types.int64(TABLE, types.int64), cache=True)
def permille_used(table, generation):
    """UCI ``hashfull``: entries of this generation among the first thousand, in permille."""
    sample = min(1000, table.shape[0] * BUCKET)
    used = 0
    for slot in range(sample):
        word = entry(table, slot)
        if word != 0 and entry_generation(word) == (generation & 63):
            used += 1
    return used * 1000 // sample


class TranspositionTable:
    """The table's array, sized from a byte budget (the largest power of two of buckets that
    fits)."""

    def __init__(self, megabytes: float = 16):
        buckets = max(1, int(megabytes * 2 ** 20) // (BUCKET_WORDS * 8))
        buckets = 1 << (buckets.bit_length() - 1)
        self.table = cache_line_aligned_zeros(buckets * BUCKET_WORDS).reshape(buckets, BUCKET_WORDS)

    @property
    def megabytes(self) -> float:
        """The memory the table takes."""
        return self.table.nbytes / 2 ** 20

    def clear(self) -> None:
        """Forget every entry."""
        self.table.fill(0)

    def hashfull(self, generation: int) -> int:
        """Permille of sampled entries written by the search of ``generation``."""
        return int(permille_used(self.table, generation))
