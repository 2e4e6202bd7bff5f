"""One pointer in place of a recursion's unchanging arguments.

numba passes a tuple argument member by member: every array in it becomes its seven to eleven
words (owner, parent, size, item size, data, shape, strides), every first-class function two.
The search's kernels, buffers and tables, which no call changes, came to about 230 words that
each recursive call copied into the callee's arguments, at every node. :func:`frame_of` copies
such a value once into the stack frame of the function that starts the recursion and returns a
pointer to it; :func:`frame_member` reads one member back through the pointer, and only the words
the reader uses are loaded (numba loads a structure member by member; unused loads are dropped).

The frame lives as long as the call of the function that made it: make it where the recursion
starts, pass the pointer down, never return or keep it.
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def frame_of(typingctx, value):
    """A pointer to a copy of ``value`` in the calling function's stack frame (valid until that
    function returns)."""
    def codegen(context, builder, signature, args):
        model = context.data_model_manager[value]
        slot = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), slot)
        return slot

    return types.CPointer(value)(value), codegen


@intrinsic
def frame_member(typingctx, frame, index):
    """Member ``index`` (a constant) of the tuple that ``frame`` points to."""
    if not isinstance(frame, types.CPointer) or not isinstance(index, types.IntegerLiteral):
        return None
    position = index.literal_value
    member_type = frame.dtype[position]

    def codegen(context, builder, signature, args):
        member = cgutils.gep_inbounds(builder, args[0], 0, position)
        return context.data_model_manager[member_type].load_from_data_pointer(builder, member)

    return member_type(frame, index), codegen
