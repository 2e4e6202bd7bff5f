"""Stopping long work at a time or a node count: one place for how kernels poll their stop
flags and how the Python loops around them size their chunks and keep their deadlines.

* Kernels count nodes and look at their stop flag (an array element another thread may set)
  every ``POLL_MASK + 1`` nodes: :func:`poll_due`.
* Work run in chunks of nodes (df-pn, its alpha-beta hand-off) stops between two chunks when a
  limit is reached (:func:`limit_reached`); on a clock each chunk is sized to the time left at
  the node rate measured so far (:func:`next_chunk`).
* Work that runs as one call (the player's search) gets a :class:`DeadlineWatcher`: a thread
  that raises the stop flag when a movable deadline passes.

(No kernels compiled at import: ``poll_due`` is inlined into its callers.)
"""
from __future__ import annotations

import threading
import time

import numba as nb
import numpy as np

POLL_MASK = 1023  # kernels poll their stop flag every 1024 nodes
SMALLEST_CHUNK = 1000
LARGEST_CHUNK = 2_000_000
# A deadline further away than this is checked again after this long (a clock of "go movetime
# 99999999999999999999" would overflow the wait's timeout).
LONGEST_WAIT = 3600.0


@nb.njit(cache=True, inline="always")
def poll_due(count):
    """Whether a kernel that has counted ``count`` nodes looks at its stop flag now."""
    return (count & POLL_MASK) == 0


def limit_reached(nodes: int, elapsed: float, max_nodes: int | None, seconds: float | None) -> str:
    """Why work must stop now (``"node limit"`` or ``"time limit"``), or ``""``."""
    if max_nodes is not None and nodes >= max_nodes:
        return "node limit"
    if seconds is not None and elapsed >= seconds:
        return "time limit"
    return ""


def seconds_left(seconds: float | None, started: float) -> float | None:
    """What is left of ``seconds`` since ``started`` (``time.monotonic``), at least a
    millisecond; None without a time limit."""
    return None if seconds is None else max(0.001, seconds - (time.monotonic() - started))


def next_chunk(chunk: int, rate: float, left: float | None) -> int:
    """The next chunk of nodes: twice the last, at most ``LARGEST_CHUNK``, and on a clock
    (``left`` seconds) no more than the measured ``rate`` (nodes/s) can do in the time left."""
    size = min(2 * chunk, LARGEST_CHUNK)
    if left is not None:
        size = min(size, int(rate * max(left, 0.01)) + 1)
    return max(SMALLEST_CHUNK, size)


class DeadlineWatcher:
    """A thread that sets ``flags[index]`` to 1 when a (movable) deadline passes."""

    def __init__(self, flags: np.ndarray, index: int, name: str = "deadline"):
        self._flags = flags
        self._index = index
        self._deadline: float | None = None
        self._done = False
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._watch, daemon=True, name=name)
        self._thread.start()

    def move_to(self, deadline: float | None) -> None:
        """Set (or clear, with None) the moment to stop, on ``time.monotonic``'s clock."""
        with self._wake:
            self._deadline = deadline
            self._wake.notify()

    def close(self) -> None:
        """End the watcher."""
        with self._wake:
            self._done = True
            self._wake.notify()
        self._thread.join()

    def _watch(self) -> None:
        with self._wake:
            while not self._done:
                if self._deadline is None:
                    self._wake.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left <= 0:
                    self._flags[self._index] = 1
                    self._deadline = None
                    continue
                self._wake.wait(min(left, LONGEST_WAIT))
