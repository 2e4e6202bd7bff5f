"""Table leaves in a proof: positions covered by a built table end the proof search with the
table's value (the probing itself: :mod:`databases.leaves`).

Under a depth bound (``--max-depth``) a table win for the attacker counts only when its distance
to mate fits in the plies left; every other table value is a leaf whatever the depth, since no
line can change it.
"""
from __future__ import annotations

from games.kernels import WIN


def leaf_counts_for(value: int, dtm: int, attacker_to_move: bool, goal_is_win: bool,
                    plies_left: int | None) -> bool:
    """Whether a table value may end the line under a depth bound: a win for the attacker only
    if its mate fits in ``plies_left``; anything else always (the kernel applies the same rule)."""
    attacker_value = value if attacker_to_move else -value
    if plies_left is None or attacker_value != WIN or not goal_is_win:
        return True
    return dtm <= plies_left


__all__ = ["leaf_counts_for"]
