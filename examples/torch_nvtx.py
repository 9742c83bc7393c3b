"""A PyTorch program for `mmprof profile`: matmuls in a loop inside torch.cuda.nvtx ranges, with
pageable and pinned copies each way, and optionally worker processes doing the same.

    mmprof profile --json torch.json -- python3 examples/torch_nvtx.py [--steps N] [--n N]
                                                                        [--workers W] [--own F]

--own F writes the program's own account (steps, matmuls, bytes copied each way per memory kind)
as JSON, to compare with mmprof's report. --workers W runs W more processes (multiprocessing,
"fork" start method, before the parent touches CUDA), each doing the same loop: the Pool ends
its idle workers with SIGTERM, so their exit handlers never run; mmprof's injection library
flushes their CUDA records before they die and the report says they were ended by the signal.
"""
import argparse
import json
import multiprocessing as mp

import torch


def loop(steps, n, tag):
    """steps iterations of: copy A in (pageable), B in (pinned), C = A @ B, C out (each kind)."""
    dev = torch.device("cuda")
    a_host = torch.randn(n, n)                 # pageable
    b_host = torch.randn(n, n).pin_memory()    # pinned
    c_pinned = torch.empty(n, n).pin_memory()
    nbytes = a_host.numel() * a_host.element_size()
    done = {"matmuls": 0, "h2d_pageable_bytes": 0, "h2d_pinned_bytes": 0,
            "d2h_pageable_bytes": 0, "d2h_pinned_bytes": 0}
    for step in range(steps):
        torch.cuda.nvtx.range_push(f"{tag} step {step}")
        torch.cuda.nvtx.range_push("copy-in")
        a = a_host.to(dev)
        b = b_host.to(dev, non_blocking=True)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("matmul")
        c = a @ b
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("copy-out")
        c_pageable = c.cpu()
        c_pinned.copy_(c, non_blocking=True)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
        assert c_pageable.shape == (n, n)
        done["matmuls"] += 1
        done["h2d_pageable_bytes"] += nbytes
        done["h2d_pinned_bytes"] += nbytes
        done["d2h_pageable_bytes"] += nbytes
        done["d2h_pinned_bytes"] += nbytes
    return done


def worker(args):
    steps, n, i = args
    return loop(steps, n, f"worker {i}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--n", type=int, default=2048)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--own", help="write the program's own counts here (JSON)")
    o = p.parse_args()
    results = []
    if o.workers:
        # Fork before this process initialises CUDA: a CUDA context does not survive fork.
        with mp.get_context("fork").Pool(o.workers) as pool:
            results += pool.map(worker, [(o.steps, o.n, i) for i in range(o.workers)])
    results.append(loop(o.steps, o.n, "main"))
    total = {k: sum(r[k] for r in results) for k in results[0]}
    total["processes"] = len(results)
    print(json.dumps(total))
    if o.own:
        with open(o.own, "w") as f:
            json.dump(total, f)


if __name__ == "__main__":
    main()
