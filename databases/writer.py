"""Writing a finished table to its HDF5 file, atomically (temporary name, then rename)."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import h5py
import numpy as np

from databases import format as F

COMPRESSIONS = ("zstd", "gzip", "lzf", "none")
DEFAULT_COMPRESSION = "zstd"


def _filter_options(compression: str) -> dict:
    """h5py keyword arguments for ``compression`` (zstd goes through hdf5plugin)."""
    if compression == "zstd":
        import hdf5plugin

        return dict(hdf5plugin.Zstd(clevel=9))
    if compression == "gzip":
        return {"compression": "gzip", "compression_opts": 6, "shuffle": False}
    if compression == "lzf":
        return {"compression": "lzf"}
    if compression == "none":
        return {}
    raise ValueError(f"unknown compression {compression!r} (known: {', '.join(COMPRESSIONS)})")


def table_statistics(codes: np.ndarray, sides: int) -> dict:
    """Counts of wins/draws/losses per side to move, invalid entries, and the longest mate."""
    per_side = codes.reshape(sides, -1)
    wins, draws, losses = [], [], []
    for side in range(sides):
        row = per_side[side].astype(np.int64)
        decisive = row >= 2
        wins.append(int(np.count_nonzero(decisive & (row & 1 == 1))))
        losses.append(int(np.count_nonzero(decisive & (row & 1 == 0))))
        draws.append(int(np.count_nonzero(row == F.CODE_DRAW)))
    longest = int((codes.max() - 2) >> 1) if codes.size and codes.max() >= 2 else 0
    return {"wins": wins, "draws": draws, "losses": losses,
            "invalid": int(np.count_nonzero(codes == F.INVALID)), "longest_mate": longest}


def write_table(path: str | os.PathLike, codes: np.ndarray, *, game: str, table: str,
                index_scheme: str, index_version: int, sides: int, generator: str,
                generator_version: str, settings: dict, build_seconds: float,
                compression: str = DEFAULT_COMPRESSION,
                page_entries: int = F.PAGE_ENTRIES) -> dict:
    """Write ``codes`` (one code per entry, side-major) as a table file and return its
    attributes. The file appears under its final name only once complete and closed."""
    path = Path(path)
    if np.any(codes == F.UNKNOWN):
        raise ValueError(f"{table}: unresolved entries left; refusing to write")
    stats = table_statistics(codes, sides)
    dtype = F.storage_dtype(stats["longest_mate"])
    data = codes.astype(dtype)
    attributes = {
        "format_version": F.FORMAT_VERSION, "game": game, "table": table,
        "index_scheme": index_scheme, "index_version": index_version,
        "entries": int(codes.size), "sides": sides, "entries_per_side": int(codes.size // sides),
        **stats, "generator": generator, "generator_version": generator_version,
        "settings": json.dumps(settings, sort_keys=True), "build_seconds": float(build_seconds),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "page_entries": page_entries, "compression": compression,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with h5py.File(temporary, "w") as handle:
            handle.create_dataset(F.DATASET, data=data, chunks=(min(page_entries, max(1, data.size)),),
                                  fletcher32=True, **_filter_options(compression))
            for key, value in attributes.items():
                handle.attrs[key] = value
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
    return attributes
