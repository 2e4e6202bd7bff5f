"""Make a suite of endgame start positions from real play, where technique decides.

Stockfish plays itself from the openings of an EPD book (each game from a random book line,
its first moves out of the book picked at random among Stockfish's best few, so games differ);
every position of 5 to 8 pieces (kings included, no castling right, not in check, not over)
that the game passes through is a candidate. Candidates whose self-play score is far outside
the band are passed over; one is kept when Stockfish, searching it
to ``--depth``, scores the side to move between ``--min-cp`` and ``--max-cp`` centipawns better
or worse (roughly half a pawn to three pawns: not dead equal, not trivially won) and it is not
already in the suite; at most ``--per-game`` positions a game, at least ``--spacing`` plies
apart. Lines are appended to ``--out`` as EPD with the score (``c0``) and an id, so a killed
run resumes: the positions already there count and are not repeated. The suite feeds
``scripts/match.py --openings``.

    python scripts/make_endgame_suite.py --engine /usr/games/stockfish --count 320 \\
        --out docs/results/endgame-suite.epd
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.engine
from common import add_suite_arguments, fill_suite


def is_candidate(board: chess.Board, least: int, most: int) -> bool:
    """5-8 pieces (or what ``least``/``most`` say), no castling right, a game still on."""
    pieces = chess.popcount(board.occupied)
    return (least <= pieces <= most and not board.castling_rights and not board.is_check()
            and not board.is_game_over(claim_draw=True))


def play_game(engine, start: chess.Board, rng: random.Random, args) -> list[tuple[chess.Board, int | None]]:
    """One self-play game from ``start``; the candidate positions it passed through, each with
    the score of its self-play move (centipawns for the side to move, None for a mate score)."""
    board = start.copy()
    candidates = []
    for ply in range(400):
        if board.is_game_over(claim_draw=True):
            break
        if chess.popcount(board.occupied) < args.least:
            break
        if ply < args.random_plies:  # variety: one of the best few moves
            infos = engine.analyse(board, chess.engine.Limit(nodes=args.nodes), multipv=3)
            move = rng.choice([info["pv"][0] for info in infos if "pv" in info])
        else:
            played = engine.play(board, chess.engine.Limit(nodes=args.nodes), info=chess.engine.INFO_SCORE)
            move = played.move
            if is_candidate(board, args.least, args.most) and "score" in played.info:
                candidates.append((board.copy(stack=False), played.info["score"].relative.score()))
        board.push(move)
    return candidates


def worth_a_deep_look(quick: int | None, args) -> bool:
    """Whether the self-play score (at ``--nodes``) is near enough the band to search deeper:
    half the least score to twice the largest (the deep score is what decides)."""
    return quick is not None and args.min_cp // 2 <= abs(quick) <= 2 * args.max_cp


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_arguments(parser, count=320)
    parser.add_argument("--least", type=int, default=5, help="fewest pieces, kings included")
    parser.add_argument("--most", type=int, default=8, help="most pieces, kings included")
    parser.add_argument("--min-cp", type=int, default=50, help="least |score| kept")
    parser.add_argument("--max-cp", type=int, default=300, help="largest |score| kept")
    parser.add_argument("--depth", type=int, default=16, help="Stockfish's depth for the score")
    parser.add_argument("--nodes", type=int, default=3000,
                        help="Stockfish's nodes a self-play move (few: its slips make the imbalances wanted)")
    parser.add_argument("--random-plies", type=int, default=6, help="plies out of book picked at random")
    parser.add_argument("--per-game", type=int, default=2, help="positions kept from one game")
    parser.add_argument("--spacing", type=int, default=10, help="plies between two kept positions")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not args.book or not Path(args.book).exists():
        parser.error("--book: no opening book (set SOLVER_ORACLE_DATA or pass --book)")
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": 64})

        def entry(board: chess.Board, quick: int | None, number: int) -> str | None:
            if not worth_a_deep_look(quick, args):
                return None
            score = engine.analyse(board, chess.engine.Limit(depth=args.depth))["score"].relative
            if score.is_mate() or not args.min_cp <= abs(score.score()) <= args.max_cp:
                return None
            return (f'c0 "stockfish depth {args.depth} cp {score.score()}"; '
                    f'c1 "pieces {chess.popcount(board.occupied)}"; id "endgame-{number}";')

        fill_suite(args, lambda start, rng, _: play_game(engine, start, rng, args), entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
