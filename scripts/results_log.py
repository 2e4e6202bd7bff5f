"""The JSON-lines results file that lets a long benchmark or check resume where it stopped.

Each finished unit of work (a table built, a table verified, a chunk checked) becomes one
line the moment it is known; a later run reads the lines back and skips what they name. Rows
carry the commit of the code that produced them, so rows of several commits can be told apart.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path


def recorded(path: Path) -> list[dict]:
    """The rows already in ``path`` (a missing file: none)."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def append_row(path: Path, row: dict) -> None:
    """Append ``row`` as one line and flush it, creating the file and its folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        handle.write(json.dumps(row) + "\n")


def source_commit() -> str:
    """The short commit of the code running, "unknown" outside a git checkout."""
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    return result.stdout.strip() or "unknown"
