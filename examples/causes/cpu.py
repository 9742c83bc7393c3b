"""Computing on the host: a pure-Python loop between steps (examples/causes/own.py says how the
programs keep their own account).

    mmprof profile --json cpu.json -- python3 examples/causes/cpu.py --own own.json
"""
import time

import torch

from own import Account, gpu_step, parser


def main():
    o = parser(__doc__).parse_args()
    acc = Account("cpu", "host_cpu")
    x = torch.randn(2048, 2048, device="cuda")
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            x = gpu_step(x)
            with acc.spent():
                total = sum(i * i for i in range(300000))
    acc.write(o.own)
    return total


if __name__ == "__main__":
    main()
