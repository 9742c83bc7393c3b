#!/usr/bin/env python3
"""N rank files from one recorded run file, as a distributed job of N ranks would leave them:
each copy gets its rank (world size N, 8 ranks a host, host0, host1, ...), its own pids, its
GPU (a PCI bus id per local rank) and its start shifted by rank * SHIFT_US (a rank that starts
late). For the merge's tests and its benchmark (tests/bench_merge.sh).

    tests/rank_files.py BASE.json OUTDIR N [SHIFT_US] [RANKS_PER_HOST]
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    base, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shift_us = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    per_host = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    with open(base) as f:
        run = json.load(f)
    os.makedirs(out, exist_ok=True)
    epoch = int(run["epoch_ns"])
    pids = sorted({p["pid"] for p in run["processes"]})
    for r in range(n):
        d = json.loads(json.dumps(run))
        d.pop("analysis", None)
        d.pop("summary", None)
        d["epoch_ns"] = str(epoch + int(r * shift_us * 1000))
        step = 4000 * (r + 1)  # pids stay below 2^22 for up to ~1000 ranks
        remap = {p: p + step for p in pids}

        def fix(items):
            for it in items:
                if it.get("pid") in remap:
                    it["pid"] = remap[it["pid"]]
        for key in ("kernels", "copies", "memsets", "apis", "syncs"):
            fix(d["events"].get(key, []))
        fix(d["regions"])
        fix(d["threads"])
        fix(d["processes"])
        for p in d["processes"]:
            p.update(rank=r, world_size=n, local_rank=r % per_host, host="host%d" % (r // per_host))
        for dev in d["devices"]:
            dev["pci_bus_id"] = "00000000:%02X:00.0" % (0x10 + r % per_host)
        with open(os.path.join(out, "run.%d.json" % r), "w") as f:
            json.dump(d, f)


if __name__ == "__main__":
    main()
