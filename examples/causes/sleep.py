"""Sleeping: a loop that sleeps 50 ms between steps (examples/causes/own.py says how the programs
keep their own account).

    mmprof profile --json sleep.json -- python3 examples/causes/sleep.py --own own.json
"""
import time

import torch

from own import Account, gpu_step, parser


def main():
    o = parser(__doc__).parse_args()
    acc = Account("sleep", "sleep")
    x = torch.randn(2048, 2048, device="cuda")
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            x = gpu_step(x)
            with acc.spent():
                time.sleep(0.05)
    acc.write(o.own)


if __name__ == "__main__":
    main()
