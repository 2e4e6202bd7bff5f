"""The paged HDF5 store of endgame tables: file format, atomic writer, reader with a bounded
page cache, and the catalog of tables on disk.

>>> from databases import open_database, MissingTableError
"""
import runtime.compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)

from databases.errors import (DamagedPageError, DamagedTableError, DatabaseError, FormatError,
                              MissingTableError, NotCoveredError, UnusableTableError)
from databases.location import default_database_dir, table_path

_READER_NAMES = ("Database", "ProbeResult", "open_database")


def __getattr__(name: str):
    """The reader is imported on first use (it compiles the page-cache kernels), so that
    commands that only name a database directory start without compiling anything."""
    if name in _READER_NAMES:
        from databases import reader

        return getattr(reader, name)
    raise AttributeError(f"module 'databases' has no attribute {name!r}")


__all__ = ["open_database", "Database", "ProbeResult", "DatabaseError", "MissingTableError",
           "NotCoveredError", "UnusableTableError", "FormatError", "DamagedTableError",
           "DamagedPageError", "default_database_dir", "table_path"]
