"""Arrays lent to kernels without reference counting.

numba counts references to every array it passes around: each array argument a function
receives, each array taken out of a tuple and each view (``positions[ply]``) costs an atomic
increment and, when it goes out of scope, an atomic decrement of the array's owner (its
*meminfo*); threads that share an array also fight over that count. The recursive search
reads fourteen buffers and five table arrays at every node and makes a dozen views of them
(lent through :func:`runtime.frame.frame_of`), and those atomic operations took a third of its
time (``perf`` on ``solver bench``: two locked
instructions of numba's runtime, 2026-11-28); in the parallel un-move passes of a table build,
about half; in df-pn, perft, verification and packing, 16-40%.

:func:`borrowed` returns the same arrays without an owner (a null meminfo, as numba gives
arrays it wraps around foreign memory): numba skips the count of an array that has none. The
memory stays owned by the lender's arrays, which must outlive every use of the borrowed ones:
borrow only a function's arguments (its caller holds them for the call), never a local array
(numba frees a local after its last use), and never keep or return a borrowed array. A kernel
that allocates scratch arrays hands them to a worker function, which borrows its arguments
(``games.chess.retrograde_kernels.new_workspace``, the per-chunk workers of the parallel loops).
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def without_owner(context, builder, value_type, value):
    """``value`` with the meminfo (and Python parent) of every array in it set to null (code
    generation for intrinsics: :func:`borrowed`, :func:`runtime.frame.frame_of`)."""
    if isinstance(value_type, types.Array):
        array = cgutils.create_struct_proxy(value_type)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(value_type, types.BaseTuple):
        for i, member_type in enumerate(value_type):
            member = builder.extract_value(value, i)
            value = builder.insert_value(
                value, without_owner(context, builder, member_type, member), i)
        return value
    return value


@intrinsic
def borrowed(typingctx, value):
    """``value`` (an array, or a tuple holding arrays, nested or not, among other members) with
    every array lent: the same data, shape and strides, no owner, no reference counting."""
    def codegen(context, builder, signature, args):
        return without_owner(context, builder, signature.args[0], args[0])

    return value(value), codegen
