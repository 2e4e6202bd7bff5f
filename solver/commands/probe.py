"""`solver probe GAME POSITION`: the value of a position from the tables."""
from __future__ import annotations

import argparse
import json
import sys

from databases.errors import DatabaseError
from databases.location import default_database_dir
from games import NotationError
from solver.commands.build import add_db_argument, load_family
from solver.commands.common import add_game_argument, add_json_flag, position_inputs, position_text
from solver.errors import UsageError


def register(subparsers) -> None:
    """Add the probe subcommand."""
    parser = subparsers.add_parser(
        "probe", help="value of a position from the endgame tables",
        description="Look POSITION up in the tables: win/draw/loss for the side to move, the "
        "distance to mate in plies (positive when the side to move wins), and a best move. "
        "POSITION '-' reads one position per line from standard input.")
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, "
                        "startpos, or - for standard input")
    add_db_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def answer(db: "Database", text: str) -> dict:
    """The probe result for one position in notation (raises NotationError/DatabaseError)."""
    game = db.game
    position = game.parse_position(text)
    result = db.probe(position)
    move = db.best_move(position)
    return {"value": result.value, "dtm": result.dtm,
            "best": game.format_move(position, move) if move is not None else None}


def summary(result: dict) -> str:
    """One line for people."""
    line = f"{result['value']}"
    if result["value"] != "draw":
        line += f" (mate distance {result['dtm']} plies)"
    if result.get("best"):
        line += f", best {result['best']}"
    return line


def run(args: argparse.Namespace) -> int:
    """Probe one position, or each line of standard input."""
    from databases.reader import Database  # here: it compiles the page-cache kernels

    load_family(args.game)
    root = default_database_dir(args.db)
    with Database(root, args.game) as db:
        lines = position_inputs(args.position, sys.stdin)
        if lines is None:
            try:
                result = answer(db, args.position)
            except NotationError as error:
                raise UsageError(f"bad {args.game} position: {error}") from None
            except DatabaseError as error:
                raise UsageError(str(error)) from None
            sys.stdout.write((json.dumps(result) if args.json else summary(result)) + "\n")
            return 0
        for text in lines:
            try:
                result = {"position": text, **answer(db, position_text(args.game, text))}
            except (NotationError, DatabaseError) as error:
                result = {"position": text, "error": str(error)}
            if args.json:
                sys.stdout.write(json.dumps(result) + "\n")
            else:
                sys.stdout.write(f"{text}: " + (f"error: {result['error']}" if "error" in result
                                                else summary(result)) + "\n")
        sys.stdout.flush()
        return 0
