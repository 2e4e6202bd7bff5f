"""Building tables on a dask.distributed cluster: one task per table, submitted once the tasks
of the tables it depends on have finished, so independent tables build at the same time on
different workers. In the order of a local build: (chess) the DTZ50 tables first, each once
the DTZ50 tables it reads are done, then the packed WDL50 of each, which depend on nothing else
to be packed, then the rule-free tables the same way (each starts from its own DTZ50 table).

Workers read the finished tables they depend on from, and write their own table into, the same
database directory as the client: it must be a path every worker sees (a shared filesystem).
Each task builds its table with :func:`retrograde.build.build_tables`, so a file written by a
worker is the same as one written by a local build (same codes, same attributes apart from the
build time and thread count), and it appears under its final name only once complete.

dask is imported only when a distributed build starts (normal commands stay fast).
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

from databases.families import get_family
from databases.location import DTZ50, WDL50, table_path
from databases.writer import DEFAULT_COMPRESSION, remove_leftover_temporaries
from retrograde.build import (BuildRequest, announce_rebuilds, build_dtz50_one, build_order, build_tables,
                              pack_one, plan_build, plan_dtz50, plan_packs, run_stages, stage_work)
from retrograde.progress import table_log
from retrograde.tables import is_built

CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler (and to see its first worker)
INSTALL_HINT = "pip install 'game-solver[distributed]'"
LOCAL = "local"


class DistributedBuildError(RuntimeError):
    """A distributed build could not run or did not finish (reported as one line)."""


class DaskMissingError(DistributedBuildError):
    """dask.distributed is not installed."""


class SchedulerUnreachableError(DistributedBuildError):
    """The scheduler address cannot be reached, or the scheduler has no workers."""


class TableBuildError(DistributedBuildError):
    """A worker failed to build a table."""


class TableTaskError(RuntimeError):
    """Raised inside a worker task: which table failed, on which worker, and why (one line).
    Its arguments are plain strings so that it travels back to the client intact."""

    def __init__(self, table: str, worker: str, message: str):
        super().__init__(table, worker, message)
        self.table, self.worker, self.message = table, worker, message

    def __str__(self) -> str:
        return f"building {self.table} failed on worker {self.worker}: {self.message}"


CLOSE_TIMEOUT = 5.0  # seconds a local cluster gets to close (its workers already ended)


def parse_scheduler(spec: str) -> tuple[str, int | None]:
    """``("local", n)`` for ``local`` / ``local:N`` (N worker processes, default the core count),
    else ``(address, None)``. Raises ValueError for a malformed ``local:N``."""
    if spec != LOCAL and not spec.startswith(LOCAL + ":"):
        return spec, None
    if spec == LOCAL:
        return LOCAL, available_cores()
    count = spec[len(LOCAL) + 1:]
    if not (count.isascii() and count.isdigit()) or int(count) < 1:
        raise ValueError(f"--scheduler {spec}: expected local or local:N with N >= 1 worker processes")
    return LOCAL, int(count)


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def one_line(error: BaseException) -> str:
    """``Type: first line of the message``."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _worker_name() -> str:
    """The address of the dask worker running the current task ("local" outside dask)."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def build_table_task(game: str, table: str, root: str, threads: int | None,
                     compression: str) -> dict:
    """A worker task: build ``table`` into ``root``, where its dependencies already are. Returns
    ``{"table", "worker", "started", "finished", "seconds"}`` (wall-clock times)."""
    def build() -> None:
        family = get_family(game)
        for dependency in family.dependencies(table):
            if not is_built(root, family, dependency):
                raise _not_shared(f"dependency {dependency}", table_path(root, game, dependency))
        # build_tables rebuilds exactly `table` here: force covers it, its dependencies exist
        # (their DTZ50 tables came before, as tasks of build_dtz50_task: it starts from its own)
        result = build_tables(game, [table], root, workers=threads, show_progress=False,
                              force=True, compression=compression, dtz50=False)
        if result["built"] != [table]:
            raise RuntimeError(f"expected to build only {table}, built {result['built']}")

    return _timed_task(table, build)


def build_dtz50_task(game: str, table: str, root: str, threads: int | None,
                     compression: str, pack: bool = False) -> dict:
    """A worker task: build the DTZ50 table of ``table`` into ``root``, where the DTZ50 tables
    of its dependencies already are (the client checked them page by page when it planned the
    build; the one-byte generators read no rule-free table); with ``pack``, a table whose generator makes
    its pack's bytes on the way is packed too (``build_dtz50_one``). Returns what
    :func:`build_table_task` does, and ``packed``: whether it packed."""
    packed = []

    def build() -> None:
        import numba

        family = get_family(game)
        needed = [(f"the DTZ50 table of {dependency}", table_path(root, game, dependency, DTZ50))
                  for dependency in family.dependencies(table)]
        for what, path in needed:
            if not path.exists():
                raise _not_shared(what, path)
        if threads:
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        if build_dtz50_one(family, table, Path(root), False, compression, pack):
            packed.append(table)

    task = _timed_task(table, build, f"the DTZ50 table of {table}")
    task["packed"] = bool(packed)
    return task


def pack_task(game: str, table: str, root: str) -> dict:
    """A worker task: pack the WDL50 of ``table`` into ``root``, where its DTZ50 table and
    its dependencies' already are. Returns what :func:`build_table_task` does."""
    def build() -> None:
        family = get_family(game)
        for name in [table] + family.dependencies(table):
            path = table_path(root, game, name, DTZ50)
            if not path.exists():
                raise _not_shared(f"the DTZ50 table of {name}", path)
        pack_one(family, table, Path(root), False)

    return _timed_task(table, build, f"the WDL50 pack of {table}")


def _not_shared(what: str, path: Path) -> FileNotFoundError:
    """The error of a task that does not find a table the client saw built."""
    return FileNotFoundError(f"{what} is missing at {path}; "
                             "the database directory must be on a filesystem every worker shares")


def _timed_task(table: str, build, what: str | None = None) -> dict:
    """Run ``build()`` as the task of ``table``: its worker and wall-clock times, or a
    TableTaskError naming what was built (``what``, default the table), the worker and the
    cause in one line."""
    worker = _worker_name()
    started = time.time()
    try:
        build()
    except Exception as error:
        raise TableTaskError(what or table, worker, one_line(error)) from None
    finished = time.time()
    return {"table": table, "worker": worker, "started": started, "finished": finished,
            "seconds": round(finished - started, 3)}


def prerequisites(family, table: str) -> set[str]:
    """Every table ``table`` depends on, directly or not."""
    return set(build_order(family, [table], None)) - {table}


def _import_distributed():
    """The distributed module, or DaskMissingError."""
    try:
        import distributed
    except ImportError:
        raise DaskMissingError(f"--scheduler needs dask.distributed: {INSTALL_HINT}") from None
    return distributed


@contextmanager
def _quiet_dask_logs():
    """Keep dask's own log lines (connection retries, shutdown chatter) off stderr."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextmanager
def connect(scheduler: str, root: Path, game: str, timeout: float = CONNECT_TIMEOUT):
    """A dask Client for ``scheduler`` (an address, or ``local[:N]`` for an in-process
    LocalCluster of N single-threaded worker processes), closed on exit."""
    distributed = _import_distributed()
    address, local_workers = parse_scheduler(scheduler)
    with _quiet_dask_logs():
        if local_workers is not None:
            with _local_client(distributed, local_workers, root, game) as client:
                yield client
            return
        _check_scheduler(address, timeout)
        try:
            client = distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise SchedulerUnreachableError(
                f"cannot reach the scheduler at {address}: {one_line(error)}") from None
        try:
            try:
                client.wait_for_workers(1, timeout=timeout)
            except (OSError, TimeoutError) as error:
                raise SchedulerUnreachableError(
                    f"the scheduler at {address} has no workers: {one_line(error)}") from None
            yield client
        finally:
            client.close()


def _check_scheduler(address: str, timeout: float) -> None:
    """Raise SchedulerUnreachableError unless a dask scheduler answers at ``address``.

    A Client that fails to connect stalls the process for twice the timeout when garbage
    collected, and any service may answer a TCP connection: ask for the identity first."""
    import asyncio

    from distributed.comm import connect as open_comm

    async def identity() -> dict:
        comm = await open_comm(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            await comm.close()

    try:
        answer = asyncio.run(identity())
    except Exception as error:  # unknown scheme, refused, timed out, garbage from another service
        raise SchedulerUnreachableError(
            f"cannot reach the scheduler at {address}: {one_line(error)}") from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise SchedulerUnreachableError(f"cannot reach the scheduler at {address}: "
                                        "the service there is not a dask scheduler")


@contextmanager
def _local_client(distributed, workers: int, root: Path, game: str):
    """A Client of a new LocalCluster (its HTTP server on a free port, since another cluster
    may hold the default one); on exit the cluster stops and the temporary files its
    workers may have left (a task cut short by a failure elsewhere), of tables, DTZ50 tables
    or packs, are removed."""
    try:
        with _workers_deaf_to_ctrl_c():
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=":0",
                                               silence_logs=logging.CRITICAL)
    except Exception as error:  # e.g. worker processes that cannot start
        raise DistributedBuildError(
            f"cannot start a local dask cluster of {workers} worker(s): {one_line(error)}") from None
    client = distributed.Client(cluster, set_as_default=False)
    pids = list(client.run(os.getpid).values())
    try:
        yield client
    except BaseException:  # Ctrl-C, a failed task: their work is lost anyway, end it at once
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        raise
    finally:
        client.close()
        cluster.close(timeout=CLOSE_TIMEOUT)
        for folder in (Path(root) / game, Path(root) / game / DTZ50, Path(root) / game / WDL50):  # workers gone
            remove_leftover_temporaries(folder, set(pids))


@contextmanager
def _workers_deaf_to_ctrl_c():
    """SIGINT ignored while worker processes start, so that they inherit it ignored: Ctrl-C at
    the terminal reaches the whole process group, and only this process should answer it
    (one line, the workers ended by it), not each worker with a traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def default_threads(scheduler: str) -> int | None:
    """Threads per table task when --workers is not given: the cores shared out among local
    worker processes; on a remote cluster, numba's default on each worker (all its cores)."""
    _, local_workers = parse_scheduler(scheduler)
    if local_workers is None:
        return None
    return max(1, available_cores() // local_workers)


def build_on_cluster(game: str, tables: list[str] | None = None, root=None, *, scheduler: str,
                     max_pieces: int | None = None, workers: int | None = None,
                     show_progress: bool | None = None, force: bool = False,
                     compression: str = DEFAULT_COMPRESSION, connect_timeout: float | None = None,
                     notify=None, dtz50: bool = True, pack: bool = True, dtm: bool = True) -> dict:
    """:func:`retrograde.build.build_tables` with each table's every stage one task on the dask
    cluster at ``scheduler`` (an address such as ``tcp://host:8786``, or ``local[:N]``), in a
    local build's order (:func:`retrograde.build.run_stages`). ``workers`` is the number of
    threads each table task uses. Returns build_tables' result and ``scheduler``. Raises
    DistributedBuildError subclasses."""
    parse_scheduler(scheduler)  # a malformed local:N fails before any work
    request = BuildRequest(get_family(game), tables, Path(root).expanduser().resolve(),
                           max_pieces, show_progress, force, compression,
                           notify or (lambda line: None))
    result = run_stages(request, ClusterStages(scheduler, workers, connect_timeout),
                        dtz50=dtz50, pack=pack, dtm=dtm)
    return {**result, "scheduler": scheduler}


class ClusterStages:
    """A build's stages (:class:`retrograde.build.BuildStages`) on the dask cluster at
    ``scheduler``, each table one task (``workers`` threads each)."""

    def __init__(self, scheduler: str, workers: int | None = None,
                 connect_timeout: float | None = None):
        self.scheduler, self.workers, self.connect_timeout = scheduler, workers, connect_timeout

    def dtz50(self, request: BuildRequest, renewed, pack: bool) -> tuple[list[str], list[str]]:
        """:func:`build_dtz50_distributed`."""
        result = build_dtz50_distributed(
            request.family.game.name, request.tables, request.root, scheduler=self.scheduler,
            max_pieces=request.max_pieces, workers=self.workers,
            show_progress=request.show_progress, compression=request.compression,
            renewed=renewed, connect_timeout=self.connect_timeout, notify=request.notify,
            pack=pack)
        return result["dtz50_built"], result["packed"]

    def packs(self, request: BuildRequest) -> list[str]:
        """:func:`pack_wdl50_distributed`."""
        return pack_wdl50_distributed(
            request.family.game.name, request.tables, request.root, scheduler=self.scheduler,
            max_pieces=request.max_pieces, show_progress=request.show_progress,
            connect_timeout=self.connect_timeout)["packed"]

    def rule_free(self, request: BuildRequest) -> dict:
        """:func:`build_tables_distributed`."""
        result = build_tables_distributed(
            request.family.game.name, request.tables, request.root, scheduler=self.scheduler,
            max_pieces=request.max_pieces, workers=self.workers,
            show_progress=request.show_progress, force=request.force,
            compression=request.compression, connect_timeout=self.connect_timeout,
            notify=request.notify)
        return {key: result[key] for key in ("built", "skipped", "rebuilt")}


def build_tables_distributed(game: str, tables: list[str] | None = None, root=None, *,
                             scheduler: str, max_pieces: int | None = None,
                             workers: int | None = None, show_progress: bool | None = None,
                             force: bool = False, compression: str = DEFAULT_COMPRESSION,
                             connect_timeout: float | None = None, notify=None) -> dict:
    """The rule-free stage of :func:`build_on_cluster`: the tables
    :func:`retrograde.build.plan_build` plans, each one task on the dask cluster at
    ``scheduler``, submitted once the tables it depends on are done (``workers`` threads
    each). Returns ``{"built", "skipped", "rebuilt", "seconds", "scheduler", "tasks"}``;
    ``tasks`` maps each built table to its worker and wall-clock start and finish times.
    Raises DistributedBuildError subclasses."""
    parse_scheduler(scheduler)  # a malformed local:N fails before any work
    family = get_family(game)
    root = Path(root).expanduser().resolve()  # workers may run in another directory
    started = time.perf_counter()
    to_build, skipped, unusable = plan_build(family, tables, root, max_pieces, force,
                                             show_progress)
    announce_rebuilds(notify or (lambda line: None), unusable, "")
    threads = workers if workers else default_threads(scheduler)
    tasks = _run_on_cluster(scheduler, connect_timeout, family, to_build, root, show_progress, "tables",
                            build_table_task, (threads, compression))
    return {"built": to_build, "skipped": skipped, "rebuilt": unusable,
            "seconds": round(time.perf_counter() - started, 3), "scheduler": scheduler,
            "tasks": tasks}


def build_dtz50_distributed(game: str, tables: list[str] | None = None, root=None, *,
                            scheduler: str, max_pieces: int | None = None,
                            workers: int | None = None, show_progress: bool | None = None,
                            compression: str = DEFAULT_COMPRESSION, renewed=(),
                            connect_timeout: float | None = None, notify=None,
                            pack: bool = False) -> dict:
    """The DTZ50 tables :func:`retrograde.build.build_dtz50_tables` would build (``renewed``:
    the rule-free tables built in this run), each one task on the cluster at ``scheduler``,
    submitted once the DTZ50 tables of its dependencies are done; ``pack`` as there (a table
    packed on the way is current, so :func:`pack_wdl50_distributed` passes it over).
    Returns ``{"dtz50_built": [...], "packed": [...], "tasks": {table: worker and times}}``.
    Raises DistributedBuildError subclasses."""
    parse_scheduler(scheduler)
    family = get_family(game)
    root = Path(root).expanduser().resolve()
    planned = plan_dtz50(family, tables, root, max_pieces=max_pieces, renewed=renewed, notify=notify)
    threads = workers if workers else default_threads(scheduler)
    tasks = _run_on_cluster(scheduler, connect_timeout, family, planned, root, show_progress, "DTZ50 tables",
                            build_dtz50_task, (threads, compression, pack), kind="dtz50")
    return {"dtz50_built": planned, "packed": [t for t in planned if tasks[t]["packed"]],
            "tasks": tasks}


def pack_wdl50_distributed(game: str, tables: list[str] | None = None, root=None, *,
                           scheduler: str, max_pieces: int | None = None,
                           show_progress: bool | None = None, connect_timeout: float | None = None) -> dict:
    """The packs :func:`retrograde.build.pack_wdl50_tables` would make, each one task on the
    cluster at ``scheduler``, all at once (a pack reads DTZ50 tables, no other pack). Returns
    ``{"packed": [...], "tasks": {...}}``. Raises DistributedBuildError subclasses."""
    parse_scheduler(scheduler)
    family = get_family(game)
    root = Path(root).expanduser().resolve()
    planned = plan_packs(family, tables, root, max_pieces=max_pieces)
    tasks = _run_on_cluster(scheduler, connect_timeout, family, planned, root, show_progress, "WDL50 packs",
                            pack_task, (), kind="pack", ordered=False)
    return {"packed": planned, "tasks": tasks}


def _run_on_cluster(scheduler: str, connect_timeout: float | None, family, to_build: list[str], root: Path,
                    show_progress: bool | None, what: str, task, arguments: tuple, kind: str = "build",
                    ordered: bool = True) -> dict:
    """Connect to ``scheduler`` and run ``task`` for each of ``to_build`` (:func:`_schedule`),
    with a progress line naming ``what``; nothing (no connection) when there is nothing to do."""
    if not to_build:
        return {}
    timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
    with connect(scheduler, root, family.game.name, timeout) as client:
        slots = sum(worker["nthreads"] for worker in client.scheduler_info()["workers"].values())
        progress = BuildProgress(len(to_build), show_progress, what=what,
                                 work=stage_work(family, to_build), workers=slots)
        try:
            return _schedule(client, family, to_build, root, progress, task, arguments, kind=kind, ordered=ordered)
        finally:
            progress.done()


def _schedule(client, family, to_build: list[str], root: Path, progress: "BuildProgress",
              task, arguments: tuple, kind: str = "build", ordered: bool = True) -> dict:
    """Submit ``task(game, table, root, *arguments)`` for each table once every table it needs
    has finished (``ordered``; else all at once), wait for all; on the first failure cancel
    what is still queued and raise TableBuildError.

    Tables are submitted from here as they become ready, rather than handed to dask as one
    graph: a task given its dependencies' futures is placed by dask next to their (tiny)
    results, which put every table of a build on one worker."""
    from distributed import as_completed

    game, run_id = family.game.name, uuid.uuid4().hex[:8]
    waiting = list(to_build)  # dependency order
    running: dict[str, str] = {}  # future key -> table
    tasks: dict[str, dict] = {}
    completions = as_completed([], loop=client.loop)

    def submit_ready() -> None:
        unfinished = set(waiting) | set(running.values())
        for table in [t for t in waiting if not ordered or not prerequisites(family, t) & unfinished]:
            future = client.submit(task, game, table, str(root), *arguments,
                                   key=f"{kind}-{game}-{table}-{run_id}", pure=False, retries=0)
            running[future.key] = table
            waiting.remove(table)
            completions.add(future)

    submit_ready()
    progress.show(tasks, list(running.values()))
    for future in completions:
        table = running.pop(future.key)
        if future.status != "finished":
            message = _failure_message(table, future, len(tasks))  # before cancel drops it
            client.cancel(list(completions.futures))
            raise TableBuildError(message) from None
        tasks[table] = future.result()
        submit_ready()
        progress.show(tasks, list(running.values()))
    return tasks


def _failure_message(table: str, future, finished: int) -> str:
    """One line: which table failed, where, why, and that finished tables stay valid."""
    try:
        error = future.exception()
    except Exception as cancelled:  # a cancelled future has no exception to fetch
        error = cancelled
    if isinstance(error, TableTaskError):
        message = str(error)
    else:  # e.g. the worker process died (KilledWorker)
        message = f"building {table} failed: {one_line(error)}"
    return f"{message} ({finished} table(s) finished before and stay valid)"


class BuildProgress:
    """``tables done/total built, about 12 min left in this stage; running or queued: ...`` on
    one rewritten stderr line (terminal only; elsewhere, by default, a line per finished table:
    :func:`table_log`); ``what`` names the tables ("DTZ50 tables"); ``work`` (each table's
    entries) and ``workers`` (the tasks the cluster runs at once, counted when it connected)
    give the estimate of the stage's time left, each worker's first table (its kernels
    loaded) left out of the rate."""

    SHOWN = 4  # running tables named on the line

    def __init__(self, total: int, enabled: bool | None = None, stream=None, what: str = "tables",
                 work: dict[str, int] | None = None, workers: int = 1):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.what = what
        self.log = table_log(total, what, enabled, stream=self.stream, work=work,
                             workers=workers)
        self.workers_seen: set[str] = set()

    def show(self, finished: dict, running: list[str]) -> None:
        """Redraw the line (or log the tables finished since the last call)."""
        for table in list(finished)[self.log.count:]:
            worker = finished[table].get("worker")
            self.log.finished(table, finished[table].get("seconds", 0.0),
                              counted=worker in self.workers_seen)
            self.workers_seen.add(worker)
        if not self.enabled:
            return
        names = " ".join(running[:self.SHOWN]) + (" ..." if len(running) > self.SHOWN else "")
        self.stream.write(f"\r\x1b[K{self.what} {len(finished)}/{self.total} built"
                          + self.log.time_left()
                          + (f"; running or queued: {names}" if names else ""))
        self.stream.flush()

    def done(self) -> None:
        """Clear the line."""
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
