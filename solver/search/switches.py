"""The search features that can be switched off, by name and by flag (no numba here, so the
command line can list them without loading the search).

Every feature that can change the value the search returns for the root is here; with all of
them off (``PLAIN``) the search returns the plain alpha-beta value of the depth-limited tree with
quiescence at its horizon.
"""
USE_TT_CUTOFFS = 1  # return a stored score when its depth and bound allow
USE_NULL_MOVE = 2  # null-move pruning
USE_MULTI_CUT = 4  # multi-cut pruning at expected cut nodes (Bjornsson & Marsland 2001)
USE_LMR = 8  # late-move reductions
USE_REVERSE_FUTILITY = 16  # reverse futility (static null move) pruning
USE_CHECK_EXTENSION = 32  # search checking moves one ply deeper
USE_QUIESCENCE_SEE = 64  # quiescence skips noisy moves the game ranks as losing
USE_FUTILITY = 128  # near the horizon, skip late quiet moves and those that cannot reach alpha
USE_MATE_PROBE = 256  # near the horizon, a checks-only mate search (solver.search.mate_probe)
USE_IIR = 512  # internal iterative reduction: one ply less where no TT move shows the way
USE_IMPROVING = 1024  # a static evaluation above two plies ago's loosens reverse futility and
# late-move pruning, and one below it reduces late moves one ply more
USE_SEE_PRUNING = 2048  # near the horizon, skip captures the game ranks as losing material
USE_LMR_HISTORY = 4096  # late-move reductions shortened or lengthened by the move's history
USE_COUNTER_MOVES = 8192  # the quiet move that last refuted the opponent's move is tried early
USE_CONTINUATION_HISTORY = 16384  # quiet moves ordered by how they did after the last two moves
USE_SINGULAR = 32768  # singular extension of the TT move, with multi-cut when others also cut
USE_TT_EVAL = 262144  # the pruning decisions use the stored score where its bound beats the static evaluation
USE_RAZORING = 524288  # near the horizon, a node far below alpha is settled by quiescence

# Switch name -> the search's flag.
FLAGS = {
    "tt_cutoffs": USE_TT_CUTOFFS,
    "null_move": USE_NULL_MOVE,
    "multi_cut": USE_MULTI_CUT,
    "lmr": USE_LMR,
    "reverse_futility": USE_REVERSE_FUTILITY,
    "futility": USE_FUTILITY,
    "check_extension": USE_CHECK_EXTENSION,
    "quiescence_see": USE_QUIESCENCE_SEE,
    "mate_probe": USE_MATE_PROBE,
    "iir": USE_IIR,
    "improving": USE_IMPROVING,
    "see_pruning": USE_SEE_PRUNING,
    "lmr_history": USE_LMR_HISTORY,
    "counter_moves": USE_COUNTER_MOVES,
    "continuation_history": USE_CONTINUATION_HISTORY,
    "singular": USE_SINGULAR,
    "tt_eval": USE_TT_EVAL,
    "razoring": USE_RAZORING,
}
ASPIRATION = "aspiration"  # the switches of the iterative deepening rather than the search
NAMES = tuple(FLAGS) + (ASPIRATION,)
PLAIN = {name: False for name in NAMES}
# The defaults follow the measurements in docs/benchmarks.md: multi-cut is off because without it
# the player scored +36.6 Elo [0.0, +74.0] in 200 games of fixed-node self-play (2026-11-23)
# and reached the bench depth in less time; the mate probe is off: it measured no gain (issue 40)
# and then a cost, -31.4 Elo [-59.9, -3.3]. Both stay selectable: the design names them (the
# prover at the leaves; multi-cut beside the singular extension). Every other feature pays for
# itself. The seven heuristics of issue 41 (iir, improving, see_pruning, lmr_history,
# counter_moves, continuation_history, singular) are on: together they scored +74.3 Elo [+33.0,
# +117.6] at 10+0.1 (153 games, 2026-11-28) and +44.1 [+10.4, +78.6] at 50,000 nodes a move (223
# games). tt_eval and razoring are on: together +63.6 Elo [+22.5, +106.5] at 50,000 nodes a move
# (117 games, 2026-11-29). Four features measured no gain and were taken out of the code
# (capture history, staged picking, time scaling, the mate hunt): their measurements and the
# commit that last held them are in docs/results/retired-search-features.md.
MEASURED_OFF = ("multi_cut", "mate_probe")
DEFAULTS = {name: name not in MEASURED_OFF for name in NAMES}
