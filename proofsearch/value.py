"""A position's game-theoretic value from two proofs (win, then draw)."""
from __future__ import annotations

import numpy as np

from proofsearch.dfpn import DfpnSearch


def solve_value(search: DfpnSearch, position: np.ndarray, **limits) -> tuple[str, int]:
    """("win" | "draw" | "loss" | "unknown", nodes) for the side to move: ``win`` proven is a
    win; otherwise ``draw`` proven is a draw and ``draw`` disproven a loss."""
    first = search.prove(position, "win", **limits)
    if first.result == "proven":
        return "win", first.nodes
    if first.result == "unknown":
        return "unknown", first.nodes
    second = search.prove(position, "draw", **limits)
    value = {"proven": "draw", "disproven": "loss"}.get(second.result, "unknown")
    return value, first.nodes + second.nodes
