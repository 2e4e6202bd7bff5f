"""Helpers shared by the subcommands: game lookup and position parsing with one-line errors."""
from __future__ import annotations

import argparse

import numpy as np

import games
from solver.errors import UsageError


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """The positional GAME argument."""
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(games.names())}")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """The --json flag every command takes."""
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def load_game(name: str) -> games.Game:
    """The registered game, or a UsageError naming the known ones."""
    try:
        return games.get(name)
    except games.UnknownGameError as error:
        raise UsageError(str(error)) from None


def load_position(game: games.Game, text: str) -> np.ndarray:
    """Parse a position in the game's notation, or a UsageError saying what is wrong."""
    try:
        return game.parse_position(text)
    except games.NotationError as error:
        raise UsageError(f"bad {game.name} position: {error}") from None


def non_negative_int(text: str) -> int:
    """argparse type for depths and counts."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def seconds(text: str) -> float:
    """argparse type for a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 1e7:
        raise argparse.ArgumentTypeError(f"must be > 0 (and at most 1e7), got {text}")
    return value


def megabytes(text: str) -> float:
    """argparse type for a memory size in MiB (0.001 to 65536)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size in MiB, got {text!r}") from None
    if not 0.001 <= value <= 65536:
        raise argparse.ArgumentTypeError(f"must be between 0.001 and 65536, got {text}")
    return value


def add_switch_argument(parser: argparse.ArgumentParser) -> None:
    """The --disable/--enable FEATURE options of the commands that search."""
    from solver.search.switches import DEFAULTS

    parser.add_argument("--disable", action="append", default=[], metavar="FEATURE",
                        help="switch a search feature off (repeatable): "
                        + ", ".join(name for name, on in DEFAULTS.items() if on))
    parser.add_argument("--enable", action="append", default=[], metavar="FEATURE",
                        help="switch on a feature that is off by default: "
                        + ", ".join(name for name, on in DEFAULTS.items() if not on))


def disabled_switches(args: argparse.Namespace) -> dict[str, bool]:
    """The switches --disable and --enable set, or a UsageError naming an unknown one."""
    from solver.search.switches import NAMES

    unknown = sorted((set(args.disable) | set(args.enable)) - set(NAMES))
    if unknown:
        raise UsageError(f"unknown search feature {unknown[0]!r} (known: {', '.join(NAMES)})")
    return {**{name: True for name in args.enable}, **{name: False for name in args.disable}}


def position_inputs(text: str, stdin) -> list[str] | None:
    """For `probe`, `prove` and `search`: ``-`` means one position per line of ``stdin``
    (blank lines and ``#`` comments skipped); returns None for a single position argument."""
    if text != "-":
        return None
    lines = (line.strip() for line in stdin)
    return [line for line in lines if line and not line.startswith("#")]


def position_text(game_name: str, line: str) -> str:
    """The position part of an input line: for chess, an EPD line's first four fields (board,
    side, castling, en passant), or six when the move counters follow; other games: the line."""
    if game_name != "chess":
        return line
    fields = line.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return " ".join(fields[:6])
    return " ".join(fields[:4])
