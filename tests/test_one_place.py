"""One place for each concept: the value-code arithmetic lives in games/value_codes.py and the
chess move encoding in games/chess/moves.py; no other source file spells out their formulas."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
PACKAGES = ("runtime", "games", "databases", "retrograde", "proofsearch", "solver")

VALUE_CODE_FORMULAS = [
    r"-\s*2\)\s*>>\s*1",  # (code - 2) >> 1: a code's distance
    r"\b3\s*\+\s*2\s*\*",  # 3 + 2 * d: a win's code
    r"\b2\s*\+\s*2\s*\*",  # 2 + 2 * d: a loss's code
]
MOVE_FORMULAS = [
    r"\bmove\s*&\s*63\b",  # the origin square
    r"\bmove\s*>>\s*6\)\s*&\s*63\b",  # the target square
    r"\bmove\s*>>\s*12\b(?!\)\s*&\s*7)",  # the promotion ((move >> 12) & 7 is an un-move record's capture)
    r"\bmoves?\b.*<<\s*6\b",  # building a move from its squares
]


def sources(excluded: set[str]):
    for package in PACKAGES:
        for path in sorted((REPOSITORY / package).rglob("*.py")):
            relative = path.relative_to(REPOSITORY).as_posix()
            if relative not in excluded:
                yield relative, path.read_text()


def offending_lines(patterns, excluded):
    found = []
    for relative, text in sources(excluded):
        for number, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            if any(re.search(pattern, code) for pattern in patterns):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_value_code_arithmetic_is_written_once():
    assert offending_lines(VALUE_CODE_FORMULAS, {"games/value_codes.py"}) == []


def test_chess_moves_are_encoded_and_decoded_in_one_module():
    # The retrograde builder's un-move records (games/chess/retrograde_kernels.py) are an
    # encoding of their own.
    excluded = {"games/chess/moves.py", "games/chess/retrograde_kernels.py"}
    assert offending_lines(MOVE_FORMULAS, excluded) == []


@pytest.mark.parametrize("pattern", VALUE_CODE_FORMULAS + MOVE_FORMULAS)
def test_each_guard_matches_the_formula_it_stands_for(pattern):
    # A guard that matches nothing would pass whatever the sources say.
    samples = ["distance = (code - 2) >> 1", "codes[g] = 3 + 2 * d", "lost = 2 + 2 * (d - 1)",
               "origin = move & 63", "to = (move >> 6) & 63", "promotion = move >> 12",
               "moves[n] = origin | (to << 6)", "move = (to - offset) | (to << 6)"]
    assert any(re.search(pattern, sample) for sample in samples)


def test_the_install_alone_puts_the_packages_on_the_path():
    # scripts/ reach the packages through `pip install -e .` (scripts/common.py says so); a
    # script that edits sys.path hides a broken install and runs another checkout's code.
    editing = [f"scripts/{path.name}:{number}"
               for path in sorted((REPOSITORY / "scripts").glob("*.py"))
               for number, line in enumerate(path.read_text().splitlines(), 1)
               if re.search(r"sys\.path\.(insert|append)|sys\.path\s*[+]?=", line.split("#", 1)[0])]
    assert editing == []
