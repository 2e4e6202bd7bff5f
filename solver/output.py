"""Printing command results: one JSON object with ``--json``, a short human summary without."""
from __future__ import annotations

import json
import sys
from typing import Callable


def emit(result: dict, as_json: bool, summary: Callable[[dict], str]) -> None:
    """Print ``result`` as one JSON line, or ``summary(result)`` for people."""
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(summary(result) + "\n")
    sys.stdout.flush()
