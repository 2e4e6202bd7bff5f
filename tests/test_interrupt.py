"""Ctrl-C reaches long numba work (issue 12, item 5): the kernels of perft and df-pn poll a stop
flag, run in a worker thread, and the main thread, which receives the signal, raises the flag.
A command that is interrupted exits with status 130 and one line on stderr (after the per-table
log of a build whose stderr is not a terminal)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import games
from runtime.interrupt import flag_raiser, run_interruptibly
from games.perft import perft
from proofsearch.dfpn import DfpnSearch
from tests.test_bad_input import run_solver

CHESS = games.get("chess")
CONNECT4 = games.get("connect4")

# Stopped "at once": well inside this, where the work left alone would run for hours. Generous
# because a loaded machine stretches it (5.4 s seen with a build and two engines beside the suite).
PROMPTLY = 10.0


@pytest.fixture(autouse=True)
def ctrl_c_raises_keyboard_interrupt():
    """Python's own SIGINT handler for each test: a process started in the background by a
    shell without job control inherits SIGINT ignored, and Ctrl-C would then never arrive."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def sigint_at_default():
    """For a child process: SIGINT back to its default, so that Python installs its handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_solvers_handlers(process: subprocess.Popen, timeout: float = 60) -> None:
    """Wait until ``process`` catches SIGTERM: solver's handlers are in (SIGINT's is installed
    just before). What comes earlier is Python's own start-up, which no program can guard; on a
    loaded machine it can take longer than any fixed delay. Linux's /proc tells; elsewhere, a
    second."""
    status = f"/proc/{process.pid}/status"
    if not os.path.exists(status):
        time.sleep(1.0)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with open(status) as lines:
            caught = next((int(line.split()[1], 16) for line in lines if line.startswith("SigCgt:")), 0)
        if caught >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.005)


# What a build whose stderr is not a terminal writes before it stops: a line per finished table.
TABLE_LOG_LINE = re.compile(r"^(DTZ50 tables|WDL50 packs|tables) \d+/\d+: \w+ in \d+\.\d s"
                            r"(, about [\w ]+ left in this stage)?$")


def build_stderr_is_one_line_after_its_log(err: str, message: str) -> bool:
    """True if ``err`` is the build's per-table log followed by ``message`` alone (no traceback)."""
    *log, last = err.splitlines() or [""]
    return last == message and all(TABLE_LOG_LINE.match(line) for line in log)


def interrupt_main_thread_after(seconds: float) -> threading.Timer:
    """SIGINT to this process's main thread after ``seconds`` (as Ctrl-C would)."""
    timer = threading.Timer(seconds, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    return timer


def test_perft_stops_at_once_on_ctrl_c():
    perft(CHESS, CHESS.start_position(), 1)  # loaded before the clock starts
    interrupt_main_thread_after(0.5)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        perft(CHESS, CHESS.start_position(), 99)
    assert time.monotonic() - started < PROMPTLY


def test_proof_search_stops_at_once_on_ctrl_c():
    search = DfpnSearch(CHESS)
    search.prove(CHESS.start_position(), max_nodes=10)  # loaded before the clock starts
    interrupt_main_thread_after(0.5)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        search.prove(CHESS.start_position())
    assert time.monotonic() - started < PROMPTLY


def test_proof_search_stops_when_told_from_another_thread():
    search = DfpnSearch(CHESS)
    search.prove(CHESS.start_position(), max_nodes=10)
    timer = threading.Timer(0.5, search.stop)
    timer.start()
    found = search.prove(CHESS.start_position())
    assert found.result == "unknown" and found.reason == "stopped"


def test_alphabeta_after_the_handoff_stops_when_told_from_another_thread():
    search = DfpnSearch(CONNECT4)
    search.prove(CONNECT4.start_position(), max_nodes=2000)  # both kernels loaded
    timer = threading.Timer(0.5, search.stop)
    timer.start()
    started = time.monotonic()
    found = search.prove(CONNECT4.start_position())  # minutes: df-pn hands over after 1,000 nodes
    assert found.result == "unknown" and found.reason == "stopped"
    assert found.nodes > 1000 and time.monotonic() - started < PROMPTLY


def test_work_outside_the_main_thread_runs_directly():
    flag = np.zeros(1, dtype=np.int64)
    answers = []
    worker = threading.Thread(target=lambda: answers.append(run_interruptibly(threading.current_thread,
                                                                              flag_raiser(flag))))
    worker.start()
    worker.join()
    assert answers == [worker] and flag[0] == 0


def test_errors_of_the_work_reach_the_caller():
    with pytest.raises(ZeroDivisionError):
        run_interruptibly(lambda: 1 // 0, lambda: None)


@pytest.mark.parametrize("command, warm_up", [
    (["perft", "chess", "startpos", "99"], ["perft", "chess", "startpos", "1"]),
    (["prove", "chess", "startpos"], ["prove", "chess", "startpos", "--max-nodes", "10"]),
    (["prove", "connect4", "startpos"], ["prove", "connect4", "startpos", "--max-nodes", "2000"]),
    (["search", "chess", "startpos", "--depth", "100"], ["search", "chess", "startpos", "--depth", "1"]),
    (["search", "connect4", "startpos", "--depth", "40"], ["search", "connect4", "startpos", "--depth", "1"]),
], ids=lambda c: " ".join(c[:2]))
def test_commands_exit_130_with_one_line_on_ctrl_c(command, warm_up):
    started = time.monotonic()
    assert run_solver(*warm_up).returncode == 0  # kernels compiled or loaded: startup is now known
    wait = 2 * (time.monotonic() - started) + 2  # well into the long work
    process = subprocess.Popen([sys.executable, "-m", "solver", *command], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ),
                               preexec_fn=sigint_at_default)
    try:
        time.sleep(wait)
        assert process.poll() is None, "the command ended by itself"
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = process.communicate(timeout=60)
        assert time.monotonic() - sent < PROMPTLY
        assert process.returncode == 130
        assert err.decode().splitlines() == [f"solver {command[0]}: interrupted"]
        assert out == b""
    finally:
        process.kill()
        process.wait()


def test_tick_runs_while_the_work_does():
    ticks = []
    assert run_interruptibly(lambda: time.sleep(0.8) or 7, lambda: None, lambda: ticks.append(1)) == 7
    assert 2 <= len(ticks) <= 4


def test_an_unlimited_alphabeta_phase_reports_progress():
    # No limit: alpha-beta runs in one call; the display reads its node counter as it goes.
    connect4 = games.get("connect4")
    reports = []
    found = DfpnSearch(connect4).prove(connect4.parse_position("44554"), "win",
                                       progress=lambda nodes, seconds: reports.append(nodes))
    assert found.result == "disproven"
    assert reports and reports == sorted(reports) and 1000 < reports[-1] <= found.nodes


@pytest.mark.parametrize("delay", [0.0, 1.5, 2.5, 3.5, 4.5, 5.5])
def test_ctrl_c_during_a_first_run_compile_is_one_line_and_status_130(tmp_path, delay):
    """Issue 37, item 2: with an empty compile cache the kernels compile when Ctrl-C comes (in
    the main thread or the worker, in numba's callbacks; at once, while numba is imported):
    one line, 130, at once, every time."""
    process = subprocess.Popen([sys.executable, "-m", "solver", "search", "chess", "startpos",
                                "--depth", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    wait_for_solvers_handlers(process)
    time.sleep(delay)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    if process.returncode == 0:  # the machine compiled it all before the signal: nothing to see
        pytest.skip(f"finished within {delay} s")
    assert process.returncode == 130, err
    assert err.splitlines() == ["solver search: interrupted"], err
    assert time.monotonic() - sent < 5  # (within half a second on an idle machine)


@pytest.mark.parametrize("delay", [0.0, 1.5, 3.0])
def test_sigterm_of_a_build_is_one_line_and_leaves_no_temporary_file(tmp_path, delay):
    """Issue 37, item 6: SIGTERM is handled like Ctrl-C, so the writer's clean-up runs (from
    the moment the handler is in: at 0 s, numba is still being imported)."""
    process = subprocess.Popen([sys.executable, "-m", "solver", "build", "chess", "KQvKR", "--db",
                                str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for_solvers_handlers(process)
    time.sleep(delay)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    if process.returncode == 0:
        pytest.skip(f"finished within {delay} s")
    assert process.returncode == 128 + signal.SIGTERM, err
    assert build_stderr_is_one_line_after_its_log(err, "solver build: terminated"), err
    assert not [p.name for p in (tmp_path / "chess").glob(".*tmp*")] if (tmp_path / "chess").is_dir() \
        else True


def test_ctrl_c_of_a_local_cluster_build_is_one_line(tmp_path):
    """Issue 37, item 6: the workers ignore the terminal's Ctrl-C (it reaches the whole process
    group); the command ends them and says one line."""
    process = subprocess.Popen([sys.executable, "-m", "solver", "build", "chess", "--pieces", "4",
                                "--db", str(tmp_path), "--scheduler", "local:2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((tmp_path / "chess").glob("*.h5")):
        time.sleep(0.2)  # until the workers build
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole group
    sent = time.monotonic()
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert build_stderr_is_one_line_after_its_log(err, "solver build: interrupted"), err
    assert time.monotonic() - sent < PROMPTLY  # (about half a second on an idle machine)
