"""Connect Four play: does the move the player picks in 0.1 s keep the position's value?

    python scripts/bench_connect4_play.py [--set Test_L2_R1] [--sample 200] [--seconds 0.1] [--seed 1]

For a sample of one of Pascal Pons' test sets ($SOLVER_ORACLE_DATA/connect4, default
../shared/data/connect4), the player searches each position for ``--seconds``; df-pn then
solves the position reached by its move. The move keeps the value when that position is worth
the opposite of the set's value (a win stays a win, a draw a draw; every move keeps a loss, so
losses are counted apart). The position's own value is the set's (Pons' solver); the bar for
Test_L2_R1 is 95% of all positions.
"""
from __future__ import annotations

import argparse
import random
import sys
import time

import games
from proofsearch.dfpn import DfpnSearch
from solver.search.player import Limits, Player
from common import oracle_data

WIN, DRAW, LOSS = 1, 0, -1


def solve(prover: DfpnSearch, position) -> int:
    """The game-theoretic value for the side to move, by two df-pn proofs at most."""
    if prover.prove(position, "win").result == "proven":
        return WIN
    return DRAW if prover.prove(position, "draw").result == "proven" else LOSS


def main() -> int:
    """Sample, search, check, report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="Test_L2_R1")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    root = oracle_data()
    lines = (root / "connect4" / args.set).read_text().splitlines()
    sample = random.Random(args.seed).sample(lines, min(args.sample, len(lines)))
    game = games.get("connect4")
    player = Player(game, hash_mb=64)
    prover = DfpnSearch(game)
    player.search(game.start_position(), Limits(depth=2))  # load the search before timing
    kept = {WIN: 0, DRAW: 0, LOSS: 0}
    seen = {WIN: 0, DRAW: 0, LOSS: 0}
    depths, started = [], time.monotonic()
    for line in sample:
        moves, score = line.split()
        value = (int(score) > 0) - (int(score) < 0)
        position = game.parse_position(moves)
        player.new_game()
        result = player.search(position, Limits(time=args.seconds, optimum=args.seconds / 2))
        depths.append(result.depth)
        child = game.play(position, result.best)
        child_value = -solve(prover, child) if game.outcome(child) == games.ONGOING else (
            WIN if game.outcome(child) == games.LOSS else DRAW)
        seen[value] += 1
        kept[value] += child_value == value
    total = sum(seen.values())
    print(f"{args.set}, {total} positions, {args.seconds} s a move (mean depth "
          f"{sum(depths) / len(depths):.1f}); checked by df-pn in {time.monotonic() - started:.0f} s")
    for value, name in ((WIN, "wins"), (DRAW, "draws"), (LOSS, "losses")):
        if seen[value]:
            print(f"  {name}: {kept[value]}/{seen[value]} moves keep the value")
    print(f"value kept: {sum(kept.values())}/{total} = {100 * sum(kept.values()) / total:.1f}% "
          f"(wins and draws only: {kept[WIN] + kept[DRAW]}/{seen[WIN] + seen[DRAW]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
