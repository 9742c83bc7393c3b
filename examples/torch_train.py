"""A PyTorch training loop for `mmprof profile` and `mmprof import`: forward, backward and an SGD
step, one NVTX range "step N" per iteration, the host never waiting on the GPU inside a step.

    mmprof profile --json train.json -- python3 examples/torch_train.py [--steps N] [--own F]
    mmprof profile --json long.json -- python3 examples/torch_train.py --seconds 60   (a long run)
    python3 examples/torch_train.py --trace train.kineto.json     (torch.profiler's own trace)

Autograd runs the backward pass on a thread of its own, so most of a step's kernels are launched
by a thread other than the one that opened the step's range: the program mmprof's per-range
attribution must get right (a range's GPU work is what any thread of its process launched while
it was open). --own F writes what the program knows without a profiler: its steps, the threads
that ran them and the autograd thread's native id, seen from a backward hook.
--seconds S trains for S seconds of steps instead of a number of them (the long-run benchmark,
tests/long_run_gpu.sh, profiles a minute of it whole).
--trace F records the same loop with torch.profiler (CPU and CUDA activities, a record_function
"step N" beside each NVTX range) and exports its Chrome trace to F, for `mmprof import`; a name
ending .gz is written gzip-compressed, as torch.profiler's tensorboard handler writes them.
"""
import argparse
import gzip
import json
import os
import shutil
import threading
import time

import torch


def make_model(width, depth):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).cuda()


def train(steps, width, depth, batch, seconds=None):
    model = make_model(width, depth)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, width, device="cuda")
    y = torch.randn(batch, width, device="cuda")
    backward_threads = set()
    # A hook on the first layer's weight runs on the thread that runs the backward pass.
    model[0].weight.register_hook(lambda g: backward_threads.add(threading.get_native_id()) or g)
    until = time.monotonic() + seconds if seconds else None
    step = -1
    while True:
        step += 1
        if (until is None and step >= steps) or (until is not None and time.monotonic() >= until):
            break
        torch.cuda.nvtx.range_push(f"step {step}")
        with torch.autograd.profiler.record_function(f"step {step}"):
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    return {"steps": step, "width": width, "depth": depth, "batch": batch,
            "main_thread": threading.get_native_id(), "backward_threads": sorted(backward_threads),
            "pid": os.getpid(), "loss": float(loss)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--width", type=int, default=4096)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--seconds", type=float, help="train this many seconds instead of --steps steps")
    p.add_argument("--own", help="write the program's own account here (JSON)")
    p.add_argument("--trace", help="record with torch.profiler and export its trace here")
    o = p.parse_args()
    if o.trace:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            own = train(o.steps, o.width, o.depth, o.batch)
        plain = o.trace[:-3] if o.trace.endswith(".gz") else o.trace
        prof.export_chrome_trace(plain)
        if plain != o.trace:
            with open(plain, "rb") as src, gzip.open(o.trace, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(plain)
    else:
        own = train(o.steps, o.width, o.depth, o.batch, o.seconds)
    print(json.dumps(own))
    if o.own:
        with open(o.own, "w") as f:
            json.dump(own, f)


if __name__ == "__main__":
    main()
