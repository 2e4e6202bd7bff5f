"""The errors a database reader raises; each prints as one line.

Two kinds: the user asked for what the tables do not hold (:class:`MissingTableError`,
:class:`NotCoveredError`), or a table file exists but cannot be used
(:class:`UnusableTableError`: :class:`FormatError` for another format, game or index,
:class:`DamagedTableError` for damage or truncation). The command line reports the second
kind with exit status 1 (a damaged environment).
"""


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


class UnusableTableError(DatabaseError):
    """A table file exists but cannot be used (the message names the file; ``table`` names the
    table when the reader knows it)."""

    table: str | None = None


class FormatError(UnusableTableError):
    """A file of another format version, game or index scheme, or not a table file at all."""


class OldIndexError(FormatError):
    """A table of its game's index scheme, built with another version of it (an older build):
    ``solver build`` rebuilds it."""


class DamagedTableError(UnusableTableError):
    """A table file whose header, page index or pages are damaged or truncated."""


class DamagedPageError(DamagedTableError):
    """A page failed its checksum (or could not be decompressed)."""
