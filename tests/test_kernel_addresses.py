"""Kernels passed from Python as first-class functions: numba's per-call work is remembered
(runtime.kernel_addresses) without changing what is called."""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

import games  # noqa: F401  (installs the memos)

UNARY = types.FunctionType(types.int64(types.int64))


@nb.njit(types.int64(types.int64))
def _double(x):
    return 2 * x


@nb.njit(types.int64(types.int64))
def _square(x):
    return x * x


@nb.njit(types.int64(UNARY, types.int64))
def _apply(function, x):
    return function(x)


def test_a_jitted_function_keeps_its_numba_type():
    assert _double._numba_type_ is _double._numba_type_
    assert _double._numba_type_ == types.Dispatcher(_double)
    assert _double._numba_type_ != _square._numba_type_


def test_each_function_passed_is_the_one_called():
    for _ in range(3):  # the second and later calls go through the memos
        assert [_apply(_double, 7), _apply(_square, 7)] == [14, 49]
    assert _apply(_double, np.int64(-3)) == -6


def test_the_patch_applies_to_this_numba():
    # pyproject.toml pins the numba versions this patch is known to fit; a newer one that
    # moved numba's look-ups would otherwise only make every kernel call slower, silently.
    from runtime import kernel_addresses

    assert kernel_addresses.applied, (
        f"numba {nb.__version__}: games/kernel_addresses.py no longer finds "
        "numba.experimental.function_type._get_wrapper_address/_get_jit_address")
