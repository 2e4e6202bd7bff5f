"""Saying that kernels are being compiled: the first run of a version of the sources compiles
them (a search: a minute or more on two cores), later runs load them from the cache in about a
second. numba
announces each compile (a cache miss) as a ``numba:compile`` event; :func:`install` listens and
says so once, when the first one starts. Nothing is said when every kernel comes from the cache.
"""
from __future__ import annotations

import sys
import threading
from typing import Callable

_installed = False  # one notice per process (commands may run more than once in one)
FIRST_LINE = ("compiling its kernels for this version of the sources (first run only; later "
              "runs load them from the cache)")


def install(write: Callable[[str], None] | None = None) -> None:
    """Listen to numba's compiles for the rest of the process; ``write(line)`` says the first
    (default: a line on stderr when it is a terminal). Imports numba. Nothing to say without
    a writable cache: :mod:`runtime.compile_cache` said then that kernels compile for this run
    only."""
    global _installed
    from runtime import compile_cache

    if compile_cache.note is not None or _installed:
        return
    _installed = True
    from numba.core import event

    class Notice(event.Listener):
        """Says :data:`FIRST_LINE` when the first compile starts."""

        def __init__(self):
            self.said = threading.Event()

        def on_start(self, _event) -> None:
            if not self.said.is_set():
                self.said.set()
                if write is not None:
                    write(FIRST_LINE)
                elif sys.stderr.isatty():  # a person waits; a pipeline's log stays as it was
                    sys.stderr.write(f"solver: {FIRST_LINE}\n")
                    sys.stderr.flush()

        def on_end(self, _event) -> None:
            pass

    event.register("numba:compile", Notice())
