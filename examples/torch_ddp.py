"""A two-rank (or N-rank) PyTorch DDP training step for `mmprof profile`: one GPU per rank, NCCL
all-reduce of the gradients overlapped with the backward pass, each step inside NVTX ranges.

Both ways of profiling a distributed job:
    mmprof profile --json ddp.json -- torchrun --nproc_per_node 2 examples/torch_ddp.py
    torchrun --nproc_per_node 2 $(which mmprof) profile --json ddp.%r.json -- python3 examples/torch_ddp.py

--slow-rank R gives rank R extra matmuls before each backward pass, so it reaches every step's end
last (a known straggler to compare mmprof's straggler figure with). --own F writes the rank's own
account (pid, rank, world size, host, steps, per-step time by cudaEvent) as JSON; %r in F is the
rank.
"""
import argparse
import json
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--width", type=int, default=4096)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--own", default="")
    a = p.parse_args()

    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)

    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(a.width, a.width), nn.ReLU()) for _ in range(a.layers)]).to(dev)
    ddp = DDP(model, device_ids=[local], bucket_cap_mb=25)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(a.batch, a.width, device=dev)
    y = torch.randn(a.batch, a.width, device=dev)
    extra = torch.randn(a.width, a.width, device=dev)

    step_ms = []
    for step in range(a.steps):
        dist.barrier()
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        torch.cuda.nvtx.range_push(f"step {step}")
        torch.cuda.nvtx.range_push("forward")
        loss = nn.functional.mse_loss(ddp(x), y)
        torch.cuda.nvtx.range_pop()
        if rank == a.slow_rank:
            torch.cuda.nvtx.range_push("extra work")
            for _ in range(20):
                extra = torch.tanh(extra @ extra)
            torch.cuda.synchronize()  # the rank's CPU, and so its next ranges, start late
            torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("backward")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("optimizer")
        opt.step()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        t1.record()
        t1.synchronize()
        step_ms.append(t0.elapsed_time(t1))

    dist.barrier()
    dist.destroy_process_group()
    if a.own:
        own = {"pid": os.getpid(), "rank": rank, "world_size": world, "local_rank": local,
               "host": socket.gethostname(), "steps": a.steps, "slow_rank": a.slow_rank,
               "step_ms": step_ms, "end_unix_s": time.time()}
        with open(a.own.replace("%r", str(rank)), "w") as f:
            json.dump(own, f)
    print(f"rank {rank}/{world}: {a.steps} steps, median {sorted(step_ms)[len(step_ms) // 2]:.2f} ms")


if __name__ == "__main__":
    main()
