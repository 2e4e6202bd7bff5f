"""The compile notice's lines and the kernel counts it keeps (issue 74: a long first compile
says so, with progress). A real cold run: tests/test_startup_cache.py."""
from __future__ import annotations

import json

from runtime.compile_notice import (FIRST_LINE, PROGRESS, first_line, progress_line, read_counts,
                                    remember_count)


def test_with_a_count_a_line_at_each_quarter_short_of_the_end():
    lines = [progress_line(done, 8) for done in range(1, 12)]
    assert [line for line in lines if line] == [f"{PROGRESS}2/8", f"{PROGRESS}4/8",
                                                f"{PROGRESS}6/8"]
    # fewer kernels than quarters: no quarter is skipped twice, none said twice
    said = [progress_line(done, 3) for done in range(1, 5)]
    assert [line for line in said if line] == [f"{PROGRESS}1/3", f"{PROGRESS}2/3"]


def test_without_a_count_a_line_every_fifty_kernels():
    said = [progress_line(done, None) for done in range(1, 121)]
    assert [line for line in said if line] == [f"{PROGRESS}50 so far", f"{PROGRESS}100 so far"]


def test_the_first_line_gives_the_count_when_known():
    assert first_line(None) == FIRST_LINE
    assert first_line(124) == f"{FIRST_LINE}: about 124 kernels"


def test_counts_are_kept_per_command_and_bad_files_read_as_none(tmp_path):
    path = str(tmp_path / "compile-counts.json")
    assert read_counts(path) == {}
    remember_count(path, "search chess", 120)
    remember_count(path, "perft tictactoe", 9)
    remember_count(path, "search chess", 118)
    assert read_counts(path) == {"search chess": 118, "perft tictactoe": 9}
    assert [p.name for p in tmp_path.iterdir()] == ["compile-counts.json"]  # no temporary left
    for damaged in ("{", "[1, 2]", json.dumps({"a": "x", "b": -1, "c": True, "d": 3})):
        (tmp_path / "compile-counts.json").write_text(damaged)
        assert read_counts(path) == ({"d": 3} if "d" in damaged else {})


def test_an_unwritable_place_keeps_nothing_and_raises_nothing(tmp_path):
    remember_count(str(tmp_path / "missing" / "compile-counts.json"), "search chess", 5)
    assert not (tmp_path / "missing").exists()
