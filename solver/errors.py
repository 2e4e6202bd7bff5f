"""Errors that the command line reports as one line on stderr with exit status 2."""


class UsageError(ValueError):
    """Bad input from the user: an unknown game, a malformed position, a bad option value."""
