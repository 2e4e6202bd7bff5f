"""Ctrl-C for long numba work.

A compiled loop holds the main thread until it returns, and Python delivers KeyboardInterrupt only
between bytecodes of the main thread, so Ctrl-C would wait for the kernel to finish. Kernels that
may run long are compiled ``nogil=True`` and poll a stop flag in an array; the caller runs them
through :func:`run_interruptibly`, which keeps the main thread free to receive the signal
(the kernel runs in one worker thread kept for the life of the process).
(No kernels here: importing this module compiles nothing.)
"""
from __future__ import annotations

import os
import queue
import threading
import time
from typing import Callable, TypeVar

T = TypeVar("T")
GRACE_SECONDS = 0.4  # how long Ctrl-C waits for interrupted work to notice its stop flag


class _Worker:
    """One daemon thread that runs the main thread's kernels, kept for the life of the process:
    starting a thread for each call cost about 0.4 ms here, more than a small search takes."""

    def __init__(self):
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        # A daemon, so that a second Ctrl-C while a kernel winds down still ends the process.
        self.thread = threading.Thread(target=self._serve, name="interruptible-kernel", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            work, done, outcome = self.jobs.get()
            try:
                outcome["value"] = work()
            except BaseException as error:  # handed to the main thread
                outcome["error"] = error
            done.set()


_worker: _Worker | None = None


def _the_worker() -> _Worker:
    """The process's worker (a new one in a forked child, where the parent's thread is gone)."""
    global _worker
    if _worker is None or _worker.pid != os.getpid() or not _worker.thread.is_alive():
        _worker = _Worker()
    return _worker


def run_interruptibly(work: Callable[[], T], stop: Callable[[], None],
                      tick: Callable[[], None] | None = None, in_place: bool = False) -> T:
    """``work()``, made interruptible by Ctrl-C when called from the main thread.

    ``work`` must release the GIL while it runs long (a ``nogil`` kernel) and return soon after
    ``stop()`` is called (which typically raises a flag the kernel polls). In the main thread it
    runs in a worker thread while this thread waits, so a KeyboardInterrupt is raised here at
    once; then ``stop()`` is called, the worker is waited for, and the KeyboardInterrupt goes on.
    From other threads (which never see KeyboardInterrupt) ``work()`` simply runs. Exceptions of
    ``work`` are raised here. ``tick()``, if given, is called about four times a second while
    ``work`` runs in the worker (a progress display reading counters the kernel updates).
    ``in_place`` runs ``work`` in this thread: for work known to end within a fraction of a
    second (a small node budget), where handing it to the worker and back costs more than the
    work (two thread wake-ups: about 0.25 ms here); Ctrl-C then waits for it to end.
    """
    if in_place or threading.current_thread() is not threading.main_thread():
        return work()
    outcome: dict = {}
    done = threading.Event()
    _the_worker().jobs.put((work, done, outcome))
    try:
        while not done.wait(0.25):
            if tick is not None:
                tick()
    except KeyboardInterrupt:
        # Raised again until the work ends: work that clears its flag as it starts (a new
        # iteration, say) must not miss a stop that came just before. But not for longer than
        # GRACE_SECONDS: work still compiling its kernels (a first run) cannot see the flag,
        # and the process is leaving anyway (the worker is a daemon thread).
        deadline = time.monotonic() + GRACE_SECONDS
        while not done.is_set() and time.monotonic() < deadline:
            stop()
            done.wait(0.05)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def flag_raiser(flag, index: int = 0) -> Callable[[], None]:
    """A ``stop`` for :func:`run_interruptibly` that sets ``flag[index]`` to 1."""
    def stop() -> None:
        flag[index] = 1
    return stop
