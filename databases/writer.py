"""Writing a finished table to its HDF5 file, atomically (temporary name, then rename), and
removing the temporary files of writers that were killed.

A writer's temporary file is ``.<table>.h5.tmp-<pid>@<host>`` beside the final file (older
versions wrote ``.<table>.h5.tmp-<pid>``): the pid and host tell whether its writer still runs.
"""
from __future__ import annotations

import errno
import json
import os
import re
import socket
import time
from pathlib import Path

import h5py
import numba as nb
import numpy as np
from numba import prange

from databases import format as F
from games.value_codes import longest_distance

COMPRESSIONS = ("zstd", "gzip", "lzf", "none")
DEFAULT_COMPRESSION = "zstd"
# Level 3 (Zstandard's default): on chess tables' pages 3.3-4x faster to compress than level 6,
# for files 4-15% larger (DTM 4-12%, DTZ50 15%; 2026-12-07), and building is what users wait
# on. Level 6 was 1% larger than level 9 and 2.4x faster (2026-11-25). Any level reads alike.
ZSTD_LEVEL = 3


def _filter_options(compression: str) -> dict:
    """h5py keyword arguments for ``compression`` (zstd goes through hdf5plugin)."""
    if compression == "zstd":
        import hdf5plugin

        return dict(hdf5plugin.Zstd(clevel=ZSTD_LEVEL))
    if compression == "gzip":
        return {"compression": "gzip", "compression_opts": 6, "shuffle": False}
    if compression == "lzf":
        return {"compression": "lzf"}
    if compression == "none":
        return {}
    raise ValueError(f"unknown compression {compression!r} (known: {', '.join(COMPRESSIONS)})")


SLICE_ENTRIES = 1 << 24  # entries counted or written at a time: temporaries stay small


@nb.njit(cache=True, parallel=True)
def _slice_counts(row, counts, slice_entries):
    """``counts[k, code]`` = how often ``code`` occurs in slice ``k`` of ``row``."""
    for k in prange(counts.shape[0]):
        for i in range(k * slice_entries, min(row.shape[0], (k + 1) * slice_entries)):
            counts[k, row[i]] += 1


def code_counts(codes: np.ndarray, sides: int) -> np.ndarray:
    """How many entries of each side hold each code: ``counts[side, code]`` (int64), counted a
    slice at a time on every thread (``np.bincount`` makes an int64 copy of what it counts)."""
    per_side = codes.reshape(sides, -1)
    counts = np.zeros((sides, int(codes.max(initial=0)) + 1), dtype=np.int64)
    for side in range(sides):
        row = np.ascontiguousarray(per_side[side])
        slices = np.zeros((-(-row.size // SLICE_ENTRIES), counts.shape[1]), dtype=np.int64)
        _slice_counts(row, slices, SLICE_ENTRIES)
        counts[side] = slices.sum(axis=0)
    return counts


def table_statistics(codes: np.ndarray, sides: int) -> dict:
    """Counts of wins/draws/losses per side to move, invalid entries, and the longest mate."""
    counts = code_counts(codes, sides)
    present = np.flatnonzero(counts.sum(axis=0))
    longest = longest_distance(present[-1]) if present.size else 0
    return {"wins": [int(row[3::2].sum()) for row in counts],
            "draws": [int(row[F.CODE_DRAW]) if row.size > F.CODE_DRAW else 0 for row in counts],
            "losses": [int(row[2::2].sum()) for row in counts],
            "invalid": int(counts[:, F.INVALID].sum()), "longest_mate": longest}


def write_table(path: str | os.PathLike, codes: np.ndarray, *, game: str, table: str,
                index_scheme: str, index_version: int, sides: int, generator: str,
                generator_version: str, settings: dict, build_seconds: float,
                compression: str = DEFAULT_COMPRESSION,
                page_entries: int = F.PAGE_ENTRIES) -> dict:
    """Write ``codes`` (one code per entry, side-major) as a table file and return its
    attributes. The file appears under its final name only once complete and closed."""
    path = Path(path)
    if codes.size and int(codes.max()) == F.UNKNOWN:
        raise ValueError(f"{table}: unresolved entries left; refusing to write")
    stats = table_statistics(codes, sides)
    dtype = F.storage_dtype(stats["longest_mate"])
    attributes = {
        "format_version": F.FORMAT_VERSION, "game": game, "table": table,
        "index_scheme": index_scheme, "index_version": index_version,
        "entries": int(codes.size), "sides": sides, "entries_per_side": int(codes.size // sides),
        **stats, "generator": generator, "generator_version": generator_version,
        "settings": json.dumps(settings, sort_keys=True), "build_seconds": float(build_seconds),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "page_entries": page_entries, "compression": compression,
    }
    checksums = F.page_checksums(codes, page_entries)
    attributes["content_crc32"] = F.content_checksum(checksums)

    def fill(handle) -> None:
        dataset = handle.create_dataset(F.DATASET, shape=codes.shape, dtype=dtype,
                                        chunks=(min(page_entries, max(1, codes.size)),),
                                        fletcher32=True, **_filter_options(compression))
        from databases.chunks import can_write_directly, write_pages  # its kernel: here

        if codes.size and can_write_directly(dataset):
            write_pages(dataset, codes)
        else:
            step = max(page_entries, SLICE_ENTRIES - SLICE_ENTRIES % page_entries)
            for start in range(0, codes.size, step):  # whole pages, a slice at a time
                dataset[start:start + step] = codes[start:start + step].astype(dtype)
        handle.create_dataset(F.CHECKSUMS, data=checksums, fletcher32=True)
        write_attributes(handle, attributes)

    write_atomically(path, fill)
    return attributes


def write_atomically(path: str | os.PathLike, fill) -> None:
    """Create the HDF5 file ``path`` with ``fill(handle)``: written under a temporary name
    beside it, closed, fsynced, then renamed, so it appears only once complete (and a failed
    write leaves nothing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = temporary_path(path)
    try:
        try:
            with h5py.File(temporary, "w") as handle:
                fill(handle)
        except (OSError, RuntimeError) as error:
            # HDF5 reports a failed write (a full disk) with its own text, many lines long,
            # as an OSError without an errno, or on closing as a RuntimeError
            for code, culprit in ((errno.ENOSPC, path), (errno.EISDIR, temporary)):
                if f"errno = {code}," in str(error):
                    raise OSError(code, os.strerror(code), str(culprit)) from None
            if isinstance(error, RuntimeError):
                raise OSError(f"cannot write {path}: {str(error).splitlines()[0]}") from None
            raise
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.is_file():  # (a directory there is someone else's)
            temporary.unlink()


def write_attributes(handle, attributes: dict) -> None:
    """Store ``attributes`` on an open file (text as fixed-length strings)."""
    for key, value in attributes.items():
        handle.attrs[key] = F.stored_attribute(value)


# --- temporary files ---------------------------------------------------------------------
_TEMPORARY = re.compile(r"^\..+\.h5\.tmp-(?P<pid>[0-9]+)(?:@(?P<host>.*))?$")


def temporary_path(path: Path) -> Path:
    """Where this process writes ``path`` before renaming it."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}@{socket.gethostname()}")


def temporary_owner(path: Path) -> tuple[int, str | None] | None:
    """(pid, host) of the writer of a temporary file (host None for the old naming), or None
    if ``path`` is not a writer's temporary file."""
    match = _TEMPORARY.match(path.name)
    if match is None:
        return None
    return int(match["pid"]), match["host"]


def process_exists(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user counts)."""
    if pid <= 0:
        return True  # not a writer's pid: leave the file alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or a pid we cannot judge
    return True


def leftover_temporaries(directory: Path, pids=None) -> list[Path]:
    """Temporary files in ``directory`` whose writer is gone: written on this host by a
    process that no longer exists, or (when given) by one of ``pids`` (known to be gone).
    A file of a writer on another host, or of a live one (a concurrent build), is kept."""
    if os.name != "posix" or not directory.is_dir():
        return []
    here = socket.gethostname()
    found = []
    for path in directory.glob(".*.h5.tmp-*"):
        owner = temporary_owner(path)
        if owner is None or owner[1] not in (None, here):
            continue
        pid = owner[0]
        if (pids is not None and pid in pids) or (pids is None and not process_exists(pid)):
            found.append(path)
    return sorted(found)


def remove_leftover_temporaries(directory: Path, pids=None) -> list[Path]:
    """Remove :func:`leftover_temporaries` and return them."""
    removed = []
    for path in leftover_temporaries(Path(directory), pids):
        try:
            path.unlink()
        except FileNotFoundError:
            continue  # removed meanwhile by another build
        removed.append(path)
    return removed
