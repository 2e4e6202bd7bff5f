"""Small bit-twiddling kernels shared by the games, and an atomic byte decrement."""
import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@nb.njit(cache=True, inline="always")
def mix64(key):
    """A bijective 64-bit mixer (splitmix64's finaliser): turns a compact key into a hash."""
    key = (key ^ (key >> types.uint64(30))) * types.uint64(0xBF58476D1CE4E5B9)
    key = (key ^ (key >> types.uint64(27))) * types.uint64(0x94D049BB133111EB)
    return key ^ (key >> types.uint64(31))


@nb.njit(cache=True, inline="always")
def popcount(bits):
    """Number of set bits."""
    count = 0
    while bits:
        bits &= bits - types.uint64(1)
        count += 1
    return count


@intrinsic
def atomic_decrement(typingctx, array, index):
    """Decrement ``array[index]`` (a ``uint8`` array) in one atomic step and return its value
    before: threads that decrement the same entry at once lose none of the decrements."""
    if array != types.Array(types.uint8, 1, "C") or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        values = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer2(
            context, builder, data=values.data, shape=cgutils.unpack_tuple(builder, values.shape),
            strides=cgutils.unpack_tuple(builder, values.strides), layout=array_type.layout,
            inds=[args[1]], wraparound=False, boundscheck=False)
        before = builder.atomic_rmw("sub", pointer, ir.Constant(ir.IntType(8), 1), "monotonic")
        return builder.zext(before, ir.IntType(64))

    return types.int64(array, index), codegen
