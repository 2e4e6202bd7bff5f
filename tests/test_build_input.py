"""Bad requests to `solver build` (piece counts, a --db that is a file or cannot be written),
the temporary files killed builds leave, and the positions the Python API accepts."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest

from databases import open_database
from databases.location import table_path
from databases.writer import leftover_temporaries, temporary_path, write_table
from retrograde.build import BuildRequestError, check_pieces, piece_range
from solver.cli import main
from tests.conftest import quickest_mating_moves
from tests.test_damaged_tables import assert_one_line_error, built, solver

KQVK_FEN = "8/8/3k4/8/8/8/8/K1Q5 w - - 0 1"  # White mates in 9 (17 plies)


# --- piece counts ---------------------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["chess", "--pieces", "6"], ["--pieces 6", "up to 5 pieces"]),
    (["chess", "--pieces", "99"], ["--pieces 99", "up to 5 pieces"]),
    (["chess", "--pieces", "0"], ["--pieces 0", "smallest chess tables have 2 pieces"]),
    (["chess", "--pieces", "1"], ["--pieces 1", "smallest chess tables have 2 pieces"]),
    (["tictactoe", "--pieces", "3"], ["not chosen by piece count"]),
    (["chess", "KQvK", "--pieces", "3"], ["not both"]),
])
def test_piece_counts_out_of_range_are_refused(tmp_path, argv, words):
    run = solver("build", *argv, "--db", str(tmp_path / "db"))
    assert_one_line_error(run, 2, *words)
    assert not (tmp_path / "db").exists()  # refused before any work


class FiveMenFamily:
    """A stand-in family with tables of 2 to 5 pieces (named by their piece count)."""

    class game:
        name = "chess"

    def table_names(self, max_pieces=None):
        names = ["2", "3", "4", "5"]
        return names if max_pieces is None else [n for n in names if int(n) <= max_pieces]


def test_the_piece_limit_is_read_from_the_family():
    assert piece_range(FiveMenFamily()) == (2, 5)
    check_pieces(FiveMenFamily(), None, 5)  # accepted once the family has 5-piece tables
    with pytest.raises(BuildRequestError, match="up to 5 pieces"):
        check_pieces(FiveMenFamily(), None, 6)


# --- the database directory ---------------------------------------------------------------------
def test_db_that_is_a_file_is_refused_and_kept(tmp_path):
    path = tmp_path / "FILE"
    path.write_text("mine")
    assert_one_line_error(solver("build", "tictactoe", "--db", ""), 2, "empty directory name")
    assert_one_line_error(solver("build", "tictactoe", "--db", str(path)), 2, "not a directory")
    assert_one_line_error(solver("build", "tictactoe", "--db", str(path / "sub")), 2,
                          "not a directory")
    assert path.read_text() == "mine"


def test_an_unwritable_directory_is_one_line_with_status_1(tmp_path, monkeypatch, capsys):
    """os.access says no (as for a read-only filesystem or another user's directory)."""
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if str(path).startswith(
        str(tmp_path)) else real_access(path, mode, **kw))
    status = main(["build", "tictactoe", "--db", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "cannot write to" in err


def build_on_a_small_mount(tmp_path, options: str) -> subprocess.CompletedProcess:
    """``solver build tictactoe`` onto a tmpfs mounted with ``options``, in a private mount
    namespace (the test is skipped where that is not allowed)."""
    if not shutil.which("unshare") or not shutil.which("mount"):
        pytest.skip("needs unshare and mount")
    mount = tmp_path / "mount"
    mount.mkdir()
    command = [shutil.which("solver")] if shutil.which("solver") else [sys.executable, "-m", "solver"]
    script = (f"mount -t tmpfs -o {options} tmpfs {mount} || exit 99; "
              f"exec {' '.join(command)} build tictactoe --db {mount}/db")
    run = subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", script],
                         capture_output=True, text=True, timeout=900)
    if run.returncode == 99 or "unshare:" in run.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {run.stderr.strip()}")
    return run


def test_a_read_only_filesystem_is_one_line_with_status_1(tmp_path):
    """A real read-only mount."""
    assert_one_line_error(build_on_a_small_mount(tmp_path, "ro,size=1m"), 1, "cannot create",
                          "Read-only file system")


def test_a_full_disk_is_one_line_naming_the_file_with_status_1(tmp_path):
    """A real 4 KiB filesystem: HDF5's many-line report of the failed write becomes one
    line."""
    assert_one_line_error(build_on_a_small_mount(tmp_path, "size=4k"), 1,
                          "No space left on device", f"{tmp_path}/mount/db/tictactoe/all.h5")


# --- temporary files of killed builds ----------------------------------------------------------
def dead_pid() -> int:
    """The pid of a process that has exited."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_leftovers_of_dead_writers_are_removed_and_live_ones_kept(tmp_path, capsys):
    directory = tmp_path / "tictactoe"
    directory.mkdir()
    host = socket.gethostname()
    dead = dead_pid()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    for metric in ("dtz50", "wdl50"):  # the DTZ50 and packed WDL50 folders are cleaned too
        (directory / metric).mkdir()
    stale = [directory / f".all.h5.tmp-{dead}", directory / f".all.h5.tmp-{dead}@{host}",
             directory / "dtz50" / f".all.h5.tmp-{dead}@{host}", directory / "wdl50" / f".all.h5.tmp-{dead}"]
    kept = [directory / f".all.h5.tmp-{live.pid}@{host}",  # a build running now
            directory / f".all.h5.tmp-{dead}@another-host",  # a worker elsewhere
            directory / "notes.tmp-1"]
    for path in stale + kept:
        path.write_bytes(b"partial")
    try:
        assert leftover_temporaries(directory) == sorted(stale[:2])
        status = main(["build", "tictactoe", "--db", str(tmp_path), "--json"])
    finally:
        live.kill()
        live.wait()
    err = capsys.readouterr().err
    assert status == 0 and err.count("\n") == 1 and "removed 4 temporary file(s)" in err
    assert f"dtz50/.all.h5.tmp-{dead}@{host}" in err
    assert not any(path.exists() for path in stale) and all(path.exists() for path in kept)


def test_an_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    import h5py

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(h5py.Group, "create_dataset", interrupt)
    path = table_path(tmp_path, "tictactoe", "all")
    with pytest.raises(KeyboardInterrupt):
        write_table(path, np.ones(3 ** 9, dtype=np.uint16), game="tictactoe", table="all",
                    index_scheme="tictactoe-base3", index_version=1, sides=1, generator="test",
                    generator_version="0", settings={}, build_seconds=0)
    assert list(path.parent.iterdir()) == []
    assert temporary_path(path).name.startswith(".all.h5.tmp-")


# --- positions in the Python API ---------------------------------------------------------------
@pytest.fixture(scope="module")
def chess_db(tmp_path_factory):
    return built(tmp_path_factory, "chess", ["KQvK"])


def test_probe_takes_fen_strings_boards_and_arrays(chess_db, gaviota):
    chess = pytest.importorskip("chess")
    with open_database(chess_db, "chess") as db:
        array = db.game.parse_position(KQVK_FEN)
        for position in (KQVK_FEN, chess.Board(KQVK_FEN), array, array.astype(np.int64)):
            assert db.probe(position).dtm == 17
            assert db.probe_wdl(position) == 1 and db.probe_dtm(position) == 17
        assert db.get_dtm("7k/8/8/8/8/8/8/KQQQ4 w - - 0 1") is None  # 5 pieces
        assert db.game.format_move(array, db.best_move(KQVK_FEN)) in quickest_mating_moves(KQVK_FEN, gaviota)
        wdl, dtm = db.probe_batch([KQVK_FEN, chess.Board("8/8/3k4/8/8/8/8/K1Q5 b - - 0 1")])
        assert list(wdl) == [1, -1] and dtm[0] == 17 and dtm[1] < 0


@pytest.mark.parametrize("position, message", [
    (12345, "expected a chess position: a string in the game's notation (FEN)"),
    (np.zeros(3, dtype=np.uint64), "position array of"),
    (np.zeros(8, dtype=np.float64), "position array of"),
    (None, "chess.Board"),
])
def test_probe_says_what_it_expects(chess_db, position, message):
    with open_database(chess_db, "chess") as db, pytest.raises(TypeError, match=re.escape(message)):
        db.probe(position)


def test_probe_of_a_bad_fen_is_a_notation_error(chess_db):
    from games import NotationError

    with open_database(chess_db, "chess") as db, pytest.raises(NotationError):
        db.probe("not a fen")
    with open_database(chess_db, "chess") as db, pytest.raises(TypeError, match="2-D array"):
        db.probe_batch(KQVK_FEN)
