"""runtime.borrow: arrays lent to kernels without reference counting keep their data."""
import numba as nb
import numpy as np

from runtime.borrow import borrowed


@nb.njit
def fill_through_loan(buffers, value):
    """Writes ``value`` through every array of ``buffers`` lent, and through a view of one."""
    grid, (row, scale) = borrowed(buffers)
    grid[1] = value  # a view of a lent array is lent too
    row[:] = value * scale
    return grid.sum() + row.sum()


def test_a_loan_writes_to_the_lenders_memory():
    grid = np.zeros((3, 4), dtype=np.int64)
    row = np.zeros(5, dtype=np.uint16)
    assert fill_through_loan((grid, (row, 2)), 7) == 4 * 7 + 5 * 14
    assert grid[1].tolist() == [7] * 4 and grid[0].sum() == grid[2].sum() == 0
    assert row.tolist() == [14] * 5


@nb.njit
def strides_of_loan(array):
    lent = borrowed(array)
    return lent.shape[0], lent.shape[1], lent.strides[0], lent.strides[1], lent[2, 1]


def test_a_loan_keeps_shape_and_strides():
    array = np.arange(24, dtype=np.int32).reshape(4, 6)
    assert strides_of_loan(array) == (4, 6, 24, 4, array[2, 1])
