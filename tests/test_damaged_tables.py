"""Damaged, truncated and foreign table files: every one is refused with a DatabaseError naming
the file (never a wrong answer or a traceback), spoils only its own table, is reported by
`verify` (exit status 1, every table checked) and rebuilt by `build`.

Damage is made by flipping bits in copies of small tables built here (the header, the page
index, a data page), truncating them, or rewriting an attribute.
"""
from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

from databases import (DamagedPageError, DamagedTableError, FormatError, UnusableTableError,
                       open_database)
from databases import format as F
from databases.families import get_family
from databases.location import table_path
from databases.reader import TableFile
from retrograde.build import build_tables
from retrograde.tables import MISSING, OLD_INDEX, read_codes, table_problem

KQVK_FEN = "8/8/3k4/8/8/8/8/K1Q5 w - - 0 1"  # White mates in 9 (17 plies)
KRVK_FEN = "k7/8/2K5/8/8/8/8/7R w - - 0 1"  # White mates in 2 (Kb6 Kb8 Rh8#)
KVK_FEN = "8/8/3k4/8/8/8/8/K7 w - - 0 1"


# --- helpers --------------------------------------------------------------------------------
def solver(*argv: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run the `solver` command (the installed script, else ``python -m solver``)."""
    command = [shutil.which("solver")] if shutil.which("solver") else [sys.executable, "-m", "solver"]
    env = {key: value for key, value in os.environ.items() if key != "SOLVER_DEBUG"}
    return subprocess.run(command + list(argv), capture_output=True, text=True, timeout=timeout,
                          env=env)


def assert_one_line_error(run: subprocess.CompletedProcess, status: int, *words: str) -> None:
    """Exit ``status``, one line on stderr containing ``words``, no traceback."""
    assert run.returncode == status, (run.returncode, run.stdout, run.stderr)
    assert run.stderr.count("\n") == 1, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    for word in words:
        assert word in run.stderr, (word, run.stderr)


def flip(path, offset: int, bit: int = 0) -> None:
    """Flip one bit of the file at ``offset``."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def page_offset(path, page: int) -> int:
    """Where the stored bytes of ``page`` start in the file."""
    with h5py.File(path, "r") as handle:
        return handle[F.DATASET].id.get_chunk_info(page).byte_offset


def copy_db(source, destination, game: str):
    """A private copy of a database directory's ``game`` tables."""
    shutil.copytree(source / game, destination / game)
    return destination


def header_offsets_that_break(path, game: str, table: str, step: int = 5) -> list[int]:
    """Offsets (every ``step``-th) before the first page where one flipped bit makes the file
    unusable."""
    original = path.read_bytes()
    broken = []
    for offset in range(0, page_offset(path, 0), step):
        path.write_bytes(original[:offset] + bytes([original[offset] ^ 1]) + original[offset + 1:])
        try:
            TableFile(path, game, table).close()
        except UnusableTableError:
            broken.append(offset)
    path.write_bytes(original)
    return broken


# --- fixtures: small tables built once ---------------------------------------------------------
def built(tmp_path_factory, game: str, tables=None):
    """A new database directory with ``tables`` of ``game`` (default: all) built."""
    root = tmp_path_factory.mktemp(f"{game}-db")
    build_tables(game, tables, root, show_progress=False)
    return root


@pytest.fixture(scope="module")
def tictactoe_db(tmp_path_factory):
    return built(tmp_path_factory, "tictactoe")


@pytest.fixture(scope="module")
def chess_db(tmp_path_factory):
    return built(tmp_path_factory, "chess", ["KQvK", "KRvK"])


@pytest.fixture(scope="module")
def header_damage(tictactoe_db, tmp_path_factory):
    """Three header offsets (first, middle, last found) whose flip breaks the tic-tac-toe table."""
    scratch = copy_db(tictactoe_db, tmp_path_factory.mktemp("scan"), "tictactoe")
    broken = header_offsets_that_break(table_path(scratch, "tictactoe", "all"), "tictactoe", "all")
    assert len(broken) > 10
    return [broken[0], broken[len(broken) // 2], broken[-1]]


# --- the reader ---------------------------------------------------------------------------
def test_a_flipped_header_bit_is_a_database_error_naming_the_file(tictactoe_db, header_damage,
                                                                  tmp_path):
    for offset in header_damage:
        root = tmp_path / str(offset)
        copy_db(tictactoe_db, root, "tictactoe")
        path = table_path(root, "tictactoe", "all")
        flip(path, offset)
        with open_database(root, "tictactoe") as db:
            with pytest.raises(UnusableTableError, match=str(path)):
                db.probe("startpos")
            with pytest.raises(UnusableTableError):  # remembered, and raised again
                db.probe(".........")
            assert "all" in db.unusable_tables()


def test_a_damaged_table_spoils_only_itself(chess_db, tmp_path):
    root = copy_db(chess_db, tmp_path, "chess")
    path = table_path(root, "chess", "KRvK")
    with open_database(root, "chess") as db:
        page = db.locate(KRVK_FEN)[1] >> F.PAGE_SHIFT
    flip(path, page_offset(path, page) + 40)
    with open_database(root, "chess") as db:
        assert db.probe(KQVK_FEN).dtm == 17
        with pytest.raises(DamagedPageError, match=f"KRvK.h5: page {page} is damaged"):
            db.probe(KRVK_FEN)
        assert db.probe(KQVK_FEN).wdl == 1
        assert db.probe(KVK_FEN).wdl == 0


def test_a_damaged_page_is_named_when_a_whole_table_is_read(chess_db, tmp_path):
    # Reading many pages at once decodes them here (databases/chunks.py), not through HDF5.
    root = copy_db(chess_db, tmp_path, "chess")
    path = table_path(root, "chess", "KRvK")
    assert TableFile(path, "chess", "KRvK").pages > 3
    flip(path, page_offset(path, 3) + 40)
    with pytest.raises(DamagedPageError, match="KRvK.h5: page 3 is damaged"):
        read_codes(root, "chess", "KRvK")


def test_page_checksums_catch_a_page_found_under_another_number(tictactoe_db, tmp_path):
    """Fletcher-32 covers a page's stored bytes only: the page checksum, seeded with the page
    number, also catches a page index pointing at the wrong (intact) page."""
    root = copy_db(tictactoe_db, tmp_path, "tictactoe")
    path = table_path(root, "tictactoe", "all")
    with h5py.File(path, "r+") as handle:  # swap in page 1's checksum for page 0's
        checksums = handle[F.CHECKSUMS][...]
        handle[F.CHECKSUMS][0] = checksums[1]
        handle.attrs["content_crc32"] = F.content_checksum(handle[F.CHECKSUMS][...])
    with open_database(root, "tictactoe") as db, pytest.raises(DamagedPageError, match="page 0"):
        db.probe("startpos")


def test_another_index_version_is_refused(tictactoe_db, tmp_path):
    root = copy_db(tictactoe_db, tmp_path, "tictactoe")
    path = table_path(root, "tictactoe", "all")
    with h5py.File(path, "r+") as handle:
        handle.attrs["index_version"] = 2
    with open_database(root, "tictactoe") as db:
        with pytest.raises(FormatError, match="indexed by tictactoe-base3 version 2"):
            db.probe("startpos")
    with h5py.File(path, "r+") as handle:
        handle.attrs["index_version"] = 1
        handle.attrs["index_scheme"] = "tictactoe-other"
    with pytest.raises(FormatError, match="tictactoe-other"):
        read_codes(root, "tictactoe", "all")


def test_tables_of_an_older_index_are_rebuilt_with_one_line(tictactoe_db, tmp_path):
    root = copy_db(tictactoe_db, tmp_path, "tictactoe")
    path = table_path(root, "tictactoe", "all")
    with h5py.File(path, "r+") as handle:
        handle.attrs["index_version"] = 0
    assert table_problem(root, get_family("tictactoe"), "all") == OLD_INDEX
    lines = []
    result = build_tables("tictactoe", root=root, show_progress=False, notify=lines.append)
    assert result["built"] == ["all"] and lines == [
        "rebuilding 1 table built with an older index (this version indexes its tables "
        "differently): all"]
    assert table_problem(root, get_family("tictactoe"), "all") is None


def as_version_1(path) -> None:
    """Make a table file what format version 1 wrote: no page checksums."""
    with h5py.File(path, "r+") as handle:
        del handle[F.CHECKSUMS]
        handle.attrs["format_version"] = 1
        del handle.attrs["content_crc32"]


def test_a_version_1_file_without_page_checksums_still_reads(tictactoe_db, tmp_path):
    root = copy_db(tictactoe_db, tmp_path, "tictactoe")
    path = table_path(root, "tictactoe", "all")
    expected = read_codes(tictactoe_db, "tictactoe", "all")
    with h5py.File(path, "r+") as handle:
        del handle[F.CHECKSUMS]
    with pytest.raises(DamagedTableError, match="no page_crc32 dataset"):
        TableFile(path, "tictactoe", "all")
    copy_db(tictactoe_db, tmp_path / "v1", "tictactoe")
    root, path = tmp_path / "v1", table_path(tmp_path / "v1", "tictactoe", "all")
    as_version_1(path)
    assert np.array_equal(read_codes(root, "tictactoe", "all"), expected)
    assert table_problem(root, get_family("tictactoe"), "all") is None


def test_a_truncated_file_is_refused_and_rebuilt(tictactoe_db, tmp_path):
    root = copy_db(tictactoe_db, tmp_path, "tictactoe")
    path = table_path(root, "tictactoe", "all")
    data = path.read_bytes()
    for length in (0, 100, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:length])
        with open_database(root, "tictactoe") as db, pytest.raises(DamagedTableError):
            db.probe("startpos")
        assert table_problem(root, get_family("tictactoe"), "all") not in (None, MISSING)
    result = build_tables("tictactoe", root=root, show_progress=False)
    assert result["built"] == ["all"] and "all" in result["rebuilt"]
    assert np.array_equal(read_codes(root, "tictactoe", "all"),
                          read_codes(tictactoe_db, "tictactoe", "all"))


def damage_trial(root, game: str, table: str, expected: np.ndarray) -> str:
    """How a (possibly damaged) table reads back: same, refused, WRONG or an exception."""
    try:
        with open_database(root, game, cache_bytes=1 << 20) as db:
            codes = db.probe_codes(table, np.arange(expected.size))
    except UnusableTableError:
        return "refused"
    except Exception as error:  # anything else is a bug
        return f"exception {type(error).__name__}: {error}"
    return "same" if np.array_equal(codes, expected) else "WRONG"


@pytest.mark.parametrize("game, table, version", [("tictactoe", "all", 2), ("chess", "KQvK", 2),
                                                 ("tictactoe", "all", 1)])
def test_systematic_bit_flips_and_truncations_never_give_a_wrong_answer(
        request, tmp_path, game, table, version):
    """One bit flipped at 240 evenly spaced offsets, and 40 truncations: each copy either
    reads back exactly or is refused, and `build` trusts exactly the copies that read back.
    Also for a version 1 file (Fletcher-32 but no page checksums: the page index is checked
    on opening, and an all-zero page must be in it)."""
    source_root = request.getfixturevalue("tictactoe_db" if game == "tictactoe" else "chess_db")
    expected = read_codes(source_root, game, table)
    if version == 1:
        source_root = copy_db(source_root, tmp_path / "v1", game)
        as_version_1(table_path(source_root, game, table))
    original = table_path(source_root, game, table).read_bytes()
    target = table_path(tmp_path, game, table)
    target.parent.mkdir(parents=True)
    family = get_family(game)
    outcomes = collections.Counter()
    offsets = np.linspace(0, len(original) - 1, 240).astype(int)
    lengths = np.linspace(0, len(original) - 1, 40).astype(int)
    damaged = [original[:o] + bytes([original[o] ^ (1 << (o % 8))]) + original[o + 1:]
               for o in offsets] + [original[:n] for n in lengths]
    for data in damaged:
        target.write_bytes(data)
        outcome = damage_trial(tmp_path, game, table, expected)
        outcomes[outcome] += 1
        trusted = table_problem(tmp_path, family, table) is None
        assert trusted == (outcome == "same"), outcome
    assert set(outcomes) <= {"same", "refused"}, outcomes
    assert outcomes["refused"] >= 40 + len(offsets) // 4, outcomes


# --- the command line -----------------------------------------------------------------------
def test_cli_probe_verify_build_with_a_damaged_header(tictactoe_db, header_damage, tmp_path):
    for offset in header_damage:
        root = tmp_path / str(offset)
        copy_db(tictactoe_db, root, "tictactoe")
        path = table_path(root, "tictactoe", "all")
        flip(path, offset)
        assert_one_line_error(solver("probe", "tictactoe", "startpos", "--db", str(root)), 1,
                              str(path))
        verify = solver("verify", "tictactoe", "--db", str(root), "--json")
        assert_one_line_error(verify, 1, str(path))
        assert "all" in json.loads(verify.stdout)["unusable"]
        build = solver("build", "tictactoe", "--db", str(root), "--json")
        assert build.returncode == 0 and build.stderr.count("\n") == 1, build.stderr
        assert build.stderr.startswith("solver build: rebuilding all: ") and str(path) in build.stderr
        assert json.loads(build.stdout)["built"] == ["all"] and "all" in json.loads(build.stdout)["rebuilt"]
        assert json.loads(solver("probe", "tictactoe", "startpos", "--db", str(root),
                                 "--json").stdout)["value"] == "draw"


def test_cli_build_rebuilds_a_damaged_page_and_verify_reports_every_table(chess_db, tmp_path):
    root = copy_db(chess_db, tmp_path, "chess")
    krvk, kqvk = table_path(root, "chess", "KRvK"), table_path(root, "chess", "KQvK")
    flip(krvk, page_offset(krvk, 1) + 7, 3)
    flip(kqvk, 8)  # the superblock
    verify = solver("verify", "chess", "--db", str(root), "--json")
    assert verify.returncode == 1 and "Traceback" not in verify.stderr
    lines = verify.stderr.splitlines()
    assert len(lines) == 2 and "KQvK.h5" in lines[0] and "KRvK.h5: page 1 is damaged" in lines[1]
    report = json.loads(verify.stdout)
    assert report["per_table"] == {"KvK": 0, "KvK DTZ50": 0, "KvK WDL50 pack": 0}  # not the others
    assert set(report["unusable"]) == {"KQvK", "KRvK"}
    build = solver("build", "chess", "KQvK", "KRvK", "--db", str(root), "--json")
    assert build.returncode == 0, build.stderr
    assert json.loads(build.stdout)["built"] == ["KQvK", "KRvK"]
    assert json.loads(build.stdout)["skipped"] == ["KvK"]
    assert [line.split(":")[0] for line in build.stderr.splitlines()] == ["solver build"] * 2
    verify = solver("verify", "chess", "--db", str(root), "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["errors"] == 0


def test_cli_probe_other_tables_keep_answering(chess_db, tmp_path):
    root = copy_db(chess_db, tmp_path, "chess")
    krvk = table_path(root, "chess", "KRvK")
    flip(krvk, 8)
    answer = solver("probe", "chess", KQVK_FEN, "--db", str(root), "--json")
    assert answer.returncode == 0 and json.loads(answer.stdout)["dtm"] == 17
    assert_one_line_error(solver("probe", "chess", KRVK_FEN, "--db", str(root)), 1, str(krvk))


def test_cli_prove_with_a_damaged_table_uses_the_others(chess_db, tmp_path):
    root = copy_db(chess_db, tmp_path, "chess")
    krvk = table_path(root, "chess", "KRvK")
    flip(krvk, 8)
    for fen in (KQVK_FEN, KRVK_FEN):  # KRvK's positions are searched instead
        run = solver("prove", "chess", fen, "--db", str(root), "--max-nodes", "2000000",
                     "--json")
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["result"] == "proven"
        assert run.stderr.count("\n") == 1 and "warning" in run.stderr and str(krvk) in run.stderr


def damage_every_page(path, table: str) -> None:
    """Flip a bit in every page of a chess table (its header stays intact)."""
    for page in range(-(-get_family("chess").size(table) // F.PAGE_ENTRIES)):
        flip(path, page_offset(path, page) + 11)


def test_prover_leaves_drop_a_table_whose_page_fails(chess_db, tmp_path):
    from databases.leaves import DatabaseLeaves

    root = copy_db(chess_db, tmp_path, "chess")
    damage_every_page(table_path(root, "chess", "KRvK"), "KRvK")
    warnings = []
    leaves = DatabaseLeaves(get_family("chess").game, root, warn=warnings.append)
    assert leaves.tables == 3  # the header is fine: the damage shows when a page is read
    game = leaves.database.game
    assert leaves.value(game.parse_position(KRVK_FEN)) is None and leaves.tables == 2
    assert len(warnings) == 1 and "KRvK.h5: page" in warnings[0]
    assert leaves.value(game.parse_position(KQVK_FEN)) == (1, 17)
    assert len(warnings) == 1
    leaves.close()


def test_proof_search_goes_on_when_a_page_fails_mid_search(chess_db, tmp_path):
    from databases.leaves import DatabaseLeaves
    from proofsearch.dfpn import DfpnSearch

    root = copy_db(chess_db, tmp_path, "chess")
    damage_every_page(table_path(root, "chess", "KRvK"), "KRvK")
    warnings = []
    leaves = DatabaseLeaves(get_family("chess").game, root, warn=warnings.append)
    game = leaves.database.game
    position = game.parse_position(KRVK_FEN)
    found = DfpnSearch(game, database=leaves).prove(position, "win", max_nodes=2_000_000)
    assert found.result == "proven"
    assert leaves.unusable.keys() == {"KRvK"} and len(warnings) == 1
    leaves.close()


# --- one policy everywhere (issue 37, item 3): a damaged table is said once and left out -----

def test_cli_search_with_damaged_pages_warns_once_and_plays_on(chess_db, tmp_path):
    root = copy_db(chess_db, tmp_path, "chess")
    krvk = table_path(root, "chess", "KRvK")
    damage_every_page(krvk, "KRvK")
    run = solver("search", "chess", KRVK_FEN, "--db", str(root), "--depth", "4", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["best"]
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and "warning" in lines[0] and str(krvk) in lines[0], run.stderr


@pytest.mark.parametrize("command", [["search", "--depth", "2"], ["prove", "--max-nodes", "1000"]])
def test_cli_a_directory_of_foreign_tables_is_one_warning_then_work_without(chess_db, tmp_path,
                                                                            command):
    foreign = tmp_path / "chess"
    foreign.mkdir()
    with h5py.File(foreign / "KQvK.h5", "w") as handle:
        handle.attrs["hello"] = 1  # an HDF5 file, not a table
    run = solver(command[0], "chess", KQVK_FEN, "--db", str(tmp_path), *command[1:], "--json")
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and "warning" in lines[0] and "KQvK.h5" in lines[0], run.stderr


def test_cli_check_proof_cannot_check_through_a_damaged_table(chess_db, tmp_path):
    root = copy_db(chess_db, tmp_path, "chess")
    proof = tmp_path / "p.json"
    made = solver("prove", "chess", KRVK_FEN, "--db", str(root), "--proof", str(proof))
    assert made.returncode == 0, made.stderr
    assert solver("check-proof", "chess", str(proof), "--db", str(root)).returncode == 0
    krvk = table_path(root, "chess", "KRvK")
    damage_every_page(krvk, "KRvK")
    run = solver("check-proof", "chess", str(proof), "--db", str(root), "--json")
    assert run.returncode == 1 and run.stdout == "" and "INVALID" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and str(krvk) in lines[0], run.stderr


def test_cli_a_directory_in_a_table_files_place_is_one_line(tmp_path):
    (tmp_path / "tictactoe" / "all.h5").mkdir(parents=True)
    assert_one_line_error(solver("probe", "tictactoe", "startpos", "--db", str(tmp_path)), 1,
                          "all.h5: a directory where a table file should be")


@pytest.mark.parametrize("place", ["KQvK.h5", "dtz50/KQvK.h5", "wdl50/KQvK.h5"])
def test_build_with_a_directory_in_a_table_files_place_is_one_line(tmp_path, place):
    """A directory where a table's file (rule-free, DTZ50 or pack) should be is the user's:
    the build says so in one line before building anything, and leaves it."""
    (tmp_path / "chess" / place).mkdir(parents=True)
    run = solver("build", "chess", "KQvK", "--db", str(tmp_path))
    assert_one_line_error(run, 1, "a directory where a table file should be", f"chess/{place}")
    assert (tmp_path / "chess" / place).is_dir()
    assert not (tmp_path / "chess" / "KvK.h5").exists()  # nothing built
