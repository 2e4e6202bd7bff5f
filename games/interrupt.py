"""Ctrl-C for long numba work.

A compiled loop holds the main thread until it returns, and Python delivers KeyboardInterrupt only
between bytecodes of the main thread, so Ctrl-C would wait for the kernel to finish. Kernels that
may run long are compiled ``nogil=True`` and poll a stop flag in an array; the caller runs them
through :func:`run_interruptibly`, which keeps the main thread free to receive the signal.
(No kernels here: importing this module compiles nothing.)
"""
from __future__ import annotations

import threading
from typing import Callable, TypeVar

T = TypeVar("T")


def run_interruptibly(work: Callable[[], T], stop: Callable[[], None],
                      tick: Callable[[], None] | None = None) -> T:
    """``work()``, made interruptible by Ctrl-C when called from the main thread.

    ``work`` must release the GIL while it runs long (a ``nogil`` kernel) and return soon after
    ``stop()`` is called (which typically raises a flag the kernel polls). In the main thread it
    runs in a worker thread while this thread waits, so a KeyboardInterrupt is raised here at
    once; then ``stop()`` is called, the worker is waited for, and the KeyboardInterrupt goes on.
    From other threads (which never see KeyboardInterrupt) ``work()`` simply runs. Exceptions of
    ``work`` are raised here. ``tick()``, if given, is called about four times a second while
    ``work`` runs in the worker (a progress display reading counters the kernel updates).
    """
    if threading.current_thread() is not threading.main_thread():
        return work()
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed to the main thread
            outcome["error"] = error

    # A daemon, so that a second Ctrl-C while the worker winds down still ends the process.
    worker = threading.Thread(target=target, name="interruptible-kernel", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.25)
            if tick is not None and worker.is_alive():
                tick()
    except KeyboardInterrupt:
        # Raised again until the worker ends: work that clears its flag as it starts (a new
        # iteration, say) must not miss a stop that came just before.
        while worker.is_alive():
            stop()
            worker.join(0.1)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def flag_raiser(flag, index: int = 0) -> Callable[[], None]:
    """A ``stop`` for :func:`run_interruptibly` that sets ``flag[index]`` to 1."""
    def stop() -> None:
        flag[index] = 1
    return stop
