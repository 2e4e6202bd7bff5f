"""A recursive kernel's own calls typed by its declared return type, once.

When numba types a call of a function to itself (``search`` calls ``search``), it works out the
call's result type by typing the whole function again from scratch, leaving its recursive calls
aside (``TypeInferer.return_types_from_partial``); it does so every time a recursive call is
resolved, and each round of type inference resolves every call again. The player's ``search``
has seven calls to itself: typing it ran its inference about eighteen times over, a third of a
cold ``solver bench``'s CPU time (114 -> 79 CPU-s with this module).

Every recursive kernel here has an explicit signature, and numba converts whatever the function
returns to the declared type: so the result of a recursive call *is* the declared return type,
and this module makes numba use it. (It is also the type the call is lowered with: the callee is
the function being compiled, with that return type.) A function without a declared return type
is typed as numba always did.

Importing this module installs it; a module that defines a recursive kernel imports it before
the kernel's definition, since a kernel with a signature compiles there. ``applied`` says
whether this numba had the methods to wrap (a test fails when it has not).
"""
from __future__ import annotations

try:
    from numba.core.typeinfer import TypeInferer

    _seed_return = TypeInferer.seed_return
    _typed_from_partial = TypeInferer.return_types_from_partial
except (ImportError, AttributeError):  # a numba without them: compiling is only slower
    TypeInferer = None


def seed_declared_return(inferer, return_type):
    """numba's ``seed_return``, which also keeps the declared type on the inferer."""
    inferer.declared_return_type = return_type
    return _seed_return(inferer, return_type)


def declared_or_partial(inferer):
    """The type of a recursive call: the declared return type if there is one, else numba's
    partial typing."""
    declared = getattr(inferer, "declared_return_type", None)
    return declared if declared is not None else _typed_from_partial(inferer)


applied = TypeInferer is not None  # whether numba's partial typing of recursive calls is wrapped
if applied and TypeInferer.return_types_from_partial is not declared_or_partial:
    TypeInferer.seed_return = seed_declared_return
    TypeInferer.return_types_from_partial = declared_or_partial
