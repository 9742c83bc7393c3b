"""A numba CUDA program for `mmprof profile`: a kernel between explicit copies each way.

    mmprof profile --json numba.json -- python3 examples/numba_copies.py [--steps N] [--n N] [--own F]

Each step copies an array in (pageable), runs a saxpy kernel and copies the result out; then the
same with pinned host arrays. --own F writes the program's own counts (kernels, copies, bytes).
"""
import argparse
import json

import numpy

# numba-cuda on the H200 machine still calls numpy.row_stack, which NumPy 2 removed.
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack

from numba import cuda  # noqa: E402


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--own", help="write the program's own counts here (JSON)")
    o = p.parse_args()
    x = numpy.random.rand(o.n).astype(numpy.float32)
    y = numpy.random.rand(o.n).astype(numpy.float32)
    pinned_x = cuda.pinned_array(o.n, dtype=numpy.float32)
    pinned_out = cuda.pinned_array(o.n, dtype=numpy.float32)
    pinned_x[:] = x
    threads = 256
    blocks = (o.n + threads - 1) // threads
    d_y = cuda.to_device(y)
    d_out = cuda.device_array(o.n, dtype=numpy.float32)
    done = {"kernels": 0, "h2d_copies": 1, "d2h_copies": 0, "h2d_bytes": y.nbytes, "d2h_bytes": 0}
    for step in range(o.steps):
        for host_x, host_out in ((x, None), (pinned_x, pinned_out)):
            d_x = cuda.to_device(host_x)
            saxpy[blocks, threads](numpy.float32(2.0), d_x, d_y, d_out)
            result = d_out.copy_to_host(host_out) if host_out is not None else d_out.copy_to_host()
            done["kernels"] += 1
            done["h2d_copies"] += 1
            done["d2h_copies"] += 1
            done["h2d_bytes"] += host_x.nbytes
            done["d2h_bytes"] += result.nbytes
    cuda.synchronize()
    print(json.dumps(done))
    if o.own:
        with open(o.own, "w") as f:
            json.dump(done, f)


if __name__ == "__main__":
    main()
