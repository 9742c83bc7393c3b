"""Importing: modules imported in the middle of the work, after CUDA started, the GPU idle meanwhile
(examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json imports.json -- python3 examples/causes/imports.py --own own.json
"""
import torch

from own import Account, gpu_step, parser


def main():
    o = parser(__doc__).parse_args()
    acc = Account("import", "python_import")
    x = torch.randn(2048, 2048, device="cuda")
    with acc.work():
        x = gpu_step(x)
        with acc.spent():
            import sympy  # noqa: F401
        with acc.spent():
            import scipy.optimize  # noqa: F401
        x = gpu_step(x)
    acc.write(o.own)


if __name__ == "__main__":
    main()
