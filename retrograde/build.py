"""Building tables: dependencies first, skipping tables already built and valid (every page
read back and checked), rebuilding damaged ones, writing each table atomically and removing the
temporary files of killed builds."""
from __future__ import annotations

import errno
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

import numba

from databases.families import get_family
from databases.location import DTM, DTZ50, WDL50, table_path
from databases.writer import DEFAULT_COMPRESSION, remove_leftover_temporaries, write_table
from retrograde.forward import solve_forward
from retrograde.progress import Progress, Silent, table_log
from retrograde.tables import (MISSING, OLD_INDEX, ChildLoader, ChildrenByGroup, load_children,
                               read_codes, table_problem)
from retrograde.unmove import solve_by_unmoves

GENERATOR = "solver-retrograde"
GENERATOR_VERSION = "1"


MOST_PIECES_LOOKED_AT = 64  # piece counts tried when finding a family's range (chess: 32)


class UnknownTableError(KeyError):
    """A table name the family does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


class BuildRequestError(ValueError):
    """A build request the family cannot satisfy (a piece count out of range, ...)."""


def piece_range(family) -> tuple[int, int | None] | None:
    """(fewest, most) pieces of the family's tables, read from the family (``most`` None if it
    cannot be found), or None when its tables are not chosen by piece count."""
    every = family.table_names()
    if family.table_names(0) == every:
        return None
    counts = range(MOST_PIECES_LOOKED_AT + 1)
    fewest = next((n for n in counts if family.table_names(n)), None)
    most = next((n for n in counts if family.table_names(n) == every), None)
    return (fewest if fewest is not None else 0), most


def check_pieces(family, tables: list[str] | None, max_pieces: int | None) -> None:
    """BuildRequestError unless ``max_pieces`` (None: not given) is a piece count the family
    has tables for, and no TABLE is named beside it."""
    if max_pieces is None:
        return
    game = family.game.name
    if tables:
        raise BuildRequestError("name TABLEs or give --pieces, not both")
    limits = piece_range(family)
    if limits is None:
        raise BuildRequestError(f"--pieces: {game} tables are not chosen by piece count (build "
                                "them without --pieces)")
    fewest, most = limits
    if max_pieces < fewest:
        raise BuildRequestError(f"--pieces {max_pieces}: the smallest {game} tables have "
                                f"{fewest} pieces")
    if most is not None and max_pieces > most:
        raise BuildRequestError(f"--pieces {max_pieces}: {game} tables go up to {most} pieces "
                                "(larger ones are not supported yet)")


def build_order(family, tables: list[str] | None, max_pieces: int | None) -> list[str]:
    """The requested tables and everything they depend on, dependencies first."""
    check_pieces(family, tables, max_pieces)
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
               force: bool, show_progress: bool | None = False
               ) -> tuple[list[str], list[str], dict[str, str]]:
    """(tables to build, tables skipped as already built and valid, tables to rebuild because
    their file cannot be used: {table: why}); the lists in dependency order. A table is
    skipped only after its file is checked page by page (minutes for the five-piece set: a
    progress line shows which, ``show_progress`` as in :func:`build_tables`). ``force``
    rebuilds the requested tables, their dependencies only when not valid."""
    progress = Progress(family.game.name, show_progress) if show_progress is not False \
        else Silent()
    requested = set(tables) if tables else set(family.table_names(max_pieces))
    to_build, skipped, unusable = [], [], {}
    order = build_order(family, tables, max_pieces)
    entries_checked = 0  # of the table checked last, for the rate shown
    for checked, table in enumerate(order):
        if force and table in requested:
            to_build.append(table)
            continue
        progress.update(f"checking the tables built before ({checked}/{len(order)}: {table})",
                        checked, len(order), entries_checked)
        problem = table_problem(root, family, table)
        entries_checked = family.size(table)
        if problem is None:
            skipped.append(table)
            continue
        to_build.append(table)
        if problem != MISSING:
            unusable[table] = problem
    progress.done()
    return to_build, skipped, unusable


def solve_table(family, table: str, root, progress) -> tuple:
    """The codes of one table (its dependencies already on disk) and how they were made:
    chess tables by the two-byte DTM generators (:mod:`retrograde.chess_dtm` without pawns,
    :mod:`retrograde.chess_dtm_pawns` by pawn slices with them; both start from the table's
    DTZ50 table where it is built), other tables of a game with
    un-moves by the un-move engine, the rest forward."""
    if family.game.name == "chess":
        from retrograde import chess_dtm, chess_dtm_pawns
        from retrograde.chess_promotion_runs import promotion_runs

        if "P" in table:  # its promotion children read by advancement group
            children = ChildrenByGroup(root, family, family.dependencies(table),
                                       promotion_runs(table))
            return chess_dtm_pawns.solve(table, children.codes, children.offsets, progress,
                                         own_dtz50(root, table),
                                         children.before_group), "two-byte"
        codes, offsets, _ = load_children(root, family, family.dependencies(table))
        return chess_dtm.solve(table, codes, offsets, progress,
                               own_dtz50(root, table)), "two-byte"
    if family.unmoves is not None:
        children = ChildLoader(root, family, family.dependencies(table))
        return solve_by_unmoves(family, table, children, progress), "unmove"
    children, offsets, longest = load_children(root, family, family.dependencies(table))
    return solve_forward(family, table, children, offsets, longest, progress), "forward"


def announce_rebuilds(notify, problems: dict[str, str], metric: str) -> None:
    """Tell ``notify`` why each table of ``problems`` ({table: why}) is rebuilt (``metric``:
    "" for the rule-free tables, "DTZ50 " for theirs): one line for all the files of an
    older index, one per table for the others."""
    old = [table for table, why in problems.items() if why == OLD_INDEX]
    if old:
        named = ", ".join(old[:4]) + (f" and {len(old) - 4} more" if len(old) > 4 else "")
        notify(f"rebuilding {len(old)} {metric}table{'s' * (len(old) > 1)} built with an older "
               f"index (this version indexes its tables differently): {named}")
    for table, why in problems.items():
        if why != OLD_INDEX:
            notify(f"rebuilding the {metric}table of {table}: {why}" if metric
                   else f"rebuilding {table}: {why}")


def own_dtz50(root, table: str):
    """A reader of the chess ``table``'s own DTZ50 codes for the DTM generators
    (``outcomes(out, convert)`` of :func:`retrograde.chess_dtm.start_words`, which pass over
    a DTZ50 table missing or damaged)."""
    def outcomes(out, convert):
        read_codes(root, "chess", table, out=out, metric=DTZ50, convert=convert)
    return outcomes


def build_tables(game: str, tables: list[str] | None = None, root=None, *,
                 max_pieces: int | None = None, workers: int | None = None,
                 show_progress: bool | None = None, force: bool = False,
                 compression: str = DEFAULT_COMPRESSION, notify=None,
                 dtz50: bool = True, pack: bool = True, dtm: bool = True) -> dict:
    """Build ``tables`` of ``game`` (default: all, or all up to ``max_pieces``) under ``root``,
    and the tables they depend on if missing or unusable, in this process, in
    :func:`run_stages`' order: for a game with the 50-move rule (chess), first what the search
    and the server use: with ``dtz50`` the DTZ50 tables (:func:`build_dtz50_tables`: they need
    only their children's), with ``pack`` too the packed WDL50 (:func:`pack_wdl50_tables`);
    then, with ``dtm``, the rule-free tables (value and distance to mate). ``force`` rebuilds
    the requested tables even if they are valid. ``notify(line)`` hears of each damaged file
    being rebuilt and each leftover temporary file removed. Returns ``{"built": [...],
    "skipped": [...], "rebuilt": {table: why}, "removed": [temporary files], "seconds": s}``
    and, for a game with the 50-move rule, ``"dtz50_built": [...]`` and ``"packed": [...]``."""
    if workers:
        numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
    request = BuildRequest(get_family(game), tables, Path(root), max_pieces, show_progress,
                           force, compression, notify or (lambda line: None))
    return run_stages(request, LocalStages(), dtz50=dtz50, pack=pack, dtm=dtm)


@dataclass(frozen=True)
class BuildRequest:
    """What a build was asked for, as every stage of it reads it (:func:`build_tables`' arguments)."""

    family: object
    tables: list[str] | None
    root: Path
    max_pieces: int | None
    show_progress: bool | None
    force: bool
    compression: str
    notify: Callable[[str], None]


class BuildStages(Protocol):
    """Where a build's stages run: :class:`LocalStages` (this process) or a dask cluster
    (:class:`retrograde.distributed.ClusterStages`); :func:`run_stages` orders them."""

    def dtz50(self, request: BuildRequest, renewed, pack: bool) -> tuple[list[str], list[str]]:
        """Build the DTZ50 tables needed (``renewed``: rebuilt whatever their state); returns the
        tables built and those packed on the way (with ``pack``)."""

    def packs(self, request: BuildRequest) -> list[str]:
        """Pack the WDL50 of the tables whose pack is not current; returns those packed."""

    def rule_free(self, request: BuildRequest) -> dict:
        """Build the rule-free tables needed; returns ``{"built", "skipped", "rebuilt"}``."""


def refuse_directories(request: BuildRequest, metrics: tuple[str, ...]) -> None:
    """IsADirectoryError, before anything is built, if a directory stands where a file of a
    table the build may write should be: it is the user's, not a damaged table to rebuild."""
    game = request.family.game.name
    for table in build_order(request.family, request.tables, request.max_pieces):
        for metric in metrics:
            path = table_path(request.root, game, table, metric)
            if path.is_dir():
                raise IsADirectoryError(errno.EISDIR, "a directory where a table file should be "
                                        "(move it away: a build does not remove directories)",
                                        str(path))


def run_stages(request: BuildRequest, stages: BuildStages, *, dtz50: bool = True,
               pack: bool = True, dtm: bool = True) -> dict:
    """A build's stages in the one order every build uses: the temporary files of killed builds
    removed; for a game with the 50-move rule, the DTZ50 tables (``dtz50``), then their packs
    (``pack``); then the rule-free tables (``dtm``; always for a game without the rule), each
    DTM build starting from its own DTZ50 table. Returns :func:`build_tables`' result."""
    started = time.perf_counter()
    family = request.family
    refuse_directories(request, (DTM, DTZ50, WDL50) if has_dtz50(family) else (DTM,))
    removed = clean_temporaries(request.root, family.game.name, request.notify)
    result = {"built": [], "skipped": [], "rebuilt": {}, "removed": removed}
    if has_dtz50(family):
        # --force rebuilds the requested tables' DTZ50 tables (and so their packs) too
        renewed = forced_tables(family, request.tables, request.max_pieces) \
            if request.force else ()
        built, packed = stages.dtz50(request, renewed, pack) if dtz50 else ([], [])
        if dtz50 and pack:  # (those packed on the way are current: passed over)
            packed = packed + stages.packs(request)
        result["dtz50_built"] = built
        result["packed"] = [table for table in build_order(family, request.tables,
                                                           request.max_pieces)
                            if table in set(packed)]
    if dtm or not has_dtz50(family):
        result.update(stages.rule_free(request))
    return {**result, "seconds": round(time.perf_counter() - started, 3)}


class LocalStages:
    """A build's stages in this process, one table after another."""

    def dtz50(self, request: BuildRequest, renewed, pack: bool) -> tuple[list[str], list[str]]:
        """:func:`build_dtz50_tables`."""
        packed: list[str] = []
        built = build_dtz50_tables(
            request.family, request.tables, request.root, max_pieces=request.max_pieces,
            show_progress=request.show_progress, compression=request.compression,
            renewed=renewed, notify=request.notify, pack=pack, packed=packed)
        return built, packed

    def packs(self, request: BuildRequest) -> list[str]:
        """:func:`pack_wdl50_tables`."""
        return pack_wdl50_tables(request.family, request.tables, request.root,
                                 max_pieces=request.max_pieces,
                                 show_progress=request.show_progress, notify=request.notify)

    def rule_free(self, request: BuildRequest) -> dict:
        """The rule-free tables planned by :func:`plan_build`, each by :func:`build_one`."""
        family, root = request.family, request.root
        to_build, skipped, unusable = plan_build(family, request.tables, root,
                                                 request.max_pieces, request.force,
                                                 request.show_progress)
        announce_rebuilds(request.notify, unusable, "")
        log = table_log(len(to_build), "tables", request.show_progress,
                        work=stage_work(family, to_build))
        for table in to_build:
            with log.timing(table):
                build_one(family, table, root, request.show_progress, request.compression,
                          stage=log)
        return {"built": to_build, "skipped": skipped, "rebuilt": unusable}


def stage_work(family, tables: list[str]) -> dict[str, int]:
    """Each table's entries: the work a stage's estimate of its time left weighs it by."""
    return {table: family.size(table) for table in tables}


def forced_tables(family, tables: list[str] | None, max_pieces: int | None) -> list[str]:
    """The tables ``--force`` rebuilds: those named, else every table up to ``max_pieces``
    (with their DTZ50 tables, and so their packs)."""
    return list(tables) if tables else build_order(family, None, max_pieces)


def pack_wdl50_tables(family, tables: list[str] | None, root, *, max_pieces: int | None = None,
                      show_progress: bool | None = None, notify=None) -> list[str]:
    """Pack the WDL50 (:mod:`retrograde.pack`) of ``tables`` (default: all, or all up to
    ``max_pieces``) and of the tables they depend on, whose DTZ50 tables are built: each
    whose pack is missing, unreadable, or packed from another build of its DTZ50 table.
    Returns the tables packed."""
    planned = plan_packs(family, tables, root, max_pieces=max_pieces)
    log = table_log(len(planned), "WDL50 packs", show_progress, work=stage_work(family, planned))
    for table in planned:
        with log.timing(table):
            pack_one(family, table, Path(root), show_progress, stage=log)
    return planned


def plan_packs(family, tables: list[str] | None, root, *, max_pieces: int | None = None) -> list[str]:
    """The tables :func:`pack_wdl50_tables` packs, in dependency order: those with a DTZ50
    table whose pack is missing, unreadable or packed from another build of it."""
    from retrograde.pack import pack_is_current

    root = Path(root)
    return [table for table in build_order(family, tables, max_pieces)
            if table_path(root, family.game.name, table, DTZ50).exists()
            and not pack_is_current(root, family, table)]


def pack_one(family, table: str, root: Path, show_progress: bool | None, stage=None) -> None:
    """Pack one table's WDL50 (its DTZ50 table and its children's on disk); ``stage``: the
    build's :class:`retrograde.progress.TableLog`, named on the progress line."""
    from retrograde.pack import pack_table  # here: compiles its kernels

    progress = Progress(f"{family.game.name} {table} WDL50 pack", show_progress, stage=stage) \
        if show_progress is not False else Silent()
    pack_table(root, family, table, progress=progress)
    progress.done()


def has_dtz50(family) -> bool:
    """Whether the family's game has the 50-move rule, so its tables get DTZ50 tables."""
    return family.game.fifty_move_plies > 0 and family.game.player is not None


def build_dtz50_tables(family, tables: list[str] | None, root, *, max_pieces: int | None = None,
                       show_progress: bool | None = None, compression: str = DEFAULT_COMPRESSION,
                       renewed=(), notify=None, pack: bool = False,
                       packed: list[str] | None = None) -> list[str]:
    """The DTZ50 tables (:mod:`retrograde.dtz50`) of ``tables`` (default: all, or all up to
    ``max_pieces``) and of the tables they depend on: each one missing, unusable, or in
    ``renewed`` (to be rebuilt whatever its state), in dependency order. Returns the tables
    whose DTZ50 table was built. With ``pack``, a table whose generator makes its pack's
    bytes on the way (chess tables with pawns) is packed at once, and appended to
    ``packed``."""
    planned = plan_dtz50(family, tables, root, max_pieces=max_pieces, renewed=renewed, notify=notify)
    log = table_log(len(planned), "DTZ50 tables", show_progress, work=stage_work(family, planned))
    for table in planned:
        with log.timing(table):
            if build_dtz50_one(family, table, root, show_progress, compression, pack, stage=log) \
                    and packed is not None:
                packed.append(table)
    return planned


def plan_dtz50(family, tables: list[str] | None, root, *, max_pieces: int | None = None,
               renewed=(), notify=None) -> list[str]:
    """The tables whose DTZ50 table :func:`build_dtz50_tables` builds, in dependency order:
    missing, unusable (``notify`` hears why), or whose rule-free table is in ``renewed``, and
    every table one of those is a dependency of (its DTZ50 reads theirs)."""
    if not has_dtz50(family):
        return []
    notify = notify or (lambda line: None)
    root = Path(root)
    planned: list[str] = []
    problems: dict[str, str] = {}
    for table in build_order(family, tables, max_pieces):
        problem = table_problem(root, family, table, DTZ50)
        if problem is None and table not in renewed \
                and not any(child in planned for child in family.dependencies(table)):
            continue
        if problem not in (None, MISSING):
            problems[table] = problem
        planned.append(table)
    announce_rebuilds(notify, problems, "DTZ50 ")
    return planned


def build_dtz50_one(family, table: str, root: Path, show_progress: bool | None,
                    compression: str, pack: bool = False, stage=None) -> bool:
    """Solve the DTZ50 table of ``table`` (its rule-free table and its children's DTZ50
    tables on disk) and write it atomically. With ``pack``, a chess table with pawns is
    packed too, from the stored bytes its generator made group by group (no pass of the
    pack's own over its moves out); returns whether it was packed. ``stage``: as
    :func:`pack_one`'s."""
    from retrograde.dtz50 import (can_use_unmoves, solve_chess_pawn_dtz50,  # here: compiles
                                  solve_dtz50, solve_dtz50_by_unmoves, solve_dtz50_in_one_byte)

    game = family.game.name
    progress = Progress(f"{game} {table} DTZ50", show_progress, stage=stage) \
        if show_progress is not False \
        else Silent()
    started = time.perf_counter()
    stored, method = None, "one-byte"
    if game == "chess" and "P" in table:
        codes, stored = solve_chess_pawn_dtz50(family, table, root, progress, stored_bytes=pack)
    else:
        codes = solve_dtz50_in_one_byte(family, table, root, progress)
    if codes is None and can_use_unmoves(family, table):
        method = "unmove"
        codes = solve_dtz50_by_unmoves(family, table, root, progress)
    elif codes is None:
        method = "forward"
        rule_free = read_codes(root, game, table)
        children, offsets, _ = load_children(root, family, family.dependencies(table),
                                             metric=DTZ50)
        codes = solve_dtz50(family, table, rule_free, children, offsets, progress)
        del children, rule_free
    write_table(table_path(root, game, table, DTZ50), codes, game=game, table=table,
                index_scheme=family.index_scheme, index_version=family.index_version,
                sides=family.sides, generator=GENERATOR, generator_version=GENERATOR_VERSION,
                settings={"metric": DTZ50, "method": method,
                          "threads": numba.get_num_threads()},
                build_seconds=time.perf_counter() - started, compression=compression)
    progress.done()
    if stored is None:
        return False
    del codes
    from retrograde.pack import pack_table

    progress = Progress(f"{game} {table} WDL50 pack", show_progress, stage=stage) \
        if show_progress is not False else Silent()
    pack_table(root, family, table, progress=progress, values=stored)
    progress.done()
    return True


def clean_temporaries(root: Path, game: str, notify) -> list[str]:
    """Remove the temporary files killed builds left in ``<root>/<game>`` and its DTZ50 and
    packed WDL50 folders (not those of a build still running) and return their names (relative
    to ``<root>/<game>``)."""
    home = root / game
    removed = [path.relative_to(home).as_posix()
               for folder in (home, home / DTZ50, home / WDL50)
               for path in remove_leftover_temporaries(folder)]
    if removed:
        notify(f"removed {len(removed)} temporary file(s) left by interrupted builds: "
               f"{', '.join(removed)}")
    return removed


def build_one(family, table: str, root: Path, show_progress: bool | None,
              compression: str, stage=None) -> None:
    """Solve one table (its dependencies on disk) and write it atomically; ``stage``: as
    :func:`pack_one`'s."""
    game = family.game.name
    progress = Progress(f"{game} {table}", show_progress, stage=stage) \
        if show_progress is not False else Silent()
    table_started = time.perf_counter()
    codes, method = solve_table(family, table, root, progress)
    seconds = time.perf_counter() - table_started
    write_table(table_path(root, game, table), codes, game=game, table=table,
                index_scheme=family.index_scheme, index_version=family.index_version,
                sides=family.sides, generator=GENERATOR, generator_version=GENERATOR_VERSION,
                settings={"method": method, "threads": numba.get_num_threads()},
                build_seconds=seconds, compression=compression)
    progress.done()
