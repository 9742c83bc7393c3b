#!/usr/bin/env python3
"""Records one PyTorch profiler (Kineto) trace per rank of a two-rank DDP job, for mmprof's Kineto
importer and its rank analysis (`mmprof import rank0 rank1`).

    torchrun --nproc_per_node 2 tests/h200/record_kineto_ddp.py OUT_DIR

Each rank (one GPU each, NCCL) runs a small MLP's DDP training steps, the gradients all-reduced
during the backward pass, under torch.profiler, and writes OUT_DIR/h200-ddp-rank<R>.kineto.json
with export_chrome_trace. Since torch.distributed is initialised, torch.profiler puts a top-level
"distributedInfo" (backend, rank, world_size, ...) in each trace: the script reads it back from
the file and refuses to finish without it. Ranges "forward", "backward", "optimizer" inside the
profiler's own ProfilerStep#N. A few steps (well under 30 s, each trace well under 3 MB).

NVLink SHARP / multicast stay off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1), set here before torch loads so that the command alone is enough.
"""
import json
import os
import sys

for _name, _value in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                      ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[_name] = _value

import torch  # noqa: E402  (after the environment above)
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

WIDTH, LAYERS, BATCH, STEPS = 1024, 4, 1024, 3


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: torchrun --nproc_per_node 2 record_kineto_ddp.py OUT_DIR")
    if "RANK" not in os.environ or "LOCAL_RANK" not in os.environ:
        sys.exit("record_kineto_ddp.py: no RANK/LOCAL_RANK: run it under torchrun --nproc_per_node 2")
    out_dir = sys.argv[1]
    rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    if not torch.cuda.is_available() or torch.cuda.device_count() <= local:
        sys.exit(f"record_kineto_ddp.py: rank {rank} needs GPU {local}; "
                 f"{torch.cuda.device_count()} visible")
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    os.makedirs(out_dir, exist_ok=True)

    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU()) for _ in range(LAYERS)]).to(dev)
    ddp = DDP(model, device_ids=[local])
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(BATCH, WIDTH, device=dev)
    y = torch.randn(BATCH, WIDTH, device=dev)

    def step():
        with record_function("forward"):
            loss = nn.functional.mse_loss(ddp(x), y)
        with record_function("backward"):
            opt.zero_grad(set_to_none=True)
            loss.backward()
        with record_function("optimizer"):
            opt.step()
        torch.cuda.synchronize()

    step()  # warm-up outside the profiler: NCCL communicators, cuBLAS handles
    dist.barrier()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(STEPS):
            step()
            prof.step()
    path = os.path.join(out_dir, f"h200-ddp-rank{rank}.kineto.json")
    prof.export_chrome_trace(path)
    dist.barrier()
    dist.destroy_process_group()

    with open(path) as f:
        info = json.load(f).get("distributedInfo")
    size = os.path.getsize(path)
    print(f"rank {rank}: {path}: {size / 1e6:.2f} MB, distributedInfo {json.dumps(info)}")
    if not info or info.get("rank") != rank:
        sys.exit(f"{path}: no distributedInfo with rank {rank} in the trace")
    if size > 3e6:
        sys.exit(f"{path}: larger than 3 MB; record fewer steps")


if __name__ == "__main__":
    main()
