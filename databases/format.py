"""The on-disk format of a table: entry codes, page size, filters and attribute names.

Every entry is one value code, as :mod:`games.value_codes` defines them (the one definition of
the codes and their arithmetic, re-exported here): 0 for an index no legal position has, 1 for a
draw, then a win or a loss for the side to move with its distance in plies.

Codes are stored as ``uint8`` when the longest distance allows (``byte_holds``: up to 125
plies), else ``uint16``. While a table is being built, ``UNKNOWN`` (``uint16``'s maximum) marks
unresolved entries; it never reaches a file.

>>> encode(WIN, 5), encode(LOSS, 0), encode(DRAW, 0)
(13, 2, 1)
>>> signed_dtm(13), signed_dtm(2)
(5, 0)
"""
from __future__ import annotations

import zlib

import numpy as np

from games.kernels import DRAW, LOSS, WIN
from games.value_codes import (CODE_DRAW, INVALID, INVALID_VALUE, STORE_UNKNOWN,  # noqa: F401 (re-exported)
                               byte_holds, code_distances, decode, encode)

# Version 2 adds the page checksums below; version 1 files (Fletcher-32 only) stay readable.
# Version 3 stores text attributes as fixed-length UTF-8 strings: variable-length strings live
# in HDF5's global heap, and one flipped bit there sends HDF5 into an endless loop on opening.
FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
DATASET = "entries"
CHECKSUMS = "page_crc32"  # one CRC-32 per page of decoded codes (see page_checksum)

UNKNOWN = STORE_UNKNOWN  # build-time only (in uint16 work arrays)

# One page = one HDF5 chunk = PAGE_ENTRIES entries (16 KiB of uint8 codes). Chosen by
# measurement (docs/database-format.md): smaller pages cost disk space and per-chunk overhead
# when reading, larger ones cost decode time per cold random probe.
PAGE_SHIFT = 14
PAGE_ENTRIES = 1 << PAGE_SHIFT
PAGE_MASK = PAGE_ENTRIES - 1

ATTRIBUTES = (
    "format_version", "game", "table", "index_scheme", "index_version", "entries", "sides",
    "entries_per_side", "wins", "draws", "losses", "invalid", "longest_mate", "generator",
    "generator_version", "settings", "build_seconds", "built_at", "page_entries", "compression",
    "content_crc32",
)


def stored_attribute(value):
    """How ``value`` is stored as an attribute: text as a fixed-length UTF-8 string (never in
    the global heap), anything else as h5py stores it."""
    if isinstance(value, str):
        return np.bytes_(value.encode("utf-8"))
    return value


def read_attribute(value):
    """An attribute as written: fixed-length strings back to ``str`` (version 1-2 files hold
    variable-length strings, which h5py already returns as ``str``)."""
    if isinstance(value, bytes):  # np.bytes_ is a bytes subclass
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value  # damaged: the checks that read it refuse it
    return value


def signed_dtm(code: int) -> int:
    """Distance to mate, python-chess's Gaviota convention: plies, positive when the side to move
    wins, negative when it loses, 0 for a draw (and for a side already mated)."""
    value, dtm = decode(code)
    return dtm if value == WIN else -dtm if value == LOSS else 0


def decode_arrays(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`decode`: (values int8, signed dtm int16) for an array of codes."""
    codes = codes.astype(np.int32)
    values = np.where(codes == CODE_DRAW, DRAW, np.where(codes & 1, WIN, LOSS)).astype(np.int8)
    values[codes == INVALID] = INVALID_VALUE
    dtm = code_distances(codes)
    dtm = np.where(values == LOSS, -dtm, dtm).astype(np.int16)
    return values, dtm


def storage_dtype(longest: int) -> np.dtype:
    """The narrowest code dtype holding distances up to ``longest`` plies."""
    return np.dtype(np.uint8) if byte_holds(longest) else np.dtype(np.uint16)


def page_checksum(page: int, codes: np.ndarray) -> int:
    """CRC-32 of one page's decoded codes (as little-endian uint16), seeded with the page number.

    HDF5's Fletcher-32 covers a page's stored bytes only; this covers what the reader gets
    after decompression, so a damaged page index (a chunk found under another page's number)
    or a damaged data type is caught too."""
    seed = zlib.crc32(int(page).to_bytes(8, "little"))
    return zlib.crc32(np.ascontiguousarray(codes, dtype="<u2"), seed)


def page_checksums(codes: np.ndarray, page_entries: int = PAGE_ENTRIES) -> np.ndarray:
    """:func:`page_checksum` of every page of ``codes``, as uint32."""
    pages = -(-codes.size // page_entries)
    return np.array([page_checksum(page, codes[page * page_entries:(page + 1) * page_entries])
                     for page in range(pages)], dtype=np.uint32)


def content_checksum(checksums: np.ndarray) -> int:
    """CRC-32 of the page checksums: the table's whole content in one number (stored as the
    ``content_crc32`` attribute; it also guards the checksum dataset itself)."""
    return zlib.crc32(np.ascontiguousarray(checksums, dtype="<u4"))
