"""The build's progress display: which table of the stage is under way and the time it has left."""
import io

import pytest

from retrograde.progress import FIXED_WORK, Progress, StageClock, TableLog, duration_text


class FakeTime:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("seconds, text", [(0.2, "1 s"), (40, "40 s"), (89.4, "89 s"),
                                           (720, "12 min"), (5340, "89 min"),
                                           (3900 + 1800, "1 h 35 min"), (7260, "2 h 01 min")])
def test_durations_read_as_a_person_says_them(seconds, text):
    assert duration_text(seconds) == text


def test_the_estimate_weighs_the_tables_left_by_their_entries():
    time = FakeTime()
    big = 10 * FIXED_WORK
    clock = StageClock({"KvK": 0, "KQvK": FIXED_WORK, "KQvKR": big - FIXED_WORK}, now=time)
    clock.start("KvK")
    assert clock.seconds_left() is None
    clock.finish("KvK", 300.0)  # the kernels compiled: not a rate
    assert clock.seconds_left() is None
    clock.start("KQvK")
    clock.finish("KQvK", 2.0)  # 2 s for twice FIXED_WORK
    assert clock.seconds_left() == pytest.approx(10.0)  # the big table: ten FIXED_WORKs
    clock.start("KQvKR")
    time.now = 4.0
    assert clock.seconds_left() == pytest.approx(6.0)  # less what it has had
    time.now = 30.0
    assert clock.seconds_left() == 0.0  # longer than its share: nothing after it
    clock.finish("KQvKR", 30.0)
    assert clock.seconds_left() == 0.0


def test_a_log_off_a_terminal_gives_the_time_left_in_its_stage():
    stream = io.StringIO()
    time = FakeTime()
    log = TableLog(3, "DTZ50 tables", enabled=True, stream=stream,
                   clock=StageClock({"KvK": 0, "KQvK": 0, "KRvK": 0}, now=time))
    for table, seconds in (("KvK", 90.0), ("KQvK", 120.0), ("KRvK", 118.0)):
        log.clock.start(table)
        time.now += seconds
        log.finished(table, seconds)
    assert stream.getvalue().splitlines() == [
        "DTZ50 tables 1/3: KvK in 90.0 s",
        "DTZ50 tables 2/3: KQvK in 120.0 s, about 2 min left in this stage",
        "DTZ50 tables 3/3: KRvK in 118.0 s"]


def test_the_progress_line_names_the_stage_and_its_table():
    stream = io.StringIO()
    log = TableLog(4, "tables", enabled=False, clock=StageClock({"KvK": 0, "KQvK": 0}))
    with log.timing("KvK"):
        pass
    progress = Progress("chess KQvK", enabled=True, stream=stream, stage=log)
    progress.update("initialise", 1, 2, 10)
    assert "[tables 2/4] chess KQvK: initialise  50.0%" in stream.getvalue()
    silent = TableLog(2, "tables", enabled=False)  # no clock: no estimate
    assert silent.status() == "tables 1/2"


def test_no_estimate_once_the_last_table_outlasts_its_share():
    time = FakeTime()
    log = TableLog(3, "tables", enabled=False, clock=StageClock({"KvK": 0, "KQvK": 0, "KRvK": 0},
                                                                now=time))
    for table in ("KvK", "KQvK"):
        log.clock.start(table)
        time.now += 10.0
        log.finished(table, 10.0)
    log.clock.start("KRvK")
    assert log.status() == "tables 3/3, about 10 s left in this stage"
    time.now += 60.0
    assert log.status() == "tables 3/3"  # not "about 1 s left" for a minute
