"""Waiting for input: a training loop fed by a DataLoader whose two workers do CPU work per item,
so each step waits in next(it) while the GPU idles (examples/causes/own.py says how the programs
keep their own account; `--own F` writes it).

    mmprof profile --json input.json -- python3 examples/causes/input.py --own own.json
"""
import time

import torch
from torch.utils.data import DataLoader, Dataset

from own import Account, gpu_step, parser


class Slow(Dataset):
    """Items that take CPU work to make: 4 ms each in a worker."""

    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        until = time.perf_counter() + 0.004
        while time.perf_counter() < until:
            pass
        return torch.full((256,), float(i % 7))


def main():
    o = parser(__doc__).parse_args()
    acc = Account("input", "dataloader")
    x = torch.randn(2048, 2048, device="cuda")
    loader = DataLoader(Slow(), batch_size=16, num_workers=2)
    it = iter(loader)
    next(it)  # the workers started
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            with acc.spent():
                batch = next(it)
            x = gpu_step(x) + batch.mean().item() * 0
    acc.write(o.own)


if __name__ == "__main__":
    main()
