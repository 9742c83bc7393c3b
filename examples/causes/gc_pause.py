"""Garbage collection: full collections over a heap of 3 million objects in cycles, between steps
(examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json gc.json -- python3 examples/causes/gc_pause.py --own own.json
"""
import gc
import time

import torch

from own import Account, gpu_step, parser


def main():
    o = parser(__doc__).parse_args()
    acc = Account("gc", "gc")
    x = torch.randn(2048, 2048, device="cuda")
    heap = []
    for _ in range(1000000):  # kept alive: each full collection walks them all
        a, b = [], []
        a.append(b)
        b.append(a)
        heap.append(a)
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            x = gpu_step(x)
            with acc.spent():
                gc.collect()
    acc.write(o.own)
    return len(heap)


if __name__ == "__main__":
    main()
