"""Loading finished tables whole (as the children of a table being built or verified)."""
from __future__ import annotations

import numpy as np

from databases import format as F
from databases.errors import DatabaseError
from databases.location import table_path
from databases.reader import TableFile


def read_codes(root, game: str, table: str) -> np.ndarray:
    """Every code of a table, as uint16 (whole-file read, checksums verified)."""
    handle = TableFile(table_path(root, game, table), game, table)
    try:
        codes = np.empty(handle.entries, dtype=np.uint16)
        for page in range(handle.pages):
            start = page * F.PAGE_ENTRIES
            chunk = handle.read_page(page)
            codes[start:start + chunk.size] = chunk
        return codes
    finally:
        handle.close()


def is_built(root, family, table: str) -> bool:
    """Whether a valid file for ``table`` exists (format, game, name, index scheme and size)."""
    game = family.game.name
    try:
        handle = TableFile(table_path(root, game, table), game, table)
    except DatabaseError:
        return False
    try:
        attrs = handle.attrs
        return (attrs.get("index_scheme") == family.index_scheme
                and int(attrs.get("index_version", -1)) == family.index_version
                and handle.entries == family.size(table))
    finally:
        handle.close()


def load_children(root, family, tables: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of ``tables`` concatenated, offsets by table id (-1 when absent), and their
    longest distance."""
    names = family.table_names()
    offsets = np.full(max(1, len(names)), -1, dtype=np.int64)
    parts, total, longest = [], 0, 0
    for table in tables:
        codes = read_codes(root, family.game.name, table)
        offsets[family.table_id(table)] = total
        parts.append(codes)
        total += codes.size
        if codes.size and codes.max() >= 2:
            longest = max(longest, (int(codes.max()) - 2) >> 1)
    merged = np.concatenate(parts) if parts else np.zeros(1, dtype=np.uint16)
    return merged, offsets, longest
