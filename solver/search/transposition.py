"""The transposition table: a fixed-size array of buckets, partial keys, depth/age replacement.

Layout. ``keys`` (uint32) and ``data`` (uint64) are parallel arrays of ``4 * buckets`` entries;
``buckets`` is a power of two and a position's bucket is the low bits of its hash. The key stored
is the hash's upper 32 bits (a partial key: the bucket index supplies the low bits, so a false
match needs both halves to collide). One data word per entry::

     63      58 57 56 55        48 47               32 31               16 15                0
    +----------+-----+------------+-------------------+-------------------+------------------+
    | generat. |bound|   depth    |  static eval      |  score            |  move + 1        |
    +----------+-----+------------+-------------------+-------------------+------------------+
    bound: 0 = empty, 1 = upper (all moves failed low), 2 = lower (a move failed high), 3 = exact.
    depth: remaining depth of the search that stored it (0 = quiescence). score and eval: int16,
    the score adjusted by ``scores.to_table``. move: 0 = none. generation: the search that wrote
    it, modulo 64.

Replacement. A store overwrites the entry with the same key, unless that entry is from this
search, deeper by more than two plies and the new one is not exact (the deeper result is worth
more); otherwise it takes the entry that is worth least: the shallowest, with 8 plies of depth
credited per search of age.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

BUCKET = 4
BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3
ENTRY_BYTES = 12  # 4 key + 8 data
KEYS = types.Array(types.uint32, 1, "C")
DATA = types.Array(types.uint64, 1, "C")

U64 = types.uint64
M16 = types.uint64(0xFFFF)


@nb.njit(types.int64(KEYS, DATA, types.uint64), cache=True, inline="always")
def probe(keys, data, position_hash):
    """The slot of the entry for ``position_hash``, or -1 when the table has none."""
    bucket = np.int64(position_hash & types.uint64(keys.shape[0] // BUCKET - 1)) * BUCKET
    key = types.uint32(position_hash >> types.uint64(32))
    for slot in range(bucket, bucket + BUCKET):
        if keys[slot] == key and data[slot] != 0:
            return slot
    return -1


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def entry_move(word):
    """The move of an entry, -1 for none."""
    return np.int64(word & M16) - 1


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def entry_score(word):
    """The stored (table-relative) score of an entry."""
    return np.int64(np.int16(types.uint16((word >> types.uint64(16)) & M16)))


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def entry_eval(word):
    """The static evaluation stored with an entry."""
    return np.int64(np.int16(types.uint16((word >> types.uint64(32)) & M16)))


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def entry_depth(word):
    """The remaining depth of the search that stored an entry."""
    return np.int64((word >> types.uint64(48)) & types.uint64(0xFF))


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def entry_bound(word):
    """BOUND_UPPER, BOUND_LOWER or BOUND_EXACT."""
    return np.int64((word >> types.uint64(56)) & types.uint64(3))


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def entry_generation(word):
    """The generation (search counter modulo 64) that wrote an entry."""
    return np.int64(word >> types.uint64(58))


@nb.njit(types.void(KEYS, DATA, types.uint64, types.int64, types.int64, types.int64, types.int64,
                    types.int64, types.int64), cache=True)
def store(keys, data, position_hash, move, score, static_eval, depth, bound, generation):
    """Record a search result (``score`` already adjusted by ``scores.to_table``)."""
    bucket = np.int64(position_hash & types.uint64(keys.shape[0] // BUCKET - 1)) * BUCKET
    key = types.uint32(position_hash >> types.uint64(32))
    victim = bucket
    victim_worth = np.int64(1) << 40
    for slot in range(bucket, bucket + BUCKET):
        word = data[slot]
        if word == 0:
            if victim_worth > -(np.int64(1) << 40):
                victim, victim_worth = slot, -(np.int64(1) << 40)
            continue
        if keys[slot] == key:
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
    keys[victim] = key
    data[victim] = (types.uint64(move + 1) & M16
                    | (types.uint64(types.uint16(np.int16(score))) << types.uint64(16))
                    | (types.uint64(types.uint16(np.int16(static_eval))) << types.uint64(32))
                    | (types.uint64(min(depth, 255)) << types.uint64(48))
                    | (types.uint64(bound) << types.uint64(56))
                    | (types.uint64(generation & 63) << types.uint64(58)))


@nb.njit(types.int64(DATA, types.int64), cache=True)
def permille_used(data, generation):
    """UCI ``hashfull``: entries of this generation among the first thousand, in permille."""
    sample = min(1000, data.shape[0])
    used = 0
    for slot in range(sample):
        if data[slot] != 0 and entry_generation(data[slot]) == (generation & 63):
            used += 1
    return used * 1000 // sample


class TranspositionTable:
    """The two arrays of the table, sized from a byte budget."""

    def __init__(self, megabytes: float = 16):
        entries = max(BUCKET, int(megabytes * 2 ** 20) // ENTRY_BYTES)
        buckets = 1 << max(0, (entries // BUCKET).bit_length() - 1)  # a power of two
        self.keys = np.zeros(buckets * BUCKET, dtype=np.uint32)
        self.data = np.zeros(buckets * BUCKET, dtype=np.uint64)

    @property
    def megabytes(self) -> float:
        """The memory the table takes."""
        return (self.keys.nbytes + self.data.nbytes) / 2 ** 20

    def clear(self) -> None:
        """Forget every entry."""
        self.keys.fill(0)
        self.data.fill(0)

    def hashfull(self, generation: int) -> int:
        """Permille of sampled entries written by the search of ``generation``."""
        return int(permille_used(self.data, generation))
