"""The errors a database reader raises; each prints as one line."""


class DatabaseError(Exception):
    """Something is wrong with a database directory or table file."""


class MissingTableError(DatabaseError, KeyError):
    """The table a position belongs to is not in the database (python-chess raises a KeyError
    subclass of the same name)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "missing table"


class NotCoveredError(DatabaseError, KeyError):
    """The position is outside every table of the family (too many pieces, castling rights)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "position not covered"


class FormatError(DatabaseError):
    """A file of another format version or game, or not a table file at all."""


class DamagedPageError(DatabaseError):
    """A page failed its checksum (or could not be decompressed)."""
