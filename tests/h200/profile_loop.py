#!/usr/bin/env python3
"""The program `make bench`'s profiling-cost measurement runs: a PyTorch loop of 2048x2048 FP32
matmuls with a pageable copy in and a copy out each step (a few seconds on an H200).

    python3 tests/h200/profile_loop.py [--steps N] [--torch-profiler] [--exit-stamp FILE]

--torch-profiler runs the loop under torch.profiler (CPU and CUDA activities), to compare costs;
--exit-stamp writes time.time() just before the interpreter exits, so the caller can measure how
long after the program's end mmprof's report is on disk.
"""
import argparse
import contextlib
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--torch-profiler", action="store_true")
    ap.add_argument("--exit-stamp")
    args = ap.parse_args()
    dev = torch.device("cuda")
    a_host = torch.randn(args.n, args.n)
    b = torch.randn(args.n, args.n, device=dev)
    ctx = contextlib.nullcontext()
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with ctx:
        for _ in range(args.steps):
            a = a_host.to(dev)
            c = (a @ b).cpu()
        torch.cuda.synchronize()
    del c
    if args.exit_stamp:
        with open(args.exit_stamp, "w") as f:
            f.write(repr(time.time()))


if __name__ == "__main__":
    main()
