"""Small bit-twiddling kernels shared by the games."""
import numba as nb
from numba import types


@nb.njit(types.uint64(types.uint64), cache=True, inline="always")
def mix64(key):
    """A bijective 64-bit mixer (splitmix64's finaliser): turns a compact key into a hash."""
    key = (key ^ (key >> types.uint64(30))) * types.uint64(0xBF58476D1CE4E5B9)
    key = (key ^ (key >> types.uint64(27))) * types.uint64(0x94D049BB133111EB)
    return key ^ (key >> types.uint64(31))


@nb.njit(types.int64(types.uint64), cache=True, inline="always")
def popcount(bits):
    """Number of set bits."""
    count = 0
    while bits:
        bits &= bits - types.uint64(1)
        count += 1
    return count
