"""The packed WDL50 the search keeps in memory (databases.packed, retrograde.pack): its DEFLATE
decoder against zlib, its values against the DTZ50 tables and Syzygy's WDL (python-chess, the
oracle data), and what a damaged or stale pack gets."""
from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from databases import open_database
from databases.families import get_family
from databases.inflate import CORRUPT, inflate
from databases.location import DTZ50, WDL50, table_path
from databases.packed import BLOCK_ENTRIES, PackedTables, read_pack
from games.chess.notation import parse_fen
from retrograde.build import build_tables
from games.value_codes import wdl50
from retrograde.pack import deflate, pack_is_current, verify_pack
from games.chess.random_positions import random_board

FAMILY = get_family("chess")
TABLES = ["KQvKR", "KRvKP", "KPvKP"]  # and their dependencies: promotions, en passant


def compressed(data: bytes, level: int, strategy: int = zlib.Z_DEFAULT_STRATEGY) -> np.ndarray:
    packer = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
    return np.frombuffer(packer.compress(data) + packer.flush(), dtype=np.uint8).copy()


def sample_data() -> list[bytes]:
    rng = np.random.default_rng(7)
    runs = np.repeat(rng.integers(0, 5, 3000, dtype=np.uint8), rng.integers(1, 200, 3000))
    return [b"", b"x", rng.integers(0, 256, 70_000, dtype=np.uint8).tobytes(),
            rng.integers(0, 3, 100_000, dtype=np.uint8).tobytes(), runs.tobytes()]


@pytest.mark.parametrize("strategy", [zlib.Z_DEFAULT_STRATEGY, zlib.Z_FIXED, zlib.Z_HUFFMAN_ONLY,
                                      zlib.Z_RLE])
def test_inflate_decodes_what_zlib_encodes(strategy):
    # levels 0 (stored blocks) to 9, fixed and dynamic Huffman codes, long and overlapping matches
    for data in sample_data():
        for level in range(10):
            stream = compressed(data, level, strategy)
            out = np.zeros(len(data) + 16, dtype=np.uint8)
            assert inflate(stream, 0, stream.size, out) == len(data)
            assert out[:len(data)].tobytes() == data


def test_inflate_reports_a_truncated_or_overlong_stream():
    data = sample_data()[-1]
    stream = compressed(data, 9)
    for cut in range(0, stream.size - 1, max(1, stream.size // 40)):
        out = np.zeros(len(data), dtype=np.uint8)
        assert inflate(stream, 0, cut, out) == CORRUPT
    short = np.zeros(len(data) - 1, dtype=np.uint8)  # more output than the buffer holds
    assert inflate(stream, 0, stream.size, short) == CORRUPT
    rng = np.random.default_rng(3)
    for _ in range(200):  # flipped bits: an error or some output, never a crash
        damaged = stream.copy()
        damaged[rng.integers(0, damaged.size)] ^= np.uint8(1 << int(rng.integers(0, 8)))
        assert inflate(damaged, 0, damaged.size, np.zeros(len(data), dtype=np.uint8)) <= len(data)


@pytest.fixture(scope="module")
def packed_db(tmp_path_factory):
    root = tmp_path_factory.mktemp("packed")
    result = build_tables("chess", TABLES, root, show_progress=False)
    assert set(TABLES) <= set(result["packed"]) and result["packed"] == result["dtz50_built"]
    return root


def test_every_entry_probes_to_its_dtz50_tables_value(packed_db):
    # Exhaustive: stored value and exits into the other packs, as the search probes them.
    for table in ["KQvKR", "KRvKP", "KPvKP", "KRvKR", "KRvK", "KPvK"]:
        result = verify_pack(packed_db, FAMILY, table)
        assert result == {"table": table, "checked": FAMILY.size(table), "errors": 0}


def test_entries_an_exit_decides_store_what_continues_the_run(packed_db):
    # In KQvKR many positions win or lose by a capture: their stored byte is free, and often
    # not their value (the probe's exits restore it, as the test above shows).
    from retrograde.tables import read_codes

    codes = read_codes(packed_db, "chess", "KQvKR", metric=DTZ50)
    stream, offsets, _ = read_pack(packed_db, FAMILY, "KQvKR")
    stored = np.empty((offsets.size - 1) * BLOCK_ENTRIES, dtype=np.uint8)
    for block in range(offsets.size - 1):
        piece = stored[block * BLOCK_ENTRIES:(block + 1) * BLOCK_ENTRIES][:codes.size - block * BLOCK_ENTRIES]
        assert inflate(stream, offsets[block], offsets[block + 1], piece) == piece.size
    valid = codes != 0
    true = np.array([wdl50(c) for c in range(int(codes.max()) + 1)], dtype=np.int64)[codes]
    differs = (stored[:codes.size].astype(np.int64) - 2 != true) & valid
    assert 0.01 < differs.sum() / valid.sum() < 0.9
    assert ((stored[:codes.size].astype(np.int64) - 2)[valid] <= true[valid]).all()  # never better


def test_packed_probes_agree_with_syzygy_and_the_dtz50_tables(packed_db, syzygy):
    packs = PackedTables(packed_db, FAMILY)
    assert packs.tables == len(list((packed_db / "chess" / WDL50).glob("*.h5"))) > 5
    rng = random.Random(11)
    with open_database(packed_db, "chess") as db:
        for table in ["KQvKR", "KRvKP", "KPvKP", "KRvKR", "KRvK", "KPvK"]:
            for _ in range(400):
                board = random_board(table, rng, en_passant=False)
                ours = packs.wdl50(parse_fen(board.fen()))
                assert ours == syzygy.probe_wdl(board) == db.probe_wdl50(board), board.fen()
    # outside the packs: more pieces, or a table not packed here
    assert packs.wdl50(parse_fen("8/8/3k4/8/8/8/1n6/KQ1B4 w - - 0 1")) is None
    assert packs.wdl50(parse_fen("4k3/8/8/8/8/8/8/4KBN1 w - - 0 1")) is None


def test_a_damaged_pack_is_left_out_with_its_reason(packed_db, tmp_path):
    import shutil

    root = tmp_path / "db"
    shutil.copytree(packed_db, root)
    path = table_path(root, "chess", "KQvKR", WDL50)
    data = bytearray(path.read_bytes())
    stream, _, _ = read_pack(root, FAMILY, "KQvKR")
    at = bytes(data).find(stream[:64].tobytes())
    data[at + 40] ^= 0xFF  # inside the stream's first chunk: its Fletcher-32 no longer matches
    path.write_bytes(bytes(data))
    packs = PackedTables(root, FAMILY)
    assert "KQvKR" in packs.unusable and str(path) in packs.unusable["KQvKR"]
    board = "8/8/8/3k4/8/8/1r6/KQ6 w - - 0 1"
    assert packs.wdl50(parse_fen(board)) is None
    assert packs.wdl50(parse_fen("8/8/8/3k4/8/8/8/KR6 w - - 0 1")) == 2  # KRvK still packed
    # the build replaces it
    assert not pack_is_current(root, FAMILY, "KQvKR")
    assert build_tables("chess", ["KQvKR"], root, show_progress=False)["packed"] == ["KQvKR"]
    assert PackedTables(root, FAMILY).wdl50(parse_fen(board)) == 2


def test_a_pack_of_another_dtz50_table_is_stale_and_repacked(packed_db, tmp_path):
    import shutil

    import h5py

    root = tmp_path / "db"
    shutil.copytree(packed_db, root)
    assert pack_is_current(root, FAMILY, "KRvK")
    assert build_tables("chess", ["KRvK"], root, show_progress=False)["packed"] == []
    with h5py.File(table_path(root, "chess", "KRvK", WDL50), "r+") as handle:
        handle.attrs["source_crc32"] = handle.attrs["source_crc32"] ^ 1  # packed from another
    assert not pack_is_current(root, FAMILY, "KRvK")
    assert build_tables("chess", ["KRvK"], root, show_progress=False)["packed"] == ["KRvK"]
    assert pack_is_current(root, FAMILY, "KRvK")


def test_deflate_round_trip_of_a_block():
    block = np.repeat(np.arange(5, dtype=np.uint8), BLOCK_ENTRIES // 5 + 1)[:BLOCK_ENTRIES]
    stream = np.frombuffer(deflate(block.tobytes()), dtype=np.uint8).copy()
    out = np.empty(BLOCK_ENTRIES, dtype=np.uint8)
    assert inflate(stream, 0, stream.size, out) == BLOCK_ENTRIES and np.array_equal(out, block)
    assert stream.size < 100  # five runs
