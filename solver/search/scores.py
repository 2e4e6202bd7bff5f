"""Score bands of the player: one place for what a search score means.

Scores are side-to-move relative integers (int32 in the kernels, int16 in the transposition
table)::

    -INFINITE  -MATE ... -MATE_BOUND   -KNOWN_WIN_BOUND    -EVAL_LIMIT .. EVAL_LIMIT    ...    MATE
      |<-- mated in n plies -->|<-- oracle losses -->|<-- heuristic -->|<-- oracle wins -->|<-- mate -->|

* heuristic scores come from the game's ``evaluate`` kernel: strictly inside ``EVAL_LIMIT``;
* ``MATE - n`` is a win by checkmate (or by the game's own rules) ``n`` plies from the root,
  ``-(MATE - n)`` a loss;
* ``KNOWN_WIN - n`` is a win an oracle vouches for but the engine cannot claim as a mate, ``n``
  plies from the root: a table win whose distance to mate does not fit in what the 50-move rule
  leaves (the tables ignore the rule), or one whose mate lies beyond ``MAX_PLY``
  (``table_score``).

Every score beyond ``EVAL_LIMIT`` counts plies from the root; the transposition table stores it
counting from the node instead (``to_table`` / ``from_table``), so that an entry stays true when
the same position is reached at another ply.
"""
import numba as nb

from games.value_codes import CODE_DRAW, WDL50_LOSS, WDL50_WIN, code_distance, is_win
from games.kernels import EVAL_LIMIT

MAX_PLY = 128  # deepest ply a search visits (quiescence included)
MATE = 32000
MATE_BOUND = MATE - MAX_PLY  # |score| >= MATE_BOUND: a mate
KNOWN_WIN = 30000
KNOWN_WIN_BOUND = KNOWN_WIN - MAX_PLY  # KNOWN_WIN_BOUND <= |score| < MATE_BOUND: an oracle's win/loss
INFINITE = 32001  # beyond every score: the initial window
DRAW = 0
CURSED_SCORE = 1  # a win the 50-move rule overturns: a draw, but one the opponent may spoil

assert EVAL_LIMIT < KNOWN_WIN_BOUND and KNOWN_WIN < MATE_BOUND and INFINITE < 2 ** 15


@nb.njit(cache=True, inline="always")
def to_table(score, ply):
    """The score as stored in the table: decisive scores count plies from the node at ``ply``."""
    if score > EVAL_LIMIT:
        return score + ply
    if score < -EVAL_LIMIT:
        return score - ply
    return score


@nb.njit(cache=True, inline="always")
def from_table(score, ply):
    """The inverse of ``to_table``: a stored score seen from the root at ``ply``."""
    if score > EVAL_LIMIT:
        return score - ply
    if score < -EVAL_LIMIT:
        return score + ply
    return score


def is_mate(score: int) -> bool:
    """Whether ``score`` is a forced mate (a win or a loss by the rules) for either side."""
    return abs(score) >= MATE_BOUND


def mate_in_moves(score: int) -> int:
    """A mate score as signed moves (UCI ``score mate``): ``MATE - 1`` (mate in 1 ply) is 1,
    ``-(MATE - 2)`` (mated after the reply) is -1; ``-MATE`` (mated now) is 0."""
    plies = MATE - abs(score)
    return (plies + 1) // 2 if score > 0 else -(plies // 2)


def mate_in_plies(score: int) -> int:
    """A mate score as signed plies to the end (positive: the side to move wins)."""
    plies = MATE - abs(score)
    return plies if score > 0 else -plies



@nb.njit(cache=True, inline="always")
def table_score(code, ply, reversible, fifty):
    """The search score at ``ply`` of a table code (:mod:`games.value_codes`): a draw is a draw; a
    win or loss in ``d`` plies is an exact mate score when the mate fits both in the search's ply
    range and in the ``fifty - reversible`` plies the 50-move rule leaves (``fifty`` <= 0: no
    such rule), else a score in the oracle band, still ordered by distance. The tables ignore
    the 50-move rule, and a capture or pawn move on the way may reset the count, so such a win
    stays above every heuristic score: the engine presses on without claiming a mate."""
    if code == CODE_DRAW:
        return DRAW
    distance = code_distance(code)
    plies = ply + distance
    if plies < MAX_PLY and (fifty <= 0 or reversible + distance <= fifty):
        score = MATE - plies
    else:
        score = KNOWN_WIN - min(plies, MAX_PLY - 1)
    return score if is_win(code) else -score


@nb.njit(cache=True, inline="always")
def wdl50_score(wdl, ply):
    """The search score at ``ply`` of a WDL50 value (python-chess's 2 / 1 / 0 / -1 / -2, right
    after a zeroing move): a win under the rule in the oracle band (no distance is known;
    nearer plies still rank first), a cursed win ``CURSED_SCORE`` (a draw the opponent may
    spoil), a blessed loss its negative, a draw a draw."""
    if wdl == WDL50_WIN:
        return KNOWN_WIN - min(ply, MAX_PLY - 1)
    if wdl == WDL50_LOSS:
        return -(KNOWN_WIN - min(ply, MAX_PLY - 1))
    return wdl * CURSED_SCORE  # WDL50_CURSED_WIN is 1, WDL50_BLESSED_LOSS -1, WDL50_DRAW 0
