"""File I/O: a checkpoint of 256 MB written with torch.save at every step, the GPU idle meanwhile
(examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json checkpoint.json -- python3 examples/causes/checkpoint.py --own own.json
"""
import os
import tempfile
import time

import torch

from own import Account, gpu_step, parser


def main():
    o = parser(__doc__).parse_args()
    acc = Account("io", "checkpoint_io")
    state = {"weights": torch.randn(64 << 20)}  # 256 MB on the host
    x = torch.randn(2048, 2048, device="cuda")
    with tempfile.TemporaryDirectory() as tmp, acc.work():
        path = os.path.join(tmp, "checkpoint.pt")
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            x = gpu_step(x)
            with acc.spent():
                torch.save(state, path)
    acc.write(o.own)


if __name__ == "__main__":
    main()
