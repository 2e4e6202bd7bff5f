"""Writing a proof file never replaces what the user pointed at: links, FIFOs, devices, modes."""
from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import threading

import pytest

from proofsearch.proof_tree import write_proof

DOCUMENT = {"format": "test", "size": 3}


def read_document(path) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_new_file_follows_the_umask(tmp_path):
    for mask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
        path = tmp_path / f"new-{mask:o}.json"
        previous = os.umask(mask)
        try:
            write_proof(DOCUMENT, str(path))
        finally:
            os.umask(previous)
        assert stat.S_IMODE(path.stat().st_mode) == mode
        assert read_document(path) == DOCUMENT


def test_existing_file_keeps_its_mode_and_gets_the_new_text(tmp_path):
    path = tmp_path / "old.json"
    path.write_text("old contents")
    path.chmod(0o640)
    write_proof(DOCUMENT, str(path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert read_document(path) == DOCUMENT
    assert [p.name for p in tmp_path.iterdir()] == ["old.json"]  # no temporary left behind


def test_symlink_stays_a_symlink_and_its_target_is_written(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_proof(DOCUMENT, str(link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert read_document(target) == DOCUMENT


def test_dangling_symlink_creates_its_target(tmp_path):
    target = tmp_path / "made.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_proof(DOCUMENT, str(link))
    assert link.is_symlink()
    assert read_document(target) == DOCUMENT


def test_hard_linked_file_stays_one_file(tmp_path):
    first = tmp_path / "first.json"
    first.write_text("old")
    second = tmp_path / "second.json"
    os.link(first, second)
    write_proof(DOCUMENT, str(second))
    assert first.stat().st_ino == second.stat().st_ino
    assert read_document(first) == DOCUMENT


def start_fifo_reader(fifo, received: list) -> threading.Thread:
    """A thread that reads ``fifo`` to its end into ``received`` (daemon: never holds pytest)."""
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    return reader


def release_fifo_reader(fifo, reader: threading.Thread) -> None:
    """If nothing opened ``fifo`` for writing, open and close it so that the reader ends."""
    if reader.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as error:
            # ENXIO: no reader has the FIFO open, so the reader has already read it to its end
            # and is only finishing (it is alive for a moment after closing the FIFO).
            if error.errno != errno.ENXIO:
                raise
    reader.join(timeout=10)


def test_fifo_receives_the_text_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = start_fifo_reader(fifo, received)
    write_proof(DOCUMENT, str(fifo))
    release_fifo_reader(fifo, reader)
    assert json.loads(received[0]) == DOCUMENT
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_device_is_written_not_replaced():
    write_proof(DOCUMENT, os.devnull)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_solver_prove_writes_through(tmp_path, kind):
    """The command line goes through the same path (tic-tac-toe: a quick disproof)."""
    target = tmp_path / "target.json"
    path = tmp_path / "proof.json"
    received = []
    if kind == "symlink":
        path.symlink_to(target)
    else:
        os.mkfifo(path)
        reader = start_fifo_reader(path, received)
    result = subprocess.run([sys.executable, "-m", "solver", "prove", "tictactoe", "startpos",
                             "--proof", str(path), "--json"], capture_output=True, text=True,
                            timeout=600)
    if kind == "fifo":
        release_fifo_reader(path, reader)
    assert result.returncode == 0, result.stderr
    if kind == "symlink":
        assert path.is_symlink()
        assert read_document(target)["game"] == "tictactoe"
    else:
        assert stat.S_ISFIFO(path.stat().st_mode)
        assert json.loads(received[0])["game"] == "tictactoe"
