"""Goals of a proof and how a finished game counts for them.

The *attacker* is the side to move at the root; the *defender* is the other side. Moves
alternate, so the attacker moves at even plies from the root.

``win``
    The attacker can force a win (in chess: a checkmate).
``draw``
    The attacker can avoid losing (a draw or better). Proving ``draw`` for one side is the
    same as disproving ``win`` for the other.

A repetition of a position on the current path counts as a draw (so it disproves ``win`` and
proves ``draw``); a position cut off by ``--max-depth`` counts as not reaching ``win`` and as
surviving for ``draw``, and the result is marked *bounded* (see :mod:`proofsearch.dfpn`).
"""
from __future__ import annotations

import numba as nb
from numba import types

from games.kernels import DRAW, LOSS, WIN

GOAL_WIN = 0
GOAL_DRAW = 1
GOALS = {"win": GOAL_WIN, "draw": GOAL_DRAW}
DUAL_GOALS = {"win": "draw", "draw": "win"}  # the other side's goal: its success is the failure of ours


def goal_code(name: str) -> int:
    """The numeric code of a goal name, or ValueError."""
    try:
        return GOALS[name]
    except KeyError:
        raise ValueError(f"unknown goal {name!r} (known: {', '.join(GOALS)})") from None


@nb.njit(types.boolean(types.int64, types.int64), cache=True)
def attacker_reaches(goal, attacker_result):
    """Whether a finished game with ``attacker_result`` (WIN/DRAW/LOSS for the attacker)
    reaches ``goal``."""
    if goal == GOAL_WIN:
        return attacker_result == WIN
    return attacker_result != LOSS


@nb.njit(types.boolean(types.int64, types.boolean, types.int64), cache=True)
def mover_succeeds(goal, mover_is_attacker, result):
    """Whether the side to move gets what it wants from a finished game whose ``result`` is
    given from its own point of view (the attacker wants the goal, the defender its failure)."""
    if mover_is_attacker:
        return attacker_reaches(goal, result)
    return not attacker_reaches(goal, -result)


def attacker_reaches_py(goal: int, attacker_result: int) -> bool:
    """Plain-Python twin of :func:`attacker_reaches` (for the reference PN search)."""
    if goal == GOAL_WIN:
        return attacker_result == WIN
    return attacker_result != LOSS


__all__ = ["GOAL_WIN", "GOAL_DRAW", "GOALS", "DUAL_GOALS", "goal_code", "attacker_reaches", "mover_succeeds",
           "attacker_reaches_py", "WIN", "DRAW", "LOSS"]
