"""Numbers as a user types them: what a count in a position, on a command line, in a UCI
option or a URL may be (no numba here: the UCI front end answers its handshake without it)."""
from __future__ import annotations


def is_ascii_number(text: str) -> bool:
    """Whether ``text`` is a non-empty run of the ASCII digits 0-9 (``str.isdigit`` also takes
    other scripts' digits and superscripts, which ``int`` then takes or refuses)."""
    return text.isascii() and text.isdigit()


def ascii_integer(text: str) -> int | None:
    """The integer ``text`` spells in ASCII digits, a sign allowed, or None (``int`` would
    also take "٣" and underscores)."""
    text = text.strip()
    return int(text) if is_ascii_number(text[1:] if text[:1] in "+-" else text) else None
