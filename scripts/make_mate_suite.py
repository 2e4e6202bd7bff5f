"""Make a suite of long forced mates from real play, held out from everything we tune on.

Stockfish at full strength plays Stockfish held back (``UCI_LimitStrength``, ``--weak-elo``)
from random lines of an EPD book, the strong side with each colour in turn; the weak side's
slips leave the strong side mating attacks of every kind (middlegame sacrifices, checks,
quiet squeezes of a lone king). Every position where the strong side is to move and its
self-play search (``--nodes``) reports a forced mate is a candidate. A candidate is kept when
Stockfish, searching it to ``--depth``, still reports ``mate N`` with ``--min-moves`` <= N <=
``--max-moves``: N moves is then the bound ``scripts/bench_mates.py --suite`` asks for (``dm
N``; a shorter mate found counts; it checks every engine's move on its own, with df-pn). At most ``--per-game`` positions a game, at least
``--spacing`` plies apart, so one attack does not fill the suite.

Lines are appended to ``--out`` as EPD (``bm``: Stockfish's first move, ``dm``, ``id``), so a
killed run resumes; the positions already there are not repeated.

    python scripts/make_mate_suite.py --count 100 --out docs/results/long-mates.epd
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import chess.engine
from common import add_suite_arguments, fill_suite


def play_game(strong, weak, start: chess.Board, strong_colour: bool, args) -> list[tuple[chess.Board, None]]:
    """One game from ``start``; the positions where the strong side was to move and its search
    reported a forced mate for itself."""
    board = start.copy()
    candidates = []  # (board, None)
    limit = chess.engine.Limit(nodes=args.nodes)
    for _ in range(300):
        if board.is_game_over(claim_draw=True):
            break
        if board.turn == strong_colour:
            played = strong.play(board, limit, info=chess.engine.INFO_SCORE)
            score = played.info.get("score")
            if score is not None and score.relative.is_mate() and score.relative.mate() > 0:
                candidates.append((board.copy(stack=False), None))
        else:
            played = weak.play(board, limit)
        board.push(played.move)
    return candidates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_arguments(parser, count=100)
    parser.add_argument("--min-moves", type=int, default=4, help="shortest mate kept, in moves")
    parser.add_argument("--max-moves", type=int, default=12, help="longest mate kept, in moves")
    parser.add_argument("--depth", type=int, default=22, help="Stockfish's depth for the mate's length")
    parser.add_argument("--nodes", type=int, default=20000, help="nodes a self-play move, both sides")
    parser.add_argument("--weak-elo", type=int, default=1350, help="UCI_Elo of the weak side")
    parser.add_argument("--per-game", type=int, default=2, help="positions kept from one game")
    parser.add_argument("--spacing", type=int, default=8, help="plies between two kept positions")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not args.engine:
        parser.error("--engine: no Stockfish found (apt-get install stockfish, or pass --engine)")
    if not args.book or not Path(args.book).exists():
        parser.error("--book: no opening book (set SOLVER_ORACLE_DATA or pass --book)")
    if not 1 <= args.min_moves <= args.max_moves:
        parser.error("--min-moves and --max-moves: 1 <= min <= max")
    with chess.engine.SimpleEngine.popen_uci(args.engine) as strong, \
            chess.engine.SimpleEngine.popen_uci(args.engine) as weak:
        strong.configure({"Threads": 1, "Hash": 64})
        weak.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": True, "UCI_Elo": args.weak_elo})

        def entry(board: chess.Board, _, number: int) -> str | None:
            info = strong.analyse(board, chess.engine.Limit(depth=args.depth))
            score = info["score"].relative
            if not score.is_mate() or not args.min_moves <= score.mate() <= args.max_moves:
                return None
            return (f'bm {board.san(info["pv"][0])}; dm {score.mate()}; '
                    f'c0 "stockfish depth {args.depth}"; id "long-mate-{number}";')

        fill_suite(args, lambda start, _, number: play_game(strong, weak, start, number % 2 == 0, args),
                   entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
