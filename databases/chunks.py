"""Writing and reading a table's pages as finished HDF5 chunks, filtered on several threads.

HDF5 runs a chunk's filters on the calling thread, one chunk after another, under h5py's global
lock: with Zstandard at level 6 that is most of the time spent writing a large table, and
decompressing is most of the time spent reading one whole (a five-piece table's children).
Here each page goes through the same two filters the dataset declares, in their order
(Zstandard, then HDF5's Fletcher-32 checksum appended little-endian), on a pool of threads
(``zstandard`` and the checksum kernel release the GIL): written with ``write_direct_chunk``,
read with ``read_direct_chunk``. The bytes are exactly those HDF5 itself writes and reads
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


@nb.njit(types.uint32(types.Array(types.uint8, 1, "C", readonly=True)), cache=True, nogil=True)
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
    ``zstandard`` module is there to run the first (else HDF5 must run them), for writing or
    reading its chunks here."""
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


class DamagedChunkError(ValueError):
    """A stored chunk that cannot be decoded: missing, its Fletcher-32 checksum differs, or it
    does not decompress to a whole page. ``page`` is its page number when known, ``why``
    what is wrong."""

    def __init__(self, why: str, page: int | None = None):
        super().__init__(why if page is None else f"page {page}: {why}")
        self.why = why
        self.page = page


def decoded_chunk(stored: bytes, dtype: np.dtype, page_entries: int, decompressor) -> np.ndarray:
    """The page a stored chunk holds: its checksum checked, then decompressed
    (DamagedChunkError if either fails)."""
    if len(stored) < 4:
        raise DamagedChunkError("a chunk too short to hold its checksum")
    body = memoryview(stored)[:-4]
    if int(fletcher32(np.frombuffer(body, dtype=np.uint8))) != \
            int.from_bytes(stored[-4:], "little"):
        raise DamagedChunkError("its Fletcher-32 checksum differs")
    size = page_entries * dtype.itemsize
    try:
        raw = decompressor.decompress(body, max_output_size=size)
    except Exception as error:  # zstandard.ZstdError
        raise DamagedChunkError(f"it does not decompress: {error}") from None
    if len(raw) != size:
        raise DamagedChunkError("it decompresses to the wrong size")
    return np.frombuffer(raw, dtype=dtype)


_readers = threading.local()


def _decompressor():
    """This thread's Zstandard decompressor (one per thread: they are not thread-safe)."""
    if not hasattr(_readers, "decompressor"):
        import zstandard

        _readers.decompressor = zstandard.ZstdDecompressor()
    return _readers.decompressor


_pool: ThreadPoolExecutor | None = None


def _reading_pool() -> ThreadPoolExecutor:
    """The threads pages are decoded on (made once, one per core)."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="page-reader")
    return _pool


PAGES_PER_TASK = 16  # pages a reading thread decodes at a time (a task per page cost more
# in handing it over than in decoding it)


def chunk_places(dataset) -> np.ndarray | None:
    """Where each page's chunk is stored, from one walk of the chunk index: rows of (byte
    offset, stored size, filter mask) by page, -1 for a page with no chunk; None when the
    chunks cannot be read straight from the file (an h5py without ``chunk_iter``, a file
    not on the default driver or with a user block)."""
    handle = dataset.file
    if not hasattr(dataset.id, "chunk_iter") or handle.driver != "sec2" \
            or handle.userblock_size:
        return None
    page_entries = dataset.chunks[0]
    places = np.full((-(-dataset.shape[0] // page_entries), 3), -1, dtype=np.int64)

    def visit(info) -> None:
        start = info.chunk_offset[0]
        if start % page_entries == 0 and start // page_entries < places.shape[0]:
            places[start // page_entries] = (info.byte_offset, info.size, info.filter_mask)
    dataset.id.chunk_iter(visit)
    return places


def read_pages(dataset, first: int, count: int, check, places: np.ndarray | None = None
               ) -> np.ndarray:
    """The decoded codes of ``count`` pages of ``dataset`` from page ``first`` (the dataset
    must pass :func:`can_write_directly`), decoded on every core. ``check(page, codes)`` is
    called on each page (on the decoding threads; it must release the GIL to gain from
    them) and raises what it finds. A chunk that cannot be found, or whose checksum or
    compression is damaged, raises DamagedChunkError naming the page; a chunk stored with a
    filter skipped is read through HDF5. With ``places`` (:func:`chunk_places`) the stored
    chunks are read from the file by the decoding threads, else through h5py one by one."""
    page_entries = dataset.chunks[0]
    dtype = dataset.dtype
    entries = dataset.shape[0]
    stop = min((first + count) * page_entries, entries)
    codes = np.empty(stop - first * page_entries, dtype=dtype)
    # (the file's own descriptor: pread moves no file position HDF5 keeps)
    descriptor = dataset.file.id.get_vfd_handle() if places is not None else -1

    def stored_chunk(page: int) -> tuple[int, bytes]:
        if places is None:
            try:
                return dataset.id.read_direct_chunk((page * page_entries,))
            except Exception as error:  # KeyError, OSError: no chunk at that offset
                raise DamagedChunkError(f"not found ({error})", page) from None
        offset, size, mask = (int(x) for x in places[page])
        if size < 0:
            raise DamagedChunkError("not found in the chunk index", page)
        try:
            return mask, os.pread(descriptor, size, offset)
        except (OSError, OverflowError) as error:  # a damaged index's place
            raise DamagedChunkError(f"cannot be read ({error})", page) from None

    def decode(page: int, mask: int, chunk: bytes) -> None:
        start = (page - first) * page_entries
        size = min(page_entries, codes.size - start)
        if mask:  # a filter was skipped for this chunk: HDF5 knows how to read it
            values = dataset[page * page_entries:page * page_entries + size]
        else:
            try:
                values = decoded_chunk(chunk, dtype, page_entries, _decompressor())
            except DamagedChunkError as error:
                raise DamagedChunkError(error.why, page) from None
        codes[start:start + size] = values[:size]
        check(page, codes[start:start + size])

    if places is None:  # h5py reads on this thread (under its lock), decoding on many
        stored = [stored_chunk(page) for page in range(first, first + count)]
        source = lambda page: stored[page - first]  # noqa: E731
    else:
        source = stored_chunk

    def task(k: int) -> None:
        for page in range(first + k, min(first + count, first + k + PAGES_PER_TASK)):
            decode(page, *source(page))
    if count <= PAGES_PER_TASK:
        task(0)
    else:
        for _ in _reading_pool().map(task, range(0, count, PAGES_PER_TASK)):
            pass
    return codes
