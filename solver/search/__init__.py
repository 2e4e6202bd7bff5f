"""The alpha-beta player: one search over the game-kernel interface.

Modules: ``scores`` (the score bands and their ply adjustment), ``transposition`` (the
fixed-size transposition table), ``ordering`` (move ordering: TT move, noisy keys, killers,
history), ``alphabeta`` (the numba search and quiescence, in numbered steps), ``player`` (the
Python API: iterative deepening with aspiration windows, limits, stop), ``timecontrol``
(how long to think on a clock).
"""
