"""Where databases live: ``--db DIR``, else ``$SOLVER_DB``, else the user data directory."""
from __future__ import annotations

import os
from pathlib import Path


def default_database_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The database directory: ``explicit`` if given, else ``$SOLVER_DB``, else
    ``$XDG_DATA_HOME/solver/db`` (``~/.local/share/solver/db`` by default)."""
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get("SOLVER_DB"):
        return Path(os.environ["SOLVER_DB"]).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "solver" / "db"


def table_path(root: str | os.PathLike, game: str, table: str) -> Path:
    """``<root>/<game>/<table>.h5``."""
    return Path(root) / game / f"{table}.h5"
