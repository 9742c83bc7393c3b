#!/usr/bin/env bash
# make test-gpu: a real two-rank PyTorch DDP step (examples/torch_ddp.py: NCCL, one GPU a rank,
# rank 1 made slow) profiled both ways, and the rank analysis checked against the program's own
# account: one `mmprof profile` around torchrun (both workers in one run), and torchrun around
# one `mmprof profile --json ddp.%r.json` per rank, merged by `mmprof report ddp.0.json
# ddp.1.json`. Skipped (not passed) without two GPUs or PyTorch. With OUT_DIR, the run files and
# reports stay there (the samples: samples/h200-ddp-*; the merged run file is not kept). One test,
# in cmocka's format.
#   tests/ddp_gpu.sh BUILD_DIR [OUT_DIR]
set -u
build=${1:-build}; bin=$(cd "$(dirname "$build/mmprof")" && pwd)/mmprof
name="two-rank DDP step: profiled both ways, merged, ranks and stragglers"
echo "[ RUN      ] $name"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" -lt 2 ] || ! python3 -c 'import torch, sys; sys.exit(torch.cuda.device_count() < 2)' 2>/dev/null; then
  echo "needs two GPUs and PyTorch (found $gpus GPU(s))"; echo "[  SKIPPED ] $name"; exit 0
fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
d=${2:-$(mktemp -d)}; mkdir -p "$d"
run="python3 -m torch.distributed.run --standalone --nproc_per_node 2"
args=(--slow-rank 1 --steps 5)
ok=1
timeout 120 "$bin" profile --json "$d/h200-ddp-torchrun.json" --text "$d/h200-ddp-torchrun.txt" \
  --html "$d/h200-ddp-torchrun.html" --color never -- $run examples/torch_ddp.py "${args[@]}" \
  --own "$d/h200-ddp-own-torchrun.%r.json" || { echo "profile around torchrun: exit $?"; ok=0; }
timeout 120 $run --no-python "$bin" profile --json "$d/h200-ddp-rank.%r.json" -q -- \
  python3 examples/torch_ddp.py "${args[@]}" --own "$d/h200-ddp-own-rank.%r.json" || { echo "torchrun around profile: exit $?"; ok=0; }
"$bin" report "$d/h200-ddp-rank.0.json" "$d/h200-ddp-rank.1.json" --json "$d/h200-ddp-merged.json" \
  --text "$d/h200-ddp-merged.txt" --html "$d/h200-ddp-merged.html" --csv "$d/h200-ddp-merged.csv" --color never ||
  { echo "report of the two rank files: exit $?"; ok=0; }
[ $ok -eq 1 ] && for way in torchrun merged; do
  own=h200-ddp-own-$([ $way = torchrun ] && echo torchrun || echo rank)
  python3 - "$d/h200-ddp-$way.json" "$d/$own.0.json" "$d/$own.1.json" <<'PY' || ok=0
import json, sys
run = json.load(open(sys.argv[1]))
own = [json.load(open(p)) for p in sys.argv[2:]]
rk = run["analysis"]["ranks"]
rows = rk["rows"]
err = []
if [r["rank"] for r in rows] != [0, 1]:
    err.append("rows are ranks %s, not [0, 1]" % [r["rank"] for r in rows])
pids = {p["pid"]: p.get("rank") for p in run["processes"]}
for o in own:  # the program's own pid and rank are the run's
    if pids.get(o["pid"]) != o["rank"]:
        err.append("rank %d (pid %d) not among the run's processes %s" % (o["rank"], o["pid"], pids))
for r in rows:
    parts = r["compute_pct"] + r["comm_pct"] + r["copy_pct"] + r["idle_pct"]
    if abs(parts - 100) > 1e-6: err.append("rank %d: shares sum to %.6f" % (r["rank"], parts))
    if r["nccl_kernels"] < 5: err.append("rank %d: %d NCCL kernels for 5 steps" % (r["rank"], r["nccl_kernels"]))
    if not r["comm_ms"] > 0: err.append("rank %d: no NCCL time" % r["rank"])
if rows[0]["device"] == rows[1]["device"]: err.append("both ranks on GPU %d" % rows[0]["device"])
bw = [s for s in rk["stragglers"] if s["name"] == "backward"]
if not bw or bw[0]["last_rank"] != 1 or bw[0]["matched"] != 5:
    err.append("backward's straggler: %s (rank 1 is the slow one)" % bw)
f = lambda v: "n/a" if v is None else "%.1f" % v
for r in rows:
    print("%s rank %d GPU %d: busy %.1f%% compute %.1f%% comm %.1f%% copies %.1f%% idle %.1f%% hidden %s%% skew %s us" % (
        sys.argv[1].split("/")[-1], r["rank"], r["device"], r["busy_pct"], r["compute_pct"], r["comm_pct"],
        r["copy_pct"], r["idle_pct"], f(r["overlap_pct"]), f(r["coll_skew_us"])))
if bw: print("backward: last rank %d, median lag %.3f ms, max %.3f ms" % (bw[0]["last_rank"], bw[0]["median_lag_ms"], bw[0]["max_lag_ms"]))
print("\n".join(err))
sys.exit(1 if err else 0)
PY
done
# The merged run is the two rank files again: not kept as a sample. The run files kept are
# xz-compressed (about 8x smaller), as the other large samples are.
if [ -z "${2:-}" ]; then rm -rf "$d"; else
  rm -f "$d/h200-ddp-merged.json"
  xz -9 -f "$d/h200-ddp-torchrun.json" "$d/h200-ddp-rank.0.json" "$d/h200-ddp-rank.1.json"
fi
if [ $ok -eq 1 ]; then echo "[       OK ] $name"; exit 0; fi
echo "[  FAILED  ] $name"; exit 1
