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

Within a move, the optimum is then scaled after each iteration by how settled the search looks
(:func:`optimum_scale`, the ``time_scaling`` switch): longer when the best move keeps changing or
the score falls, shorter when one move has stood for many iterations.
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

# optimum_scale: the weights of the three signals, and the range of their product.
INSTABILITY_WEIGHT = 1.0  # per recent best-move change (changes decay by half each iteration)
STABLE_ITERATIONS = 6  # a best move unchanged this many iterations ...
STABLE_SCALE = 0.7  # ... lets the search stop at this share of the optimum
FALL_PER_SCALE = 400  # weighted centipawns of score drop that add 1.0 to the scale
FALL_LOOKBACK = 3  # the iteration this many before the last is the earlier score compared with
FALL_RANGE = (0.6, 1.7)
SCALE_RANGE = (0.4, 2.5)


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


def optimum_scale(best_moves: list[int], scores: list[int], previous_score: int | None,
                  decisive: int) -> float:
    """The factor on the optimum after the iterations so far: ``best_moves`` and ``scores``
    (centipawns, side to move) of each finished iteration, first to last; ``previous_score`` is
    the final score of this side's previous search (None: none this game). Scores at or beyond
    ``decisive`` in size (mates, table wins) say nothing about falling, and are left out.

    >>> optimum_scale([7] * 10, [20] * 10, 20, 30000)  # one move for ten iterations
    0.7
    >>> optimum_scale([7, 7, 7, 9], [20, 20, 20, 20], 20, 30000)  # just changed
    2.0
    >>> round(optimum_scale([7, 7, 7], [60, 40, 10], 60, 30000), 3)  # falling by 50 cp
    1.375
    """
    changes, last_change = 0.0, 0
    for i in range(1, len(best_moves)):
        changes /= 2
        if best_moves[i] != best_moves[i - 1]:
            changes += 1
            last_change = i
    instability = 1 + INSTABILITY_WEIGHT * changes
    stability = STABLE_SCALE if len(best_moves) - 1 - last_change >= STABLE_ITERATIONS else 1.0
    falling = 1.0
    score = scores[-1] if scores else None
    if score is not None and abs(score) < decisive:
        earlier = scores[max(0, len(scores) - 1 - FALL_LOOKBACK)]
        before = previous_score if previous_score is not None and abs(previous_score) < decisive else earlier
        drop = 2 * (before - score) + (earlier - score) if abs(earlier) < decisive else 3 * (before - score)
        falling = min(max(1 + drop / FALL_PER_SCALE, FALL_RANGE[0]), FALL_RANGE[1])
    return min(max(falling * instability * stability, SCALE_RANGE[0]), SCALE_RANGE[1])
