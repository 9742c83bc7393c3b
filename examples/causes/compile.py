"""Compiling: numba kernels JIT-compiled at their first call, each a second or so of compiling while
the GPU idles (examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json compile.json -- python3 examples/causes/compile.py --own own.json
"""
import numpy

# numba-cuda on the H200 machine still calls numpy.row_stack, which NumPy 2 removed.
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack

import torch  # noqa: E402
from numba import cuda  # noqa: E402

from own import Account, gpu_step, parser  # noqa: E402


@cuda.jit
def scale(a, x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= a


@cuda.jit
def axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] += a * x[i]


@cuda.jit
def clamp(x, lo, hi):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = min(max(x[i], lo), hi)


@cuda.jit
def square(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * x[i]


def main():
    o = parser(__doc__).parse_args()
    acc = Account("compile", "numba_jit")
    n = 1 << 20
    x = cuda.to_device(numpy.random.rand(n).astype(numpy.float32))
    y = cuda.to_device(numpy.random.rand(n).astype(numpy.float32))
    t = torch.randn(1024, 1024, device="cuda")
    blocks = (n + 255) // 256
    with acc.work():
        with acc.spent():  # each kernel compiles at its first call
            scale[blocks, 256](2.0, x)
        with acc.spent():
            axpy[blocks, 256](0.5, x, y)
        with acc.spent():
            clamp[blocks, 256](x, -1.0, 1.0)
        with acc.spent():
            square[blocks, 256](x)
        cuda.synchronize()
        t = gpu_step(t)
    acc.write(o.own)


if __name__ == "__main__":
    main()
