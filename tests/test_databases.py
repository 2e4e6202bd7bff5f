"""The paged HDF5 store: codes, atomic writing, validation, page cache and probes."""
from __future__ import annotations

from pathlib import Path

import numba as nb
import numpy as np
import pytest
from numba import types

from databases import (DamagedPageError, FormatError, MissingTableError, open_database)
from databases import format as F
from databases.cache import ARENA, DIRECTORY, PageCache, probe_resident
from databases.location import default_database_dir, table_path
from databases.reader import TableFile
from databases.writer import write_table
from games.kernels import DRAW, LOSS, WIN

TICTACTOE_SIZE = 3 ** 9


def random_codes(size, seed=1):
    """Codes of every kind (invalid, draw, wins and losses up to 40 plies)."""
    return np.random.default_rng(seed).integers(0, 84, size).astype(np.uint16)


def write(root, codes, game="tictactoe", table="all", compression="zstd", **overrides):
    """Write a synthetic table file."""
    settings = dict(game=game, table=table, index_scheme="tictactoe-base3", index_version=1,
                    sides=1, generator="test", generator_version="0", settings={},
                    build_seconds=0.0, compression=compression)
    settings.update(overrides)
    return write_table(table_path(root, game, table), codes, **settings)


def test_codes_round_trip():
    for value, dtm in [(WIN, 1), (WIN, 99), (LOSS, 0), (LOSS, 40), (DRAW, 0)]:
        assert F.decode(F.encode(value, dtm)) == (value, dtm)
    values, dtm = F.decode_arrays(np.array([0, 1, 2, 13, 12], dtype=np.uint16))
    assert list(values) == [F.INVALID_VALUE, DRAW, LOSS, WIN, LOSS]
    assert list(dtm) == [0, 0, 0, 5, -5]


@pytest.mark.parametrize("compression", ["zstd", "gzip", "lzf", "none"])
def test_written_table_reads_back(tmp_path, compression):
    codes = random_codes(TICTACTOE_SIZE)
    attributes = write(tmp_path, codes, compression=compression)
    assert attributes["entries"] == TICTACTOE_SIZE
    handle = TableFile(table_path(tmp_path, "tictactoe", "all"), "tictactoe", "all")
    assert handle.pages == 2
    read = np.concatenate([handle.read_page(0), handle.read_page(1)])
    handle.close()
    assert np.array_equal(read, codes)
    values, _ = F.decode_arrays(codes)  # the counts, recomputed from the codes
    assert attributes["wins"] == [int(np.count_nonzero(values == WIN))]
    assert attributes["draws"] == [int(np.count_nonzero(values == DRAW))]
    assert attributes["losses"] == [int(np.count_nonzero(values == LOSS))]
    assert attributes["invalid"] == int(np.count_nonzero(values == F.INVALID_VALUE)) > 0
    assert attributes["wins"][0] + attributes["draws"][0] + attributes["losses"][0] \
        + attributes["invalid"] == TICTACTOE_SIZE


def test_failed_write_leaves_no_file(tmp_path):
    codes = random_codes(TICTACTOE_SIZE)
    codes[5] = F.UNKNOWN
    with pytest.raises(ValueError):
        write(tmp_path, codes)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_batch_and_single_probes_agree_through_a_small_cache(tmp_path):
    codes = random_codes(TICTACTOE_SIZE)
    write(tmp_path, codes)
    # A budget of two pages forces evictions.
    with open_database(tmp_path, "tictactoe", cache_bytes=2 * F.PAGE_ENTRIES * 2) as db:
        indices = np.random.default_rng(2).integers(0, TICTACTOE_SIZE, 5000)
        assert np.array_equal(db.probe_codes("all", indices), codes[indices])
        assert all(db.probe_code("all", int(i)) == codes[i] for i in indices[:200])
        assert db.cache.byte_budget <= 2 * F.PAGE_ENTRIES * 2


def test_cache_evicts_least_recently_used():
    cache = PageCache(2 * F.PAGE_ENTRIES * 2)
    base = cache.register(3)
    for page in range(3):
        cache.load(base, page, np.full(F.PAGE_ENTRIES, page, dtype=np.uint16))
    assert cache.directory[base + 0] == -1  # page 0 went first
    assert cache.directory[base + 1] >= 0 and cache.directory[base + 2] >= 0


@nb.njit(types.int64(DIRECTORY, types.int64, ARENA, types.int64), cache=True)
def _probe_from_a_kernel(directory, base, arena, index):
    return probe_resident(directory, base, arena, index)


def test_kernels_can_probe_resident_pages(tmp_path):
    codes = random_codes(TICTACTOE_SIZE)
    write(tmp_path, codes)
    with open_database(tmp_path / "tictactoe") as db:
        db.preload("all")
        base = db.base("all")
        for index in (0, 77, 16384, TICTACTOE_SIZE - 1):
            assert _probe_from_a_kernel(db.cache.directory, base, db.cache.arena, index) == codes[index]
        db.cache.clear()
        assert _probe_from_a_kernel(db.cache.directory, base, db.cache.arena, 3) == -1


def test_missing_table_raises_and_get_returns_default(tmp_path):
    (tmp_path / "tictactoe").mkdir()
    with open_database(tmp_path, "tictactoe") as db:
        position = db.game.start_position()
        with pytest.raises(MissingTableError, match="missing table tictactoe/all"):
            db.probe_wdl(position)
        assert db.get_wdl(position) is None
        assert db.get_dtm(position, default=-999) == -999


def test_wrong_version_and_wrong_game_are_refused(tmp_path):
    import h5py

    write(tmp_path, random_codes(TICTACTOE_SIZE))
    path = table_path(tmp_path, "tictactoe", "all")
    with h5py.File(path, "r+") as handle:
        handle.attrs["format_version"] = 99
    with pytest.raises(FormatError, match="format version 99"):
        TableFile(path, "tictactoe", "all")
    with h5py.File(path, "r+") as handle:
        handle.attrs["format_version"] = F.FORMAT_VERSION
        handle.attrs["game"] = "connect4"
    with pytest.raises(FormatError, match="game 'connect4'"):
        TableFile(path, "tictactoe", "all")


def test_damaged_page_is_reported(tmp_path):
    codes = np.full(TICTACTOE_SIZE, 7, dtype=np.uint16)
    write(tmp_path, codes, compression="none")
    path = table_path(tmp_path, "tictactoe", "all")
    data = bytearray(path.read_bytes())
    where = data.find(bytes([7]) * 4096)  # inside the first page's stored bytes
    assert where > 0
    data[where + 100] ^= 0xFF
    path.write_bytes(bytes(data))
    with open_database(tmp_path, "tictactoe") as db:
        with pytest.raises(DamagedPageError, match="page 0 is damaged"):
            db.probe_code("all", 5)
        assert db.probe_code("all", TICTACTOE_SIZE - 1) == 7  # the other page is fine


def test_default_location(monkeypatch, tmp_path):
    monkeypatch.setenv("SOLVER_DB", str(tmp_path / "env"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_database_dir("/explicit") == Path("/explicit")  # --db wins over $SOLVER_DB
    assert default_database_dir("~/tables") == tmp_path / "home" / "tables"
    assert default_database_dir(None) == tmp_path / "env"
    monkeypatch.delenv("SOLVER_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_database_dir(None) == tmp_path / "xdg" / "solver" / "db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_database_dir(None) == tmp_path / "home" / ".local" / "share" / "solver" / "db"
