"""The parallel page writer and reader (databases/chunks.py) against HDF5's own filter
pipeline."""
import h5py
import hdf5plugin
import numpy as np
import pytest

from databases.chunks import (DamagedChunkError, can_write_directly, chunk_places, fletcher32,
                              read_pages, write_pages)


def _dataset(handle, name, size, dtype):
    return handle.create_dataset(name, shape=(size,), dtype=dtype, chunks=(1024,),
                                 fletcher32=True, **hdf5plugin.Zstd(clevel=9))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_chunks_are_the_bytes_hdf5_writes(tmp_path, dtype):
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 40, size=5 * 1024 + 333).astype(dtype)  # a last partial page
    codes[:2000] = 1  # some pages compress far, others hardly
    with h5py.File(tmp_path / "t.h5", "w") as handle:
        by_hdf5 = _dataset(handle, "hdf5", codes.size, dtype)
        by_hdf5[:] = codes
        direct = _dataset(handle, "direct", codes.size, dtype)
        assert can_write_directly(direct)
        write_pages(direct, codes, threads=3)
        for page in range(6):
            assert direct.id.read_direct_chunk((page * 1024,)) == \
                by_hdf5.id.read_direct_chunk((page * 1024,))
    with h5py.File(tmp_path / "t.h5", "r") as handle:
        assert np.array_equal(handle["direct"][:], codes)


def test_fletcher32_of_odd_and_long_inputs_matches_hdf5(tmp_path):
    # HDF5 appends the checksum of the compressed bytes: check ours on what it stored.
    rng = np.random.default_rng(3)
    with h5py.File(tmp_path / "t.h5", "w") as handle:
        for k, size in enumerate((1, 2, 719, 720, 721, 5000)):
            data = rng.integers(0, 256, size=size * 7).astype(np.uint8)
            dataset = handle.create_dataset(f"d{k}", data=data, chunks=(data.size,),
                                            fletcher32=True, **hdf5plugin.Zstd(clevel=1))
            _, raw = dataset.id.read_direct_chunk((0,))
            body = np.frombuffer(raw[:-4], dtype=np.uint8)
            assert int(fletcher32(body)).to_bytes(4, "little") == raw[-4:]


def test_other_filters_are_left_to_hdf5(tmp_path):
    with h5py.File(tmp_path / "t.h5", "w") as handle:
        gzip = handle.create_dataset("g", shape=(10,), dtype=np.uint8, chunks=(5,),
                                     fletcher32=True, compression="gzip")
        plain = handle.create_dataset("p", shape=(10,), dtype=np.uint8, chunks=(5,))
        assert not can_write_directly(gzip)
        assert not can_write_directly(plain)


def places_of(dataset, from_file: bool):
    """read_pages' ``places``: the chunks read from the file by the decoding threads, or None
    (through h5py)."""
    if not from_file:
        return None
    places = chunk_places(dataset)
    assert places is not None and places.shape == (-(-dataset.shape[0] // 1024), 3)
    return places


@pytest.mark.parametrize("from_file", [False, True])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_pages_decoded_here_are_the_pages_hdf5_reads(tmp_path, dtype, from_file):
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 40, size=37 * 1024 + 333).astype(dtype)  # a last partial page
    with h5py.File(tmp_path / "t.h5", "w") as handle:
        dataset = _dataset(handle, "d", codes.size, dtype)
        dataset[:] = codes
        # page 2 stored with compression skipped (filter mask bit 0), as HDF5 stores a page an
        # optional filter does not shrink: it is left to HDF5
        raw = np.frombuffer(codes[2048:3072].tobytes(), dtype=np.uint8)
        dataset.id.write_direct_chunk((2048,), raw.tobytes() + int(fletcher32(raw)).to_bytes(
            4, "little"), filter_mask=1)
    with h5py.File(tmp_path / "t.h5", "r") as handle:
        dataset = handle["d"]
        places = places_of(dataset, from_file)
        checked = []
        pages = read_pages(dataset, 0, 38, lambda page, values: checked.append((page, values.size)),
                           places)
        assert pages.dtype == dtype and np.array_equal(pages, codes)
        assert np.array_equal(pages, dataset[:])
        assert sorted(checked) == [(page, 1024) for page in range(37)] + [(37, 333)]
        assert np.array_equal(read_pages(dataset, 2, 3, lambda *_: None, places), codes[2048:5120])
        assert np.array_equal(read_pages(dataset, 37, 1, lambda *_: None, places),
                              codes[37 * 1024:])


@pytest.mark.parametrize("from_file", [False, True])
def test_a_damaged_or_missing_chunk_is_named_by_its_page(tmp_path, from_file):
    codes = np.arange(4 * 1024, dtype=np.uint16) % 7
    with h5py.File(tmp_path / "t.h5", "w") as handle:
        dataset = _dataset(handle, "d", codes.size, np.uint16)
        dataset[:3 * 1024] = codes[:3 * 1024]  # page 3 never written
        offset = dataset.id.get_chunk_info_by_coord((1024,)).byte_offset
    with open(tmp_path / "t.h5", "r+b") as handle:
        handle.seek(offset + 5)
        byte = handle.read(1)[0]
        handle.seek(offset + 5)
        handle.write(bytes([byte ^ 1]))
    with h5py.File(tmp_path / "t.h5", "r") as handle:
        places = places_of(handle["d"], from_file)
        with pytest.raises(DamagedChunkError, match="page 1: its Fletcher-32 checksum differs"):
            read_pages(handle["d"], 0, 3, lambda *_: None, places)
        with pytest.raises(DamagedChunkError, match="page 3: not found") as error:
            read_pages(handle["d"], 2, 2, lambda *_: None, places)
        assert error.value.page == 3
        if from_file:  # a place a damaged index gives: past the end of the file
            places[2, 0] = 1 << 40
            with pytest.raises(DamagedChunkError, match="page 2: a chunk too short"):
                read_pages(handle["d"], 2, 1, lambda *_: None, places)


def test_a_page_check_that_fails_is_raised(tmp_path):
    with h5py.File(tmp_path / "t.h5", "w") as handle:
        dataset = _dataset(handle, "d", 3 * 1024, np.uint8)
        dataset[:] = 1

        def check(page, values):
            if page == 2:
                raise ValueError("page 2 is wrong")

        with pytest.raises(ValueError, match="page 2 is wrong"):
            read_pages(dataset, 0, 3, check)
