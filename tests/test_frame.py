"""runtime.frame: a recursion reads its unchanging arguments through one pointer."""
import sys

import numba as nb
import numpy as np
from numba import types

from runtime.frame import frame_member, frame_of

LEAF = types.FunctionType(types.int64(types.int64))
FRAME = types.CPointer(types.Tuple((types.Array(types.int64, 2, "C"), types.Tuple((types.Array(types.int32, 1, "C"),
                                                                                     types.int64)), LEAF)))


@nb.njit(types.int64(types.int64), cache=True)
def tripled(value):
    """The leaf kernel handed through the frame."""
    return 3 * value


@nb.njit(types.int64(FRAME, types.int64), cache=True)
def walk(frame, depth):
    """Writes ``depth`` into row ``depth`` of the grid and into the row, through the frame, and
    sums the leaf kernel's values down the recursion."""
    grid = frame_member(frame, 0)
    row, offset = frame_member(frame, 1)
    leaf = frame_member(frame, 2)
    grid[depth, :] = depth
    row[depth] = depth + offset
    if depth == 0:
        return leaf(offset)
    return leaf(depth) + walk(frame, depth - 1)


@nb.njit(types.int64(types.Array(types.int64, 2, "C"), types.Array(types.int32, 1, "C"), types.int64, LEAF))
def start(grid, row, offset, leaf):
    """Makes the frame where the recursion starts, as search_root does."""
    return walk(frame_of((grid, (row, offset), leaf)), grid.shape[0] - 1)


def test_members_read_through_the_frame_are_the_callers():
    grid = np.zeros((5, 3), dtype=np.int64)
    row = np.zeros(5, dtype=np.int32)
    references = sys.getrefcount(grid), sys.getrefcount(row)
    assert start(grid, row, 10, tripled) == 3 * (4 + 3 + 2 + 1) + 3 * 10
    # Lent: the readers down the recursion released nothing of the caller's arrays.
    assert (sys.getrefcount(grid), sys.getrefcount(row)) == references
    assert grid[:, 0].tolist() == [0, 1, 2, 3, 4] and (grid == grid[:, :1]).all()
    assert row.tolist() == [10, 11, 12, 13, 14]
