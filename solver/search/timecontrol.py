"""How long to think on a clock: an optimum (no new iteration after it) and a hard maximum.

The player's iterations grow by a factor of two to four each, so it starts no iteration past
the optimum and is stopped at the maximum. Both keep the move overhead (the time the GUI, the
pipe and the process switch take between our ``bestmove`` and the clock stopping) in reserve.

>>> optimum, maximum = think_time(clock=60.0, increment=0.0, moves_to_go=40, overhead=0.03)
>>> round(optimum, 3), round(maximum, 3)
(1.499, 5.997)
>>> think_time(clock=0.02, increment=0.0, moves_to_go=None, overhead=0.03)
(0.001, 0.001)
"""
from __future__ import annotations

SUDDEN_DEATH_MOVES = 30  # moves assumed left when the clock does not say
MAX_MOVES_TO_GO = 50
MAX_SHARE = 0.4  # never more than this share of the clock on one move (unless it is the last)
MAX_OVER_OPTIMUM = 4.0
MINIMUM = 0.001


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
    optimum = usable / moves + 0.8 * increment
    share = 0.9 if moves == 1 else MAX_SHARE
    maximum = min(usable * share, optimum * MAX_OVER_OPTIMUM)
    return max(MINIMUM, min(optimum, maximum)), max(MINIMUM, maximum)
