"""Shared fixtures: the oracle data directory (from $SOLVER_ORACLE_DATA) and the games."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def oracle_root() -> Path:
    """The oracle data directory, or skip when $SOLVER_ORACLE_DATA is unset or missing."""
    value = os.environ.get("SOLVER_ORACLE_DATA")
    if not value:
        pytest.skip("oracle data not available: set SOLVER_ORACLE_DATA (e.g. ../shared/data)")
    root = Path(value)
    if not root.is_dir():
        pytest.skip(f"oracle data not available: SOLVER_ORACLE_DATA={value} is not a directory")
    return root


@pytest.fixture(scope="session")
def oracle_data(oracle_root):
    """A function mapping a sub-path of the oracle data to a Path, skipping if it is missing."""

    def resolve(sub_path: str) -> Path:
        path = oracle_root / sub_path
        if not path.exists():
            pytest.skip(f"oracle file missing: {path}")
        return path

    return resolve
