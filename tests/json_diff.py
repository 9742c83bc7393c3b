#!/usr/bin/env python3
"""Compares the JSON files of two folders key by key (tests/render_samples.sh makes them).

    tests/json_diff.py OLD_DIR NEW_DIR [--rel 1e-9] [--max 40]

Every path present in either file is compared: numbers within a relative tolerance, everything
else exactly; list elements by position. Prints one line per difference, `path: old -> new`
(`<absent>` where one side lacks the key), per file, and a count. Exit 0 when nothing differs.

A change that moves a figure on purpose (the schema's layout, a renamed key) is told apart by
RENAMES below: each (old path pattern, new path) pair maps an old key's path onto the new one
before comparing, so only changed *values* are reported. Keep it to moves: a renamed key whose
value changed is a difference and must be listed in the change's note.
"""
import json
import math
import re
import sys

# (regular expression over an old path, replacement): applied in order to every old path.
RENAMES = [
    # the per-product ratio has a key of its own since the region's is a different sum
    (r"^(builtin\.workloads\[\d+\]\.metrics\.(not_available\.)?)copy_compute_ratio$", r"\1copy_compute_ratio_per_product"),
]


def migrate_v2(d):
    """A schema_version 2 document laid out as version 3 writes it, values untouched: the
    built-in run's settings, BLAS, tool phases, workloads and peer matrix under "builtin", the
    counters' settings under "counters", and each workload's events in the one event store after
    the run's own, owned by the workload's region (as the reader adopts them)."""
    if d.get("schema_version") != 2:
        return d
    out = {}
    cfg = d.get("config", {})
    host = d.get("host", {})
    counters = {}
    for old, new in (("counters", "asked"), ("counter_passes", "passes"), ("counters_why", "why"),
                     ("counter_kernels", "kernels"), ("counter_max", "max")):
        if old in cfg:
            counters[new] = cfg.pop(old)
    if "launch_counters" in d:
        counters["asked"] = True
    regions = d.get("regions", [])
    events = d.get("events", {})
    for i, w in enumerate(d.get("workloads", [])):
        owner = next((g for g, r in enumerate(regions) if r.get("kind") == "workload" and r.get("workload") == i), 0)
        w["region"] = owner if owner else -1
        for old, new in (("kernels", "kernels"), ("copies", "copies"), ("memsets", "memsets"),
                         ("api_calls", "apis"), ("syncs", "syncs")):
            for e in w.pop(old, []):
                if owner:
                    e["region"] = owner
                events.setdefault(new, []).append(e)
    for k, v in d.items():
        if k in ("config", "host", "gpu_skip_reason", "tool_phases", "workloads", "multi_gpu", "events"):
            continue
        out[k] = v
    out["schema_version"] = 3
    if d.get("source") == "builtin":
        b = {"config": cfg, "blas": {k[5:]: host.pop(k) for k in list(host) if k.startswith("blas_")},
             "gpu_skip_reason": d.get("gpu_skip_reason"), "tool_phases": d.get("tool_phases"),
             "workloads": d.get("workloads")}
        if "multi_gpu" in d:
            b["multi_gpu"] = d["multi_gpu"]
        out["builtin"] = b
    if d.get("source") in ("builtin", "profile") or any(v for k, v in host.items() if not k.startswith("blas_")):
        out["host"] = {k: v for k, v in host.items() if not k.startswith("blas_")}
    if counters.get("asked"):
        counters.setdefault("passes", None)
        counters.setdefault("why", None)
        counters.setdefault("kernels", "")
        counters.setdefault("max", None)
        out["counters"] = counters
    out["events"] = events
    return out


# The event store in columns (src/model/event_columns.h, runs of 100,000 events or more) as the
# rows a shorter run writes, so the two forms compare event by event.
COPY_DIRS = {0: "other", 1: "HtoD", 2: "DtoH", 8: "DtoD", 9: "HtoH", 10: "PtoP"}
MEM_KINDS = ["unknown", "pageable", "pinned", "device", "array", "managed"]
SYNC_KINDS = ["unknown", "event", "stream-wait-event", "stream", "context"]


def rows_of_columns(d):
    e = d.get("events")
    if not isinstance(e, dict) or e.get("form") != "columns":
        return d
    names = e["names"]
    out = {}
    for kind in ("kernels", "copies", "memsets", "apis", "syncs"):
        c = e[kind]
        rows, start, corr = [], 0, 0
        for i in range(len(c["start_ns"])):
            start += c["start_ns"][i]
            corr += c["correlation"][i]
            r = {"start_ns": start, "end_ns": start + c["dur_ns"][i], "pid": c["pid"][i], "correlation": corr}
            if kind == "kernels":
                r.update(name=names[c["name"][i]], device=c["device"][i], stream=c["stream"][i],
                         grid=[c["grid_x"][i], c["grid_y"][i], c["grid_z"][i]],
                         block=[c["block_x"][i], c["block_y"][i], c["block_z"][i]])
                known = c["registers"][i] >= 0
                r.update(registers=c["registers"][i] if known else None,
                         static_smem=c["static_smem"][i] if known else None,
                         dynamic_smem=c["dynamic_smem"][i] if known else None)
                if known:
                    r.update(smem_optin=bool(c["smem_optin"][i]), local_mem=c["local_mem"][i])
            elif kind == "copies":
                r.update(dir=COPY_DIRS.get(c["dir"][i], "other"), src=MEM_KINDS[c["src"][i]],
                         dst=MEM_KINDS[c["dst"][i]], bytes=c["bytes"][i], device=c["device"][i], stream=c["stream"][i])
            elif kind == "memsets":
                r.update(mem=MEM_KINDS[c["mem"][i]], bytes=c["bytes"][i], device=c["device"][i], stream=c["stream"][i])
            elif kind == "apis":
                r.update(name=names[c["name"][i]], kind="driver" if c["kind"][i] else "runtime", thread=c["thread"][i])
            else:
                r.update(kind=SYNC_KINDS[c["kind"][i]], thread=c["thread"][i], stream=c["stream"][i])
            if c["region"][i]:
                r["region"] = c["region"][i]
            rows.append(r)
        out[kind] = rows
    d["events"] = out
    return d


def flatten(v, path, out):
    if isinstance(v, dict):
        if not v:
            out[path] = {}
        for k, x in v.items():
            flatten(x, f"{path}.{k}" if path else k, out)
    elif isinstance(v, list):
        if not v:
            out[path] = []
        for i, x in enumerate(v):
            flatten(x, f"{path}[{i}]", out)
    else:
        out[path] = v


def rename(path):
    for pat, rep in RENAMES:
        path = re.sub(pat, rep, path)
    return path


def same(a, b, rel):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return True
        if math.isnan(a) and math.isnan(b):
            return True
        return abs(a - b) <= rel * max(abs(a), abs(b))
    return a == b


def short(v):
    s = json.dumps(v)
    return s if len(s) <= 100 else s[:97] + "..."


def main():
    args = sys.argv[1:]
    rel, most = 1e-9, 40
    if "--rel" in args:
        i = args.index("--rel"); rel = float(args[i + 1]); del args[i:i + 2]
    if "--max" in args:
        i = args.index("--max"); most = int(args[i + 1]); del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    import os
    old_dir, new_dir = args
    names = sorted(n for n in set(os.listdir(old_dir)) | set(os.listdir(new_dir)) if n.endswith(".json"))
    total = 0
    for name in names:
        po, pn = os.path.join(old_dir, name), os.path.join(new_dir, name)
        if not os.path.exists(po) or not os.path.exists(pn):
            print(f"{name}: only in {'new' if os.path.exists(pn) else 'old'}")
            total += 1
            continue
        a, b = {}, {}
        flatten(rows_of_columns(migrate_v2(json.load(open(po)))), "", a)
        flatten(rows_of_columns(json.load(open(pn))), "", b)
        a = {rename(k): v for k, v in a.items()}
        diffs = []
        for k in sorted(set(a) | set(b)):
            if k not in a:
                diffs.append(f"{k}: <absent> -> {short(b[k])}")
            elif k not in b:
                diffs.append(f"{k}: {short(a[k])} -> <absent>")
            elif not same(a[k], b[k], rel):
                diffs.append(f"{k}: {short(a[k])} -> {short(b[k])}")
        if diffs:
            print(f"== {name}: {len(diffs)} differences")
            for d in diffs[:most]:
                print("  " + d)
            if len(diffs) > most:
                print(f"  ... {len(diffs) - most} more")
        total += len(diffs)
    print(f"{total} differences in {len(names)} files")
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
