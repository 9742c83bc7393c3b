"""Diagnostic on a GPU machine, under the injection as `mmprof profile` sets it up: what a fork
Pool worker's signal dispositions are once it has used CUDA and NVTX, and what its stream shows
when it is ended by SIGTERM (by the Pool, or by itself).
    mmprof profile --json x.json -- python3 tests/h200/pool_signals.py
"""
import multiprocessing as mp
import os
import signal
import sys

import torch


def masks():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("SigBlk", "SigIgn", "SigCgt")):
                k, v = line.split(":")
                bits = int(v.strip(), 16)
                out[k] = [s for s in (1, 2, 15) if bits & (1 << (s - 1))]
    return out


def work(i):
    torch.cuda.nvtx.range_push(f"worker {i}")
    x = torch.randn(256, 256, device="cuda")
    y = (x @ x).sum().item()
    torch.cuda.nvtx.range_pop()
    return os.getpid(), masks(), str(signal.getsignal(signal.SIGTERM)), y


def main():
    print("parent before pool", masks(), flush=True)
    with mp.get_context("fork").Pool(2) as pool:
        for r in pool.map(work, range(2)):
            print("worker", r[:3], flush=True)
    print("parent after pool", masks(), flush=True)
    if len(sys.argv) > 1 and sys.argv[1] == "self-kill":
        p = mp.get_context("fork").Process(target=lambda: (work(9), os.kill(os.getpid(), signal.SIGTERM)))
        p.start()
        p.join()
        print("self-killed worker exit code", p.exitcode, flush=True)


if __name__ == "__main__":
    main()
