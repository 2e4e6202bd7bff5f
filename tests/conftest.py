"""Shared fixtures: the oracle data directory (from $SOLVER_ORACLE_DATA) and the games.

Outside CI a missing oracle directory or file skips the tests that need it. Under CI
(``CI`` set to ``true``, ``1`` or ``yes``, as CI services and .ci/run do) it fails the run
instead, at the start with one line, so that a CI run without the data cannot pass green.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

HINT = "set SOLVER_ORACLE_DATA to the oracle data directory (e.g. ../shared/data)"


def under_ci() -> bool:
    """Whether this run is CI's (the ``CI`` environment variable, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def oracle_problem() -> str | None:
    """Why the oracle data directory cannot be used, or None when it can."""
    value = os.environ.get("SOLVER_ORACLE_DATA")
    if not value:
        return f"oracle data not available: SOLVER_ORACLE_DATA is unset; {HINT}"
    if not Path(value).is_dir():
        return f"oracle data not available: SOLVER_ORACLE_DATA={value} is not a directory; {HINT}"
    return None


def missing(message: str) -> None:
    """Skip the test, or under CI fail it (a CI run must not pass without its oracles)."""
    if under_ci():
        pytest.fail(f"CI: {message}", pytrace=False)
    pytest.skip(message)


def pytest_sessionstart(session) -> None:
    """Under CI, stop at once with one line when the oracle directory is missing."""
    problem = oracle_problem()
    if problem and under_ci():
        pytest.exit(f"CI: {problem}", returncode=1)


@pytest.fixture(scope="session")
def oracle_root() -> Path:
    """The oracle data directory; skip (fail under CI) when it is unset or missing."""
    problem = oracle_problem()
    if problem:
        missing(problem)
    return Path(os.environ["SOLVER_ORACLE_DATA"])


@pytest.fixture(scope="session")
def oracle_data(oracle_root):
    """A function mapping a sub-path of the oracle data to a Path; skip (fail under CI) when
    that file is missing."""

    def resolve(sub_path: str) -> Path:
        path = oracle_root / sub_path
        if not path.exists():
            missing(f"oracle file missing: {path}")
        return path

    return resolve


@pytest.fixture(scope="session")
def gaviota(oracle_data):
    """python-chess's Gaviota tablebase over the 3-piece DTM tables of the oracle data."""
    import chess.gaviota

    with chess.gaviota.open_tablebase(str(oracle_data("chess/gaviota"))) as tablebase:
        yield tablebase


def quickest_mating_moves(fen: str, gaviota) -> set[str]:
    """The UCI moves that keep the quickest mate of a won 3-piece position, by Gaviota's DTM
    (the oracle: any of them is right, whatever tie-break a table picks)."""
    import chess

    board = chess.Board(fen)
    dtm = gaviota.probe_dtm(board)
    assert dtm > 0, f"not a win for the side to move: {fen}"
    moves = set()
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate() if dtm == 1 else gaviota.probe_dtm(board) == -(dtm - 1):
            moves.add(move.uci())
        board.pop()
    return moves


@pytest.fixture(scope="session")
def syzygy(oracle_data):
    """python-chess's Syzygy tablebase over the 3-4 piece WDL and DTZ tables of the oracle data."""
    import chess.syzygy

    with chess.syzygy.open_tablebase(str(oracle_data("chess/syzygy"))) as tablebase:
        yield tablebase


@pytest.fixture(scope="session")
def full_db(tmp_path_factory):
    """Every 3-4-piece table (rule-free), built once per session (about 2-3 minutes on one
    core), or an existing build named by $SOLVER_TEST_CHESS_DB (missing or invalid tables are
    built). The slow tests build their DTZ50 tables and the five-piece tables into it too."""
    import os

    from retrograde.build import build_tables

    root = os.environ.get("SOLVER_TEST_CHESS_DB") or tmp_path_factory.mktemp("fullchessdb")
    build_tables("chess", None, root, max_pieces=4, show_progress=False, dtz50=False)
    return root


@pytest.fixture(scope="session")
def pawn_db(tmp_path_factory):
    """A database of KPvKP and every table it depends on (3-4 pieces: KQvKP, KQvK, KPvK, ...),
    with their DTZ50 tables: read-only, shared by the tests of DTZ50 and of `solver serve`."""
    from retrograde.build import build_tables

    root = tmp_path_factory.mktemp("pawn_db")
    result = build_tables("chess", ["KPvKP"], root, show_progress=False)
    assert "KPvKP" in result["dtz50_built"]
    return root
