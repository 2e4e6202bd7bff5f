"""The oracle fixtures of tests/conftest.py: outside CI a missing oracle directory or file
skips; under CI=true it fails the run with one clear line (a CI run cannot pass green
without its oracles)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")
NEEDS_ORACLE = '''
def test_needs_the_directory(oracle_root):
    assert oracle_root.is_dir()

def test_needs_a_file(oracle_data):
    assert oracle_data("chess/mate-in-2.epd").is_file()
'''


def run_pytest(tmp_path: Path, ci: str | None, oracle: str | None) -> subprocess.CompletedProcess:
    """pytest on a copy of our conftest and two tests needing the oracles, in a fresh process."""
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_oracle.py").write_text(NEEDS_ORACLE)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SOLVER_ORACLE_DATA", "PYTEST_ADDOPTS")}
    if ci is not None:
        env["CI"] = ci
    if oracle is not None:
        env["SOLVER_ORACLE_DATA"] = oracle
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull,
                           "--rootdir", str(tmp_path), str(tmp_path)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)


def test_missing_oracle_directory_skips_outside_ci(tmp_path):
    run = run_pytest(tmp_path, None, "/nonexistent/oracle-data")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 skipped" in run.stdout


@pytest.mark.parametrize("ci, oracle", [("true", None), ("1", "/nonexistent/oracle-data")])
def test_missing_oracle_directory_fails_under_ci(tmp_path, ci, oracle):
    run = run_pytest(tmp_path, ci, oracle)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "CI: oracle data not available" in run.stdout + run.stderr
    assert "SOLVER_ORACLE_DATA" in run.stdout + run.stderr
    assert "passed" not in run.stdout and "skipped" not in run.stdout


def test_missing_oracle_file_fails_under_ci(tmp_path):
    empty = tmp_path / "data"
    empty.mkdir()
    run = run_pytest(tmp_path, "true", str(empty))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "CI: oracle file missing" in run.stdout
    assert "1 failed, 1 passed" in run.stdout


def test_present_oracle_data_passes_under_ci(tmp_path):
    data = tmp_path / "data"
    (data / "chess").mkdir(parents=True)
    (data / "chess" / "mate-in-2.epd").write_text("")
    run = run_pytest(tmp_path, "true", str(data))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout
