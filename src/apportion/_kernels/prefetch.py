"""A software prefetch of one array element, for compiled loops that know which rows they will read next.

`prefetch(array, index)` asks the CPU to bring the cache line of `array[index]` into its caches (LLVM's
`llvm.prefetch`: a read, high temporal locality, data cache) and returns at once: a hint, with no effect on any
value, and harmless for an index past the array (the instruction never faults). A loop that walks vertices in
an order it already holds (a breadth-first queue, a permutation) issues it a few steps ahead for the rows it is
about to read, so that the random reads of several future rows are in flight at once instead of one after
another: the breadth-first order of `graph/_reorder_kernels.py` 2.6 × faster on delaunay 2^21 and 2^22
(0.266 -> 0.102 s, 0.610 -> 0.244 s), its renumbering 3.3 × (0.70 -> 0.21 s at 2^22, two threads). A loop over
the arcs of a row does the same for the neighbour ARCS_AHEAD arcs on (label propagation, contraction, the
refiners' block reads, the cut).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: how many arcs ahead a loop over rows prefetches the entry of a neighbour it is about to read at random (its
#: label, block or coarse id): label propagation on rmat 2^21's core 1.76 -> 1.30 s (median of 3, 2 threads),
#: its contraction 1.8 -> 1.5 s, the same results
ARCS_AHEAD = 16

_BYTE_POINTER = ir.IntType(8).as_pointer()
_INT32 = ir.IntType(32)


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch the cache line of array[index] for reading (one-dimensional C-contiguous arrays)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C"
            and isinstance(index, types.Integer)):
        return None
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        position = context.cast(builder, args[1], sig.args[1], types.intp)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [position], wraparound=False)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [_BYTE_POINTER, _INT32, _INT32, _INT32]),
            "llvm.prefetch.p0i8")
        # read (0), keep in all cache levels (3), data cache (1)
        builder.call(function, [builder.bitcast(pointer, _BYTE_POINTER), ir.Constant(_INT32, 0),
                                ir.Constant(_INT32, 3), ir.Constant(_INT32, 1)])
        return context.get_dummy_value()

    return signature, codegen
