#!/usr/bin/env bash
# Renders every committed sample through one mmprof binary, the way the committed outputs were
# made: each run file alone (mmprof report), the ranks of one job merged, each PyTorch trace
# imported, and the two Kineto rank traces merged. For each: the JSON, text, CSV, HTML and Markdown.
#   tests/render_samples.sh MMPROF OUT_DIR
# Used to check a change of the model or the report against the binary before it
# (tests/json_diff.py OLD_DIR NEW_DIR compares the JSONs key by key), to make the committed outputs
# again (copy each NAME.txt, .html and .csv that samples/ holds from OUT_DIR), and by
# tests/consistency.sh (make test), which reads every output against the others.
set -euo pipefail
bin=$1 out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unxz() { xz -dc "samples/$1.json.xz" >"$tmp/$1.json"; echo "$tmp/$1.json"; }
render() { # NAME VERB FILES...
  local name=$1 verb=$2; shift 2
  "$bin" "$verb" "$@" --json "$out/$name.json" --text "$out/$name.txt" --csv "$out/$name.csv" \
    --html "$out/$name.html" --md "$out/$name.md" -q 2>"$out/$name.stderr" || echo "$name: exit $?" >&2
}
for f in h200-2048 h200-2048-counters h200-512-under-ncu h200-512-under-nsys h200-profile-counters \
         h200-profile-cuda h200-profile-numba h200-profile-torch h200-profile-train h200-profile-host-gaps \
         h200-profile-host-loop h200-profile-capture; do
  render "$f" report "samples/$f.json"
done
for f in h200-sweep-64-8192 h200x2-devices-2048 h200-ddp-torchrun; do
  render "$f" report "$(unxz "$f")"
done
render h200-ddp-merged report "$(unxz h200-ddp-rank.0)" "$(unxz h200-ddp-rank.1)"
for f in h200-matmul-copies h200-train-step h200-train h200-ddp-rank0 h200-ddp-rank1; do
  render "$f.kineto" import "samples/$f.kineto.json"
done
render h200-ddp-kineto-merged import samples/h200-ddp-rank0.kineto.json samples/h200-ddp-rank1.kineto.json
