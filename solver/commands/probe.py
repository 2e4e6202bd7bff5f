"""`solver probe GAME POSITION`: the value of a position from the tables."""
from __future__ import annotations

import argparse

from databases.errors import DatabaseError
from games import NotationError
from games.value_codes import wdl50_at_clock
from runtime.text import is_ascii_number
from solver.commands.build import add_db_argument, database_root, load_family
from solver.commands.common import (BATCH_HELP, add_game_argument, add_json_flag, database_errors_as_usage,
                                    run_batch)
from solver.errors import UsageError
from solver.output import emit


def register(subparsers) -> None:
    """Add the probe subcommand."""
    parser = subparsers.add_parser(
        "probe", help="value of a position from the endgame tables",
        description="Look POSITION up in the tables: win/draw/loss for the side to move, the "
        "distance to mate in plies (positive when the side to move wins), and a best move. "
        "Chess also reports the value under the 50-move rule from the DTZ50 tables (JSON "
        "'wdl': 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss, as python-chess "
        "reports Syzygy's; 'dtz': plies to the next capture or pawn move, Syzygy's sign "
        "convention), both null when those tables are not built.",
        epilog=BATCH_HELP)
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, "
                        "startpos, or - for standard input")
    add_db_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def answer(db: "Database", text: str) -> dict:
    """The probe result for one position in notation (raises NotationError/DatabaseError)."""
    from databases.errors import MissingTableError

    game = db.game
    position = game.parse_position(text)
    try:
        result = db.probe(position)
    except MissingTableError:
        if not game.fifty_move_plies:
            raise
        return {**rule50_only(db, position), "halfmove_clock": clock_of(text)}
    move = db.best_move(position)
    answer = {"value": result.value, "dtm": result.dtm}
    if game.fifty_move_plies:
        answer.update(rule50(db, position), halfmove_clock=clock_of(text))
    answer["best"] = game.format_move(position, move) if move is not None else None
    return answer


def clock_of(text: str) -> int:
    """The halfmove clock of a chess position as given (a FEN's fifth field; 0 without one),
    read from the text the position was parsed from, which checked it."""
    fields = text.split()
    return int(fields[4]) if len(fields) > 4 and is_ascii_number(fields[4]) else 0


def rule50(db: "Database", position) -> dict:
    """``wdl`` and ``dtz`` under the 50-move rule, None when the DTZ50 table is not built (a
    damaged one raises, like a damaged rule-free table)."""
    from databases.errors import MissingTableError

    try:
        return {"wdl": db.probe_wdl50(position), "dtz": db.probe_dtz(position)}
    except MissingTableError:
        return {"wdl": None, "dtz": None}


def rule50_only(db: "Database", position) -> dict:
    """The answer from the DTZ50 table alone, where the rule-free table was left out
    (``solver build --metrics wdl50,dtz50``): the value is the sign of its WDL50 (a cursed
    win is a win without the rule, a blessed loss a loss), no distance to mate, no move.
    MissingTableError when the DTZ50 table is missing too."""
    rule = {"wdl": db.probe_wdl50(position), "dtz": db.probe_dtz(position)}
    value = "win" if rule["wdl"] > 0 else "loss" if rule["wdl"] < 0 else "draw"
    return {"value": value, "dtm": None, **rule, "best": None}


# by the value under the rule at the position's clock
RULE50_WORDS = {2: "wins", 1: "cursed win: drawn", 0: "draw", -1: "blessed loss: drawn",
                -2: "loses"}


def summary(result: dict) -> str:
    """One line for people."""
    line = f"{result['value']}"
    if result["value"] != "draw" and result["dtm"] is not None:
        line += f" (mate distance {result['dtm']} plies)"
    elif result["dtm"] is None:
        line += " (no mate distance: the rule-free table is not built)"
    if result.get("wdl") is not None and result["value"] != "draw":
        # the words judge the position with its own clock; the JSON's wdl and dtz, as
        # python-chess's, a fresh one
        clock = result.get("halfmove_clock", 0)
        line += (f"; 50-move rule: {RULE50_WORDS[wdl50_at_clock(result['dtz'], clock)]}"
                 + (f" with {clock} plies on the clock" if clock else "")
                 + f", zeroing distance {result['dtz']} plies")
    elif "wdl" in result and result["wdl"] is None:
        line += "; 50-move rule: no DTZ50 table (solver build chess TABLE)"
    if result.get("best"):
        line += f", best {result['best']}"
    return line


def run(args: argparse.Namespace) -> int:
    """Probe one position, or each line of standard input."""
    from databases.reader import Database  # here: it compiles the page-cache kernels

    load_family(args.game)
    root = database_root(args.db)
    with database_errors_as_usage():
        db = Database(root, args.game)
    with db:
        if args.position == "-":
            return run_batch(args.game, lambda text: checked_answer(db, text), args.json, summary,
                             line_errors=(UsageError, DatabaseError))
        emit(checked_answer(db, args.position), args.json, summary)
        return 0


def checked_answer(db: "Database", text: str) -> dict:
    """``answer``, with bad input (a malformed position, one no table covers) raised as a
    UsageError; a damaged table stays an UnusableTableError (exit status 1, see solver.cli)."""
    try:
        with database_errors_as_usage():
            return answer(db, text)
    except NotationError as error:
        raise UsageError(f"bad {db.game.name} position: {error}") from None
