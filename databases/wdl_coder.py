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

The encoder (the packer's side) is :mod:`databases.wdl_encoder`; this module holds the format
and the decoder, all a probe needs.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

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


__all__ = ["BLOCK", "BLOCK_SHIFT", "TILE", "MODEL_BYTES", "CORRUPT", "model_dimensions",
           "block_count", "tile_of", "read_dimensions", "decode_block", "start_decoding",
           "decode_until", "DECODER_WORDS"]
