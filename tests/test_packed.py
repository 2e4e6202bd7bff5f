"""The packed WDL50 the search keeps in memory (databases.packed, databases.wdl_coder and
wdl_encoder, retrograde.pack): its coder's round trip, its values against the DTZ50 tables and
Syzygy's WDL (python-chess, the oracle data), and what a damaged or stale pack gets."""
from __future__ import annotations

import random
import zlib
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np
import pytest

from databases import open_database
from databases.families import get_family
from databases.location import DTZ50, WDL50, table_path
from databases.packed import (BLOCK_ENTRIES, NOT_PACKED, PackedTables, pack_place, probe_packed, read_pack,
                              stored_value, to_pack_order, with_own_cache)
from databases.wdl_coder import (BLOCK, CONTEXTS, CORRUPT, DECODER_WORDS, MODEL_BYTES, PLACES, TILE,
                                 block_count, decode_block, decode_until, model_dimensions,
                                 start_decoding, tile_of)
from databases.wdl_encoder import encode_blocks, encode_bound, table_model, tile_values
from games.chess.notation import parse_fen
from games.table_family import TABLE_SHIFT
from retrograde.build import build_tables
from games.value_codes import wdl50
from retrograde.pack import pack_is_current, verify_pack
from games.chess.random_positions import random_board
from tests import pack_reader

FAMILY = get_family("chess")
TABLES = ["KQvKR", "KRvKP", "KPvKP"]  # and their dependencies: promotions, en passant


def sample_blocks() -> list[np.ndarray]:
    """Blocks of stored values (0-4) in place order: runs, noise, a pattern over the tile,
    constants, sparse exceptions."""
    rng = np.random.default_rng(7)
    runs = np.repeat(rng.integers(0, 5, 3000, dtype=np.uint8), rng.integers(1, 200, 3000))[:BLOCK]
    place = np.arange(BLOCK)
    y0, y1, y2 = place % TILE[0], place // TILE[0] % TILE[1], place // (TILE[0] * TILE[1])
    grid = ((y0 // 8 + y1 // 4 + y2 // 4) % 5).astype(np.uint8)
    return [runs, rng.integers(0, 5, BLOCK, dtype=np.uint8), grid,
            np.full(BLOCK, 4, dtype=np.uint8), np.where(rng.random(BLOCK) < 0.01, 0, 2).astype(np.uint8)]


def coded(blocks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(stream, offsets) of ``blocks`` coded with their model, laid out as in a pack."""
    values = np.concatenate(blocks)
    model = table_model(values, (64, 64, 64))
    out = np.zeros((len(blocks), encode_bound()), dtype=np.uint8)
    sizes = np.zeros(len(blocks), dtype=np.int64)
    assert encode_blocks(model, values, len(blocks), out, sizes) == 0
    stream = np.concatenate([model] + [out[b, :sizes[b]] for b in range(len(blocks))])
    return stream, np.concatenate([[MODEL_BYTES], MODEL_BYTES + np.cumsum(sizes)])


def test_the_coder_decodes_what_it_codes():
    blocks = sample_blocks()
    stream, offsets = coded(blocks)
    for b, block in enumerate(blocks):
        out = np.zeros(BLOCK, dtype=np.uint8)
        assert decode_block(stream, 0, offsets[b], offsets[b + 1], out) == BLOCK
        assert np.array_equal(out, block)
    assert offsets[4] - offsets[3] < 64  # a constant block: a few bytes
    assert offsets[2] - offsets[1] < BLOCK * 2.5 / 8  # noise: near log2(5) = 2.32 bits an entry


def test_a_block_decoded_in_steps_equals_it_decoded_whole():
    # The probe decodes a block only up to the entry it needs and resumes there later.
    blocks = sample_blocks()
    stream, offsets = coded(blocks)
    rng = np.random.default_rng(11)
    for b, block in enumerate(blocks):
        probabilities = np.zeros(CONTEXTS * PLACES, dtype=np.uint16)
        decoder = np.zeros(DECODER_WORDS, dtype=np.int64)
        assert start_decoding(stream, 0, offsets[b], offsets[b + 1], probabilities, decoder) == 0
        out = np.zeros(BLOCK, dtype=np.uint8)
        ends = sorted(set(rng.integers(1, BLOCK, 6).tolist())) + [BLOCK]
        for end in ends:
            assert decode_until(stream, offsets[b + 1], probabilities, decoder, out, end) == end
            assert np.array_equal(out[:end], block[:end])
        assert decode_until(stream, offsets[b + 1], probabilities, decoder, out, 5) == BLOCK  # nothing to do


def test_the_coder_beats_deflate_on_patterns_across_the_tile():
    # The grid changes along all three sides of the tile: contexts see it, DEFLATE sees
    # repeated strings.
    grid = sample_blocks()[2]
    stream, offsets = coded([grid])
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    assert offsets[1] - offsets[0] < len(packer.compress(grid.tobytes()) + packer.flush())


def test_the_decoder_reports_a_truncated_stream_and_survives_damage():
    stream, offsets = coded(sample_blocks())
    start, stop = offsets[0], offsets[1]
    for cut in range(start, stop - 1, max(1, (stop - start) // 40)):
        assert decode_block(stream, 0, start, cut, np.zeros(BLOCK, dtype=np.uint8)) == CORRUPT
    assert decode_block(stream, 0, start, stop, np.zeros(BLOCK - 1, dtype=np.uint8)) == CORRUPT
    rng = np.random.default_rng(3)
    for _ in range(200):  # flipped bits: an error or values in range, never a crash
        damaged = stream.copy()
        damaged[rng.integers(0, stop)] ^= np.uint8(1 << int(rng.integers(0, 8)))
        out = np.zeros(BLOCK, dtype=np.uint8)
        assert decode_block(damaged, 0, start, stop, out) in (BLOCK, CORRUPT)
        assert out.max() <= 4


@pytest.mark.parametrize("table", ["KQvKR", "KPvK", "KRvKP", "KPPvK", "KPvKP"])
def test_a_pack_holds_the_pawns_digits_fastest(table):
    """The index keeps the pawns' digits slowest (a pawn slice is one run for the generators),
    the pack fastest (what its coder predicts from best): every entry lands where the probe
    looks for it, and the pack's dimensions are the index's, the pawns' first."""
    from games.chess import endgames as E

    inner, run = FAMILY.pack_order(table)
    size = FAMILY.size(table)
    assert inner * run * 2 == size
    assert int(np.prod(FAMILY.pack_dimensions(table))) == size
    assert sorted(FAMILY.pack_dimensions(table)) == sorted(FAMILY.index_dimensions(table))
    pawn_groups = int(E.PAWN_GROUP[E.TABLE_IDS[table]].sum())
    assert inner == E.pawn_placements(table) == int(np.prod(FAMILY.pack_dimensions(table)[:pawn_groups]))
    values = np.arange(size, dtype=np.int64)
    packed = to_pack_order(values, inner, run)
    for index in np.random.default_rng(3).integers(0, size, 2000):
        assert packed[pack_place(int(index), inner, run)] == index


@pytest.mark.parametrize("dimensions", [(64, 64, 64), (48, 64, 10), (1128, 64, 32), (64, 64, 1)])
def test_tiles_hold_every_entry_where_tile_of_says(dimensions):
    rng = np.random.default_rng(5)
    entries = int(np.prod(dimensions)) * 2
    values = rng.integers(0, 5, entries, dtype=np.uint8)
    blocks = block_count(dimensions, entries)
    tiled = np.empty(blocks * BLOCK, dtype=np.uint8)
    tile_values(values, *dimensions, tiled)
    places = {tile_of(*dimensions, int(index)) for index in range(entries)}
    assert len(places) == entries  # one place each
    for index in rng.integers(0, entries, 2000):
        block, place = tile_of(*dimensions, int(index))
        assert block < blocks and tiled[block * BLOCK + place] == values[index]


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


@pytest.mark.parametrize("table", ["KQvKR", "KPvKP"])
def test_verify_counts_each_entry_its_pack_misstates(packed_db, tmp_path, table):
    # The pack stays; its DTZ50 table is changed under it: each changed entry, and only it,
    # now probes to another value than its code's (a parent's probe reads packs, not codes).
    # Every decided entry is changed: the count shows that each is looked at once.
    import shutil

    from databases.writer import write_table
    from games.chess import endgames as E
    from games.value_codes import CODE_DRAW, INVALID
    from retrograde.tables import read_codes

    shutil.copytree(packed_db, tmp_path, dirs_exist_ok=True)
    codes = read_codes(tmp_path, "chess", table, metric=DTZ50)
    decided = np.flatnonzero((codes != CODE_DRAW) & (codes != INVALID))
    codes[decided] = CODE_DRAW
    write_table(table_path(tmp_path, "chess", table, DTZ50), codes, game="chess", table=table,
                index_scheme=E.INDEX_SCHEME, index_version=E.INDEX_VERSION, sides=2,
                generator="test", generator_version="0", settings={}, build_seconds=0.0)
    assert verify_pack(tmp_path, FAMILY, table)["errors"] == decided.size > 0


def test_entries_an_exit_decides_store_what_continues_the_run(packed_db):
    # In KQvKR many positions win or lose by a capture: their stored byte is free, and often
    # not their value (the probe's exits restore it, as the test above shows).
    from retrograde.tables import read_codes

    codes = read_codes(packed_db, "chess", "KQvKR", metric=DTZ50)
    stream, offsets, _ = read_pack(packed_db, FAMILY, "KQvKR")
    decoded = np.empty((offsets.size - 1, BLOCK_ENTRIES), dtype=np.uint8)
    for block in range(offsets.size - 1):
        assert decode_block(stream, 0, offsets[block], offsets[block + 1], decoded[block]) == BLOCK_ENTRIES
    dimensions = model_dimensions(FAMILY.index_dimensions("KQvKR"))
    stored = np.array([decoded[tile_of(*dimensions, index)] for index in range(codes.size)],
                      dtype=np.uint8)
    valid = codes != 0
    true = np.array([wdl50(c) for c in range(int(codes.max()) + 1)], dtype=np.int64)[codes]
    differs = (stored[:codes.size].astype(np.int64) - 2 != true) & valid
    assert 0.01 < differs.sum() / valid.sum() < 0.9
    assert ((stored[:codes.size].astype(np.int64) - 2)[valid] <= true[valid]).all()  # never better


@pytest.mark.parametrize("table", ["KQvKR", "KRvKP", "KPvKP", "KRvKR"])
def test_chess_tables_store_the_bytes_that_playing_every_move_gives(packed_db, table):
    # The chess packs find their moves out on the storage index (chess_stored_bytes); the
    # generic way plays every move of the position it unranks.
    from games.chess import endgames as E
    from retrograde.chess_exits import child_plans
    from retrograde.dtz50 import load_zeroing_classes
    from retrograde.pack import chess_stored_bytes, stored_bytes
    from retrograde.tables import load_children, read_codes

    codes = read_codes(packed_db, "chess", table, metric=DTZ50)
    dependencies = FAMILY.dependencies(table)
    children, offsets, _ = load_children(packed_db, FAMILY, dependencies, metric=DTZ50)
    kernels = FAMILY.game.kernels
    generic = np.empty(codes.size, dtype=np.uint8)
    assert stored_bytes(kernels.legal_moves, kernels.play, FAMILY.unrank, FAMILY.rank,
                        FAMILY.game.position_width, FAMILY.game.max_moves,
                        FAMILY.table_id(table), codes, children, offsets, 0, generic,
                        BLOCK_ENTRIES) == 0
    classes, offsets = load_zeroing_classes(packed_db, FAMILY, dependencies)
    chess = np.empty(codes.size, dtype=np.uint8)
    assert chess_stored_bytes(E.TABLE_IDS[table], codes, classes,
                              child_plans(table, offsets), 0, chess, BLOCK_ENTRIES) == 0
    assert np.array_equal(chess, generic)


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


def test_following_only_the_noisy_moves_gives_the_value_of_every_move(packed_db):
    # The search's probe generates only captures and promotions for the exits; the packer and
    # verify_pack play every legal move. Both must give one value.
    packs = PackedTables(packed_db, FAMILY)
    kernels = FAMILY.game.kernels
    rng = random.Random(12)
    decided_by_an_exit = 0
    for table in ["KQvKR", "KRvKP", "KPvKP"]:
        for _ in range(600):
            position = parse_fen(random_board(table, rng, en_passant=False).fen())
            every_move = probe_packed(kernels.legal_moves, kernels.play, FAMILY.rank, packs.kernel_tuple(),
                                      position, 0)
            noisy = probe_packed(FAMILY.game.player.noisy_moves, kernels.play, FAMILY.rank, packs.kernel_tuple(),
                                 position, 0)
            assert noisy == every_move != NOT_PACKED, FAMILY.game.format_position(position)
            decided_by_an_exit += stored_value(packs.kernel_tuple(), FAMILY.rank(position)) != noisy
    assert decided_by_an_exit > 50  # the exits were needed, not merely agreed on


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


def test_a_pack_of_another_version_is_outdated_and_repacked(packed_db, tmp_path):
    import shutil

    import h5py

    root = tmp_path / "db"
    shutil.copytree(packed_db, root)
    with h5py.File(table_path(root, "chess", "KRvK", WDL50), "r+") as handle:
        handle.attrs["pack_version"] = 1  # as an older version packed it
    packs = PackedTables(root, FAMILY)
    assert packs.outdated == ["KRvK"] and "KRvK" not in packs.unusable
    assert packs.wdl50(parse_fen("8/8/8/3k4/8/8/8/KR6 w - - 0 1")) is None
    assert not pack_is_current(root, FAMILY, "KRvK")
    assert build_tables("chess", ["KRvK"], root, show_progress=False)["packed"] == ["KRvK"]
    assert PackedTables(root, FAMILY).outdated == []


@pytest.mark.parametrize("table, every", [("KRvK", 1), ("KPvK", 3)])
def test_a_reader_written_from_the_format_page_decodes_every_block(packed_db, table, every):
    # tests/pack_reader.py knows only docs/database-format.md: its blocks (every one of KRvK,
    # every third of KPvK: plain Python is slow) must be the toolkit's, and its byte of every
    # seventh entry in them the toolkit's stored value.
    with h5py.File(table_path(packed_db, "chess", table, WDL50), "r") as handle:
        stream = handle["stream"][...].tobytes()
        lengths = [int(n) for n in handle["block_bytes"][...]]
        dimensions = tuple(int(d) for d in handle.attrs["dimensions"])
        entries = int(handle.attrs["entries"])
    starts = pack_reader.block_starts(lengths)
    assert starts[-1] == len(stream)
    ours = np.frombuffer(stream, dtype=np.uint8).copy()
    blocks = {}
    for b in range(0, len(lengths), every):
        blocks[b] = pack_reader.decode_block(stream, starts[b], starts[b + 1])
        toolkit = np.zeros(BLOCK, dtype=np.uint8)
        assert decode_block(ours, 0, starts[b], starts[b + 1], toolkit) == BLOCK
        assert blocks[b] == toolkit.tolist()
    inner, run = pack_reader.pack_order(table, entries)
    packs = PackedTables(packed_db, FAMILY).kernel_tuple()
    table_bits = FAMILY.table_id(table) << TABLE_SHIFT
    checked = 0
    for index in range(0, entries, 7):
        block, place = pack_reader.locate(index, inner, run, dimensions)
        if block in blocks:
            assert blocks[block][place] - 2 == stored_value(packs, table_bits | index)
            checked += 1
    assert checked > entries // 7 // (every + 1)


def test_the_pack_bytes_are_pinned(packed_db):
    # A change to the coder, the model, the tiles or the packer's choice of bytes changes these
    # (then say so in docs/database-format.md and the pack version, and pin the new bytes).
    with h5py.File(table_path(packed_db, "chess", "KRvK", WDL50), "r") as handle:
        assert zlib.crc32(handle["stream"][...].tobytes()) == 3531728071
        assert zlib.crc32(handle["block_bytes"][...].tobytes()) == 3700323340
    place = np.arange(BLOCK)
    values = ((place % 32 // 5 + place // 32 % 16 // 3 + place // 512 // 4 + place * 7919 % 13 // 12)
              % 5).astype(np.uint8)
    model = table_model(values, (32, 16, 16))
    out = np.zeros((1, encode_bound()), dtype=np.uint8)
    sizes = np.zeros(1, dtype=np.int64)
    assert encode_blocks(model, values, 1, out, sizes) == 0
    code = out[0, :sizes[0]].tobytes()
    assert (zlib.crc32(model.tobytes()), len(code), zlib.crc32(code)) == (4160705146, 672, 802143824)
    assert pack_reader.decode_block(model.tobytes() + code, MODEL_BYTES, MODEL_BYTES + len(code)) \
        == values.tolist()


def test_threads_with_caches_of_their_own_probe_as_one_thread_does(packed_db):
    # PackedTables' promise: a tuple from with_own_cache per thread, the streams shared. Two
    # threads probe the same positions at once, in opposite orders (so they fight over the
    # same blocks), and each must find what one thread alone finds.
    packs = PackedTables(packed_db, FAMILY)
    noisy, play = FAMILY.game.player.noisy_moves, FAMILY.game.kernels.play
    rng = random.Random(13)
    positions = [parse_fen(random_board(table, rng, en_passant=False).fen())
                 for table in ["KQvKR", "KRvKP", "KPvKP"] for _ in range(700)]
    alone = [probe_packed(noisy, play, FAMILY.rank, packs.kernel_tuple(), p, 0) for p in positions]

    def probe_all(order):
        own = with_own_cache(packs.kernel_tuple(), 64)
        found = {}
        for _ in range(3):
            for i in order:
                found[i] = probe_packed(noisy, play, FAMILY.rank, own, positions[i], 0)
        return [found[i] for i in range(len(positions))]

    forward, backward = list(range(len(positions))), list(range(len(positions)))[::-1]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(probe_all, [forward, backward]))
    assert results == [alone, alone] and NOT_PACKED not in alone


def test_databases_one_per_thread_probe_as_one_thread_does(packed_db):
    # Database's promise: not shared, one per thread; two at once agree with one alone.
    rng = random.Random(14)
    boards = [random_board(table, rng, en_passant=False)
              for table in ["KQvKR", "KRvKP", "KPvKP"] for _ in range(300)]
    with open_database(packed_db, "chess") as db:
        alone = [(db.probe_dtm(board), db.probe_dtz(board)) for board in boards]

    def probe_all(order):
        with open_database(packed_db, "chess", cache_bytes=1 << 20) as db:
            found = {i: (db.probe_dtm(boards[i]), db.probe_dtz(boards[i])) for i in order}
        return [found[i] for i in range(len(boards))]

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(probe_all, [range(len(boards)), range(len(boards) - 1, -1, -1)]))
    assert results == [alone, alone]
