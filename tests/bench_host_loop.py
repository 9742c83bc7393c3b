"""The PyTorch loop tests/bench_host.py times: a small MLP's training steps (forward, backward on
autograd's thread, SGD), launch-heavy as real training loops are, timing itself. Prints one JSON
line: {"loop_s": seconds of the timed steps, the final synchronisation included, "steps_ms": each
step's time on the host}. A step is timed without a synchronisation of its own: the loop is
launch-bound, so a step's host time is what it costs (and one would change what is measured).

With --ab PATH (tests/bench_host_ab.py: the library's MMPROF_AB_FILE names the same path) it runs
for --seconds in blocks of --block steps, pairs of blocks with PATH absent ("on": sampling and
call sites as asked) and present ("off"), in a random order within each pair, and prints
{"blocks": [{"on", "toggle_ns": when PATH was made or removed (CLOCK_REALTIME, the stream's
clock), "starts_us": each step's start after it, "steps_ms"}, ...]}: each block's steps, for the
benchmark to keep those that began after the library's switch.

    python3 tests/bench_host_loop.py [--steps N] [--width W]
    python3 tests/bench_host_loop.py --ab PATH [--block N] [--seconds S] [--seed K] [--width W]
"""
import argparse
import json
import os
import random
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--ab")
    p.add_argument("--block", type=int, default=12)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--seed", type=int, default=1)
    o = p.parse_args()
    dev = torch.device("cuda")
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(o.width, o.width), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(o.width, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, o.width, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(20):  # warm-up: cuBLAS handles, the caching allocator
        step()
    torch.cuda.synchronize()
    if o.ab:
        print(json.dumps({"blocks": ab_blocks(o, step)}))
        return
    t0 = time.perf_counter()
    ends = []
    for _ in range(o.steps):
        step()
        ends.append(time.perf_counter())
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - t0
    steps_ms = [round((b - a) * 1e3, 4) for a, b in zip([t0] + ends[:-1], ends)]
    print(json.dumps({"loop_s": loop_s, "steps_ms": steps_ms}))


def ab_blocks(o, step):
    """Pairs of blocks, on and off in a random order, until --seconds have passed."""
    rng = random.Random(o.seed)
    blocks = []
    until = time.perf_counter() + o.seconds
    while time.perf_counter() < until:
        for on in rng.sample([True, False], 2):
            if on:
                if os.path.exists(o.ab):
                    os.unlink(o.ab)
            else:
                open(o.ab, "w").close()
            toggle = time.time_ns()
            starts, steps = [], []
            for _ in range(o.block):
                a = time.perf_counter_ns()
                starts.append(time.time_ns())
                step()
                steps.append((time.perf_counter_ns() - a) / 1e6)
            blocks.append({"on": on, "toggle_ns": toggle, "starts_us": [round((x - toggle) / 1e3) for x in starts],
                           "steps_ms": [round(x, 4) for x in steps]})
    torch.cuda.synchronize()
    if os.path.exists(o.ab):
        os.unlink(o.ab)
    return blocks


if __name__ == "__main__":
    main()
