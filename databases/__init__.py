"""The paged HDF5 store of endgame tables: file format, atomic writer, reader with a bounded
page cache, and the catalog of tables on disk.

>>> from databases import open_database, MissingTableError
"""
from databases.errors import (DamagedPageError, DatabaseError, FormatError, MissingTableError,
                              NotCoveredError)
from databases.location import default_database_dir, table_path
from databases.reader import Database, ProbeResult, open_database

__all__ = ["open_database", "Database", "ProbeResult", "DatabaseError", "MissingTableError",
           "NotCoveredError", "FormatError", "DamagedPageError", "default_database_dir",
           "table_path"]
