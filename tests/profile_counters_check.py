"""make test-gpu (tests/profile_counters_gpu.sh): checks of `mmprof profile --counters` runs of
examples/counter_kernels.

  python3 tests/profile_counters_check.py RUN.json PROGRAM_STDOUT COUNT REGEX
      the program verified its results (the replay left its memory as it made it); COUNT launches
      profiled, each named by REGEX ('' any) and tied to a kernel record of the same name by its
      correlation id; FP32 instruction counts equal to the program's own (exact); every figure
      present except DRAM bytes written (n/a under kernel replay).
  python3 tests/profile_counters_check.py --ncu RUN.json NCU.csv
      per kernel, mmprof's medians against Nsight Compute's on the same program: occupancy and SM
      throughput within 5 points, DRAM bytes read within 5% (or 1 MB), instruction counts within
      0.1%; memory throughput and the hit rates printed beside ncu's.
Prints what it compared; exit 0 when all holds.
"""
import json
import re
import statistics
import sys

import counters_ncu

EXPECT = {"ffma_chain": "ffma", "scale": "fmul", "add_one": "fadd"}


def base(name):
    return counters_ncu.base_name(name)


def check_run(run_path, out_path, count, regex):
    run = json.load(open(run_path))
    out = open(out_path).read()
    ok = True
    if "verified" not in out:
        print("the program did not verify its results under the counters")
        ok = False
    expect = {m.group(1): float(m.group(3)) for m in re.finditer(r"expect (\w+) (\w+) (\d+)", out)}
    lc = run.get("launch_counters", [])
    print("%d launches profiled (expected %d): %s" % (len(lc), count, sorted({base(k["kernel"]) for k in lc})))
    if len(lc) != count:
        ok = False
    kernels = {(k["pid"], k["correlation"]): k["name"] for k in run["events"]["kernels"]}
    # CUPTI gives a replayed launch's kernel record no timestamps: such records are counted, not kept.
    replayed = run["collection"].get("replayed_kernels", 0)
    recorded = sum((k["pid"], k["correlation"]) in kernels for k in lc)
    print("profiled launches with a kernel record: %d, counted as replayed without one: %d" % (recorded, replayed))
    if recorded + replayed != len(lc):
        ok = False
    for k in lc:
        b = base(k["kernel"])
        if regex and not re.search(regex, k["kernel"]):
            print("%s does not match %s" % (k["kernel"], regex))
            ok = False
        rec = kernels.get((k["pid"], k["correlation"]))
        if rec is not None and b not in rec:  # the record's name is mangled
            print("%s: the kernel record of correlation %d is %s" % (b, k["correlation"], rec))
            ok = False
        if b in expect:
            key = EXPECT[b]
            got = k.get(key)
            print("%-12s %s %s, the program says %d" % (b, key, got, expect[b]))
            if got is None or got != expect[b]:
                ok = False
        for key in ("achieved_occupancy_pct", "sm_throughput_pct", "memory_throughput_pct", "dram_read_bytes",
                    "duration_ns"):
            if k.get(key) is None:
                print("%s: %s missing" % (b, key))
                ok = False
        if k.get("dram_write_bytes") is not None:
            print("%s: DRAM bytes written given, expected n/a under kernel replay" % b)
            ok = False
    return ok


def check_ncu(run_path, csv_path):
    run = json.load(open(run_path))
    launches = counters_ncu.read_ncu(csv_path)
    ok = True
    print("%-12s %-22s %12s %12s" % ("kernel", "figure", "mmprof", "ncu"))
    for name in sorted({base(k["kernel"]) for k in run["launch_counters"]}):
        mine = [k for k in run["launch_counters"] if base(k["kernel"]) == name]
        theirs = [l for l in launches.values() if base(l["name"]) == name]
        if not theirs:
            print("%s: no ncu launch" % name)
            ok = False
            continue
        for key, metric in counters_ncu.METRICS.items():
            if key == "dram_write_bytes":
                continue
            a = statistics.median(k[key] for k in mine if k.get(key) is not None)
            b = statistics.median(l[metric] for l in theirs if metric in l)
            note = ""
            if key.endswith("_pct"):
                # Memory throughput is printed, not judged: in kernel replay the restore before each
                # pass is written back while the kernel runs (ncu flushes its caches in between), which
                # lifted it 5.7-6.0 points for kernels streaming 67 MB of writes on the H200.
                good = abs(a - b) <= 5 if key in ("achieved_occupancy_pct", "sm_throughput_pct") else True
                if key == "memory_throughput_pct":
                    note = "  (not judged: kernel replay's restore write-backs)"
            elif key.startswith("dram"):
                good = abs(a - b) <= 0.05 * b or abs(a - b) <= 1e6
            else:
                good = abs(a - b) <= 0.001 * max(b, 1)
            print("%-12s %-22s %12.6g %12.6g%s" % (name, key, a, b, note if good else "  <-- disagrees"))
            ok = ok and good
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "--ncu":
        sys.exit(0 if check_ncu(sys.argv[2], sys.argv[3]) else 1)
    sys.exit(0 if check_run(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]) else 1)
