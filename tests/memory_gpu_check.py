"""GPU memory's checks on a GPU machine, for tests/memory_gpu.sh: each reads the run files mmprof
wrote and the program's own account (examples/memory_*.cu, crash_steps.cu, torch_memory.py) and
prints one JSON line {"name", "ok", "figure", "expected", "detail"}; "crash" also runs the killed
loop itself (it must kill at a step the program wrote); exit status 1 when a check failed.

    memory_gpu_check.py allocators RUN.json OWN.json
    memory_gpu_check.py oom RUN.json OWN.json TEXT
    memory_gpu_check.py torch_leak RUN.json OWN.json
    memory_gpu_check.py torch_vmm RUN.json OWN.json          (informational: never fails)
    memory_gpu_check.py torch_oom RUN.json OWN.json TEXT
    memory_gpu_check.py kineto RUN.json TRACE OWN.json
    memory_gpu_check.py crash MMPROF PROG OUTDIR [KILL_AT_STEP]
    memory_gpu_check.py bench OWN.json
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time

TOLERANCE = 0.01  # the acceptance's 1%


def load(path):
    with open(path) as f:
        return json.load(f)


def report(name, ok, figure, expected, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "figure": figure, "expected": expected, "detail": detail}))
    return ok


def within(a, b, tol=TOLERANCE):
    return a is not None and b is not None and abs(a - b) <= tol * max(abs(b), 1)


def mib(v):
    return "n/a" if v is None else "%.1f MiB" % (v / 2**20)


def memory(run):
    return run.get("analysis", {}).get("memory") or {}


def process_series(run):
    """The series of the profiled process with the highest peak (its device, not NVML's alone)."""
    ss = [s for s in memory(run).get("series", []) if not s["device_only"]]
    return max(ss, key=lambda s: s["peak_bytes"] or 0) if ss else None


def first_summary(text_path):
    with open(text_path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line == "Summary" and i + 1 < len(lines):
            out = lines[i + 1]
            for more in lines[i + 2:]:
                if not more.startswith("    "):
                    break
                out += " " + more.strip()
            return out
    return ""


def allocators(run_path, own_path):
    run, own = load(run_path), load(own_path)
    s = process_series(run)
    ok = True
    if not s:
        return report("allocators", False, None, own["device_peak_bytes"], "no memory series in the run file")
    ok &= report("allocators.peak", within(s["peak_bytes"], own["device_peak_bytes"]), mib(s["peak_bytes"]),
                 mib(own["device_peak_bytes"]), "device memory live at the peak (cudaMalloc + cudaMallocAsync)")
    ok &= report("allocators.pinned", within(s["pinned_peak_bytes"], own["pinned_peak_bytes"]),
                 mib(s["pinned_peak_bytes"]), mib(own["pinned_peak_bytes"]), "cudaHostAlloc, cudaMallocHost")
    ok &= report("allocators.managed", within(s["managed_peak_bytes"], own["managed_bytes"]),
                 mib(s["managed_peak_bytes"]), mib(own["managed_bytes"]), "cudaMallocManaged")
    ok &= report("allocators.end", within(s["end_bytes"], 0, 0) or (s["end_bytes"] or 0) < 0.01 * own["device_peak_bytes"],
                 mib(s["end_bytes"]), "0 MiB", "everything freed")
    ok &= report("allocators.reserved", (s["reserved_peak_bytes"] or 0) >= own["device_peak_bytes"] * (1 - TOLERANCE),
                 mib(s["reserved_peak_bytes"]), ">= the peak", "the pool's size counted as reserved")
    report("allocators.nvml", True, mib(s.get("device_used_peak_bytes")), "a reading",
           memory(run).get("nvml_why") or "device used at its peak (informational)")
    return ok


def failure_row(run):
    fs = memory(run).get("failures", [])
    oom = [f for f in fs if f["out_of_memory"]]
    return (oom or fs or [None])[0]


def oom(run_path, own_path, text_path):
    run, own = load(run_path), load(own_path)
    f = failure_row(run)
    if not f:
        return report("oom", False, None, own["asked"], "no failed allocation in the run file")
    ok = report("oom.request", f["requested_bytes"] == own["asked"], f["requested_bytes"], own["asked"], f["api"])
    ok &= report("oom.live", within(f["live_bytes"], own["live_bytes"]), mib(f["live_bytes"]), mib(own["live_bytes"]),
                 "the live set written at the failure, before the abort")
    ok &= report("oom.count", f["live_count"] == own["live_count"], f["live_count"], own["live_count"], "")
    lead = first_summary(text_path)
    want = "1. Out of memory in %s at memory_oom.cu:" % own["step"]
    ok &= report("oom.lead", lead.strip().startswith(want), lead[:160], want + "...", "the report's first finding")
    return ok


def leak_row(run, line):
    for l in memory(run).get("never_freed", []):
        if l["at"].startswith(line + " "):
            return l
    return None


def torch_leak(run_path, own_path, informational=False):
    run, own = load(run_path), load(own_path)
    name = "torch_vmm" if informational else "torch_leak"
    s = process_series(run)
    peak = s["peak_bytes"] if s else None
    ok = report(name + ".peak", within(peak, own["max_reserved"]) or informational, mib(peak), mib(own["max_reserved"]),
                "live at the peak against torch.cuda.max_memory_reserved()" + (" (informational)" if informational else ""))
    l = leak_row(run, own["leak_line"])
    ok &= report(name + ".leak", (l is not None and l["leak_per_step"] and within(l["per_step_bytes"], own["leak_bytes_per_step"]))
                 or informational, (l["at"] + " " + mib(l["per_step_bytes"]) + "/step in %s%% of %s" % (l["steps_pct"], l["step"])) if l else "none",
                 own["leak_line"] + " " + mib(own["leak_bytes_per_step"]) + "/step", "the planted leak, named with its line")
    return ok


def torch_oom(run_path, own_path, text_path):
    run, own = load(run_path), load(own_path)
    f = failure_row(run)
    if not f:
        return report("torch_oom", False, None, own["asked"], "no failed allocation in the run file")
    ok = report("torch_oom.request", within(f["requested_bytes"], own["asked"]), mib(f["requested_bytes"]), mib(own["asked"]),
                "the caching allocator's cudaMalloc (its request rounded up)")
    ok &= report("torch_oom.live", within(f["live_bytes"], own["live_reserved"]), mib(f["live_bytes"]),
                 mib(own["live_reserved"]), "the live set against torch.cuda.memory_reserved()")
    lead = first_summary(text_path)
    ok &= report("torch_oom.lead", lead.strip().startswith("1. Out of memory"), lead[:160], "1. Out of memory ...", "")
    return ok


def kineto(run_path, trace_path, own_path):
    run, trace = load(run_path), load(trace_path)
    totals = [e["args"].get("Total Allocated") for e in trace.get("traceEvents", [])
              if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1]
    most = max((t for t in totals if t is not None), default=None)
    s = process_series(run)
    peak = s["peak_bytes"] if s else None
    ok = report("kineto.peak", peak is not None and peak == most, mib(peak), mib(most),
                "the import's peak against the trace's own Total Allocated maximum (%d events)" % len(totals))
    own = load(own_path)
    l = [x for x in memory(run).get("never_freed", []) if x["leak_per_step"]]
    report("kineto.leak", True, (l[0]["at"] + " " + mib(l[0]["per_step_bytes"]) + "/step") if l else "none",
           mib(own["leak_bytes_per_step"]) + "/step", "informational: the trace's python_function names its line")
    return ok


# ---------- the killed loop ----------

def kernels_in(run):
    k = run.get("events", {}).get("kernels", [])
    if isinstance(k, dict):  # the columns form (event_columns.h)
        return max((len(v) for v in k.values() if isinstance(v, list)), default=0)
    return len(k)


def child_of(pid, name):
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == pid and comm.startswith(name[:15]):
            return int(p)
    return None


def killed_run(mmprof, prog, outdir, mode, rep, kill_at):
    """One profile of the loop, its child SIGKILLed 1 s after the program wrote step kill_at."""
    env = dict(os.environ)
    env.pop("MMPROF_FLUSH_FORCED", None)
    if mode != "default":
        env["MMPROF_FLUSH_FORCED"] = "1" if mode == "small-buffers" else "force"
    base = os.path.join(outdir, "crash-%s-%d" % (mode, rep))
    out = open(base + ".out", "w")
    p = subprocess.Popen([mmprof, "profile", "-q", "--json", base + ".json", "--", prog], stdout=out, env=env)
    start, killed, steps = time.time(), None, 0
    while p.poll() is None and time.time() - start < 60:
        time.sleep(0.05)
        with open(base + ".out") as f:
            lines = f.read().splitlines()
        steps = max((int(l.split()[1]) for l in lines if l.startswith("step ")), default=0)
        if steps >= kill_at:
            time.sleep(1.0)
            child = child_of(p.pid, os.path.basename(prog))
            if child:
                os.kill(child, signal.SIGKILL)
                killed = child
            break
    child = child_of(p.pid, os.path.basename(prog)) if killed is None else None
    if child:  # never reached the step: ended anyway, and said so (killed False)
        os.kill(child, signal.SIGKILL)
    p.wait(timeout=120)
    out.close()
    with open(base + ".out") as f:
        lines = f.read().splitlines()
    last = [l.split() for l in lines if l.startswith("step ")][-1:] or [["step", "0", "0"]]
    done = [l.split() for l in lines if l.startswith("done ")][-1:] or [["done", "0", "0"]]
    run = load(base + ".json")
    return {"mode": mode, "rep": rep, "killed": killed is not None, "steps_written": int(last[0][1]),
            "kernels_launched": int(last[0][2]), "kernels_done_seen": int(done[0][2]), "kernels_kept": kernels_in(run),
            "lost_timestamps": run.get("collection", {}).get("lost_timestamps")}


def crash(mmprof, prog, outdir, kill_at=300):
    rows = []
    for rep in range(2):
        for mode in ("default", "small-buffers", "forced"):
            rows.append(killed_run(mmprof, prog, outdir, mode, rep, kill_at))
    with open(os.path.join(outdir, "crash.json"), "w") as f:
        json.dump(rows, f, indent=1)
    med = {m: statistics.median(r["kernels_kept"] for r in rows if r["mode"] == m) for m in ("default", "small-buffers", "forced")}
    done = statistics.median(r["kernels_done_seen"] for r in rows)
    killed = all(r["killed"] for r in rows)
    ok = report("crash.killed", killed, sum(r["killed"] for r in rows), len(rows), "each run SIGKILLed 1 s after step %d" % kill_at)
    ok &= report("crash.small_buffers", med["small-buffers"] >= med["default"], med["small-buffers"], ">= %d (default)" % med["default"],
                 "kernels kept (median of 2); MMPROF_FLUSH_FORCED=1 must keep at least what the default keeps")
    report("crash.default", True, med["default"], "%d known done" % done, "kernels kept with the default flush (informational)")
    report("crash.forced", True, med["forced"], "%d known done" % done,
           "kernels kept with MMPROF_FLUSH_FORCED=force, the old forced flush (informational)")
    return ok


def bench(own_path):
    own = load(own_path)
    ok = report("bench.launch", own["launch"]["median_cost_pct"] <= 5, "%+.2f%%" % own["launch"]["median_cost_pct"], "<= 5%",
                "per launch, memory collection on against paused (quartiles %+.2f..%+.2f%%)"
                % (own["launch"]["q1_pct"], own["launch"]["q3_pct"]))
    for w in ("alloc_async", "alloc"):
        ok &= report("bench." + w, own[w]["median_cost_pct"] <= 20, "%+.2f%%" % own[w]["median_cost_pct"], "<= 20%",
                     "per allocation and free (quartiles %+.2f..%+.2f%%)" % (own[w]["q1_pct"], own[w]["q3_pct"]))
    return ok


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    what = a[0]
    fns = {"allocators": lambda: allocators(a[1], a[2]), "oom": lambda: oom(a[1], a[2], a[3]),
           "torch_leak": lambda: torch_leak(a[1], a[2]), "torch_vmm": lambda: torch_leak(a[1], a[2], True),
           "torch_oom": lambda: torch_oom(a[1], a[2], a[3]), "kineto": lambda: kineto(a[1], a[2], a[3]),
           "crash": lambda: crash(a[1], a[2], a[3], int(a[4]) if len(a) > 4 else 300), "bench": lambda: bench(a[1])}
    if what not in fns:
        sys.exit(__doc__)
    try:
        ok = fns[what]()
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        ok = report(what, False, None, None, "could not check: %s: %s" % (type(e).__name__, e))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
