"""Memory layout helpers for the search tables."""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CACHE_LINE = 64  # bytes


def cache_line_aligned_zeros(words: int) -> np.ndarray:
    """A zeroed ``uint64[words]`` array starting on a cache-line boundary. numpy's large arrays
    start 16 bytes past a page boundary, which would split every 64-byte table bucket over two
    cache lines (two memory loads a probe instead of one)."""
    spare = np.zeros(words + CACHE_LINE // 8, dtype=np.uint64)
    skip = (-spare.ctypes.data % CACHE_LINE) // 8
    return spare[skip:skip + words]


@intrinsic
def prefetch_row(typingctx, table, row):
    """Inside a kernel: ask the processor to start loading the cache line of ``table[row, 0]``
    (``llvm.prefetch``, for reading, kept in every cache level) and go on at once. A row read
    soon after, such as the transposition table's bucket of a child position, then need not
    wait for memory: Stockfish prefetches its bucket the same way right after making a move."""
    if not isinstance(table, types.Array) or table.ndim != 2 or not isinstance(row, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        table_type = signature.args[0]
        array = context.make_array(table_type)(context, builder, args[0])
        row_index = context.cast(builder, args[1], signature.args[1], types.intp)
        pointer = cgutils.get_item_pointer(context, builder, table_type, array,
                                           [row_index, context.get_constant(types.intp, 0)])
        byte_pointer = ir.IntType(8).as_pointer()
        word = ir.IntType(32)
        # (declare_intrinsic mangles the name for the pointer type of this llvmlite: p0i8 or p0)
        hint = builder.module.declare_intrinsic(
            "llvm.prefetch", [byte_pointer], ir.FunctionType(ir.VoidType(), [byte_pointer, word, word, word]))
        # (address, 0: read, 3: keep in all cache levels, 1: data cache)
        builder.call(hint, [builder.bitcast(pointer, byte_pointer), ir.Constant(word, 0), ir.Constant(word, 3),
                            ir.Constant(word, 1)])
        return context.get_dummy_value()

    return types.void(table, row), codegen
