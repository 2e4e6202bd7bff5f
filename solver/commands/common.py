"""Helpers shared by the subcommands: option types that turn every bad value into a one-line usage
error, game and position lookup, where databases are found, and the batch mode (POSITION ``-``)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Iterator

import numpy as np

import games
from solver.errors import UsageError
from solver.output import write_line

# No count of nodes, depth or workers needs more; larger values would overflow int64 kernels.
MAX_COUNT = 1 << 62
MAX_MEGABYTES = 65536
MAX_SECONDS = 1e7


class Failure(Exception):
    """A failure that is not the user's input (a damaged or unusable environment, a limit of the
    machine): one line on stderr, exit status 1."""


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message: printable (non-UTF-8 bytes escaped) and short."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[:limit - 4] + "...'"


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


# --- option types (argparse reports their ArgumentTypeError as one usage line, exit 2) ---------

def non_negative_int(text: str) -> int:
    """argparse type for depths and counts (0 to ``MAX_COUNT``)."""
    return bounded_int(0, MAX_COUNT)(text)


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """argparse type for an integer in ``[low, high]`` (``0 <= low``, ``high <= MAX_COUNT``)."""
    def parse(text: str) -> int:
        try:
            if not text.isascii():  # int() takes other scripts' digits: not a count typed here
                raise ValueError(text)
            value = int(text)
        except ValueError:  # also for more digits than Python converts
            raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {shown(text)}") from None
        if not low <= value <= high:
            shown_value = shown(text) if value > MAX_COUNT else value
            # (a range's low end named whenever the value is under it: -1 where 0 is refused
            # too was told "must be >= 0")
            allowed = f"at most {high}" if low == 0 and value > high else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {shown_value}")
        return value
    return parse


def _number(text: str, what: str) -> float:
    """A finite float, or an ArgumentTypeError naming ``what`` was expected."""
    try:
        if not text.isascii():  # float() takes other scripts' digits
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {shown(text)}") from None
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {shown(text)}")
    return value


def seconds(text: str) -> float:
    """argparse type for a positive number of seconds."""
    value = _number(text, "a number of seconds")
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be > 0 (and at most {MAX_SECONDS:g}), got {text}")
    return value


def physical_megabytes() -> int:
    """This machine's memory in MiB (``MAX_MEGABYTES`` when the system does not say)."""
    try:
        return (os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) >> 20
    except (AttributeError, ValueError, OSError):
        return MAX_MEGABYTES


def megabytes(text: str) -> float:
    """argparse type for a memory size in MiB: 0.001 up to 65536 and this machine's memory."""
    value = _number(text, "a size in MiB")
    limit = min(MAX_MEGABYTES, physical_megabytes())
    if not 0.001 <= value <= limit:
        where = " (this machine's memory)" if limit < MAX_MEGABYTES else ""
        raise argparse.ArgumentTypeError(f"must be between 0.001 and {limit}{where}, got {text}")
    return value


def allocation(what: str, option: str, make: Callable):
    """``make()``, with a MemoryError turned into a one-line usage error naming ``option``."""
    try:
        return make()
    except MemoryError:
        raise UsageError(f"cannot allocate the {what}: not enough free memory (try a smaller {option})") from None


def named_directory(text: str, option: str) -> Path:
    """The directory the user named with ``option``: a UsageError when the name is empty or names
    something that exists and is not a directory (a missing one is the command's business)."""
    if not text:
        raise UsageError(f"{option}: empty directory name")
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {shown(text)}: not a directory")
    return path


@contextmanager
def database_errors_as_usage():
    """Database errors as usage errors (a missing table, a position no table covers, a bad
    directory), except a damaged table: UnusableTableError goes on (exit status 1, solver.cli)."""
    from databases.errors import DatabaseError, UnusableTableError

    try:
        yield
    except UnusableTableError:
        raise
    except DatabaseError as error:
        raise UsageError(str(error)) from None


def readable_file_path(path: str, option: str) -> None:
    """A UsageError unless ``path`` names something that can be read as a file (a regular
    file, a pipe, a device, a link to one); called before any work."""
    if not path:
        raise UsageError(f"{option}: empty file name")
    if os.path.isdir(path):
        raise UsageError(f"{option} {shown(path)}: is a directory")


def writable_file_path(path: str, option: str) -> None:
    """A UsageError unless a file could be written at ``path`` (not a directory, in an existing
    directory); called before any work, so that no search is wasted on an unwritable name."""
    readable_file_path(path, option)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"{option} {shown(path)}: no such directory {shown(parent)}")


# --- the search switches ------------------------------------------------------------------------

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
        raise UsageError(f"unknown search feature {shown(unknown[0])} (known: {', '.join(NAMES)})")
    return {**{name: True for name in args.enable}, **{name: False for name in args.disable}}


# --- where the tables are ------------------------------------------------------------------------

def add_optional_db_argument(parser: argparse.ArgumentParser, use: str) -> None:
    """The --db option of the commands for which tables are optional (prove, search)."""
    parser.add_argument("--db", metavar="DIR", default=None,
                        help=f"database directory: {use} (default: $SOLVER_DB, else "
                        "~/.local/share/solver/db, when it holds tables of GAME)")


def optional_tables_directory(explicit: str | None, game_name: str) -> tuple[Path | None, bool]:
    """Where prove and search look for tables: (directory, named by the user).

    ``--db DIR`` is used as given (a bad one is an error). Without it, ``$SOLVER_DB``, else the
    user data directory, is used only when it holds this game's tables: tables are optional there,
    so a default location without any is no error. (None, False) when there is nothing to use.
    """
    from databases.location import default_database_dir

    if explicit is not None:
        return named_directory(explicit, "--db"), True
    directory = default_database_dir(None)
    if os.environ.get("SOLVER_DB") and not directory.is_dir():
        # named by the user, if not on this command line: a slip to point out, not to pass over
        sys.stderr.write(f"solver: SOLVER_DB={shown(os.environ['SOLVER_DB'])} is not a "
                         f"directory: no tables used\n")
        return None, False
    try:
        has_tables = any(directory.joinpath(game_name).glob("*.h5"))
    except OSError:
        has_tables = False
    return (directory, False) if has_tables else (None, False)


# --- batch mode: POSITION "-" ---------------------------------------------------------------

@dataclass
class BatchLine:
    """One input line of a batch: its text (non-UTF-8 bytes shown as ``\\xNN``), and an error
    when it cannot be read at all."""

    text: str
    error: str = ""


def batch_lines(stream: IO) -> Iterator[BatchLine]:
    """The lines of a binary stream one at a time, as they arrive (so that a co-process gets each
    answer before it writes the next line); blank lines and ``#`` comments skipped. A line that is
    not UTF-8 comes with an error instead of ending the batch."""
    while raw := stream.readline():
        if isinstance(raw, str):  # a text stream (tests): back to bytes, as stdin would give them
            raw = raw.encode("utf-8", errors="surrogateescape")
        for part in raw.split(b"\r"):  # old Mac line ends (CR alone) end lines too
            stripped = part.strip()
            if not stripped or stripped.startswith(b"#"):
                continue
            try:
                yield BatchLine(stripped.decode("utf-8").strip())
            except UnicodeDecodeError as error:
                yield BatchLine(stripped.decode("utf-8", errors="backslashreplace"),
                                f"not UTF-8 text (byte {error.start + 1} of the line)")


def run_batch(game_name: str, answer: Callable[[str], dict], as_json: bool,
              summary: Callable[[dict], str], stream: IO | None = None,
              line_errors: tuple[type[Exception], ...] = (UsageError,)) -> int:
    """Answer every line of ``stream`` (standard input) with ``answer(position text)``, which
    raises one of ``line_errors`` for a line it cannot answer: that line gets an ``error`` answer
    and the batch goes on. Each answer is written and flushed as soon as it is known. Exit status
    1 when any line got an error, else 0."""
    stream = stream if stream is not None else getattr(sys.stdin, "buffer", sys.stdin)
    failed = False
    for line in batch_lines(stream):
        result = {"position": line.text}
        if line.error:
            result["error"] = line.error
        else:
            try:
                result.update(answer(position_text(game_name, line.text)))
            except line_errors as error:
                result["error"] = str(error)
        failed = failed or "error" in result
        if as_json:
            write_line(json.dumps(result))
        else:
            write_line(f"{line.text}: " + (f"error: {result['error']}" if "error" in result else summary(result)))
    return 1 if failed else 0


def position_text(game_name: str, line: str) -> str:
    """The position part of an input line: for chess, an EPD line's first four fields (board,
    side, castling, en passant) when operations follow them (``bm Nf6; id "x";``), else the
    whole line, judged like a POSITION argument (a FEN's counters, nothing after them); other
    games: the line."""
    if game_name != "chess":
        return line
    fields = line.split()
    if len(fields) > 4 and not fields[4].lstrip("+-").isdigit():
        return " ".join(fields[:4])  # EPD operations: an opcode never starts with a digit
    return line


BATCH_HELP = ("POSITION '-' reads positions from standard input, one per line (blank lines and "
              "# comments skipped), and answers each on one line as soon as it is read (one JSON "
              "object per line with --json, carrying the input as 'position'); a line that cannot "
              "be answered gets an 'error' answer and the rest go on. Exit status: 0, or 1 when "
              "any line got an error; 2 for bad options; 130 when interrupted.")
