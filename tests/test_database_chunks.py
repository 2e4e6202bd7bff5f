"""The parallel page writer (databases/chunks.py) against HDF5's own filter pipeline."""
import h5py
import hdf5plugin
import numpy as np
import pytest

from databases.chunks import can_write_directly, fletcher32, write_pages


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
