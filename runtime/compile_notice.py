"""Saying that kernels are being compiled, and how far along: the first run of a version of
the sources compiles them (a search: a minute or more on two cores), later runs load them from
the cache in about a second. numba announces each compile (a cache miss) as a
``numba:compile`` event; :func:`install` listens, says so once when the first one starts, and
then how many are done: of how many, at each quarter, when this command's last complete run
from an empty cache left its count (:func:`finished`; ``compile-counts.json`` beside the cache
directories, so it outlives a new version of the sources); else every :data:`UNCOUNTED_EVERY`
kernels. Nothing is said when every kernel comes from the cache.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from typing import Callable

_installed = False  # one notice per process (commands may run more than once in one)
_finish: Callable[[], object] | None = None  # keeps the count (install, for a cold run)
FIRST_LINE = ("compiling its kernels for this version of the sources (first run only; later "
              "runs load them from the cache)")
PROGRESS = "compiling kernels (first run only): "
QUARTERS = 4  # with a count known: a line at each quarter of it
UNCOUNTED_EVERY = 50  # with none: a line every this many kernels
COUNTS_FILE = "compile-counts.json"


def first_line(expected: int | None) -> str:
    """The line said when the first compile starts (``expected``: the kernels it will take)."""
    return f"{FIRST_LINE}: about {expected} kernels" if expected else FIRST_LINE


def progress_line(done: int, expected: int | None) -> str | None:
    """The line to say once ``done`` kernels are compiled, if any: at each quarter of
    ``expected`` (short of all of it: the count is of the last cold run, not this one), or
    every :data:`UNCOUNTED_EVERY` without one."""
    if expected:
        quarter = done * QUARTERS // expected
        if 0 < quarter < QUARTERS and (done - 1) * QUARTERS // expected < quarter:
            return f"{PROGRESS}{done}/{expected}"
        return None
    return f"{PROGRESS}{done} so far" if done % UNCOUNTED_EVERY == 0 else None


def counts_path() -> str | None:
    """The file of each command's kernel count from an empty cache, beside the cache
    directories of every version (None without a cache directory)."""
    from runtime import compile_cache

    if compile_cache.cache_dir is None:
        return None
    return os.path.join(os.path.dirname(os.path.normpath(compile_cache.cache_dir)), COUNTS_FILE)


def read_counts(path: str) -> dict[str, int]:
    """The counts of ``path`` ({} when missing or unreadable)."""
    try:
        with open(path, encoding="utf-8") as handle:
            counts = json.load(handle)
    except (OSError, ValueError):
        return {}
    if not isinstance(counts, dict):
        return {}
    return {name: value for name, value in counts.items()
            if isinstance(value, int) and not isinstance(value, bool) and value > 0}


def remember_count(path: str, command: str, count: int) -> None:
    """Record ``count`` as ``command``'s kernels from an empty cache (replacing the file
    atomically; nothing when it cannot be written)."""
    counts = read_counts(path)
    counts[command] = count
    try:
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".counts-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(counts, out, sort_keys=True)
        os.replace(temporary, path)
    except OSError:
        pass


def cache_is_empty() -> bool:
    """Whether this version's cache directory holds no kernel yet (a run from it compiles
    everything it uses, so its count is the command's)."""
    from runtime import compile_cache

    return compile_cache.compiled_kernel_count(compile_cache.cache_dir) == 0


def default_write(line: str) -> None:
    """A notice on stderr when it is a terminal (a person waits; a pipeline's log stays as it
    was)."""
    if sys.stderr.isatty():
        sys.stderr.write(f"solver: {line}\n")
        sys.stderr.flush()


def install(write: Callable[[str], None] | None = None, command: str | None = None) -> None:
    """Listen to numba's compiles for the rest of the process; ``write(line)`` says the first
    and the progress (default: :func:`default_write`). ``command`` names what runs, for the
    count of its kernels (none: no count kept or used). Imports numba. Nothing to say without
    a writable cache: :mod:`runtime.compile_cache` said then that kernels compile for this run
    only."""
    global _installed, _finish
    from runtime import compile_cache

    if compile_cache.note is not None or _installed:
        return
    _installed = True
    from numba.core import event

    write = write or default_write
    path = counts_path() if command else None
    cold = path is not None and cache_is_empty()
    # a count means something only for a run that compiles everything it uses
    expected = read_counts(path).get(command) if cold else None

    class Notice(event.Listener):
        """Says :func:`first_line` when the first compile starts, then the progress."""

        def __init__(self):
            self.lock = threading.Lock()
            self.started = False
            self.done = 0

        def on_start(self, _event) -> None:
            with self.lock:
                if self.started:
                    return
                self.started = True
            write(first_line(expected))

        def on_end(self, _event) -> None:
            with self.lock:
                self.done += 1
                line = progress_line(self.done, expected)
            if line is not None:
                write(line)

    notice = Notice()
    event.register("numba:compile", notice)
    if cold:
        _finish = lambda: notice.done and remember_count(path, command, notice.done)  # noqa: E731


def finished() -> None:
    """The command ran to its end: keep the count of the kernels it compiled from an empty
    cache for the next such run (not after a failure, which may have compiled only part)."""
    global _finish
    finish, _finish = _finish, None
    if finish is not None:
        finish()
