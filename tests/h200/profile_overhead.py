#!/usr/bin/env python3
"""The cost of being profiled, measured side by side in one run (`make bench` on a GPU machine):
tests/h200/profile_loop.py plain, under `mmprof profile`, and under torch.profiler, in alternating
rounds, wall time of each whole process. Prints medians with their spread, mmprof's and
torch.profiler's added wall time in %, and the time from the program's exit to mmprof's report
on disk.

    python3 tests/h200/profile_overhead.py BUILD_DIR [ROUNDS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env=None):
    t0 = time.time()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.time() - t0, time.time()


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    loop = [sys.executable, "tests/h200/profile_loop.py"]
    tmp = tempfile.mkdtemp()
    stamp = os.path.join(tmp, "exit")
    runs = {"plain": [], "mmprof": [], "torch.profiler": []}
    exit_to_report = []
    timed(loop + ["--steps", "20"])  # warm the page cache and the GPU
    for r in range(rounds):
        order = ["plain", "mmprof", "torch.profiler"]
        order = order[r % 3:] + order[:r % 3]
        for kind in order:
            if kind == "plain":
                wall, _ = timed(loop)
            elif kind == "torch.profiler":
                wall, _ = timed(loop + ["--torch-profiler"])
            else:
                out = os.path.join(tmp, "p.json")
                wall, done = timed([f"{build}/mmprof", "profile", "--json", out, "--text", os.devnull, "--"]
                                   + loop + ["--exit-stamp", stamp])
                exit_to_report.append(done - float(open(stamp).read()))
            runs[kind].append(wall)
    med = {k: statistics.median(v) for k, v in runs.items()}
    for k, v in runs.items():
        print(f"{k:15s} median {med[k]:.3f} s  (min {min(v):.3f}, max {max(v):.3f}, {len(v)} runs)")
    for k in ("mmprof", "torch.profiler"):
        print(f"{k} adds {100 * (med[k] - med['plain']) / med['plain']:+.1f}% of wall time")
    print(f"program exit to mmprof's report on disk: median {1000 * statistics.median(exit_to_report):.0f} ms "
          f"(min {1000 * min(exit_to_report):.0f}, max {1000 * max(exit_to_report):.0f})")


if __name__ == "__main__":
    main()
