"""A PyTorch training loop that runs for a given time, for issue-23's long-run benchmarks
(tests/long_capture_gpu.sh): forward, backward and an SGD step per iteration inside an NVTX range
named "step" (the same name every step, so `--capture-range nvtx:step` matches each), the host
never waiting on the GPU inside a step.

    python3 tests/long_loop.py --seconds 300 --own own.json

Its own account, written to --own: steps done, the loop's wall time, its step rate in every 10 s
bin (the spread of the rate), its peak RSS (ru_maxrss), and, when it runs under `mmprof profile`,
the size of the record files in MMPROF_PROFILE_DIR when the loop ended (what the launcher will
read back), so a profiled and an unprofiled run are compared by what the program saw.
"""
import argparse
import json
import os
import resource
import time

import torch


def dir_bytes(path):
    total = 0
    for name in os.listdir(path):
        try:
            total += os.path.getsize(os.path.join(path, name))
        except OSError:
            pass
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--width", type=int, default=4096)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--own", required=True)
    o = p.parse_args()
    layers = []
    for _ in range(o.depth):
        layers += [torch.nn.Linear(o.width, o.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(o.batch, o.width, device="cuda")
    y = torch.randn(o.batch, o.width, device="cuda")
    torch.cuda.synchronize()
    bins, steps = [], 0
    t0 = time.perf_counter()
    bin_start, bin_steps = t0, 0
    while True:
        torch.cuda.nvtx.range_push("step")
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()
        steps += 1
        bin_steps += 1
        if steps % 16 == 0:
            now = time.perf_counter()
            if now - bin_start >= 10.0:
                torch.cuda.synchronize()
                now = time.perf_counter()
                bins.append(bin_steps / (now - bin_start))
                bin_start, bin_steps = now, 0
            if now - t0 >= o.seconds:
                break
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    d = os.environ.get("MMPROF_PROFILE_DIR")
    own = {"steps": steps, "loop_s": wall, "steps_per_s": steps / wall, "bin_steps_per_s": bins,
           "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
           "record_bytes": dir_bytes(d) if d and os.path.isdir(d) else None, "loss": float(loss)}
    with open(o.own, "w") as f:
        json.dump(own, f)
    print(json.dumps(own))


if __name__ == "__main__":
    main()
