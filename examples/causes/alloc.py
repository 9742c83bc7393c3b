"""Allocating: a loop that allocates and frees 512 MB on the GPU each step, PyTorch's caching
allocator turned off, so every allocation is a cudaMalloc and every free a cudaFree
(examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json alloc.json -- python3 examples/causes/alloc.py --own own.json
"""
import os

os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"  # before torch: every allocation goes to the driver

import time  # noqa: E402

import torch  # noqa: E402

from own import Account, parser  # noqa: E402


def main():
    o = parser(__doc__).parse_args()
    acc = Account("alloc", "alloc")
    torch.zeros(1, device="cuda")
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            with acc.spent():
                x = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
            x.fill_(1)
            with acc.spent():
                del x
    acc.write(o.own)


if __name__ == "__main__":
    main()
