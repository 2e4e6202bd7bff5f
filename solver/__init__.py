"""The player (alpha-beta with database and prover leaves), the UCI front end and the `solver`
command line."""
import runtime.compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)
