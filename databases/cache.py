"""A bounded LRU cache of decoded pages, laid out so numba kernels can probe it directly.

Layout (all plain numpy arrays, handed to kernels as arguments)::

    arena[slot, offset]        uint16 codes of the page held in ``slot``
    directory[base + page]     int32 slot holding ``page`` of the table whose pages start at
                               ``base`` in the directory, or -1 when not resident
    last_used[slot]            int64 clock of the last probe that touched the slot (LRU)

A table is given a ``base`` (its first directory entry) when first opened. A probe from a
kernel is ``probe_resident``: a page miss returns ``MISS`` and the caller (Python) loads the page
with :meth:`PageCache.load` and tries again. The byte budget counts the arena.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from databases import format as F

MISS = -1

ARENA = types.Array(types.uint16, 2, "C")
DIRECTORY = types.Array(types.int32, 1, "C")
CLOCKS = types.Array(types.int64, 1, "C")
INDICES = types.Array(types.int64, 1, "C")
CODES = types.Array(types.uint16, 1, "C")


@nb.njit(cache=True, inline="always")
def resident_slot(directory, base, index):
    """The cache slot holding the page of ``index`` of the table whose directory starts at
    ``base``, or -1 if that page is not resident (the one page lookup)."""
    return np.int64(directory[base + (index >> F.PAGE_SHIFT)])


@nb.njit(types.int64(DIRECTORY, types.int64, ARENA, types.int64), cache=True)
def probe_resident(directory, base, arena, index):
    """The code at ``index`` of the table whose directory starts at ``base``, or MISS if its
    page is not resident. Callable from other numba kernels."""
    slot = resident_slot(directory, base, index)
    if slot < 0:
        return MISS
    return np.int64(arena[slot, index & F.PAGE_MASK])


@nb.njit(types.int64(DIRECTORY, types.int64, ARENA, CLOCKS, types.int64, INDICES, CODES),
         cache=True)
def gather_resident(directory, base, arena, last_used, clock, indices, out):
    """Batch probe: ``out[i]`` = code at ``indices[i]``, or UNKNOWN where the page is missing.
    Returns the number of misses. Touched slots get ``clock`` as their last use."""
    misses = 0
    for i in range(indices.shape[0]):
        index = indices[i]
        slot = resident_slot(directory, base, index)
        if slot < 0:
            out[i] = F.UNKNOWN
            misses += 1
        else:
            out[i] = arena[slot, index & F.PAGE_MASK]
            last_used[slot] = clock
    return misses


class PageCache:
    """Decoded pages of any number of tables within a byte budget, evicting the least recently
    used page when full."""

    def __init__(self, byte_budget: int = 64 << 20):
        page_bytes = F.PAGE_ENTRIES * 2
        self.slots = max(2, int(byte_budget) // page_bytes)
        self.arena = np.zeros((self.slots, F.PAGE_ENTRIES), dtype=np.uint16)
        self.last_used = np.zeros(self.slots, dtype=np.int64)
        self.owner = np.full(self.slots, -1, dtype=np.int64)  # directory position held
        self.directory = np.full(0, -1, dtype=np.int32)
        self.clock = 1
        self.free = list(range(self.slots - 1, -1, -1))
        self.loads = 0

    @property
    def byte_budget(self) -> int:
        """Bytes held by the arena."""
        return int(self.arena.nbytes)

    def register(self, pages: int) -> int:
        """Reserve directory room for a table of ``pages`` pages; returns its base."""
        base = self.directory.size
        self.directory = np.concatenate([self.directory, np.full(pages, -1, dtype=np.int32)])
        return base

    def tick(self) -> int:
        """Advance and return the LRU clock."""
        self.clock += 1
        return self.clock

    def load(self, base: int, page: int, codes: np.ndarray) -> int:
        """Make ``codes`` (one decoded page) resident as ``page`` of the table at ``base``,
        evicting the least recently used page if needed. Returns the slot."""
        position = base + page
        slot = int(self.directory[position])
        if slot < 0:
            if self.free:
                slot = self.free.pop()
            else:
                slot = int(np.argmin(self.last_used))
                self.directory[self.owner[slot]] = -1
            self.owner[slot] = position
            self.directory[position] = slot
            self.arena[slot, :codes.size] = codes
            self.loads += 1
        self.last_used[slot] = self.tick()
        return slot

    def clear(self) -> None:
        """Drop every page."""
        self.directory[:] = -1
        self.owner[:] = -1
        self.last_used[:] = 0
        self.free = list(range(self.slots - 1, -1, -1))
