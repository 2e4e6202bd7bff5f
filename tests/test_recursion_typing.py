"""Recursive kernels typed by their declared return type (runtime.recursion_typing): numba
no longer re-types the whole function at each of its calls to itself, and what the kernels
compute is unchanged."""
from __future__ import annotations

import numba as nb
from numba import types
from numba.core.typeinfer import TypeInferer

import runtime.recursion_typing as recursion_typing


def test_the_patch_applies_to_this_numba():
    # pyproject.toml pins the numba versions it is known to fit; a numba that moved these
    # methods would only make cold starts slower, silently.
    assert recursion_typing.applied, (
        f"numba {nb.__version__}: runtime/recursion_typing.py no longer finds "
        "TypeInferer.seed_return/return_types_from_partial")


def count_partial_typings(monkeypatch) -> list:
    """Count the calls of the wrapped partial typing that fall back to numba's own."""
    fallbacks = []
    wrapped = TypeInferer.return_types_from_partial

    def counted(self):
        if getattr(self, "declared_return_type", None) is None:
            fallbacks.append(1)
        return wrapped(self)

    monkeypatch.setattr(TypeInferer, "return_types_from_partial", counted)
    return fallbacks


def test_a_declared_recursive_kernel_is_typed_without_partial_typing(monkeypatch):
    fallbacks = count_partial_typings(monkeypatch)

    @nb.njit(types.int64(types.int64))
    def fibonacci(n):
        if n < 2:
            return n
        return fibonacci(n - 1) + fibonacci(n - 2)

    # (no literal argument in the calls: numba would compile a copy for it, typed afresh)
    assert [fibonacci(n) for n in (0, 1, 2, 10, 30)] == [0, 1, 1, 55, 832040]
    assert fallbacks == []  # typed from the signature: numba's partial typing never ran


def test_a_recursive_kernel_without_a_signature_is_typed_as_numba_does(monkeypatch):
    fallbacks = count_partial_typings(monkeypatch)

    @nb.njit
    def triangle(n):
        if n == 0:
            return 0
        return n + triangle(n - 1)

    assert triangle(10) == 55
    assert fallbacks  # no declared type: numba's own partial typing
