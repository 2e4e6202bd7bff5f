"""What the scripts share: where the oracle data and Stockfish are, peak memory, and the
frame of the suite makers (Stockfish self-play from the book into an EPD file that resumes).

Scripts run as ``python scripts/NAME.py`` find this module beside them (Python puts the
script's directory first on ``sys.path``) and the project's packages through the install
(``pip install -e .``), so none of them edits ``sys.path``.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import resource
import shutil
from pathlib import Path
from typing import Callable

import chess

REPOSITORY = Path(__file__).resolve().parent.parent
DEBIAN_STOCKFISH = "/usr/games/stockfish"


def oracle_data() -> Path:
    """The oracle data directory: ``$SOLVER_ORACLE_DATA``, else ``../shared/data`` beside the
    repository (where the machines keep it)."""
    explicit = os.environ.get("SOLVER_ORACLE_DATA")
    return Path(explicit) if explicit else REPOSITORY.parent / "shared" / "data"


def find_stockfish(explicit: str | None = None) -> str | None:
    """The Stockfish binary: ``explicit``, else ``stockfish`` on ``PATH``, else Debian's
    ``/usr/games/stockfish``; None when there is none."""
    if explicit:
        return explicit
    found = shutil.which("stockfish")
    if found:
        return found
    return DEBIAN_STOCKFISH if os.access(DEBIAN_STOCKFISH, os.X_OK) else None


def peak_resident_mib() -> float:
    """This process's peak resident memory in MiB. Linux's ``ru_maxrss`` survives ``exec`` (a
    child started by a big parent reports the parent's peak), so ``VmHWM`` is read, which does
    not; ``ru_maxrss`` only where there is no ``/proc``."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_resident() -> None:
    """Start this process's peak resident memory afresh from what it holds now (Linux:
    ``/proc/self/clear_refs``), so that :func:`peak_resident_mib` measures what follows and
    not a warm-up before it; nothing where there is no ``/proc``."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        pass


def default_book() -> str:
    """The openings of the oracle data (``oracle_data()/chess/openings-8moves.epd``)."""
    return str(oracle_data() / "chess" / "openings-8moves.epd")


def add_suite_arguments(parser: argparse.ArgumentParser, count: int) -> None:
    """The arguments every suite maker takes: ``--engine``, ``--book``, ``--out``, ``--count``."""
    parser.add_argument("--engine", default=find_stockfish(), help="a UCI engine (default: Stockfish)")
    parser.add_argument("--book", default=default_book(), help="EPD openings (default: the oracle data's)")
    parser.add_argument("--out", type=Path, required=True, help="EPD file, appended to")
    parser.add_argument("--count", type=int, default=count, help="positions wanted in the suite")


def recorded(path: Path) -> set[str]:
    """The positions (EPD without operations) already in a suite file."""
    if not path.exists():
        return set()
    return {" ".join(line.split()[:4]) for line in path.read_text().splitlines() if line.strip()}


def fill_suite(args: argparse.Namespace, play_game: Callable, entry: Callable) -> None:
    """Play games from random lines of ``args.book`` until ``args.out`` holds ``args.count``
    positions. ``play_game(start, rng, number)`` plays game ``number`` and returns its
    candidates, each ``(board, hint)``; a candidate not in the file yet, at least
    ``args.spacing`` plies after the last one kept from its game and within ``args.per_game``,
    is appended with the EPD operations ``entry(board, hint, id)`` gives (None: passed over).
    A killed run resumes: the positions in the file count, and other games are played."""
    openings = [line.strip() for line in Path(args.book).read_text().splitlines() if line.strip()]
    seen = recorded(args.out)
    rng = random.Random(args.seed + len(seen))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    games = 0
    with args.out.open("a") as out:
        while len(seen) < args.count:
            start, _ = chess.Board.from_epd(rng.choice(openings))
            candidates = play_game(start, rng, games)
            games += 1
            kept, last_ply = 0, -10 ** 9
            for board, hint in candidates:
                key = " ".join(board.epd().split()[:4])
                if key in seen or board.ply() - last_ply < args.spacing or kept >= args.per_game:
                    continue
                operations = entry(board, hint, len(seen) + 1)
                if operations is None:
                    continue
                seen.add(key)
                kept, last_ply = kept + 1, board.ply()
                out.write(f"{key} {operations}\n")
                out.flush()
                if len(seen) >= args.count:
                    break
            print(f"\r{len(seen)}/{args.count} positions from {games} games", end="",
                  file=sys.stderr, flush=True)
    print(file=sys.stderr)
