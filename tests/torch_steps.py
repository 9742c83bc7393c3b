"""A PyTorch loop for tests/capture_rss_gpu.sh: steps of eight 2048x2048 matmuls with ReLU, each an
NVTX range "step", the GPU kept busy (a synchronize every 50 steps only), for SECONDS seconds.
Prints "steps N vmhwm_kb K": the steps done and the process's peak resident memory (VmHWM), which
with and without `mmprof profile` gives what the injection library costs in memory. With "nosync"
it never synchronizes, so the GPU's queue stays full (kernels in flight whenever it is killed).
  python3 tests/torch_steps.py SECONDS [nosync]"""
import sys
import time

import torch


def vmhwm_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    sync = not (len(sys.argv) > 2 and sys.argv[2] == "nosync")
    x = torch.randn(2048, 2048, device="cuda")
    w = torch.randn(2048, 2048, device="cuda") / 64
    steps = 0
    end = time.time() + seconds
    while time.time() < end:
        torch.cuda.nvtx.range_push("step")
        for _ in range(8):
            x = torch.relu(x @ w) * 0.5 + 0.1
        torch.cuda.nvtx.range_pop()
        steps += 1
        if steps % 50 == 0:
            if sync:
                torch.cuda.synchronize()
            print("at", steps, flush=True)
    torch.cuda.synchronize()
    print("steps", steps, "vmhwm_kb", vmhwm_kb(), flush=True)


if __name__ == "__main__":
    main()
