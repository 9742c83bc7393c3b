"""Waiting on another thread: each step waits for a worker thread that computes 30 ms on the CPU
before it hands its result over (examples/causes/own.py says how the programs keep their own
account).

    mmprof profile --json lock.json -- python3 examples/causes/lock.py --own own.json
"""
import threading
import time

import torch

from own import Account, gpu_step, parser


def worker(ready, stop):
    while not stop.is_set():
        until = time.perf_counter() + 0.03
        acc = 0
        while time.perf_counter() < until:
            acc += 1
        ready.set()
        time.sleep(0.001)


def main():
    o = parser(__doc__).parse_args()
    acc = Account("lock", "thread_wait")
    x = torch.randn(2048, 2048, device="cuda")
    ready, stop = threading.Event(), threading.Event()
    t = threading.Thread(target=worker, args=(ready, stop), daemon=True)
    t.start()
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            with acc.spent():
                ready.wait()
            ready.clear()
            x = gpu_step(x)
    stop.set()
    acc.write(o.own)


if __name__ == "__main__":
    main()
