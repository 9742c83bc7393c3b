"""The PyTorch loop tests/bench_host.py times: a small MLP's training steps (forward, backward on
autograd's thread, SGD), launch-heavy as real training loops are, timing itself. Prints one JSON
line: {"loop_s": seconds of the timed steps, the final synchronisation included, "steps_ms": each
step's time on the host}. A step is timed without a synchronisation of its own: the loop is
launch-bound, so a step's host time is what it costs (and one would change what is measured).

    python3 tests/bench_host_loop.py [--steps N] [--width W]
"""
import argparse
import json
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--width", type=int, default=1024)
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
    t0 = time.perf_counter()
    ends = []
    for _ in range(o.steps):
        step()
        ends.append(time.perf_counter())
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - t0
    steps_ms = [round((b - a) * 1e3, 4) for a, b in zip([t0] + ends[:-1], ends)]
    print(json.dumps({"loop_s": loop_s, "steps_ms": steps_ms}))


if __name__ == "__main__":
    main()
