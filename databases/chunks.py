"""Writing a table's pages as finished HDF5 chunks, compressed on several threads.

HDF5 runs a chunk's filters on the writing thread, one chunk after another: with Zstandard at
level 6 that is most of the time spent writing a large table. Here each page goes through the
same two filters the dataset declares, in their order (Zstandard, then HDF5's Fletcher-32
checksum appended little-endian), on a pool of threads (``zstandard`` releases the GIL), and
lands with ``write_direct_chunk``. The bytes are exactly those HDF5 itself writes
(tests/test_database_chunks.py compares them), so no reader can tell the difference.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np
from numba import types

ZSTD_FILTER = 32015  # the registered HDF5 filter id of Zstandard (hdf5plugin's)
FLETCHER32_FILTER = 3  # HDF5's own checksum filter
FLETCHER_BLOCK = 360  # 16-bit words summed before the sums are folded (HDF5's choice)


@nb.njit(types.uint32(types.Array(types.uint8, 1, "C", readonly=True)), cache=True)
def fletcher32(data):
    """HDF5's Fletcher-32 checksum of ``data`` (big-endian 16-bit words, an odd last byte
    as the high byte of a word), as ``H5_checksum_fletcher32`` computes it."""
    sum1 = np.uint32(0)
    sum2 = np.uint32(0)
    words = data.shape[0] // 2
    i = 0
    while words:
        block = min(words, FLETCHER_BLOCK)
        words -= block
        for _ in range(block):
            sum1 += (np.uint32(data[i]) << np.uint32(8)) | np.uint32(data[i + 1])
            sum2 += sum1
            i += 2
        sum1 = (sum1 & np.uint32(0xFFFF)) + (sum1 >> np.uint32(16))
        sum2 = (sum2 & np.uint32(0xFFFF)) + (sum2 >> np.uint32(16))
    if data.shape[0] % 2:
        sum1 += np.uint32(data[i]) << np.uint32(8)
        sum2 += sum1
        sum1 = (sum1 & np.uint32(0xFFFF)) + (sum1 >> np.uint32(16))
        sum2 = (sum2 & np.uint32(0xFFFF)) + (sum2 >> np.uint32(16))
    sum1 = (sum1 & np.uint32(0xFFFF)) + (sum1 >> np.uint32(16))
    sum2 = (sum2 & np.uint32(0xFFFF)) + (sum2 >> np.uint32(16))
    return (sum2 << np.uint32(16)) | sum1


def can_write_directly(dataset) -> bool:
    """Whether ``dataset``'s filters are exactly Zstandard then Fletcher-32 and the
    ``zstandard`` module is there to run the first (else HDF5 must run them)."""
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    plist = dataset.id.get_create_plist()
    filters = [plist.get_filter(k)[0] for k in range(plist.get_nfilters())]
    return filters == [ZSTD_FILTER, FLETCHER32_FILTER]


def zstd_level(dataset) -> int:
    """The Zstandard level the dataset declares (its filter's first parameter)."""
    plist = dataset.id.get_create_plist()
    for k in range(plist.get_nfilters()):
        code, _, values, _ = plist.get_filter(k)
        if code == ZSTD_FILTER:
            return int(values[0]) if values else 3
    raise ValueError("the dataset has no Zstandard filter")


def finished_chunk(page: np.ndarray, compressor) -> bytes:
    """The stored bytes of one page: compressed, then its checksum appended."""
    body = compressor.compress(page.tobytes())
    return body + int(fletcher32(np.frombuffer(body, dtype=np.uint8))).to_bytes(4, "little")


def write_pages(dataset, codes: np.ndarray, threads: int | None = None) -> None:
    """Write ``codes`` (converted to the dataset's type) into ``dataset``, a chunk per page,
    compressing on ``threads`` threads (default: the machine's cores). The dataset must pass
    :func:`can_write_directly`; a last partial page is padded with zeros, as HDF5 pads it."""
    import zstandard

    page_entries = dataset.chunks[0]
    pages = -(-codes.size // page_entries)
    level = zstd_level(dataset)
    local = threading.local()

    def compress(page: int) -> bytes:
        if not hasattr(local, "compressor"):
            local.compressor = zstandard.ZstdCompressor(level=level)
        values = np.zeros(page_entries, dtype=dataset.dtype)
        part = codes[page * page_entries:(page + 1) * page_entries]
        values[:part.size] = part
        return finished_chunk(values, local.compressor)

    workers = threads or os.cpu_count() or 1
    window = 64 * workers  # pages compressed per round; written in order after it
    with ThreadPoolExecutor(workers) as pool:
        for first in range(0, pages, window):
            batch = range(first, min(pages, first + window))
            for page, chunk in zip(batch, pool.map(compress, batch)):
                dataset.id.write_direct_chunk((page * page_entries,), chunk)
