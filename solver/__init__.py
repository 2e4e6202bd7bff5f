"""The player (alpha-beta with database and prover leaves), the UCI front end and the `solver`
command line."""
import games.compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)
