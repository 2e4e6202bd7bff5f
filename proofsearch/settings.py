"""The prover's tuning per game: what suits each game's proof trees (the games describe rules
and kernels; how to search them is the prover's business)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProverSettings:
    """``epsilon``: df-pn's 1 + epsilon threshold trick (:mod:`proofsearch.dfpn`), larger keeps
    the search longer in one child. ``handoff``: df-pn nodes after which a still unsolved
    position goes to the depth-first alpha-beta (:mod:`proofsearch.alphabeta`); None: never
    (only for games whose positions fix their ply)."""

    epsilon: float = 0.25
    handoff: int | None = None


PER_GAME = {
    # Connect Four, measured on Pons' sets (200 positions each): epsilon 1.0 takes fewer nodes
    # than 0.25 (Test_L2_R2: 30.7 k a position against 36.7 k); the hand-off after 1,000 nodes
    # values Test_L2_R2 in 9.4 ms a position against 21 ms by df-pn alone, Test_L1_R1 in
    # 2.0 ms against 8.2 ms by alpha-beta alone. (Chess keeps 0.25: 1.0 costs it 1.6x the nodes
    # on long mates.)
    "connect4": ProverSettings(epsilon=1.0, handoff=1000),
}


def prover_settings(game) -> ProverSettings:
    """The settings for ``game`` (a Game or its name): its own, else the defaults."""
    name = game if isinstance(game, str) else game.name
    return PER_GAME.get(name, ProverSettings())
