"""Distributed table builds (retrograde.distributed, `solver build --scheduler`) on dask clusters
of this machine: the same tables as a local build, dependencies first, one-line errors."""
from __future__ import annotations

import io
import json
import logging
import os
import re
import socket
import subprocess
import sys

import h5py
import numpy as np
import pytest

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install -e '.[test]')")

from databases import format as F  # noqa: E402
from databases.families import get_family  # noqa: E402
from databases.location import DTZ50, WDL50, table_path  # noqa: E402
from databases.reader import TableFile  # noqa: E402
from retrograde import distributed as dist  # noqa: E402
from retrograde.build import build_dtz50_tables, build_tables, pack_wdl50_tables  # noqa: E402
from retrograde.tables import is_built, read_codes  # noqa: E402
from solver.cli import main  # noqa: E402

# KPvK and its dependencies KvK, KBvK, KNvK, KQvK, KRvK: four independent tables in the middle
CHESS_TABLES = ["KPvK"]
# attributes that legitimately differ between two builds of the same table
RUN_ATTRIBUTES = {"build_seconds", "built_at", "settings"}


@pytest.fixture(scope="module")
def scheduler():
    """The address of a two-worker LocalCluster shared by the tests of this module."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def chess_builds(scheduler, tmp_path_factory):
    """The same chess tables built locally and on the cluster: (local dir, local result,
    distributed dir, distributed result)."""
    here = tmp_path_factory.mktemp("chess-local")
    there = tmp_path_factory.mktemp("chess-distributed")
    local = build_tables("chess", CHESS_TABLES, here, show_progress=False, dtz50=False)
    remote = dist.build_tables_distributed("chess", CHESS_TABLES, there, scheduler=scheduler,
                                           workers=1, show_progress=False)
    return here, local, there, remote


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def table_attributes(root, game: str, table: str) -> dict:
    handle = TableFile(table_path(root, game, table), game, table)
    try:
        return {key: value for key, value in handle.attrs.items() if key not in RUN_ATTRIBUTES}
    finally:
        handle.close()


def assert_same_tables(game: str, tables: list[str], here, there) -> None:
    for table in tables:
        assert np.array_equal(read_codes(here, game, table), read_codes(there, game, table)), table
        mine, theirs = table_attributes(here, game, table), table_attributes(there, game, table)
        assert mine.keys() == theirs.keys()
        for key in mine:
            assert np.array_equal(mine[key], theirs[key]), (table, key)


def test_chess_tables_match_a_local_build(chess_builds):
    here, local, there, remote = chess_builds
    assert remote["built"] == local["built"] == ["KvK", "KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]
    assert remote["skipped"] == [] and remote["seconds"] > 0
    assert sorted(remote["tasks"]) == sorted(remote["built"])
    assert_same_tables("chess", remote["built"], here, there)


def test_tables_start_only_after_their_dependencies_finish(chess_builds):
    _, _, _, remote = chess_builds
    family = get_family("chess")
    tasks = remote["tasks"]
    for table, task in tasks.items():
        for dependency in dist.prerequisites(family, table):
            assert task["started"] >= tasks[dependency]["finished"], (table, dependency)
    assert dist.prerequisites(family, "KPvK") == {"KvK", "KBvK", "KNvK", "KQvK", "KRvK"}


def test_built_tables_are_skipped_and_force_rebuilds_only_the_requested(chess_builds, scheduler):
    _, _, there, remote = chess_builds
    again = dist.build_tables_distributed("chess", CHESS_TABLES, there, scheduler=scheduler,
                                          show_progress=False)
    assert again["built"] == [] and again["skipped"] == remote["built"] and again["tasks"] == {}
    before = {t: table_path(there, "chess", t).stat().st_mtime_ns for t in remote["built"]}
    forced = dist.build_tables_distributed("chess", ["KQvK"], there, scheduler=scheduler,
                                           force=True, show_progress=False)
    assert forced["built"] == ["KQvK"] and forced["skipped"] == ["KvK"]
    after = {t: table_path(there, "chess", t).stat().st_mtime_ns for t in remote["built"]}
    assert [t for t in before if before[t] != after[t]] == ["KQvK"]


def test_dtz50_tables_build_on_the_cluster_like_a_local_build(chess_builds, scheduler):
    """Each DTZ50 table is a task that starts once its dependencies' DTZ50 tables are done;
    the codes are a local build's, and a second run finds nothing to do."""
    here, _, there, remote = chess_builds
    local = build_dtz50_tables(get_family("chess"), CHESS_TABLES, here, show_progress=False)
    on_cluster = dist.build_dtz50_distributed("chess", CHESS_TABLES, there, scheduler=scheduler,
                                              workers=1, show_progress=False)
    assert on_cluster["dtz50_built"] == local == ["KvK", "KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]
    for table in local:
        assert np.array_equal(read_codes(here, "chess", table, metric=DTZ50),
                              read_codes(there, "chess", table, metric=DTZ50)), table
    tasks, family = on_cluster["tasks"], get_family("chess")
    for table, task in tasks.items():
        for dependency in dist.prerequisites(family, table):
            assert task["started"] >= tasks[dependency]["finished"], (table, dependency)
    again = dist.build_dtz50_distributed("chess", CHESS_TABLES, there, scheduler=scheduler,
                                         show_progress=False)
    assert again == {"dtz50_built": [], "packed": [], "tasks": {}}


def test_packs_are_made_on_the_cluster_like_a_local_build(chess_builds, scheduler):
    """After the DTZ50 tables (the test above), the packs: the same bytes as a local build's."""
    here, _, there, _ = chess_builds
    local = pack_wdl50_tables(get_family("chess"), CHESS_TABLES, here, show_progress=False)
    on_cluster = dist.pack_wdl50_distributed("chess", CHESS_TABLES, there, scheduler=scheduler,
                                             show_progress=False)
    assert on_cluster["packed"] == local == ["KvK", "KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]
    for table in local:
        with h5py.File(table_path(here, "chess", table, WDL50)) as mine, \
                h5py.File(table_path(there, "chess", table, WDL50)) as theirs:
            assert np.array_equal(mine["stream"][()], theirs["stream"][()]), table
    assert dist.pack_wdl50_distributed("chess", CHESS_TABLES, there, scheduler=scheduler,
                                       show_progress=False) == {"packed": [], "tasks": {}}


def test_a_pawn_table_is_packed_by_its_dtz50_task(chess_builds, scheduler, tmp_path):
    """With ``pack``, KPvK's DTZ50 task packs it from the bytes its generator made (no second
    reading of its children); the pack phase then finds it current and packs the others."""
    import shutil

    from retrograde.pack import pack_is_current

    here, _, _, _ = chess_builds
    (tmp_path / "chess").mkdir()
    for rule_free in (here / "chess").glob("*.h5"):  # the rule-free tables alone
        shutil.copy(rule_free, tmp_path / "chess")
    built = dist.build_dtz50_distributed("chess", CHESS_TABLES, tmp_path, scheduler=scheduler,
                                         show_progress=False, pack=True)
    assert built["packed"] == ["KPvK"] and pack_is_current(tmp_path, get_family("chess"), "KPvK")
    packs = dist.pack_wdl50_distributed("chess", CHESS_TABLES, tmp_path, scheduler=scheduler,
                                        show_progress=False)
    assert sorted(packs["packed"]) == sorted(set(built["dtz50_built"]) - {"KPvK"})


def test_cli_cluster_builds_the_dtz50_tables_and_packs_there(capsys, tmp_path, scheduler, monkeypatch):
    def not_here(*args, **kwargs):
        raise AssertionError("a DTZ50 table or pack made by the client, not on the cluster")

    # the workers are other processes: only the client's copies fail
    monkeypatch.setattr("retrograde.build.build_dtz50_one", not_here)
    monkeypatch.setattr("retrograde.build.pack_one", not_here)
    status, out, err = run(capsys, "build", "chess", "KQvK", "--db", str(tmp_path), "--json",
                           "--scheduler", scheduler)
    answer = json.loads(out)
    assert status == 0, err
    assert answer["built"] == answer["dtz50_built"] == answer["packed"] == ["KvK", "KQvK"]
    assert is_built(tmp_path, get_family("chess"), "KQvK")
    assert table_path(tmp_path, "chess", "KQvK", DTZ50).exists()
    assert table_path(tmp_path, "chess", "KQvK", WDL50).exists()


def test_cli_cluster_builds_in_a_local_builds_order(capsys, tmp_path, scheduler):
    """DTZ50 tables, then packs, then the rule-free tables (each from its own DTZ50 table):
    what the search and the server use comes first, as in a local build."""
    status, out, err = run(capsys, "build", "chess", "KQvK", "--db", str(tmp_path),
                           "--scheduler", scheduler)
    assert status == 0, err
    phases = [re.fullmatch(r"(tables|DTZ50 tables|WDL50 packs) \d/2: (KvK|KQvK) in \d+\.\d s", line)
              for line in err.splitlines()]
    assert all(phases), err
    assert [m[1] for m in phases] == ["DTZ50 tables"] * 2 + ["WDL50 packs"] * 2 + ["tables"] * 2
    here = tmp_path / "local"
    build_tables("chess", ["KQvK"], here, show_progress=False)
    assert_same_tables("chess", ["KvK", "KQvK"], here, tmp_path)


def test_cli_cluster_removes_leftovers_once_before_its_first_stage(capsys, tmp_path, scheduler):
    """Without the rule-free stage too (it used to be the one that cleaned)."""
    dtz50_folder = tmp_path / "chess" / DTZ50
    dtz50_folder.mkdir(parents=True)
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()  # a writer that is gone
    leftover = dtz50_folder / f".KQvK.h5.tmp-{process.pid}@{socket.gethostname()}"
    leftover.write_bytes(b"partial")
    status, out, err = run(capsys, "build", "chess", "KQvK", "--db", str(tmp_path), "--json",
                           "--metrics", "wdl50,dtz50", "--scheduler", scheduler)
    assert status == 0, err
    assert json.loads(out)["removed"] == [f"{DTZ50}/{leftover.name}"]
    assert err.count("removed 1 temporary file(s)") == 1 and not leftover.exists()


def test_dtz50_task_refuses_to_build_without_its_dependencies(tmp_path):
    build_tables("chess", ["KQvK"], tmp_path, show_progress=False, dtz50=False)
    with pytest.raises(dist.TableTaskError, match="building the DTZ50 table of KQvK failed.*DTZ50 table of KvK is missing.*every worker"):
        dist.build_dtz50_task("chess", "KQvK", str(tmp_path), 1, "zstd")
    assert not table_path(tmp_path, "chess", "KQvK", DTZ50).exists()


def test_cli_local_cluster_builds_tictactoe_like_a_local_build(capsys, tmp_path):
    here, there = tmp_path / "local", tmp_path / "distributed"
    status, out, err = run(capsys, "build", "tictactoe", "--db", str(here), "--json")
    assert status == 0
    status, out, err = run(capsys, "build", "tictactoe", "--db", str(there), "--json",
                           "--scheduler", "local:2")
    answer = json.loads(out)
    assert status == 0 and err == ""
    assert answer.keys() == {"built", "skipped", "seconds", "scheduler"}
    assert answer["built"] == ["all"] and answer["skipped"] == [] and answer["scheduler"] == "local:2"
    assert_same_tables("tictactoe", ["all"], here, there)


def test_cli_unreachable_scheduler_is_one_line_with_status_2(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(dist, "CONNECT_TIMEOUT", 2.0)
    status, out, err = run(capsys, "build", "tictactoe", "--db", str(tmp_path),
                           "--scheduler", "tcp://127.0.0.1:1")
    assert status == 2 and out == ""
    assert "cannot reach the scheduler at tcp://127.0.0.1:1" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not table_path(tmp_path, "tictactoe", "all").exists()


def test_cli_without_dask_says_how_to_install_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    status, out, err = run(capsys, "build", "tictactoe", "--db", str(tmp_path),
                           "--scheduler", "local")
    assert status == 2 and dist.INSTALL_HINT in err and err.count("\n") == 1


@pytest.mark.parametrize("spec", ["local:0", "local:two", "local:"])
def test_cli_malformed_local_scheduler(capsys, tmp_path, spec):
    status, _, err = run(capsys, "build", "tictactoe", "--db", str(tmp_path), "--scheduler", spec)
    assert status == 2 and "local:N" in err and err.count("\n") == 1


def damage_first_page(path) -> None:
    """Flip a byte inside the stored bytes of page 0 (an uncompressed table)."""
    with h5py.File(path, "r") as handle:
        chunk = handle[F.DATASET].id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    data[chunk.byte_offset + chunk.size // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_cli_failed_table_names_it_and_keeps_finished_tables(capsys, tmp_path, scheduler):
    # Directories sit where the workers would write KQvKR's temporary file (a directory where
    # the table itself goes is refused before anything is built): KQvKR's task fails writing
    # it, and leaves the directories alone, after KRvK (which KQvKR also needs) has finished
    build_tables("chess", ["KQvK"], tmp_path, show_progress=False, compression="none",
                 dtz50=False)
    final = table_path(tmp_path, "chess", "KQvKR")
    with distributed.Client(scheduler) as client:
        worker_pids = client.run(os.getpid).values()
    blockers = [final.with_name(f".{final.name}.tmp-{pid}@{socket.gethostname()}")
                for pid in worker_pids]
    for blocker in blockers:
        blocker.mkdir(parents=True)
    status, out, err = run(capsys, "build", "chess", "KQvKR", "--db", str(tmp_path),
                           "--scheduler", scheduler, "--workers", "1", "--metrics", "dtm")
    assert status == 2 and out == ""
    finished, error = err.splitlines()
    assert re.fullmatch(r"tables 1/2: KRvK in \d+\.\d s", finished), finished  # the log off a terminal
    assert "building KQvKR failed on worker tcp://" in error and "IsADirectoryError" in error
    assert "1 table(s) finished" in error and "Traceback" not in err
    family = get_family("chess")
    assert is_built(tmp_path, family, "KRvK")
    assert not final.exists() and all(blocker.is_dir() for blocker in blockers)
    assert sorted((tmp_path / "chess").glob(".*tmp*")) == sorted(blockers)


def test_cli_rebuilds_a_damaged_dependency(capsys, tmp_path, scheduler):
    # KQvK's header is fine but a page is damaged: it is rebuilt before KQvKR needs it
    build_tables("chess", ["KQvK"], tmp_path, show_progress=False, compression="none",
                 dtz50=False)
    damage_first_page(table_path(tmp_path, "chess", "KQvK"))
    status, out, err = run(capsys, "build", "chess", "KQvKR", "--db", str(tmp_path),
                           "--scheduler", scheduler, "--workers", "1", "--json")
    assert status == 0 and err.startswith("solver build: rebuilding KQvK: ")
    assert "page 0 is damaged" in err and err.count("\n") == 1
    assert json.loads(out)["built"] == ["KQvK", "KRvK", "KQvKR"]
    assert is_built(tmp_path, get_family("chess"), "KQvK")


def test_local_builds_do_not_import_dask(tmp_path):
    import subprocess

    script = ("import sys; from solver.cli import main; "
              f"main(['build', 'tictactoe', '--db', {str(tmp_path)!r}, '--json']); "
              "print('distributed' in sys.modules, 'dask' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False False"


def test_task_refuses_to_build_without_its_dependencies(tmp_path):
    with pytest.raises(dist.TableTaskError, match="KQvK failed.*KvK is missing.*every worker"):
        dist.build_table_task("chess", "KQvK", str(tmp_path), 1, "zstd")
    assert not table_path(tmp_path, "chess", "KQvK").exists()


def test_task_error_survives_pickling():
    import pickle

    error = pickle.loads(pickle.dumps(dist.TableTaskError("KQvKR", "tcp://w:1", "OSError: x")))
    assert str(error) == "building KQvKR failed on worker tcp://w:1: OSError: x"


@pytest.mark.parametrize("spec, expected", [
    ("local:3", ("local", 3)),
    ("tcp://10.0.0.1:8786", ("tcp://10.0.0.1:8786", None)),
    ("localhost:8786", ("localhost:8786", None)),
])
def test_parse_scheduler(spec, expected):
    assert dist.parse_scheduler(spec) == expected


def test_plain_local_uses_every_core():
    assert dist.parse_scheduler("local") == ("local", dist.available_cores())
    assert dist.default_threads("local:1") == dist.available_cores()
    assert dist.default_threads("tcp://h:1") is None


def test_progress_line_names_done_total_and_running_tables():
    stream = io.StringIO()
    progress = dist.BuildProgress(6, enabled=True, stream=stream)
    progress.show({"KvK": {}}, ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK"])
    assert stream.getvalue().endswith("tables 1/6 built; running or queued: KBvK KNvK KQvK KRvK ...")
    silent = io.StringIO()
    dist.BuildProgress(6, enabled=False, stream=silent).show({}, ["KvK"])
    assert silent.getvalue() == ""


def test_progress_off_a_terminal_is_a_line_per_finished_table():
    # a build logged to a file cannot show a rewritten line: it says which table finished
    stream = io.StringIO()
    progress = dist.BuildProgress(3, stream=stream, what="DTZ50 tables")
    progress.show({}, ["KvK"])
    progress.show({"KvK": {"seconds": 1.5}}, ["KQvK", "KRvK"])
    progress.show({"KvK": {"seconds": 1.5}, "KQvK": {"seconds": 10.0}}, ["KRvK"])
    assert stream.getvalue() == "DTZ50 tables 1/3: KvK in 1.5 s\nDTZ50 tables 2/3: KQvK in 10.0 s\n"


def test_a_cluster_build_shares_the_time_left_among_its_workers():
    stream = io.StringIO()
    progress = dist.BuildProgress(5, stream=stream, what="DTZ50 tables", workers=2,
                                  work={"KvK": 0, "KQvK": 0, "KRvK": 0, "KBvK": 0, "KNvK": 0})
    done = {}
    for table, worker, seconds in (("KvK", "a", 200.0), ("KQvK", "b", 150.0),
                                   ("KRvK", "a", 60.0), ("KBvK", "b", 120.0)):
        done[table] = {"seconds": seconds, "worker": worker}
        progress.show(done, [])
    assert stream.getvalue().splitlines() == [  # each worker's first table (its kernels) not counted
        "DTZ50 tables 1/5: KvK in 200.0 s",
        "DTZ50 tables 2/5: KQvK in 150.0 s",
        "DTZ50 tables 3/5: KRvK in 60.0 s, about 60 s left in this stage",  # 2 x 60 / 2
        "DTZ50 tables 4/5: KBvK in 120.0 s, about 45 s left in this stage"]  # 1 x 90 / 2


def test_a_build_logged_to_a_file_names_each_table_as_it_finishes(capsys, tmp_path):
    status, out, err = run(capsys, "build", "chess", "KQvK", "--db", str(tmp_path))
    assert status == 0, err
    phases = [re.fullmatch(r"(tables|DTZ50 tables|WDL50 packs) (\d)/2: (KvK|KQvK) in \d+\.\d s"
                          r"(, about \d+ s left in this stage)?", line)
              for line in err.splitlines()]
    assert all(phases), err
    assert [(m[1], m[2], m[3]) for m in phases] == [
        (phase, str(n), table) for phase in ("DTZ50 tables", "WDL50 packs", "tables")
        for n, table in ((1, "KvK"), (2, "KQvK"))]  # what the search uses first
    status, out, err = run(capsys, "build", "chess", "KQvK", "--db", str(tmp_path), "--json")
    assert status == 0 and err == ""  # --json keeps stderr for errors
