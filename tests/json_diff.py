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
RENAMES = []


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
        flatten(json.load(open(po)), "", a)
        flatten(json.load(open(pn)), "", b)
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
