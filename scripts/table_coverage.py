"""Which endgame tables a match's games reached, and whether they were built.

Tables can only pay in the games that reach them. For each game of a match PGN (as
``scripts/match.py --pgn`` writes it) this names the table of every position with at most
``--pieces`` men (python-chess's naming, the stronger side first) and looks for
``<db>/chess/<table>.h5``. It prints how many games reached a built table, how many reached
only tables that were not built, the endings by count, and the named engine's score in each
group: where a tables-on/tables-off difference can come from.

    python scripts/table_coverage.py match.pgn --db DIR --engine tables
"""
from __future__ import annotations

import argparse
import collections
import sys
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from games.chess.endgames import canonical_name

POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def tables_reached(game: chess.pgn.Game, pieces: int) -> list[str]:
    """The tables of the positions of ``game`` with at most ``pieces`` men, in the order the
    game reached them, each once."""
    board = game.board()
    reached: list[str] = []
    for move in [None, *game.mainline_moves()]:
        if move is not None:
            board.push(move)
        if chess.popcount(board.occupied) <= pieces:
            name = canonical_name(_men(board, chess.WHITE), _men(board, chess.BLACK))[0]
            if name not in reached:
                reached.append(name)
    return reached


def _men(board: chess.Board, colour: chess.Color) -> str:
    return "".join(piece.symbol().upper() for piece in board.piece_map().values()
                   if piece.color == colour and piece.piece_type != chess.KING)


@dataclass
class Tally:
    """Games and the named engine's points in them."""
    games: int = 0
    points: float = 0.0
    endings: collections.Counter = field(default_factory=collections.Counter)

    def add(self, ending: str | None, points: float) -> None:
        self.games += 1
        self.points += points
        if ending:
            self.endings[ending] += 1

    def score(self) -> str:
        return f"{self.points:g}/{self.games} ({100 * self.points / self.games:.1f}%)" if self.games else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, help="the match's PGN")
    parser.add_argument("--db", type=Path, required=True, help="the table directory the engine used")
    parser.add_argument("--engine", help="the engine whose score to split (default: White of the first game)")
    parser.add_argument("--pieces", type=int, default=5, help="men in the largest table (default 5)")
    args = parser.parse_args(argv)
    if not args.pgn.is_file():
        parser.error(f"no such PGN: {args.pgn}")
    built = {path.stem for path in (args.db / "chess").glob("*.h5")}
    if not built:
        parser.error(f"no tables in {args.db / 'chess'}")

    with_table, without_table, never = Tally(), Tally(), Tally()
    with args.pgn.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            result = game.headers.get("Result")
            if result not in POINTS:
                continue
            if args.engine is None:
                args.engine = game.headers["White"]
            if args.engine not in (game.headers["White"], game.headers["Black"]):
                continue
            points = POINTS[result][0 if game.headers["White"] == args.engine else 1]
            reached = tables_reached(game, args.pieces)
            in_built = [name for name in reached if name in built]
            if in_built:
                with_table.add(in_built[0], points)
            elif reached:
                without_table.add(reached[0], points)
            else:
                never.add(None, points)

    total = with_table.games + without_table.games + never.games
    print(f"{total} games; {args.engine}'s score by the tables each game reached:")
    print(f"  a built table ({len(built)} built): {with_table.score()}")
    print(f"  only tables not built:          {without_table.score()}")
    print(f"  more than {args.pieces} men to the end:      {never.score()}")
    print("first built table reached:", ", ".join(f"{name} {count}" for name, count in with_table.endings.most_common()))
    print("first table reached, where none was built:", ", ".join(f"{name} {count}" for name, count in without_table.endings.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
