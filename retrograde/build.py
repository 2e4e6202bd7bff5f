"""Building tables: dependencies first, skipping tables already built and valid, writing each
table atomically."""
from __future__ import annotations

import time
from pathlib import Path

import numba

from databases.families import get_family
from databases.location import table_path
from databases.writer import DEFAULT_COMPRESSION, write_table
from retrograde.forward import solve_forward
from retrograde.progress import Progress, Silent
from retrograde.tables import is_built, load_children
from retrograde.unmove import solve_by_unmoves

GENERATOR = "solver-retrograde"
GENERATOR_VERSION = "1"


class UnknownTableError(KeyError):
    """A table name the family does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


def build_order(family, tables: list[str] | None, max_pieces: int | None) -> list[str]:
    """The requested tables and everything they depend on, dependencies first."""
    every = family.table_names()
    wanted = list(tables) if tables else family.table_names(max_pieces)
    for name in wanted:
        if name not in every:
            raise UnknownTableError(f"unknown {family.game.name} table {name!r}")
    needed: set[str] = set()
    stack = list(wanted)
    while stack:
        name = stack.pop()
        if name not in needed:
            needed.add(name)
            stack.extend(family.dependencies(name))
    return [name for name in every if name in needed]


def plan_build(family, tables: list[str] | None, root, max_pieces: int | None,
               force: bool) -> tuple[list[str], list[str]]:
    """(tables to build, tables skipped as already built and valid), both in dependency order;
    ``force`` rebuilds the requested tables, their dependencies only when missing."""
    requested = set(tables) if tables else set(family.table_names(max_pieces))
    to_build, skipped = [], []
    for table in build_order(family, tables, max_pieces):
        if not (force and table in requested) and is_built(root, family, table):
            skipped.append(table)
        else:
            to_build.append(table)
    return to_build, skipped


def solve_table(family, table: str, root, progress) -> tuple:
    """The codes of one table (its dependencies already on disk)."""
    children, offsets, longest = load_children(root, family, family.dependencies(table))
    if family.unmoves is not None:
        return solve_by_unmoves(family, table, children, offsets, progress), "unmove"
    return solve_forward(family, table, children, offsets, longest, progress), "forward"


def build_tables(game: str, tables: list[str] | None = None, root=None, *,
                 max_pieces: int | None = None, workers: int | None = None,
                 show_progress: bool | None = None, force: bool = False,
                 compression: str = DEFAULT_COMPRESSION) -> dict:
    """Build ``tables`` of ``game`` (default: all, or all up to ``max_pieces``) under ``root``,
    and the tables they depend on if missing. ``force`` rebuilds the requested tables even if
    they exist. Returns ``{"built": [...], "skipped": [...], "seconds": s}``."""
    family = get_family(game)
    root = Path(root)
    if workers:
        numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
    started = time.perf_counter()
    built = []
    to_build, skipped = plan_build(family, tables, root, max_pieces, force)
    for table in to_build:
        progress = Progress(f"{game} {table}", show_progress) if show_progress is not False \
            else Silent()
        table_started = time.perf_counter()
        codes, method = solve_table(family, table, root, progress)
        seconds = time.perf_counter() - table_started
        write_table(table_path(root, game, table), codes, game=game, table=table,
                    index_scheme=family.index_scheme, index_version=family.index_version,
                    sides=family.sides, generator=GENERATOR, generator_version=GENERATOR_VERSION,
                    settings={"method": method, "threads": numba.get_num_threads()},
                    build_seconds=seconds, compression=compression)
        progress.done()
        built.append(table)
    return {"built": built, "skipped": skipped,
            "seconds": round(time.perf_counter() - started, 3)}
