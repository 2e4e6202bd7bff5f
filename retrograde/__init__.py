"""Retrograde analysis: builds and verifies win/draw/loss and distance-to-mate tables over the
game interface, scheduled locally or on a Dask cluster."""
import runtime.compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)
