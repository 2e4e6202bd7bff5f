"""A DEFLATE decoder (RFC 1951) callable from numba kernels: how a search reads the packed
WDL50 tables (:mod:`databases.packed`) from memory without leaving compiled code.

The packer compresses with the standard library's ``zlib`` (raw DEFLATE, no header); kernels
decode a block with :func:`inflate`. Stored, fixed-Huffman and dynamic-Huffman blocks are all
read. A Huffman code of up to ``FAST_BITS`` bits (nearly all of them) is decoded by one look-up
in a table indexed by the next bits of the stream; a longer one canonically, a bit at a time. A
damaged or truncated stream is reported, never read past its ends.

>>> import zlib, numpy as np
>>> data = np.frombuffer(b"abracadabra" * 100, dtype=np.uint8)
>>> packer = zlib.compressobj(9, zlib.DEFLATED, -15)
>>> stream = np.frombuffer(packer.compress(data.tobytes()) + packer.flush(), dtype=np.uint8).copy()
>>> out = np.zeros(2000, dtype=np.uint8)
>>> n = inflate(stream, 0, stream.size, out)
>>> int(n), bool((out[:n] == data).all())
(1100, True)
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

CORRUPT = -1  # inflate: the stream is damaged, truncated, or decodes to more than ``out`` holds

MAX_BITS = 15  # longest Huffman code
FAST_BITS = 9  # codes this short decode in one look-up (a 512-entry table per code)
FAST_SIZE = 1 << FAST_BITS
LITERALS_LENGTHS = 288  # symbols of the literal/length code (286 used)
DISTANCES = 30
END_OF_BLOCK = 256

# Lengths 257..285 and distances 0..29: base values and extra bits (RFC 1951, 3.2.5).
LENGTH_BASE = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                        67, 83, 99, 115, 131, 163, 195, 227, 258], dtype=np.int64)
LENGTH_EXTRA = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                         5, 5, 5, 5, 0], dtype=np.int64)
DISTANCE_BASE = np.array([1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385,
                          513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577],
                         dtype=np.int64)
DISTANCE_EXTRA = np.array([0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10,
                           10, 11, 11, 12, 12, 13, 13], dtype=np.int64)
# The order in which a dynamic block lists the code lengths of its code-length code.
CODE_LENGTH_ORDER = np.array([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15],
                             dtype=np.int64)

# The reader's state, one small array: bit buffer, bits in it, next source byte, source end.
_BUFFER, _HELD, _NEXT, _END = 0, 1, 2, 3

BYTES = types.Array(types.uint8, 1, "C")


@nb.njit(cache=True, inline="always")
def _bits(reader, src, need):
    """The next ``need`` bits of the stream (least significant first), or -1 past its end."""
    while reader[_HELD] < need:
        if reader[_NEXT] >= reader[_END]:
            return -1
        reader[_BUFFER] |= np.int64(src[reader[_NEXT]]) << reader[_HELD]
        reader[_NEXT] += 1
        reader[_HELD] += 8
    value = reader[_BUFFER] & ((np.int64(1) << need) - 1)
    reader[_BUFFER] >>= need
    reader[_HELD] -= need
    return value


@nb.njit(cache=True)
def _build(lengths, first, count, counts, symbols, fast):
    """Canonical Huffman code of ``count`` symbols with code ``lengths[first:first + count]``
    into ``counts`` (codes of each length), ``symbols`` (ordered by code) and ``fast`` (for
    every ``FAST_BITS`` bits of stream that start with a code of at most that length,
    ``symbol << 4 | length``; -1 elsewhere). False when the lengths over-subscribe the code
    (an incomplete code is allowed, as RFC 1951 permits for one distance code)."""
    counts[:] = 0
    for symbol in range(count):
        counts[lengths[first + symbol]] += 1
    left = 1
    for length in range(1, MAX_BITS + 1):
        left = (left << 1) - counts[length]
        if left < 0:
            return False
    offsets = np.zeros(MAX_BITS + 2, dtype=np.int64)
    for length in range(1, MAX_BITS + 1):
        offsets[length + 1] = offsets[length] + counts[length]
    for symbol in range(count):
        length = lengths[first + symbol]
        if length != 0:
            symbols[offsets[length]] = symbol
            offsets[length] += 1
    fast[:] = -1
    code = 0
    index = 0
    for length in range(1, FAST_BITS + 1):
        for _ in range(counts[length]):
            # The stream holds a code's bits first bit lowest: index the table reversed.
            reversed_code = 0
            for bit in range(length):
                reversed_code |= ((code >> bit) & 1) << (length - 1 - bit)
            for high in range(0, FAST_SIZE, 1 << length):
                fast[reversed_code | high] = symbols[index] << 4 | length
            code += 1
            index += 1
        code <<= 1
    return True


@nb.njit(cache=True, inline="always")
def _decode(reader, src, counts, symbols, fast):
    """The next symbol of a canonical Huffman code, or -1 (bad code or end of stream)."""
    while reader[_HELD] < 48 and reader[_NEXT] < reader[_END]:  # fill the buffer for a peek
        reader[_BUFFER] |= np.int64(src[reader[_NEXT]]) << reader[_HELD]
        reader[_NEXT] += 1
        reader[_HELD] += 8
    entry = fast[reader[_BUFFER] & (FAST_SIZE - 1)]
    if entry >= 0 and (entry & 15) <= reader[_HELD]:
        reader[_BUFFER] >>= entry & 15
        reader[_HELD] -= entry & 15
        return entry >> 4
    code = 0
    first = 0
    index = 0
    for length in range(1, MAX_BITS + 1):
        bit = _bits(reader, src, 1)
        if bit < 0:
            return -1
        code |= bit
        count = counts[length]
        if code - count < first:
            return symbols[index + code - first]
        index += count
        first = (first + count) << 1
        code <<= 1
    return -1


@nb.njit(cache=True)
def _fixed_codes(lengths):
    """The code lengths of the fixed Huffman codes (RFC 1951, 3.2.6): literal/length codes in
    ``lengths[:288]``, distance codes in ``lengths[288:318]``."""
    for symbol in range(LITERALS_LENGTHS):
        lengths[symbol] = 8 if symbol < 144 else (9 if symbol < 256 else (7 if symbol < 280 else 8))
    for symbol in range(DISTANCES):
        lengths[LITERALS_LENGTHS + symbol] = 5


@nb.njit(cache=True)
def _dynamic_codes(reader, src, lengths, counts, symbols, fast):
    """Read a dynamic block's code lengths into ``lengths`` (literal/length codes first, then
    distance codes at ``LITERALS_LENGTHS``). Returns False for a damaged header."""
    literal_count = _bits(reader, src, 5) + 257
    distance_count = _bits(reader, src, 5) + 1
    code_length_count = _bits(reader, src, 4) + 4
    if code_length_count < 4 or literal_count > 286 or distance_count > DISTANCES:
        return False
    lengths[:] = 0
    for i in range(code_length_count):
        length = _bits(reader, src, 3)
        if length < 0:
            return False
        lengths[CODE_LENGTH_ORDER[i]] = length
    if not _build(lengths, 0, 19, counts, symbols, fast):
        return False
    read = np.zeros(literal_count + distance_count, dtype=np.int64)
    i = 0
    while i < literal_count + distance_count:
        symbol = _decode(reader, src, counts, symbols, fast)
        if symbol < 0:
            return False
        if symbol < 16:
            read[i] = symbol
            i += 1
            continue
        repeat_value = 0
        if symbol == 16:
            if i == 0:
                return False
            repeat_value = read[i - 1]
            repeat = 3 + _bits(reader, src, 2)
        elif symbol == 17:
            repeat = 3 + _bits(reader, src, 3)
        else:
            repeat = 11 + _bits(reader, src, 7)
        if repeat < 3 or i + repeat > literal_count + distance_count:
            return False
        for _ in range(repeat):
            read[i] = repeat_value
            i += 1
    if read[END_OF_BLOCK] == 0:
        return False
    lengths[:] = 0
    lengths[:literal_count] = read[:literal_count]
    lengths[LITERALS_LENGTHS:LITERALS_LENGTHS + distance_count] = read[literal_count:]
    return True


@nb.njit(cache=True, inline="always")
def _next_symbol(src, end, buffer, held, at, counts, symbols, fast):
    """The hot loop's decoder, on the reader's state in local variables (kept in registers,
    where the state array would be reloaded after every store to the output): returns
    ``(symbol or -1, buffer, held, at)``."""
    while held < 48 and at < end:
        buffer |= np.int64(src[at]) << held
        at += 1
        held += 8
    entry = fast[buffer & (FAST_SIZE - 1)]
    if entry >= 0 and (entry & 15) <= held:
        return entry >> 4, buffer >> (entry & 15), held - (entry & 15), at
    code = 0
    first = 0
    index = 0
    for length in range(1, MAX_BITS + 1):
        if held == 0:
            break
        code |= buffer & 1
        buffer >>= 1
        held -= 1
        count = counts[length]
        if code - count < first:
            return symbols[index + code - first], buffer, held, at
        index += count
        first = (first + count) << 1
        code <<= 1
    return -1, buffer, held, at


@nb.njit(cache=True, inline="always")
def _extra_bits(src, end, buffer, held, at, need):
    """``(the next need bits or -1, buffer, held, at)`` on the hot loop's local state."""
    while held < need and at < end:
        buffer |= np.int64(src[at]) << held
        at += 1
        held += 8
    if held < need:
        return -1, buffer, held, at
    return buffer & ((np.int64(1) << need) - 1), buffer >> need, held - need, at


@nb.njit(cache=True, inline="always")
def _copy_match(out, at, distance, length):
    """Copy ``length`` bytes from ``distance`` back to ``out[at:]``. A match may overlap what
    it copies (a run is distance 1): then the source repeats with period ``distance``, and
    copies of doubling spans, each clear of what it reads, write it (no byte-by-byte loop,
    whose every byte waits for the one before)."""
    if distance == 1:
        value = out[at - 1]
        for i in range(at, at + length):
            out[i] = value
        return
    span = distance
    while length > 0:
        count = min(span, length)
        for i in range(at, at + count):
            out[i] = out[i - span]
        at += count
        length -= count
        span += span


@nb.njit(types.int64(BYTES, types.int64, types.int64, BYTES), cache=True, nogil=True)
def inflate(src, start, end, out):
    """Decode the raw DEFLATE stream ``src[start:end]`` into ``out``; returns the number of
    bytes written, or ``CORRUPT``."""
    reader = np.zeros(4, dtype=np.int64)
    reader[_NEXT] = start
    reader[_END] = end
    lengths = np.zeros(LITERALS_LENGTHS + DISTANCES, dtype=np.int64)
    literal_counts = np.zeros(MAX_BITS + 1, dtype=np.int64)
    literal_symbols = np.zeros(LITERALS_LENGTHS, dtype=np.int64)
    distance_counts = np.zeros(MAX_BITS + 1, dtype=np.int64)
    distance_symbols = np.zeros(DISTANCES, dtype=np.int64)
    literal_fast = np.empty(FAST_SIZE, dtype=np.int64)
    distance_fast = np.empty(FAST_SIZE, dtype=np.int64)
    written = 0
    last = 0
    while last == 0:
        last = _bits(reader, src, 1)
        kind = _bits(reader, src, 2)
        if kind < 0:
            return CORRUPT
        if kind == 0:  # stored: byte-aligned length, its complement, the bytes
            # Drop the bits to the byte boundary; whole bytes read ahead go back to the source.
            at = reader[_NEXT] - (reader[_HELD] >> 3)
            reader[_BUFFER] = 0
            reader[_HELD] = 0
            if at + 4 > end:
                return CORRUPT
            size = np.int64(src[at]) | np.int64(src[at + 1]) << 8
            if size != (~(np.int64(src[at + 2]) | np.int64(src[at + 3]) << 8) & 0xFFFF):
                return CORRUPT
            at += 4
            if at + size > end or written + size > out.size:
                return CORRUPT
            out[written:written + size] = src[at:at + size]
            written += size
            reader[_NEXT] = at + size
            continue
        if kind == 3:
            return CORRUPT
        if kind == 1:
            _fixed_codes(lengths)
        elif not _dynamic_codes(reader, src, lengths, literal_counts, literal_symbols, literal_fast):
            return CORRUPT
        if not _build(lengths, 0, LITERALS_LENGTHS, literal_counts, literal_symbols, literal_fast):
            return CORRUPT
        if not _build(lengths, LITERALS_LENGTHS, DISTANCES, distance_counts, distance_symbols,
                      distance_fast):
            return CORRUPT
        buffer, held, at = reader[_BUFFER], reader[_HELD], reader[_NEXT]
        while True:
            symbol, buffer, held, at = _next_symbol(src, end, buffer, held, at, literal_counts,
                                                    literal_symbols, literal_fast)
            if symbol < 0:
                return CORRUPT
            if symbol < 256:
                if written >= out.size:
                    return CORRUPT
                out[written] = symbol
                written += 1
                continue
            if symbol == END_OF_BLOCK:
                break
            symbol -= 257
            if symbol >= 29:
                return CORRUPT
            extra, buffer, held, at = _extra_bits(src, end, buffer, held, at, LENGTH_EXTRA[symbol])
            code, buffer, held, at = _next_symbol(src, end, buffer, held, at, distance_counts,
                                                  distance_symbols, distance_fast)
            if extra < 0 or code < 0 or code >= DISTANCES:
                return CORRUPT
            length = LENGTH_BASE[symbol] + extra
            extra, buffer, held, at = _extra_bits(src, end, buffer, held, at, DISTANCE_EXTRA[code])
            distance = DISTANCE_BASE[code] + extra
            if extra < 0 or distance > written or written + length > out.size:
                return CORRUPT
            _copy_match(out, written, distance, length)
            written += length
        reader[_BUFFER], reader[_HELD], reader[_NEXT] = buffer, held, at
    return written


__all__ = ["inflate", "CORRUPT"]
