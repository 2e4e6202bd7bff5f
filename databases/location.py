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


DTM = "dtm"  # the rule-free tables: value and distance to mate
DTZ50 = "dtz50"  # the 50-move-rule tables: distance to the next zeroing move (retrograde.dtz50)
WDL50 = "wdl50"  # the packed WDL50 the search keeps in memory (databases.packed)
METRICS = (DTM, DTZ50, WDL50)


def table_path(root: str | os.PathLike, game: str, table: str, metric: str = DTM) -> Path:
    """``<root>/<game>/<table>.h5`` for the rule-free table, ``<root>/<game>/dtz50/<table>.h5``
    for its DTZ50 table (a sibling file in a folder of its own: the two are built at different
    times from different inputs, each written whole, and a directory listing of the rule-free
    tables never meets the other kind); ``<root>/<game>/wdl50/<table>.h5`` for its packed
    WDL50, likewise."""
    if metric == DTM:
        return Path(root) / game / f"{table}.h5"
    if metric in (DTZ50, WDL50):
        return Path(root) / game / metric / f"{table}.h5"
    raise ValueError(f"no table metric {metric!r}")
