"""Memory layout helpers for the search tables."""
import numpy as np

CACHE_LINE = 64  # bytes


def cache_line_aligned_zeros(words: int) -> np.ndarray:
    """A zeroed ``uint64[words]`` array starting on a cache-line boundary. numpy's large arrays
    start 16 bytes past a page boundary, which would split every 64-byte table bucket over two
    cache lines (two memory loads a probe instead of one)."""
    spare = np.zeros(words + CACHE_LINE // 8, dtype=np.uint64)
    skip = (-spare.ctypes.data % CACHE_LINE) // 8
    return spare[skip:skip + words]
