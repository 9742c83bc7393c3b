"""CUDA start-up: the work begins before the program's first CUDA call, so creating the context is
inside it (examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json cuda_init.json -- python3 examples/causes/cuda_init.py --own own.json
"""
import torch

from own import Account, parser


def main():
    o = parser(__doc__).parse_args()
    acc = Account("cuda_init", "torch_cuda_init")
    with acc.work():
        with acc.spent():
            torch.cuda.init()
        x = torch.ones(16, device="cuda")
        x.add_(1)
    acc.write(o.own)


if __name__ == "__main__":
    main()
