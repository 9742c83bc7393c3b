"""Synchronising: each step waits on its stream while the stream waits on a host function (4 ms of
usleep on the driver's own thread, through cuLaunchHostFunc), so the host synchronises with the GPU
idle (examples/causes/own.py says how the programs keep their own account).

    mmprof profile --json sync.json -- python3 examples/causes/sync.py --own own.json
"""
import ctypes
import time

import torch

from own import Account, parser

# cuLaunchHostFunc(CUstream, void (*)(void *), void *): usleep with the microseconds as its pointer
# argument runs on the driver's callback thread, without Python (no GIL to wait for).
cuda = ctypes.CDLL("libcuda.so.1")
cuda.cuLaunchHostFunc.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
usleep = ctypes.cast(ctypes.CDLL(None).usleep, ctypes.c_void_p)


def main():
    o = parser(__doc__).parse_args()
    acc = Account("sync", "sync")
    x = torch.randn(256, 256, device="cuda")
    stream = torch.cuda.current_stream()
    with acc.work():
        until = time.perf_counter() + o.seconds
        while time.perf_counter() < until:
            x.mul_(0.5)
            if cuda.cuLaunchHostFunc(stream.cuda_stream, usleep, 4000) != 0:
                raise SystemExit("cuLaunchHostFunc failed")
            x.add_(1)
            with acc.spent():
                stream.synchronize()
    acc.write(o.own)


if __name__ == "__main__":
    main()
