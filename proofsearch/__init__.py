"""Proof-number search (PN and df-pn) over any game: transposition table, proof trees and an
independent proof checker."""
import runtime.compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)
