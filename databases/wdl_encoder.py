"""The encoder of packed WDL50 blocks: the packer's side of :mod:`databases.wdl_coder` (which
describes the format and holds the decoder, all a probe needs; a search or a server never
compiles this module's kernels). A table's stored values are laid out in tiles
(:func:`tile_values`), its model counted over them (:func:`table_model`), and its blocks coded
on every thread, each decoded again and compared (:func:`encode_blocks`).

>>> import numpy as np
>>> values = np.repeat(np.array([4, 2, 0, 2], dtype=np.uint8), 2048)
>>> model = table_model(values, (64, 64, 2))
>>> out = np.zeros(encode_bound(), dtype=np.uint8)
>>> size = encode_block(model, values, out)
>>> stream = np.concatenate([model, out[:size]])
>>> decoded = np.zeros(BLOCK, dtype=np.uint8)
>>> int(decode_block(stream, 0, MODEL_BYTES, stream.size, decoded)), bool((decoded == values).all())
(8192, True)
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange, types

from databases.wdl_coder import (ADAPT_SHIFT, BLOCK, BYTES, CONTEXTS, I64, MASK32, MODEL_BYTES, PLACE,
                                 PLACES, PROB_BITS, PROB_ONE, TILE, TOP, context_at, decode_block,
                                 model_dimensions, read_probabilities)


@nb.njit(types.void(BYTES, types.int64, types.int64, types.int64, BYTES), cache=True,
         parallel=True)
def tile_values(values, d0, d1, d2, tiled):
    """``tiled``: ``values`` (a table's stored bytes in index order) block by block, each
    block its tile's entries in place order; padding repeats the entry before it. (Each
    block is written alone: on every thread.)"""
    n0 = (d0 + TILE[0] - 1) // TILE[0]
    n1 = (d1 + TILE[1] - 1) // TILE[1]
    n2 = (d2 + TILE[2] - 1) // TILE[2]
    slabs = values.size // (d0 * d1 * d2)
    for block in prange(slabs * n2 * n1 * n0):
        k0 = block % n0
        k1 = block // n0 % n1
        k2 = block // (n0 * n1) % n2
        rest = block // (n0 * n1 * n2)
        base = block * BLOCK
        last = values[((rest * d2 + k2 * TILE[2]) * d1 + k1 * TILE[1]) * d0 + k0 * TILE[0]]
        for y2 in range(TILE[2]):
            x2 = k2 * TILE[2] + y2
            for y1 in range(TILE[1]):
                x1 = k1 * TILE[1] + y1
                for y0 in range(TILE[0]):
                    x0 = k0 * TILE[0] + y0
                    if x0 < d0 and x1 < d1 and x2 < d2:
                        last = values[((rest * d2 + x2) * d1 + x1) * d0 + x0]
                    tiled[base + (y2 * TILE[1] + y1) * TILE[0] + y0] = last


COUNTED_BLOCKS = 256  # blocks a task of count_decisions counts (sums independent of threads)


@nb.njit(types.void(BYTES, types.int64, I64, I64), cache=True, parallel=True)
def count_decisions(tiled, blocks, zeros, ones):
    """Add the decisions that coding the first ``blocks`` blocks of ``tiled`` takes to
    ``zeros`` ("it is this place") and ``ones`` (its next), by (context, place): counted
    ``COUNTED_BLOCKS`` blocks a task, on every thread, then summed."""
    tasks = (blocks + COUNTED_BLOCKS - 1) // COUNTED_BLOCKS
    task_zeros = np.zeros((tasks, zeros.shape[0]), dtype=np.int64)
    task_ones = np.zeros((tasks, ones.shape[0]), dtype=np.int64)
    for t in prange(tasks):
        for block in range(t * COUNTED_BLOCKS, min(blocks, (t + 1) * COUNTED_BLOCKS)):
            base = block * BLOCK
            for place in range(BLOCK):
                context = context_at(tiled, base, place)
                value_place = PLACE[context, tiled[base + place]]
                row = context * PLACES
                for k in range(value_place):
                    task_ones[t, row + k] += 1
                if value_place < PLACES:
                    task_zeros[t, row + value_place] += 1
    for t in range(tasks):
        for i in range(zeros.shape[0]):
            zeros[i] += task_zeros[t, i]
            ones[i] += task_ones[t, i]


def model_bytes(dimensions, zeros: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """A table's model (module docstring) from its index's dimensions and decision counts."""
    probability = (zeros + 0.5) / (zeros + ones + 1.0)
    quantised = np.clip(np.floor(probability * 256), 0, 255).astype(np.uint8)
    head = np.asarray(model_dimensions(dimensions), dtype="<u4").view(np.uint8)
    return np.concatenate([head, quantised])


def table_model(tiled: np.ndarray, dimensions) -> np.ndarray:
    """The model of a table whose tiled stored values are ``tiled`` (whole blocks): its
    decisions counted (:func:`count_decisions`) and turned into initial probabilities."""
    zeros = np.zeros(CONTEXTS * PLACES, dtype=np.int64)
    ones = np.zeros_like(zeros)
    count_decisions(np.ascontiguousarray(tiled, dtype=np.uint8), tiled.size // BLOCK, zeros, ones)
    return model_bytes(dimensions, zeros, ones)


def encode_bound() -> int:
    """Bytes :func:`encode_block`'s output may need (a probability never falls below
    15/32768: at most 12 bits a decision)."""
    return BLOCK * PLACES * 12 // 8 + 16


assert encode_bound() < 1 << 16  # a block's length fits the pack file's uint16


@nb.njit(cache=True, inline="always")
def shift_low(low, cache, pending, written, out):
    """The encoder's byte out of ``low`` (LZMA's carry propagation: a byte is held back while
    a carry may still reach it); returns the new (low, cache, pending, written)."""
    if low < 0xFF000000 or low > MASK32:
        carry = low >> 32
        byte = cache
        while pending > 0:
            out[written] = (byte + carry) & 0xFF
            written += 1
            byte = 0xFF
            pending -= 1
        cache = (low >> 24) & 0xFF
    return (low << 8) & MASK32, cache, pending + 1, written


@nb.njit(types.int64(BYTES, BYTES, BYTES), cache=True)
def encode_block(model, values, out):
    """Code one block (the first ``BLOCK`` of ``values``, in place order) with ``model``;
    returns the bytes written to ``out`` (at least :func:`encode_bound` long)."""
    probabilities = np.empty(CONTEXTS * PLACES, dtype=np.uint16)
    read_probabilities(model, 0, probabilities)
    low = np.int64(0)
    span = np.int64(MASK32)
    cache = np.int64(0)
    pending = np.int64(1)  # bytes held back for a carry: the cache byte and any 0xFF after it
    written = np.int64(0)
    for i in range(BLOCK):
        context = context_at(values, 0, i)
        place = PLACE[context, values[i]]
        row = context * PLACES
        for k in range(min(place + 1, PLACES)):
            p = np.int64(probabilities[row + k])
            bound = (span >> PROB_BITS) * p
            if k == place:
                span = bound
                probabilities[row + k] = p + ((PROB_ONE - p) >> ADAPT_SHIFT)
            else:
                low += bound
                span -= bound
                probabilities[row + k] = p - (p >> ADAPT_SHIFT)
            while span < TOP:
                low, cache, pending, written = shift_low(low, cache, pending, written, out)
                span <<= 8
    for _ in range(5):  # flush: the decoder reads four bytes past the last it needs
        low, cache, pending, written = shift_low(low, cache, pending, written, out)
    return written


@nb.njit(types.int64(BYTES, BYTES, types.int64, types.Array(types.uint8, 2, "C"), I64),
         cache=True, parallel=True)
def encode_blocks(model, tiled, blocks, out, sizes):
    """Code the first ``blocks`` blocks of ``tiled`` on every thread, block ``b`` into
    ``out[b]`` (its size into ``sizes[b]``), each decoded again and compared; returns how
    many did not decode to their values (0, or a coder fault)."""
    faults = np.zeros(blocks, dtype=np.int64)
    for b in prange(blocks):
        piece = tiled[b * BLOCK:(b + 1) * BLOCK]
        size = encode_block(model, piece, out[b])
        sizes[b] = size
        stream = np.empty(MODEL_BYTES + size, dtype=np.uint8)
        stream[:MODEL_BYTES] = model
        stream[MODEL_BYTES:] = out[b, :size]
        decoded = np.empty(BLOCK, dtype=np.uint8)
        if decode_block(stream, 0, MODEL_BYTES, stream.size, decoded) != BLOCK:
            faults[b] = 1
        else:
            for i in range(BLOCK):
                if decoded[i] != piece[i]:
                    faults[b] = 1
                    break
    return faults.sum()


__all__ = ["tile_values", "count_decisions", "model_bytes", "table_model", "encode_bound",
           "encode_block", "encode_blocks"]
