"""An atomic compare-and-swap on one array element, for compiled loops that several threads run on one array.

`compare_and_swap(array, index, expected, desired)` stores `desired` in array[index] if it still holds
`expected`, as one indivisible step, and returns what the element held before (so the swap happened exactly
when the return value equals `expected`): LLVM's `cmpxchg`, sequentially consistent. Numba's CPU targets have no
such operation of their own (`numba.cuda.atomic` is the GPU's). The merge of connected components' union-find
forests uses it to hook roots from two threads at once (`apps/_cc_kernels.py`).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def compare_and_swap(typingctx, array, index, expected, desired):
    """array[index] = desired where it equals `expected`, atomically; returns its value before (one-dimensional
    C-contiguous integer arrays; `expected` and `desired` are converted to the array's type)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C"
            and isinstance(array.dtype, types.Integer) and isinstance(index, types.Integer)
            and isinstance(expected, types.Integer) and isinstance(desired, types.Integer)):
        return None
    signature = array.dtype(array, index, expected, desired)

    def codegen(context, builder, sig, args):
        array_type, dtype = sig.args[0], sig.args[0].dtype
        view = context.make_array(array_type)(context, builder, args[0])
        position = context.cast(builder, args[1], sig.args[1], types.intp)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [position], wraparound=False)
        old = context.cast(builder, args[2], sig.args[2], dtype)
        new = context.cast(builder, args[3], sig.args[3], dtype)
        pair = builder.cmpxchg(pointer, old, new, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return signature, codegen
