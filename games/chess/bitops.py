"""Bit intrinsics for the chess kernels: one machine instruction each (popcnt, tzcnt, lzcnt, bswap).

numba has no public popcount / trailing-zero / byte-swap for integers, so these are thin
``@intrinsic`` wrappers over the LLVM intrinsics; they inline into the caller and cache like any
other compiled code.
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, bits):
    """Number of set bits of a uint64 (``llvm.ctpop``)."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), ir.IntType(64))

    return types.int64(types.uint64), codegen


@intrinsic
def lsb(typingctx, bits):
    """Index of the lowest set bit of a non-zero uint64 (``llvm.cttz``); undefined for 0."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.uint64), codegen


@intrinsic
def msb(typingctx, bits):
    """Index of the highest set bit of a non-zero uint64 (63 - ``llvm.ctlz``); undefined for 0."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        zeros = builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.sub(ir.Constant(ir.IntType(64), 63), zeros)

    return types.int64(types.uint64), codegen


@intrinsic
def bswap(typingctx, bits):
    """The bytes of a uint64 in reverse order (``llvm.bswap``): a bitboard flipped vertically."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bswap(args[0])

    return types.uint64(types.uint64), codegen
