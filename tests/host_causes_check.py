"""Checks the host lines the injection library wrote while an example ran (tests/host_causes_gpu.sh)
against the example's own account (--own / OUT.json). Reads the record streams themselves (the
collection side's output, before any reader or analysis) with tests/host_stream.py; native frames
are named here with addr2line (module + offset). Prints one line per check; exit 1 when any failed.

    python3 tests/host_causes_check.py gaps|loop|numba STREAM_DIR|STREAM [OWN.json]

  gaps   (examples/host_gaps.py)  each gap's samples name its cause: the sleeping line in main
         (thread state S) or a line of cpu_work (running, holding the GIL); the sampler's looks
         without the GIL (where the stream has its samplestat line); the matmul kernels' call
         sites are at launch_matmul's line, in Python, though PyTorch launches with the GIL
         released;
  loop   (examples/host_loop.cu)  each gap's CPU samples name burn_cpu; the kernels' call sites
         are at launch_scale's launch line and the pageable copies' at copy_in's line;
  numba  (examples/numba_copies.py)  the largest gap between GPU work holds Python samples in
         numba's compiler (the kernel's first call compiles it).
"""
import collections
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from host_stream import HostStream  # noqa: E402

mode, sdir = sys.argv[1:3]
own = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
ok = True


def expect(what, cond, detail=""):
    global ok
    print(f"  {'ok  ' if cond else 'FAIL'} {what} {detail}")
    ok = ok and bool(cond)


# The process that made the GPU work: the stream with kernels.
paths = [sdir] if os.path.isfile(sdir) else sorted(glob.glob(os.path.join(sdir, "*.stream")))
streams = [HostStream(p) for p in paths]
streams = [s for s in streams if s.kernels] or streams
s = streams[0]
expect("every frame written before the line naming it, once", not s.problems, "; ".join(s.problems[:3]))
expect("a sampler line", bool(s.samplers), f"({s.samplers})")
print(f"  {len(s.frames)} frames, {len(s.sites)} sites, {len(s.samples)} samples, {len(s.kernels)} kernels; "
      f"sampler {s.samplers}; errors {s.errors}")

_names = {}


def native_names(f):
    """[(function, file, line)] of a native frame by addr2line, the functions inlined there first."""
    key = (f["module"], f["offset"])
    if key not in _names:
        chain = []
        if f["module"]:
            try:
                out = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", f["module"], hex(f["offset"])],
                                     capture_output=True, text=True, timeout=30).stdout.split("\n")
                for fn, where in zip(out[0::2], out[1::2]):
                    file, _, line = where.rpartition(":")
                    line = line.split(" ")[0]
                    chain.append((fn if fn != "??" else "", file, int(line) if line.isdigit() else 0))
            except (OSError, subprocess.SubprocessError):
                pass
        _names[key] = chain or [(f["function"], "", 0)]
    return _names[key]


def named_all(f):
    return [(f["function"], f["file"], f["line"])] if f["kind"] == "py" else native_names(f)


def samples_in(t0, t1, source=None):
    return [x for x in s.samples if t0 <= x["ts"] <= t1 and (source is None or x["source"] == source)]


def site_frames(corr):
    return [n for f in s.stack(s.sites.get(corr, 0)) for n in named_all(f)]


def lines_of(path, name):
    """The first and last line of a function of a Python file."""
    import ast
    fn = [n for n in ast.walk(ast.parse(open(path).read())) if isinstance(n, ast.FunctionDef) and n.name == name][0]
    return fn.lineno, fn.end_lineno


if mode == "gaps":
    cpu_lines = lines_of(os.path.join(os.path.dirname(__file__), "..", "examples", "host_gaps.py"), "cpu_work")
    st = s.samplestat
    if st:  # streams recorded before the sampler read Python without the GIL have no such line
        looks = st["without_gil"] + st["with_gil"]
        expect("the sampler's looks without the GIL, but a few", st["with_gil"] <= max(3, 0.05 * looks)
               and st["skipped"] + st["torn"] <= 0.05 * looks, f"({st})")
    for i, g in enumerate(own["gaps"]):
        py = [x for x in samples_in(g["start_ns"], g["end_ns"], "py") if
              any(f["function"] == "main" for f in s.stack(x["node"]))]
        if g["cause"] == "sleep":
            hit = [x for x in py if s.stack(x["node"])[0]["line"] == g["line"] and x["state"] == "S"]
            expect(f"gap {i} (sleep {(g['end_ns'] - g['start_ns']) / 1e6:.0f} ms): main thread sampled sleeping at "
                   f"line {g['line']}", len(hit) >= 0.8 * max(1, len(py)) and len(hit) >= 5, f"({len(hit)} of {len(py)})")
        else:
            # the thread runs Python holding the GIL: read without it, at a line of cpu_work
            hit = [x for x in py if any(f["function"] == "cpu_work" and cpu_lines[0] <= f["line"] <= cpu_lines[1]
                                        for f in s.stack(x["node"])[:2])]
            expect(f"gap {i} (CPU {(g['end_ns'] - g['start_ns']) / 1e6:.0f} ms): main thread sampled in cpu_work, "
                   f"at its lines {cpu_lines}", len(hit) >= 0.8 * max(1, len(py)) and len(hit) >= 5,
                   f"({len(hit)} of {len(py)})")
    # Call sites: every kernel launched from a line of the example (PyTorch's launches run with the
    # GIL released: read without it), the matmuls from launch_matmul's line.
    by_site = collections.Counter()
    for k in s.kernels:
        st = [f for f in s.stack(s.sites.get(k["corr"], 0)) if f["kind"] == "py" and f["file"] == own["file"]]
        by_site[(st[0]["function"], st[0]["line"]) if st else None] += 1
    want = (own["launch"]["function"], own["launch"]["line"])
    print(f"  kernels by innermost line of {os.path.basename(own['file'])}: {dict(by_site)}")
    expect(f"the matmuls launched from {want[0]} line {want[1]}", by_site[want] == own["matmuls"],
           f"({by_site[want]} kernels there, {own['matmuls']} matmuls)")
    expect("every kernel's call site at a line of the example", by_site[None] == 0, f"({by_site[None]} elsewhere)")
elif mode == "loop":
    src = os.path.basename(own["file"])
    for i, g in enumerate(own["gaps"]):
        cpu = samples_in(g["start_ns"], g["end_ns"], "cpu")
        # (gcc names a specialised copy "burn_cpu(double) [clone .constprop.0]")
        hit = [x for x in cpu if any(n[0].startswith("burn_cpu") for n in named_all(s.stack(x["node"])[0]))]
        expect(f"gap {i} ({(g['end_ns'] - g['start_ns']) / 1e6:.0f} ms): CPU samples in burn_cpu",
               len(hit) >= 0.8 * max(1, len(cpu)) and len(hit) >= 5, f"({len(hit)} of {len(cpu)})")

    def user_line(corr):
        """The innermost frame of the example's own source file, past the kernel's launch stub (nvcc
        generates it, named as the kernel, at the kernel's declaration): the function and its name
        without gcc's clone suffixes."""
        for fn, file, line in site_frames(corr):
            if os.path.basename(file) == src and not fn.startswith("scale("):
                return fn.split("(")[0], line
        return None

    lines = collections.Counter(user_line(k["corr"]) for k in s.kernels)
    print(f"  kernels by innermost line of {src}: {dict(lines)}")
    want = (own["launch"]["function"], own["launch"]["line"])
    expect(f"each kernel launched from {want[0]} line {want[1]}", lines[want] == len(s.kernels) == own["steps"],
           f"({lines[want]} of {len(s.kernels)}, {own['steps']} launched)")
    copies = [c for c, a in s.apis.items() if a["name"].startswith("cudaMemcpy")]
    clines = collections.Counter(user_line(c) for c in copies)
    print(f"  copies by innermost line of {src}: {dict(clines)}")
    want = (own["copy"]["function"], own["copy"]["line"])
    expect(f"each pageable copy made at {want[0]} line {want[1]}", clines[want] == len(copies) == own["steps"] + 1,
           f"({clines[want]} of {len(copies)})")
elif mode == "numba":
    busy = sorted((k["start"], k["end"]) for k in s.kernels)
    busy += sorted((c["start"], c["end"]) for c in getattr(s, "copies", []))
    busy.sort()
    gaps = [(busy[i][1], busy[i + 1][0]) for i in range(len(busy) - 1) if busy[i + 1][0] > busy[i][1]]
    t0, t1 = max(gaps, key=lambda g: g[1] - g[0])
    py = samples_in(t0, t1, "py")
    comp = [x for x in py if any("numba" in f["file"] and "compiler" in f["file"] for f in s.stack(x["node"]))]
    in_numba = [x for x in py if any("numba" in f["file"] for f in s.stack(x["node"]))]
    tops = collections.Counter(next((f"{f['function']} ({os.path.basename(f['file'])})" for f in s.stack(x["node"])
                                     if "numba" in f["file"]), "-") for x in py)
    print(f"  largest gap {(t1 - t0) / 1e6:.0f} ms; innermost numba frames of its samples: {tops.most_common(4)}")
    expect("the largest gap's samples are in numba's compiler", len(comp) >= 0.5 * max(1, len(py)) and len(comp) >= 5,
           f"({len(comp)} of {len(py)} Python samples; {len(in_numba)} in numba)")
sys.exit(0 if ok else 1)
