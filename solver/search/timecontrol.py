"""How long to think on a clock: an optimum (no new iteration starts after it) and a hard maximum.

The target for a move is the clock shared out over the moves still to play plus most of the
increment. Each iteration of the search takes about as long as all the earlier ones together or
more, so an iteration started after half the target would usually end past it: the optimum is
a little over half the target, and the maximum (where the search is stopped) 2.5 targets, never
more than a quarter of the clock (90% when this is the last move of the period). Both keep the
move overhead (the time the GUI, the pipe and the process switch take between our ``bestmove``
and the clock stopping) in reserve.

That lag is paid on every move, not once: the target gives up a typical lag
(``LAG_SHARE_OF_OVERHEAD`` of the overhead) per move. At 10+0.1 that is 2.5% of a move's time;
at 1+0.01 it is what keeps the clock from running down, since a move there costs the increment
in lag alone (the runner measured 6-20 ms for our quickest moves on a loaded machine, and 4 of
40 games were lost on time before this).

>>> optimum, maximum = think_time(clock=60.0, increment=0.0, moves_to_go=40, overhead=0.05)
>>> round(optimum, 3), round(maximum, 3)
(0.819, 3.722)
>>> think_time(clock=0.04, increment=0.0, moves_to_go=None, overhead=0.05)
(0.001, 0.001)
>>> optimum, maximum = think_time(clock=0.3, increment=0.01, moves_to_go=None, overhead=0.05)
>>> round(optimum, 4), round(maximum, 4)  # the increment covers the lag and a little search
(0.0032, 0.0146)
"""
from __future__ import annotations

SUDDEN_DEATH_MOVES = 30  # moves assumed left when the clock does not say
MAX_MOVES_TO_GO = 50
OPTIMUM_SHARE = 0.55  # of the target: start no iteration after this
MAXIMUM_OVER_TARGET = 2.5
MAX_CLOCK_SHARE = 0.25  # never more than this share of the clock on one move (unless it is the last)
LAST_MOVE_SHARE = 0.9
MINIMUM = 0.001
LAG_SHARE_OF_OVERHEAD = 0.2  # the lag of a typical move, as a share of the move overhead

def think_time(clock: float, increment: float, moves_to_go: int | None, overhead: float) -> tuple[float, float]:
    """(optimum, maximum) seconds for a move with ``clock`` seconds left, ``increment`` seconds
    added after it, and ``moves_to_go`` moves to the next time control (None: the rest of the
    game)."""
    usable = clock - overhead
    if usable <= MINIMUM:
        return MINIMUM, MINIMUM
    moves = min(moves_to_go or SUDDEN_DEATH_MOVES, MAX_MOVES_TO_GO)
    # The increment is usable this move, but only as far as the clock covers it.
    increment = min(increment, usable / 2)
    target = max(MINIMUM, usable / moves + 0.75 * increment - LAG_SHARE_OF_OVERHEAD * overhead)
    share = LAST_MOVE_SHARE if moves == 1 else MAX_CLOCK_SHARE
    maximum = max(MINIMUM, min(usable * share, target * MAXIMUM_OVER_TARGET))
    return max(MINIMUM, min(target * OPTIMUM_SHARE, maximum)), maximum
