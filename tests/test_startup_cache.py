"""numba's compile cache: commands run without a writable one (a read-only install run by another
user), saying so once.

Each test runs the command line in a subprocess on a copy of the package sources
(``PYTHONPATH`` to the copy), so that what is writable and which cache directory is used are
under the test's control.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
PACKAGES = ("runtime", "games", "databases", "retrograde", "proofsearch", "solver")
NOTE = "solver: note: no writable compile cache"


def copy_sources(destination: Path) -> Path:
    """The packages' sources (no compiled files) copied under ``destination``."""
    for package in PACKAGES:
        shutil.copytree(REPOSITORY / package, destination / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return destination


def block_pycache(root: Path) -> None:
    """A regular file where each ``__pycache__`` directory would go: numba (and Python) cannot
    write next to the sources, as in a read-only install (this works for root too)."""
    for directory, subdirectories, _ in os.walk(root):
        (Path(directory) / "__pycache__").touch()


def clean_environment(sources: Path, **variables: str) -> dict[str, str]:
    """A minimal environment running ``sources``: no inherited numba or cache settings."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(sources),
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(variables)
    return env


def run_solver(sources: Path, env: dict[str, str], *arguments: str,
               prelude: str = "") -> subprocess.CompletedProcess:
    """``solver ARGUMENTS`` from ``sources`` (``prelude``: Python run first, in the same process)."""
    code = f"{prelude}\nimport sys\nfrom solver.cli import main\nsys.exit(main({list(arguments)!r}))"
    return subprocess.run([sys.executable, "-c", code], cwd=sources, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture()
def read_only_install(tmp_path):
    """Sources that cannot cache next to themselves, and an environment in which neither
    ``NUMBA_CACHE_DIR`` nor ``HOME`` nor ``XDG_CACHE_HOME`` is writable (each is a path under a
    regular file). Temporary directories go to ``tmp_path / "tmp"``."""
    sources = copy_sources(tmp_path / "install")
    block_pycache(sources)
    blocker = tmp_path / "a-file"
    blocker.touch()
    (tmp_path / "tmp").mkdir()
    env = clean_environment(sources, HOME=str(blocker / "home"), XDG_CACHE_HOME=str(blocker / "cache"),
                            NUMBA_CACHE_DIR=str(blocker / "numba"), TMPDIR=str(tmp_path / "tmp"))
    return sources, env, tmp_path / "tmp"


def assert_ran_with_one_note(result: subprocess.CompletedProcess) -> None:
    """Exit status 0, no traceback, and the note once on stderr."""
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.stderr.count(NOTE) == 1, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_read_only_install_runs_help_and_a_command_with_one_note(read_only_install):
    sources, env, temporary = read_only_install
    helped = run_solver(sources, env, "--help")
    assert_ran_with_one_note(helped)
    assert "perft" in helped.stdout
    counted = run_solver(sources, env, "perft", "tictactoe", "startpos", "2")
    assert_ran_with_one_note(counted)
    assert "72 nodes" in counted.stdout
    assert list(temporary.iterdir()) == []  # the run's cache directory is removed at exit


def test_without_any_temporary_directory_kernels_compile_uncached(read_only_install):
    sources, env, _ = read_only_install
    no_temporary = "import tempfile\ndef refuse(*args, **kwargs):\n    raise OSError('read-only')\n" \
                   "tempfile.mkdtemp = refuse"
    counted = run_solver(sources, env, "perft", "tictactoe", "startpos", "2", prelude=no_temporary)
    assert_ran_with_one_note(counted)
    assert "72 nodes" in counted.stdout


CALLEE = "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
CALLER = ("from numba import njit\n\nfrom games._probe_callee import value\n\n\n"
          "@njit(cache=True)\ndef twice():\n    return 2 * value()\n")


def test_an_edited_callee_in_another_file_is_not_run_stale(tmp_path):
    # numba alone keys a cached kernel on its own file only: after the callee's file changes,
    # the caller (whose file did not) would be loaded from the cache with the old callee inside.
    sources = copy_sources(tmp_path / "install")
    (sources / "games" / "_probe_callee.py").write_text(CALLEE.format(1))
    (sources / "games" / "_probe_caller.py").write_text(CALLER)
    env = clean_environment(sources, NUMBA_CACHE_DIR=str(tmp_path / "cache"), HOME=str(tmp_path))
    code = "import games\nfrom games._probe_caller import twice\nprint(twice())"

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", code], cwd=sources, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return done.stdout.strip()

    assert run() == "2"
    assert run() == "2"  # now from the cache
    index_files = list((tmp_path / "cache").rglob("_probe_caller.twice-*.nbi"))
    assert index_files, "the caller was not cached where expected"
    (sources / "games" / "_probe_callee.py").write_text(CALLEE.format(5))
    assert run() == "10"


def compiled_kernels(cache: Path) -> list[str]:
    """The kernels numba wrote to ``cache`` (one index file ``module.function-line.pyXY.nbi``
    each), as ``module.function``."""
    return sorted(path.name.split("-")[0] for path in cache.rglob("*.nbi"))


def test_help_compiles_nothing_and_a_command_only_what_it_runs(tmp_path):
    # Registering the commands once compiled the database and builder kernels for every command
    # (`solver --help` took 9 s from a cold cache).
    sources = copy_sources(tmp_path / "install")
    cache = tmp_path / "cache"
    env = clean_environment(sources, NUMBA_CACHE_DIR=str(cache), HOME=str(tmp_path))
    helped = run_solver(sources, env, "--help")
    assert helped.returncode == 0 and "perft" in helped.stdout, helped.stderr
    assert compiled_kernels(cache) == []
    counted = run_solver(sources, env, "perft", "connect4", "startpos", "4")
    assert counted.returncode == 0 and "2401 nodes" in counted.stdout, counted.stdout
    kernels = compiled_kernels(cache)
    assert kernels, "perft compiled nothing into the cache"
    allowed = ("connect4.", "perft.", "bits.", "interrupt.", "player_defaults.")
    assert [name for name in kernels if not name.startswith(allowed)] == [], kernels


def test_a_first_run_says_once_that_it_compiles_and_a_later_one_nothing(tmp_path):
    # issue 74, item 1: a long first compile says so, and how far along it is
    from runtime.compile_notice import FIRST_LINE, PROGRESS, first_line, progress_line

    sources = copy_sources(tmp_path / "install")
    cache = tmp_path / "cache"
    env = clean_environment(sources, NUMBA_CACHE_DIR=str(cache), HOME=str(tmp_path))
    perft = ("perft", "tictactoe", "startpos", "2")
    # on a terminal (a pipe's reader is a program: nothing is added to its stderr)
    status, errors = run_on_a_terminal(sources, env, *perft)
    first, *progress = errors.splitlines()
    assert status == 0 and first == f"solver: {FIRST_LINE}", errors
    assert all(re.fullmatch(rf"solver: {re.escape(PROGRESS)}\d+ so far", line)
               for line in progress), errors  # no count yet: every so many kernels
    kernels = json.loads((cache / "compile-counts.json").read_text())["perft tictactoe"]
    assert kernels > 0
    # a new version of the sources (an empty cache directory): the count of the run before
    for keyed in cache.glob("solver-*"):
        shutil.rmtree(keyed)
    status, errors = run_on_a_terminal(sources, env, *perft)
    quarters = [line for line in map(lambda done: progress_line(done, kernels),
                                     range(1, kernels + 1)) if line]
    assert status == 0 and errors.splitlines() == [f"solver: {first_line(kernels)}"] + [
        f"solver: {line}" for line in quarters], errors
    status, errors = run_on_a_terminal(sources, env, *perft)
    assert status == 0 and errors == "", errors  # warm: nothing


def test_a_failed_first_run_keeps_no_count(tmp_path):
    # it may have compiled a part only: the next cold run would be told a count too small
    sources = copy_sources(tmp_path / "install")
    cache = tmp_path / "cache"
    env = clean_environment(sources, NUMBA_CACHE_DIR=str(cache), HOME=str(tmp_path))
    failed = run_solver(sources, env, "perft", "tictactoe", "startpos", "-2")
    assert failed.returncode == 2, failed.stderr
    assert not (cache / "compile-counts.json").exists()


def run_on_a_terminal(sources: Path, env: dict, *args: str) -> tuple[int, str]:
    """``solver ARGS`` from ``sources`` with its stderr on a pseudo-terminal: (status, what
    it wrote there)."""
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "solver", *args], cwd=sources, env=env,
                               stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    written = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the process closed its end
            break
        if not chunk:
            break
        written += chunk
    os.close(leader)
    return process.wait(timeout=600), written.decode().replace("\r\n", "\n")


def test_a_read_only_cache_that_holds_kernels_is_used_not_recompiled(tmp_path):
    # An install whose compile cache was filled once and is read-only for its users: the
    # kernels there are loaded (from a copy in a temporary directory), none is compiled again.
    sources = copy_sources(tmp_path / "install")
    block_pycache(sources)
    cache = tmp_path / "cache"
    (tmp_path / "tmp").mkdir()
    env = clean_environment(sources, NUMBA_CACHE_DIR=str(cache), HOME=str(tmp_path),
                            TMPDIR=str(tmp_path / "tmp"))
    filled = run_solver(sources, env, "perft", "tictactoe", "startpos", "2")
    assert filled.returncode == 0 and filled.stderr == "", filled.stderr
    # Root may write anywhere, so "read-only" is what the writability test is told.
    read_only = (f"import os, tempfile\nprotected = {str(cache)!r}\noriginal = tempfile.TemporaryFile\n"
                 "def guarded(*args, dir=None, **kwargs):\n"
                 "    if dir is not None and os.path.abspath(dir).startswith(protected):\n"
                 "        raise OSError('read-only')\n"
                 "    return original(*args, dir=dir, **kwargs)\n"
                 "tempfile.TemporaryFile = guarded")
    env["NUMBA_DEBUG_CACHE"] = "1"
    again = run_solver(sources, env, "perft", "tictactoe", "startpos", "2", prelude=read_only)
    assert again.returncode == 0 and "72 nodes" in again.stdout, again.stderr
    assert again.stderr.count(NOTE) == 1 and "its compiled kernels are used" in again.stderr, again.stderr
    assert "data loaded from" in again.stdout and "data saved to" not in again.stdout, again.stdout
    assert list((tmp_path / "tmp").iterdir()) == []
