"""The coder of packed WDL50 blocks (:mod:`databases.packed`): an adaptive binary range coder
whose model is each entry's neighbours in the table's index.

A table's index is a product of dimensions (in the pack's order: ``TableFamily.pack_dimensions``;
chess: the pawns' groups fastest, then the other groups from the last, then the kings). Entries one step apart
in a dimension hold positions one piece move apart, and mostly the same value: an image in
three or more dimensions, of which DEFLATE sees only the repeated strings.

* **Blocks are tiles.** A block holds ``TILE`` = 32 x 16 x 16 entries of the index's three
  fastest dimensions (``tile_of`` maps an index to its block and place; a dimension that is
  not a multiple of its tile side is padded, the padding repeating the entry before it), so
  that an entry's neighbours along all three lie in its own block (KQRvKR: 1.9x Syzygy's WDL
  file in tiles of 8,192 entries, 2.9x in slabs of 8,192 index-consecutive entries, 1.4x in
  slabs of 32,768, which take four times as long to decode).
* **An entry's context** is the values of its neighbours one step back along each of the
  three (``STRIDES`` within the tile; ``UNKNOWN`` on the tile's near faces): ``CONTEXTS``.
* **It is coded as its place** in the context's order of values (the neighbours' values,
  distinct, nearest first, then the others ascending: ``ORDER``), one adaptive binary decision
  per place ("is it this one?"). An entry equal to its nearest neighbour, the common case,
  costs one nearly certain decision.

Blocks are coded alone (a probe decodes one block), each starting from the table's **model**:
its dimensions and an initial probability for every (context, place), counted over the whole
table by the packer, so that a block does not pay for learning what every block of the table
shares. The model is ``MODEL_BYTES`` bytes at the head of the table's stream::

    bytes 0-11    the three fastest dimensions, little-endian uint32
    bytes 12-     CONTEXTS * PLACES initial probabilities, one byte each (p = byte/256 + 1/512)

A block's stream is the range coder's output (LZMA's carry-less scheme: a leading zero byte,
then the code, flushed with four more bytes). Decoding never reads past the block's end; a
damaged block decodes to wrong values in range (the file's Fletcher-32 checksums find damage
when it is loaded).

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

TILE = (32, 16, 16)  # a block's sides along the index's three fastest dimensions
BLOCK_SHIFT = 13  # 8192 entries a block (TILE's product)
BLOCK = 1 << BLOCK_SHIFT
STRIDES = (1, TILE[0], TILE[0] * TILE[1])  # a neighbour one step back, within the tile
SYMBOLS = 5  # stored values 0..4 (WDL50 + 2)
UNKNOWN = SYMBOLS  # a neighbour outside the tile
NEIGHBOURS = 3
CONTEXTS = (SYMBOLS + 1) ** NEIGHBOURS  # 216
PLACES = SYMBOLS - 1  # decisions at most; the last value needs none
DIMENSION_BYTES = 4 * NEIGHBOURS
MODEL_BYTES = DIMENSION_BYTES + CONTEXTS * PLACES
CORRUPT = -1  # decode_block: a stream that cannot be this coder's output

PROB_BITS = 15
PROB_ONE = 1 << PROB_BITS
ADAPT_SHIFT = 4  # each decision moves its probability 1/16 of the way (4 beat 5 and 6 here)
TOP = 1 << 24  # the range is renormalised a byte at a time below this
MASK32 = (1 << 32) - 1

BYTES = types.Array(types.uint8, 1, "C")
I64 = types.Array(types.int64, 1, "C")
U16 = types.Array(types.uint16, 1, "C")
assert TILE[0] * TILE[1] * TILE[2] == BLOCK


def _order_table() -> np.ndarray:
    """``ORDER[context]``: the values in the order their places are coded."""
    order = np.zeros((CONTEXTS, SYMBOLS), dtype=np.uint8)
    for context in range(CONTEXTS):
        neighbours = [context // 36, context // 6 % 6, context % 6]
        first = list(dict.fromkeys(v for v in neighbours if v != UNKNOWN))
        order[context] = first + [v for v in range(SYMBOLS) if v not in first]
    return order


ORDER = _order_table()
PLACE = np.argsort(ORDER, axis=1).astype(np.uint8)  # PLACE[context, value]: its place


def model_dimensions(dimensions) -> tuple[int, int, int]:
    """The three fastest of an index's ``dimensions`` (fastest first), 1 for any missing."""
    padded = [int(d) for d in dimensions][:3] + [1, 1, 1]
    return padded[0], padded[1], padded[2]


def block_count(dimensions, entries: int) -> int:
    """Blocks (tiles) of a table of ``entries`` whose index has these ``dimensions``."""
    d0, d1, d2 = model_dimensions(dimensions)
    tiles = -(-d0 // TILE[0]) * -(-d1 // TILE[1]) * -(-d2 // TILE[2])
    return tiles * (entries // (d0 * d1 * d2))


@nb.njit(cache=True, inline="always")
def tile_of(d0, d1, d2, index):
    """(block, place in the block) of entry ``index`` of an index whose three fastest
    dimensions are ``d0, d1, d2``."""
    x0 = index % d0
    rest = index // d0
    x1 = rest % d1
    rest //= d1
    x2 = rest % d2
    rest //= d2
    n0 = (d0 + TILE[0] - 1) // TILE[0]
    n1 = (d1 + TILE[1] - 1) // TILE[1]
    n2 = (d2 + TILE[2] - 1) // TILE[2]
    block = ((rest * n2 + x2 // TILE[2]) * n1 + x1 // TILE[1]) * n0 + x0 // TILE[0]
    place = ((x2 % TILE[2]) * TILE[1] + x1 % TILE[1]) * TILE[0] + x0 % TILE[0]
    return block, place


@nb.njit(cache=True, inline="always")
def entry_of_tile(d0, d1, d2, block, place):
    """The entry at ``place`` of ``block`` (inverse of :func:`tile_of`); -1 for a place
    that pads a tile past the index's edge."""
    n0 = (d0 + TILE[0] - 1) // TILE[0]
    n1 = (d1 + TILE[1] - 1) // TILE[1]
    n2 = (d2 + TILE[2] - 1) // TILE[2]
    x0 = (block % n0) * TILE[0] + place % TILE[0]
    x1 = (block // n0 % n1) * TILE[1] + place // TILE[0] % TILE[1]
    x2 = (block // (n0 * n1) % n2) * TILE[2] + place // (TILE[0] * TILE[1])
    if x0 >= d0 or x1 >= d1 or x2 >= d2:
        return -1
    return ((block // (n0 * n1 * n2) * d2 + x2) * d1 + x1) * d0 + x0


@nb.njit(types.void(BYTES, types.int64, types.int64, types.int64, BYTES), cache=True)
def tile_values(values, d0, d1, d2, tiled):
    """``tiled``: ``values`` (a table's stored bytes in index order) block by block, each
    block its tile's entries in place order; padding repeats the entry before it."""
    n0 = (d0 + TILE[0] - 1) // TILE[0]
    n1 = (d1 + TILE[1] - 1) // TILE[1]
    n2 = (d2 + TILE[2] - 1) // TILE[2]
    slabs = values.size // (d0 * d1 * d2)
    block = 0
    for rest in range(slabs):
        for k2 in range(n2):
            for k1 in range(n1):
                for k0 in range(n0):
                    base = block * BLOCK
                    last = values[((rest * d2 + k2 * TILE[2]) * d1 + k1 * TILE[1]) * d0
                                  + k0 * TILE[0]]
                    for y2 in range(TILE[2]):
                        x2 = k2 * TILE[2] + y2
                        for y1 in range(TILE[1]):
                            x1 = k1 * TILE[1] + y1
                            for y0 in range(TILE[0]):
                                x0 = k0 * TILE[0] + y0
                                if x0 < d0 and x1 < d1 and x2 < d2:
                                    last = values[((rest * d2 + x2) * d1 + x1) * d0 + x0]
                                tiled[base + (y2 * TILE[1] + y1) * TILE[0] + y0] = last
                    block += 1


@nb.njit(cache=True, inline="always")
def context_at(values, base, place):
    """The context of the entry at ``place`` of the block that starts at ``values[base]``."""
    y0 = place % TILE[0]
    y1 = place // TILE[0] % TILE[1]
    y2 = place // STRIDES[2]
    near = values[base + place - STRIDES[0]] if y0 > 0 else UNKNOWN
    middle = values[base + place - STRIDES[1]] if y1 > 0 else UNKNOWN
    far = values[base + place - STRIDES[2]] if y2 > 0 else UNKNOWN
    return (near * (SYMBOLS + 1) + middle) * (SYMBOLS + 1) + far


@nb.njit(types.void(BYTES, types.int64, I64, I64), cache=True)
def count_decisions(tiled, blocks, zeros, ones):
    """Add the decisions that coding the first ``blocks`` blocks of ``tiled`` takes to
    ``zeros`` ("it is this place") and ``ones`` (its next), by (context, place)."""
    for block in range(blocks):
        base = block * BLOCK
        for place in range(BLOCK):
            context = context_at(tiled, base, place)
            value_place = PLACE[context, tiled[base + place]]
            row = context * PLACES
            for k in range(value_place):
                ones[row + k] += 1
            if value_place < PLACES:
                zeros[row + value_place] += 1


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


@nb.njit(cache=True, inline="always")
def uint32_at(stream, at):
    """The little-endian uint32 at ``stream[at:at + 4]``."""
    return (np.int64(stream[at]) | np.int64(stream[at + 1]) << 8
            | np.int64(stream[at + 2]) << 16 | np.int64(stream[at + 3]) << 24)


@nb.njit(cache=True, inline="always")
def read_dimensions(stream, model):
    """The three fastest dimensions of the index of the model at ``stream[model:]`` (every
    probe reads them: no array is allocated)."""
    return (uint32_at(stream, model), uint32_at(stream, model + 4),
            uint32_at(stream, model + 8))


@nb.njit(cache=True, inline="always")
def read_probabilities(stream, model, probabilities):
    """The initial probabilities of the model at ``stream[model:]``."""
    for k in range(CONTEXTS * PLACES):
        probabilities[k] = np.int64(stream[model + DIMENSION_BYTES + k]) * (PROB_ONE >> 8) \
            + (PROB_ONE >> 9)


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


# A decoder's state between calls (:func:`start_decoding`, :func:`decode_until`): a row of
# DECODER_WORDS int64.
DECODED, NEXT_BYTE, CODE, SPAN, DECODER_WORDS = 0, 1, 2, 3, 4


@nb.njit(types.int64(BYTES, types.int64, types.int64, types.int64, U16, I64), cache=True, nogil=True)
def start_decoding(stream, model, start, stop, probabilities, decoder):
    """Make ``decoder`` and ``probabilities`` the state before the first entry of the block
    ``stream[start:stop]`` (model at ``stream[model:]``); returns 0, or ``CORRUPT`` for a
    stream this coder cannot have written."""
    if stop - start < 5 or stream[start] != 0:
        return CORRUPT
    read_probabilities(stream, model, probabilities)
    code = np.int64(0)
    for k in range(4):
        code = (code << 8) | np.int64(stream[start + 1 + k])
    decoder[DECODED] = 0
    decoder[NEXT_BYTE] = start + 5
    decoder[CODE] = code
    decoder[SPAN] = MASK32
    return 0


@nb.njit(types.int64(BYTES, types.int64, U16, I64, BYTES, types.int64), cache=True, nogil=True)
def decode_until(stream, stop, probabilities, decoder, out, end):
    """Go on decoding the block whose state is ``decoder`` and ``probabilities`` (from
    :func:`start_decoding`; the block's code ends at ``stream[stop]``) into ``out``, up to
    entry ``end`` (excluded; entries are in place order, each coded after the ones its
    context reads). Returns the entries decoded so far, or ``CORRUPT`` (it never reads at or
    past ``stop``). A probe needs only the entries up to its own: decoding stops there, and a
    later probe of the block resumes."""
    at = decoder[NEXT_BYTE]
    code = decoder[CODE]
    span = decoder[SPAN]
    i = decoder[DECODED]
    while i < end:
        context = context_at(out, 0, i)
        row = context * PLACES
        place = 0
        while place < PLACES:
            p = np.int64(probabilities[row + place])
            bound = (span >> PROB_BITS) * p
            if code < bound:
                span = bound
                probabilities[row + place] = p + ((PROB_ONE - p) >> ADAPT_SHIFT)
                hit = True
            else:
                code -= bound
                span -= bound
                probabilities[row + place] = p - (p >> ADAPT_SHIFT)
                hit = False
            # one byte, or two after an unlikely decision (a probability of at least
            # 15/32768 leaves at least 2^13 of a span of 2^24)
            while span < TOP:
                if at >= stop:
                    return CORRUPT
                code = ((code << 8) | np.int64(stream[at])) & MASK32
                at += 1
                span <<= 8
            if hit:
                break
            place += 1
        out[i] = ORDER[context, place]
        i += 1
    decoder[NEXT_BYTE] = at
    decoder[CODE] = code
    decoder[SPAN] = span
    decoder[DECODED] = i
    return i


@nb.njit(types.int64(BYTES, types.int64, types.int64, types.int64, BYTES), cache=True, nogil=True)
def decode_block(stream, model, start, stop, out):
    """Decode the block ``stream[start:stop]`` with the model at ``stream[model:]`` into
    ``out[:BLOCK]`` (in place order); returns ``BLOCK``, or ``CORRUPT`` for a stream this
    coder cannot have written (it never reads outside ``[start, stop)``)."""
    if out.size < BLOCK:
        return CORRUPT
    probabilities = np.empty(CONTEXTS * PLACES, dtype=np.uint16)
    decoder = np.empty(DECODER_WORDS, dtype=np.int64)
    if start_decoding(stream, model, start, stop, probabilities, decoder) < 0:
        return CORRUPT
    return decode_until(stream, stop, probabilities, decoder, out, BLOCK)


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


__all__ = ["BLOCK", "BLOCK_SHIFT", "TILE", "MODEL_BYTES", "CORRUPT", "model_dimensions",
           "block_count", "tile_of", "tile_values", "read_dimensions", "count_decisions",
           "model_bytes", "table_model", "encode_bound", "encode_block", "encode_blocks",
           "decode_block", "start_decoding", "decode_until", "DECODER_WORDS"]
