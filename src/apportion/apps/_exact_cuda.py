"""A double-precision product that a real GPU never fuses into a multiply-add.

NVVM contracts `a * b + c` into one fused multiply-add (FMA) by default, which rounds once where the CPU kernels
round twice, so a GPU heat step or elimination update can differ from its CPU twin in the last bit (seen on an
H200). `mul_rn` is libdevice's `dmul_rn` on a GPU (PTX `mul.rn.f64`, which is never contracted) and the plain
product under the CUDA simulator (Python floats: the same IEEE round-to-nearest product; the simulator does not run
libdevice). Imported only by the numba-cuda kernels that must equal their CPU kernels bit for bit.
"""

from __future__ import annotations

from numba import cuda

from apportion.platform.cuda import simulator_enabled

if simulator_enabled():

    @cuda.jit(device=True)
    def mul_rn(x, y):
        return x * y

else:
    from numba.cuda import libdevice

    @cuda.jit(device=True)
    def mul_rn(x, y):
        return libdevice.dmul_rn(x, y)
