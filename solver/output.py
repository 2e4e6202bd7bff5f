"""Printing command results: one JSON object with ``--json``, a short human summary without."""
from __future__ import annotations

import json
import sys
from typing import Callable


def write_line(text: str) -> None:
    """``text`` and a newline on stdout, flushed at once (batch answers reach a co-process
    without waiting). Characters stdout's encoding cannot carry (the non-UTF-8 bytes of an input,
    say) are written as backslash escapes instead of failing."""
    stream = sys.stdout
    encoding = stream.encoding or "utf-8"
    stream.write(text.encode(encoding, "backslashreplace").decode(encoding) + "\n")
    stream.flush()


def emit(result: dict, as_json: bool, summary: Callable[[dict], str]) -> None:
    """Print ``result`` as one JSON line, or ``summary(result)`` for people."""
    write_line(json.dumps(result) if as_json else summary(result))
