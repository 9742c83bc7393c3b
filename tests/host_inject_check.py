"""Checks the stream tests/host_inject_program.py (python mode) or tests/host_probe_main (c mode)
wrote under the injection library's host parts. Prints one line per check; exit 1 when any failed.

    python3 tests/host_inject_check.py python STREAM OWN.json
    python3 tests/host_inject_check.py c STREAM PROGRAM
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from host_stream import HostStream  # noqa: E402

mode, path = sys.argv[1:3]
s = HostStream(path)
ok = True


def expect(what, cond, detail=""):
    global ok
    print(f"  {'ok  ' if cond else 'FAIL'} {what} {detail}")
    ok = ok and bool(cond)


expect("every frame written before the line naming it, once", not s.problems, "; ".join(s.problems[:3]))
expect("one sampler line", len(s.samplers) == 1, f"({s.samplers})")
sampler = s.samplers[0] if s.samplers else {"mechanism": "", "hz": 0, "detail": ""}

if mode == "python":
    own = json.load(open(sys.argv[3]))
    expect("both mechanisms", sampler["mechanism"] == "python-wall+cpu-timer" and sampler["hz"] == 200, f"({sampler})")
    for corr, want in own["sites"].items():
        corr = int(corr)
        st = s.stack(s.sites.get(corr, 0))
        inner = st[0] if st else {}
        if corr == 2:  # before the layout check: a Python or a native stack, but a stack
            expect(f"site {corr}: a stack", bool(st), f"({inner.get('kind')} {inner.get('function')})")
            continue
        expect(f"site {corr} ({'with' if want['gil'] else 'without'} the GIL): innermost frame {want['function']} line "
               f"{want['line']}", inner.get("kind") == "py" and inner.get("function") == want["function"]
               and inner.get("line") == want["line"] and inner.get("file") == own["file"],
               f"(got {inner.get('kind')} {inner.get('function')} {inner.get('file')}:{inner.get('line')})")
        if want.get("deep"):
            outer = [f["function"] for f in st[-3:]]
            expect(f"site {corr}: 48 frames kept, the outermost ones among them", len(st) == 48 and
                   outer == ["launch_deep", "main", "<module>"], f"({len(st)} frames, outermost {outer})")
            continue
        expect(f"site {corr}: called from main", len(st) > 1 and st[1]["function"] == "main", "")

    def during(name):
        t0, t1 = own["spans"][name]
        return [x for x in s.samples if t0 * 1e9 <= x["ts"] <= t1 * 1e9]

    def names(x):
        return [f["function"] for f in s.stack(x["node"])]

    py_spin = [x for x in during("spin_python") if x["source"] == "py" and x["tid"] == os.getpid() or
               x["source"] == "py" and "spin_python" in names(x)]
    hit = [x for x in py_spin if "spin_python" in names(x)]
    expect("Python samples name spin_python while it ran", len(hit) >= 0.5 * max(1, len(py_spin)) and len(hit) >= 10,
           f"({len(hit)} of {len(py_spin)})")
    expect("... running (R)", sum(x["state"] == "R" for x in hit) >= 0.7 * max(1, len(hit)),
           f"({[x['state'] for x in hit][:10]})")
    sleeping = [x for x in during("sleep") if x["source"] == "py" and "main" in names(x)]
    at_line = [x for x in sleeping if s.stack(x["node"])[0]["line"] == own["sleep_line"]]
    expect("Python samples during time.sleep at its line, sleeping (S)",
           len(at_line) >= 10 and sum(x["state"] == "S" for x in at_line) >= 0.9 * len(at_line),
           f"({len(at_line)} at line {own['sleep_line']}, states {sorted(set(x['state'] for x in at_line))})")
    # What Python tells of itself (inject_pyhooks.c): the sleep, through the library's wrapper
    # of time.sleep, at its line, as long as it slept; the full collection, from gc.callbacks,
    # at its line.
    def hspans(name, span):
        t0, t1 = own["spans"][span]
        return [h for h in s.hspans if h["name"] == name and t0 * 1e9 - 1e6 <= h["start"] <= t1 * 1e9]

    if tuple(own["version"]) >= (3, 11):
        z = hspans("time.sleep", "sleep")
        at = [s.stack(h["node"])[0] for h in z if h["node"]]
        t0, t1 = own["spans"]["sleep"]
        expect("the sleep as an hspan at its line, inside its own time and at least 0.4 s",
               len(z) == 1 and at and at[0]["line"] == own["sleep_line"] and z[0]["end"] - z[0]["start"] >= 0.4e9
               and z[0]["end"] <= t1 * 1e9 + 1e6, f"({z}, {at})")
        g = hspans("gc", "gc")
        at = [s.stack(h["node"])[0] for h in g if h["node"]]
        t0, t1 = own["spans"]["gc"]
        expect("the full collection as an hspan at its line, inside gc.collect's time",
               len(g) >= 1 and at and at[0]["line"] == own["gc_line"] and g[0]["end"] <= t1 * 1e9 + 1e6,
               f"({g}, {at})")
    cpu = [x for x in during("probe_burn") if x["source"] == "cpu"]
    burn = [x for x in cpu if names(x) and names(x)[0] == "probe_burn"]
    expect("CPU samples during probe_burn name it", len(burn) >= 20 and len(burn) >= 0.5 * len(cpu),
           f"({len(burn)} of {len(cpu)} CPU samples)")
    # The span opens a few Python lines before the sleep itself: a CPU timer that expires on those
    # (200 Hz: every 5 ms of CPU) is a true sample, and under load its signal may come later still;
    # past the first 20 ms of the 400 ms sleep there is no CPU time of the thread to sample.
    t0 = own["spans"]["sleep"][0]
    late = [x for x in during("sleep") if x["source"] == "cpu" and x["tid"] == own.get("tid", -1)
            and x["ts"] > (t0 + 0.02) * 1e9]
    expect("no CPU sample while the program slept", not late, f"({[x['ts'] / 1e9 - t0 for x in late]} s in)")

    # The sampler reads Python threads without the GIL (3.11 and 3.12, whose frame layouts are
    # known): a thread holding the GIL in a native call is sampled at its calling line, a thread
    # running Python at a line of its own function, and the GIL is taken only in a few looks.
    def at_lines(x, name):
        lo, hi = own["lines"][name]
        return [f for f in s.stack(x["node"]) if f["function"] == name and lo <= f["line"] <= hi]

    if tuple(own["version"]) in ((3, 11), (3, 12)):
        held = [x for x in during("hold_gil") if x["source"] == "py" and x["tid"] == own["tid"]]
        at_call = [x for x in held if s.stack(x["node"])[0]["function"] == "hold_gil" and
                   s.stack(x["node"])[0]["line"] == own["hold_line"]]
        # all but one: on a loaded machine a sample can fall on the call's first or last instant
        odd = [(s.stack(x["node"])[0]["function"], s.stack(x["node"])[0]["line"]) for x in held if x not in at_call]
        expect(f"Python samples while the GIL was held in a native call, at hold_gil line {own['hold_line']}, running",
               len(at_call) >= 10 and len(at_call) >= len(held) - 1 and all(x["state"] == "R" for x in at_call),
               f"({len(at_call)} of {len(held)}, states {sorted(set(x['state'] for x in held))}; others at {odd[:3]})")
        for name, tid in (("spin_python", own["tid"]), ("spin_thread", own["thread_tid"])):
            mine = [x for x in during(name) if x["source"] == "py" and x["tid"] == tid]
            hit = [x for x in mine if at_lines(x, name)]
            # a torn read (the thread changed its frames as they were read) is refused, not kept
            expect(f"samples of {name}'s thread at lines of {name} ({own['lines'][name]}), all but one",
                   len(hit) >= 10 and len(hit) >= len(mine) - 1, f"({len(hit)} of {len(mine)})")
        expect("names and lines read from code objects' memory (checked against Python's)", own["code_reads"] == 1)
        expect(f"lines read from the location table as Python's, at every instruction of {own['lines_asked']}",
               own["lines_asked"] > 10000 and not own["line_mismatches"], f"({own['line_mismatches'][:3]})")
        st = s.samplestat or {}
        looks = st.get("without_gil", 0) + st.get("with_gil", 0)
        expect("the looks without the GIL, but a few", looks and st["with_gil"] <= max(3, 0.05 * looks)
               and st["skipped"] <= 0.05 * looks, f"({st})")
else:
    program = os.path.realpath(sys.argv[3])
    expect("CPU timers only (no Python)", sampler["mechanism"] == "cpu-timer" and sampler["hz"] == 200, f"({sampler})")
    st = s.stack(s.sites.get(7, 0))
    inner = st[0] if st else {}
    expect("site 7: innermost frame host_main_launcher in the program", inner.get("kind") == "native" and
           inner.get("function") == "host_main_launcher" and inner.get("module") == program,
           f"(got {inner})")
    expect("... called from main", len(st) > 1 and st[1]["function"] == "main", f"({st[1] if len(st) > 1 else None})")
    burn = [x for x in s.samples if x["source"] == "cpu" and s.stack(x["node"])[0]["function"] == "probe_burn"]
    expect("CPU samples name probe_burn", len(burn) >= 20, f"({len(burn)} of {len(s.samples)})")
    expect("no Python samples", not [x for x in s.samples if x["source"] == "py"], "")
sys.exit(0 if ok else 1)
