#!/usr/bin/env python3
"""Records two PyTorch profiler (Kineto) traces on a CUDA GPU, for mmprof's Kineto importer.

    python3 tests/h200/record_kineto.py OUT_DIR

writes OUT_DIR/h200-matmul-copies.kineto.json and OUT_DIR/h200-train-step.kineto.json with
torch.profiler's export_chrome_trace, the format `mmprof import` reads. Commit them under samples/:
tests/test_import_kineto.c checks the importer against every samples/*.kineto.json.

  matmul-copies  a 2048x2048 FP32 matmul fed by pageable copies, then by pinned ones, a few
                 iterations; record_function (and NVTX) ranges "pageable" and "pinned"
  train-step     a tiny MLP's training steps; ranges "forward", "backward", "optimizer" inside
                 the profiler's own ProfilerStep#N

Small on purpose (well under 3 MB each): few iterations, no stacks, no shapes.
"""
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function

ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.CUDA]


def ranged(name):
    """A record_function range (what the trace keeps) that is also an NVTX range (for nsys)."""

    class Both:
        def __enter__(self):
            torch.cuda.nvtx.range_push(name)
            self.rf = record_function(name)
            self.rf.__enter__()

        def __exit__(self, *exc):
            self.rf.__exit__(*exc)
            torch.cuda.nvtx.range_pop()

    return Both()


def matmul_copies(out_dir, n=2048, iterations=3):
    dev = torch.device("cuda")
    a_pageable = torch.randn(n, n, dtype=torch.float32)
    b_pageable = torch.randn(n, n, dtype=torch.float32)
    a_pinned, b_pinned = a_pageable.pin_memory(), b_pageable.pin_memory()
    c_pinned = torch.empty(n, n, dtype=torch.float32).pin_memory()
    torch.mm(a_pageable.to(dev), b_pageable.to(dev))  # cuBLAS handle and kernels loaded before
    torch.cuda.synchronize()
    with profile(activities=ACTIVITIES) as prof:
        for _ in range(iterations):
            with ranged("pageable"):
                a, b = a_pageable.to(dev), b_pageable.to(dev)
                c = torch.mm(a, b).cpu()
            with ranged("pinned"):
                a = a_pinned.to(dev, non_blocking=True)
                b = b_pinned.to(dev, non_blocking=True)
                c_pinned.copy_(torch.mm(a, b), non_blocking=True)
                torch.cuda.synchronize()
    path = os.path.join(out_dir, "h200-matmul-copies.kineto.json")
    prof.export_chrome_trace(path)
    return path


def train_step(out_dir, steps=3):
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(64, 256, device=dev)
    y = torch.randint(0, 10, (64,), device=dev)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        with ranged("forward"):
            loss = loss_fn(model(x), y)
        with ranged("backward"):
            opt.zero_grad(set_to_none=False)
            loss.backward()
        with ranged("optimizer"):
            opt.step()
        torch.cuda.synchronize()

    step()  # warm-up outside the profiler
    with profile(activities=ACTIVITIES) as prof:
        for _ in range(steps):
            step()
            prof.step()
    path = os.path.join(out_dir, "h200-train-step.kineto.json")
    prof.export_chrome_trace(path)
    return path


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: record_kineto.py OUT_DIR")
    if not torch.cuda.is_available():
        sys.exit("record_kineto.py: no CUDA device: these traces need a GPU")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    for path in (matmul_copies(out_dir), train_step(out_dir)):
        size = os.path.getsize(path)
        print(f"{path}: {size / 1e6:.2f} MB")
        if size > 3e6:
            sys.exit(f"{path}: larger than 3 MB; record fewer iterations")


if __name__ == "__main__":
    main()
