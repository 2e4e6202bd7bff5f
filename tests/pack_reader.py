"""A reader of the packed WDL50 written from docs/database-format.md alone (plain Python, no
import from the toolkit): the tests read packs with it beside the toolkit's decoder, so that
the page stays enough for a second implementation."""
from __future__ import annotations

from math import comb

TILE = (32, 16, 16)
MODEL_BYTES = 876
UNKNOWN = 5
ONE = 1 << 15


def pack_order(table: str, entries: int) -> tuple[int, int]:
    """``(inner, run)`` of a chess table of ``entries``: the values of its pawns' digits
    (C(48, k) for each colour's k pawns) and the entries of one placement of them with one
    side to move."""
    white, black = table[1:].split("vK")
    inner = 1
    for pieces in (white, black):
        inner *= comb(48, pieces.count("P"))
    return inner, entries // 2 // inner


def value_order(context: int) -> list[int]:
    """The order in which a context codes the five values."""
    order: list[int] = []
    for value in (context // 36, context // 6 % 6, context % 6):
        if value != UNKNOWN and value not in order:
            order.append(value)
    return order + [value for value in range(5) if value not in order]


def decode_block(stream: bytes, start: int, stop: int) -> list[int]:
    """The 8,192 bytes of the block whose code is ``stream[start:stop]``, in place order."""
    probabilities = [q * 128 + 64 for q in stream[12:MODEL_BYTES]]
    if stream[start] != 0:
        raise ValueError("damaged block: its first byte is not 0")
    code = int.from_bytes(stream[start + 1:start + 5], "big")
    span = (1 << 32) - 1
    at = start + 5
    out: list[int] = []
    for place in range(TILE[0] * TILE[1] * TILE[2]):
        a = out[place - 1] if place % 32 else UNKNOWN
        b = out[place - 32] if place // 32 % 16 else UNKNOWN
        e = out[place - 512] if place // 512 else UNKNOWN
        context = 36 * a + 6 * b + e
        rank = 0
        while rank < 4:
            k = 4 * context + rank
            p = probabilities[k]
            bound = (span >> 15) * p
            yes = code < bound
            if yes:
                span = bound
                probabilities[k] = p + ((ONE - p) >> 4)
            else:
                code -= bound
                span -= bound
                probabilities[k] = p - (p >> 4)
            while span < 1 << 24:
                if at >= stop:
                    raise ValueError("damaged block: its code ends too soon")
                span <<= 8
                code = ((code << 8) | stream[at]) & 0xFFFFFFFF
                at += 1
            if yes:
                break
            rank += 1
        out.append(value_order(context)[rank])
    return out


def block_starts(block_bytes: list[int]) -> list[int]:
    """Where each block's code starts in the stream, and where the last one ends."""
    starts = [MODEL_BYTES]
    for length in block_bytes:
        starts.append(starts[-1] + length)
    return starts


def locate(index: int, inner: int, run: int, dimensions: tuple[int, int, int]) -> tuple[int, int]:
    """``(block, place)`` of entry ``index`` of the table's index."""
    outer = index // run
    k = ((outer // inner) * run + index % run) * inner + outer % inner
    d0, d1, d2 = dimensions
    x0, x1, x2, slab = k % d0, k // d0 % d1, k // (d0 * d1) % d2, k // (d0 * d1 * d2)
    n0, n1, n2 = (-(-d // t) for d, t in zip(dimensions, TILE))
    block = ((slab * n2 + x2 // 16) * n1 + x1 // 16) * n0 + x0 // 32
    place = ((x2 % 16) * 16 + x1 % 16) * 32 + x0 % 32
    return block, place
