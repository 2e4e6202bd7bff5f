"""Kernel arguments passed from Python at the cost of a dictionary look-up.

An engine compiled with ``FunctionType`` parameters (``games.kernels``) receives each kernel
as a jitted function, and numba turns every one into two machine addresses on every call from
Python, asking the dispatcher for its compiled result each time: about 10 microseconds a
kernel. A df-pn call takes seven kernels, so a search of a few nodes cost 0.2 ms before it
began (and the player's prover leaves make many such calls). :func:`remember_kernel_addresses`
makes numba keep the two addresses of each (jitted function, signature) pair, and each jitted
function's numba type (numba made a ``types.Dispatcher`` and interned it by its text on every
call: about 2.5 microseconds a kernel).

Sound because a dispatcher never replaces the code it compiled for a signature: kernels are
compiled once, with explicit signatures, and stay loaded for the life of the process.
"""
from __future__ import annotations

_installed = False
applied = False  # whether this numba had the look-ups wrapped (a test fails when it has not)


def remember_kernel_addresses() -> None:
    """Wrap numba's two address look-ups for first-class function arguments in a memo (once
    per process; nothing happens if this numba lacks them: ``applied`` stays False, and
    ``tests/test_kernel_addresses.py`` says so)."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from numba.core.registry import CPUDispatcher
        from numba.experimental import function_type
        wrapper_address, jit_address = function_type._get_wrapper_address, function_type._get_jit_address
    except (ImportError, AttributeError):
        return
    memo: dict = {}
    _remember_dispatcher_types(CPUDispatcher)

    def remembered(look_up, kind):
        def address(func, sig):
            if not isinstance(func, CPUDispatcher):
                return look_up(func, sig)
            # Keyed by identity (hashing a signature costs more than the look-up saves); the
            # function and the signature (one object per engine parameter) are kept alive, so
            # that their ids stay their own.
            key = (id(func), id(sig), kind)
            found = memo.get(key)
            if found is None:
                found = memo[key] = (look_up(func, sig), func, sig)
            return found[0]
        return address

    function_type._get_wrapper_address = remembered(wrapper_address, "wrapper")
    function_type._get_jit_address = remembered(jit_address, "jit")
    global applied
    applied = True


def _remember_dispatcher_types(dispatcher_class) -> None:
    """Make each jitted function's ``_numba_type_`` (which numba's argument typing reads) keep
    the type it makes, ``types.Dispatcher(function)``: numba interns it anyway, after building
    it and its text on every call."""
    make_type = dispatcher_class._numba_type_.fget
    memo: dict = {}

    def remembered_type(function):
        found = memo.get(id(function))
        if found is None:
            found = memo[id(function)] = (make_type(function), function)  # kept alive: ids stay theirs
        return found[0]

    dispatcher_class._numba_type_ = property(remembered_type)
