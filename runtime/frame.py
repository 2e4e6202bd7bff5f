"""One pointer in place of a recursion's unchanging arguments.

numba passes a tuple argument member by member: every array in it becomes its seven to eleven
words (owner, parent, size, item size, data, shape, strides), every first-class function two.
The search's kernels, buffers and tables, which no call changes, came to about 230 words that
each recursive call copied into the callee's arguments, at every node. :func:`frame_of` copies
such a value once into the stack frame of the function that starts the recursion and returns a
pointer to it; :func:`frame_member` reads one member back through the pointer, and only the words
the reader uses are loaded (numba loads a structure member by member; unused loads are dropped).

The arrays in the frame are lent (:mod:`runtime.borrow`: no owner, no reference counting), so
members read from it cost no count and the reader's scope releases nothing. The frame and its
arrays are valid for the call of the function that made it, whose arguments own the memory:
make it where the recursion starts, from that function's arguments, pass the pointer down, never
return or keep it.
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from runtime.borrow import without_owner


@intrinsic
def frame_of(typingctx, value):
    """A pointer to a copy of ``value`` in the calling function's stack frame, every array in it
    lent (valid until that function returns)."""
    def codegen(context, builder, signature, args):
        model = context.data_model_manager[value]
        slot = cgutils.alloca_once(builder, model.get_data_type())
        lent = without_owner(context, builder, value, args[0])
        builder.store(model.as_data(builder, lent), slot)
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
