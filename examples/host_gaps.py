"""A PyTorch program that keeps its GPU waiting in two known ways, for `mmprof profile`'s host
sampling and launch call sites:

    mmprof profile --json gaps.json -- python3 examples/host_gaps.py [--steps N] [--n N] [--own F]

Each step launches a matmul (launch_matmul), waits for it, then leaves the GPU idle: on odd steps
the main thread sleeps (time.sleep in main), on even steps it computes on the CPU in a pure-Python
loop (cpu_work). --own F writes the program's own account as JSON: each gap (its start and end on
CLOCK_REALTIME in ns, the clock mmprof's records use; what the host did; the function and line
that did it) and the line that launched the matmuls, for tests/host_causes_gpu.sh to compare with
what mmprof recorded.
"""
import argparse
import json
import sys
import time

import torch


def here():
    """The caller's line number."""
    return sys._getframe(1).f_lineno


def launch_matmul(a, b):
    return a @ b  # the launch line (LAUNCH_LINE below)


LAUNCH_LINE = launch_matmul.__code__.co_firstlineno + 1


def cpu_work(seconds):
    """A pure-Python loop on the CPU for about `seconds`."""
    until = time.time() + seconds
    acc = 0
    while time.time() < until:
        for i in range(2000):
            acc += i * i
    return acc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--gap", type=float, default=0.3, help="seconds of each gap")
    p.add_argument("--own", help="write the program's own account here (JSON)")
    o = p.parse_args()
    dev = torch.device("cuda")
    a = torch.randn(o.n, o.n, device=dev)
    b = torch.randn(o.n, o.n, device=dev)
    launch_matmul(a, b)  # warm-up: cuBLAS picks its kernel
    torch.cuda.synchronize()
    gaps = []
    for step in range(o.steps):
        c = launch_matmul(a, b)
        torch.cuda.synchronize()
        t0 = time.time_ns()
        if step % 2:
            line = here() + 1
            time.sleep(o.gap)
            gaps.append({"cause": "sleep", "function": "main", "line": line})
        else:
            cpu_work(o.gap)
            gaps.append({"cause": "cpu", "function": "cpu_work", "line": None})
        gaps[-1].update(start_ns=t0, end_ns=time.time_ns())
        del c
    torch.cuda.synchronize()
    own = {"gaps": gaps, "file": __file__, "launch": {"function": "launch_matmul", "line": LAUNCH_LINE},
           "matmuls": o.steps + 1}
    print(json.dumps({"gaps": len(gaps), "matmuls": own["matmuls"]}))
    if o.own:
        with open(o.own, "w") as f:
            json.dump(own, f)


if __name__ == "__main__":
    main()
