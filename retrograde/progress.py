"""A one-line progress bar on stderr (only on a terminal, never under --json), and a line per
finished table where stderr is not a terminal (a build logged to a file)."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager


class Progress:
    """Shows ``label: phase  done/total  rate positions/s`` and rewrites it in place."""

    def __init__(self, label: str, enabled: bool | None = None, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label = label
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
        self.stream.write(f"\r\x1b[K{self.label}: {phase}{share}  {rate:,.0f} positions/s")
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
    """One line per finished table, ``tables 3/146: KQvKR in 12.3 s``, for a build whose stderr
    is not a terminal (redirected to a log, where a rewritten line cannot show): a build of
    hours still says how far it got. ``enabled`` None means "stderr is not a terminal"."""

    def __init__(self, total: int, what: str = "tables", enabled: bool | None = None, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = not self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.what = what
        self.count = 0

    @contextmanager
    def timing(self, table: str):
        """Log ``table`` as finished when the block it wraps (its build) ends without error."""
        started = time.perf_counter()
        yield
        self.finished(table, time.perf_counter() - started)

    def finished(self, table: str, seconds: float) -> None:
        """Count ``table`` as done, ``seconds`` after it started, and write its line."""
        self.count += 1
        if self.enabled:
            self.stream.write(f"{self.what} {self.count}/{self.total}: {table} in {seconds:.1f} s\n")
            self.stream.flush()


def table_log(total: int, what: str, show_progress: bool | None, stream=None) -> TableLog:
    """The per-table log of a build whose progress display is ``show_progress`` (None: the
    default, where the log is written when stderr is not a terminal; False, as under --json, or
    True, a forced progress line: none)."""
    return TableLog(total, what, enabled=None if show_progress is None else False, stream=stream)
