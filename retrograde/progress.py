"""A one-line progress bar on stderr (only on a terminal, never under --json), and a line per
finished table where stderr is not a terminal (a build logged to a file); both say which table
of the stage is under way and about how long the stage has left (:class:`StageClock`)."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager


# A table's fixed cost in a build (its kernels and children loaded, its files written),
# counted as this many entries of work: the 3-4-piece tables take a second or so each however
# few their entries (a 5-piece table's entry takes 0.1-0.2 microseconds on 2 threads).
FIXED_WORK = 1 << 22


def duration_text(seconds: float) -> str:
    """``seconds`` as a person reads an estimate: ``40 s``, ``12 min``, ``1 h 05 min``."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class StageClock:
    """How long a stage of a build (its tables one after another) has left: the seconds its
    finished tables took per unit of work, times the work left, less what the table under way
    has had already. A table's work is its entries plus FIXED_WORK. The stage's first table
    is left out of the rate (it pays for loading, or compiling, the kernels: minutes for a
    table that then takes a second), so there is no estimate before the second is finished.
    With ``workers`` building tables side by side (a cluster), the work left is shared out
    among them, and the caller tells which tables were a worker's first (:meth:`finish`)."""

    def __init__(self, work: dict[str, int], now=time.perf_counter, workers: int = 1):
        self.work = {table: int(entries) + FIXED_WORK for table, entries in work.items()}
        self.now = now
        self.workers = max(1, workers)
        self.work_left = sum(self.work.values())  # of the tables not finished
        self.work_done = 0  # of the finished tables but the first
        self.seconds_spent = 0.0
        self.finished_count = 0
        self.current: str | None = None
        self.current_started = 0.0

    def start(self, table: str) -> None:
        """``table`` is under way from now."""
        self.current, self.current_started = table, self.now()

    def finish(self, table: str, seconds: float, counted: bool | None = None) -> None:
        """``table`` finished, ``seconds`` after it started; ``counted``: whether its time
        goes into the rate (None: unless it is the stage's first table)."""
        work = self.work.get(table, FIXED_WORK)
        self.work_left = max(0, self.work_left - work)
        if self.finished_count if counted is None else counted:
            self.work_done += work
            self.seconds_spent += seconds
        self.finished_count += 1
        self.current = None

    def seconds_left(self) -> float | None:
        """The estimate (None until a table whose time counts is finished)."""
        if not self.work_done:
            return None
        rate = self.seconds_spent / self.work_done
        left = rate * self.work_left / self.workers
        if self.current is None:
            return left
        # the table under way: what its work should take, less what it has had (not below
        # the tables after it: it may take longer than its share)
        after = rate * max(0, self.work_left - self.work.get(self.current, FIXED_WORK)) \
            / self.workers
        return max(after, left - (self.now() - self.current_started))


class Progress:
    """Shows ``[stage] label: phase  done/total  rate positions/s`` and rewrites it in place;
    ``stage`` (a :class:`TableLog`, or None) tells which table of how many and the time left."""

    def __init__(self, label: str, enabled: bool | None = None, stream=None, stage=None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label = label
        self.stage = stage
        self.started = time.perf_counter()
        self.positions = 0
        self._last = 0.0

    def update(self, phase: str, done: int = 0, total: int = 0, positions: int = 0) -> None:
        """Report ``positions`` more positions processed in ``phase`` (at most 10 redraws/s)."""
        self.positions += positions
        now = time.perf_counter()
        if not self.enabled or now - self._last < 0.1:
            return
        self._last = now
        rate = self.positions / max(now - self.started, 1e-9)
        share = f" {100 * done / total:5.1f}%" if total else ""
        where = f"[{self.stage.status()}] " if self.stage is not None else ""
        self.stream.write(f"\r\x1b[K{where}{self.label}: {phase}{share}  {rate:,.0f} positions/s")
        self.stream.flush()

    def done(self, message: str = "") -> None:
        """Clear the line (and print ``message`` if given)."""
        if self.enabled:
            self.stream.write("\r\x1b[K" + (message + "\n" if message else ""))
            self.stream.flush()


class Silent(Progress):
    """A progress object that shows nothing."""

    def __init__(self, label: str = ""):
        super().__init__(label, enabled=False)


class TableLog:
    """One line per finished table, ``tables 3/146: KQvKR in 12.3 s, about 40 min left in this
    stage``, for a build whose stderr is not a terminal (redirected to a log, where a rewritten
    line cannot show): a build of hours still says how far it got and how far it has to go (the
    estimate when ``clock``, a :class:`StageClock`, is given). ``enabled`` None means "stderr
    is not a terminal"."""

    def __init__(self, total: int, what: str = "tables", enabled: bool | None = None, stream=None,
                 clock: StageClock | None = None):
        self.stream = stream or sys.stderr
        self.enabled = not self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.what = what
        self.count = 0
        self.clock = clock

    @contextmanager
    def timing(self, table: str):
        """Log ``table`` as finished when the block it wraps (its build) ends without error."""
        started = time.perf_counter()
        if self.clock is not None:
            self.clock.start(table)
        yield
        self.finished(table, time.perf_counter() - started)

    def time_left(self) -> str:
        """``, about 12 min left in this stage`` while the stage has tables to go and an
        estimate, else nothing (nor when the last table outlasts its share: no "1 s left"
        for minutes)."""
        left = self.clock.seconds_left() if self.clock is not None else None
        if left is None or left < 0.5 or self.count >= self.total:
            return ""
        return f", about {duration_text(left)} left in this stage"

    def status(self) -> str:
        """Where the stage is, for a progress line: ``DTZ50 tables 4/110, about 52 min left in
        this stage``."""
        return f"{self.what} {min(self.count + 1, self.total)}/{self.total}{self.time_left()}"

    def finished(self, table: str, seconds: float, counted: bool | None = None) -> None:
        """Count ``table`` as done, ``seconds`` after it started, and write its line
        (``counted``: as :meth:`StageClock.finish`'s)."""
        self.count += 1
        if self.clock is not None:
            self.clock.finish(table, seconds, counted)
        if self.enabled:
            self.stream.write(f"{self.what} {self.count}/{self.total}: {table} in {seconds:.1f} s"
                              f"{self.time_left()}\n")
            self.stream.flush()


def table_log(total: int, what: str, show_progress: bool | None, stream=None,
              work: dict[str, int] | None = None, workers: int = 1) -> TableLog:
    """The per-table log of a build whose progress display is ``show_progress`` (None: the
    default, where the log is written when stderr is not a terminal; False, as under --json, or
    True, a forced progress line: none); ``work``, the entries of each table of the stage,
    gives the estimate of the time left (:class:`StageClock`, ``workers`` side by side)."""
    return TableLog(total, what, enabled=None if show_progress is None else False, stream=stream,
                    clock=StageClock(work, workers=workers) if work is not None else None)
