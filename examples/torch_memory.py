"""A PyTorch loop with a planted leak, for checking `mmprof profile`'s GPU memory (and `mmprof
import` of torch.profiler's memory events) against the program's own account.

    mmprof profile --json leak.json -- python3 examples/torch_memory.py --own leak-own.json
    mmprof profile --json oom.json -- python3 examples/torch_memory.py --own oom-own.json --oom
    python3 examples/torch_memory.py --own k-own.json --trace memory.kineto.json --steps 8

WEIGHTS_MIB of "weights" are allocated first (large tensors, kept); then --steps steps, each an
NVTX range "step", in which a small model runs on small activations (tensors under 1 MiB: the
caching allocator's small pool, reused from step to step) and one tensor of --leak-mib MiB is
kept in a list and never freed: the planted leak, at the line LEAK_LINE names. Its size is a
large-pool block no other tensor of the loop frees, so each step's leaked tensor is a fresh
cudaMalloc of the caching allocator made from that line. The host synchronises at each step's end.
--own F writes the program's own account: the steps, the leaked bytes per step and in all, the
leak's line, torch.cuda's peaks of reserved and allocated bytes (reserved: what the caching
allocator got from the driver, which is what the driver-level records of mmprof profile see of
it) and its segments by address (the process allocates more than them: cuBLAS's own memory).
--oom: after the loop, asks for a tensor as large as the device's whole memory: the caching
allocator's cudaMalloc fails, it frees its cache and tries again, and the program dies of the
OutOfMemoryError; the account (with the bytes asked and what torch held then) is written first.
--trace F: the loop under torch.profiler with profile_memory=True and with_stack=True (a
record_function "ProfilerStep#N" per step, as the profiler's schedule names them), its Chrome
trace written to F, for `mmprof import`.
"""
import argparse
import inspect
import json
import os

import torch

WEIGHTS_MIB = 1024


def leak_line():
    """This file's line of the leak (the line after the marker), as a call site names it."""
    lines = inspect.getsource(step).splitlines()
    first = inspect.getsourcelines(step)[1]
    for i, text in enumerate(lines):
        if "# the planted leak" in text:
            return "%s:%d" % (os.path.basename(__file__), first + i + 1)
    raise SystemExit("torch_memory.py: no leak marker")


def segments():
    """The caching allocator's segments on device 0 now, [address, bytes] each: what
    memory_reserved() counts, by address. The process holds more device memory than that (each
    thread's cuBLAS handle allocates its own with cudaMalloc; loaded modules' variables), which
    mmprof records and torch.cuda does not count: by address a check tells the two apart."""
    return [[s["address"], s["total_size"]] for s in torch.cuda.memory_snapshot() if s["device"] == 0]


def step(model, x, kept, leak_elems):
    y = model(x)
    loss = y.square().mean()
    loss.backward()
    # the planted leak: one tensor a step, kept, never freed (the next line)
    kept.append(torch.empty(leak_elems, device="cuda"))
    torch.cuda.synchronize()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--own", required=True)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--leak-mib", type=int, default=24)
    p.add_argument("--oom", action="store_true")
    p.add_argument("--trace")
    o = p.parse_args()
    torch.cuda.init()
    torch.cuda.reset_peak_memory_stats()
    weights = [torch.empty(256 << 20 >> 2, device="cuda") for _ in range(WEIGHTS_MIB // 256)]
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64)).cuda()
    x = torch.randn(256, 256, device="cuda")  # 256 KiB: the small pool
    kept = []
    leak_elems = o.leak_mib << 20 >> 2

    def run(n, mark=None):
        for i in range(n):
            torch.cuda.nvtx.range_push("step")
            step(model, x, kept, leak_elems)
            torch.cuda.nvtx.range_pop()
            if mark:
                mark.step()

    if o.trace:
        from torch.profiler import ProfilerActivity, profile, schedule

        # One cycle (repeat=1), written when it ends: with the default repeat=0 a new cycle starts
        # at the step after the last, and the profiler drops the finished one's events, so a trace
        # exported after the loop held that empty cycle alone (seen on the H200: 169 events,
        # "ProfilerStep#8" its only step, no kernel).
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                     with_stack=True, schedule=schedule(wait=0, warmup=0, active=o.steps, repeat=1),
                     on_trace_ready=lambda p: p.export_chrome_trace(o.trace)) as prof:
            run(o.steps, prof)
        if not os.path.exists(o.trace):
            raise SystemExit("torch_memory.py: the profiler wrote no trace to %s" % o.trace)
    else:
        run(o.steps)
    account = {
        "steps": o.steps,
        "leak_bytes_per_step": leak_elems * 4,
        "leak_bytes": leak_elems * 4 * o.steps,
        "leak_line": leak_line(),
        "weights_bytes": sum(w.numel() * 4 for w in weights),
        "max_reserved": torch.cuda.max_memory_reserved(),
        "max_allocated": torch.cuda.max_memory_allocated(),
        "reserved_end": torch.cuda.memory_reserved(),
        "segments": segments(),
    }
    if o.oom:
        total = torch.cuda.get_device_properties(0).total_memory
        account.update(asked=total, live_reserved=torch.cuda.memory_reserved())
    with open(o.own, "w") as f:
        json.dump(account, f, indent=1)
    if o.oom:
        huge = torch.empty(account["asked"] // 4, device="cuda")  # dies: OutOfMemoryError
        print("torch_memory.py: asking %d bytes did not fail" % account["asked"], huge.numel())
        raise SystemExit(1)


if __name__ == "__main__":
    main()
