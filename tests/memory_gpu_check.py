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
    memory_gpu_check.py bench OWN.json [RUN.json]
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


DEVICE_KINDS = ("device", "array", "unknown")  # what a series' live bytes count (memory_series.c)


def address(v):
    return int(v, 16) if isinstance(v, str) else int(v)  # memory_json.c: hex past 2^53


def live_records(run, pid, device, until=None):
    """mmprof's own records of (pid, device), device memory, walked in time order as the series
    is: the allocations live at the peak of their sum (at `until`, a run-file time, where given)
    as {address: (bytes, correlation)}, and the addresses allocated again while live (a record
    counted twice would show there)."""
    evs = sorted((e for e in run.get("memory", {}).get("events", [])
                  if e[3] == pid and e[5] == device and e[2] in DEVICE_KINDS), key=lambda e: e[0])
    live, cur, best, at_best, twice = {}, 0, -1, {}, []
    for e in evs:
        ts, op, corr, a, nbytes = e[0], e[1], e[7], address(e[8]), e[9]
        if until is not None and ts > until:
            break
        if a in live:  # freed now, or (an allocation) freed unseen
            cur -= live.pop(a)[0]
            if op != "free":
                twice.append(a)
        if op == "free":
            continue
        live[a] = (nbytes, corr)
        cur += nbytes
        if until is None and cur > best:
            best, at_best = cur, dict(live)
    return (live if until is not None else at_best), twice


def split_by_segments(live, segments):
    """Live records into the caching allocator's segments (the program's own account, by address:
    a record whose address lies in one) and the rest: (bytes in, bytes out, allocations out, static
    allocations out: correlation 0, a module's variables, which no allocation call makes)."""
    segs = sorted((address(a), n) for a, n in segments)
    inside = outside = count = static = 0
    for a, (nbytes, corr) in live.items():
        if any(s <= a < s + n for s, n in segs):
            inside += nbytes
        else:
            outside += nbytes
            count += 1
            static += nbytes if corr == 0 else 0
    return inside, outside, count, static


def torch_leak(run_path, own_path, informational=False):
    """The peak against the program's own account. torch.cuda.max_memory_reserved() counts the
    caching allocator's segments alone; mmprof sees every allocation of the process, and on the
    H200 that was 128.5 MiB more (2180.5 against 2052.0 MiB): each thread's cuBLAS handle
    allocates its own memory with cudaMalloc (64 MiB, 128 KiB and 1 KiB on the main and on
    autograd's thread), and loaded modules' variables are allocated too. So the program writes its
    segments by address (torch.cuda.memory_snapshot(), at its end, nothing freed before), and the
    check is: mmprof's records at the peak in those segments equal max_memory_reserved(), and the
    peak equals that plus what lay outside them."""
    run, own = load(run_path), load(own_path)
    name = "torch_vmm" if informational else "torch_leak"
    s = process_series(run)
    peak = s["peak_bytes"] if s else None
    live, twice = live_records(run, s["pid"], s["device"]) if s else ({}, [])
    inside, outside, count, static = split_by_segments(live, own["segments"])
    want = own["max_reserved"] + outside
    ok = report(name + ".peak", (within(peak, want) and not twice) or informational, mib(peak), mib(want),
                "live at the peak against torch.cuda.max_memory_reserved() %s + %s outside the caching allocator's "
                "segments in %d allocations (%s of them modules' variables), which torch does not count; %d "
                "addresses recorded twice%s" % (mib(own["max_reserved"]), mib(outside), count, mib(static), len(twice),
                                                " (informational)" if informational else ""))
    ok &= report(name + ".segments", within(inside, own["max_reserved"]) or informational, mib(inside),
                 mib(own["max_reserved"]), "the records at the peak inside the program's %d segments against "
                 "torch.cuda.max_memory_reserved()" % len(own["segments"]) + (" (informational)" if informational else ""))
    l = leak_row(run, own["leak_line"])
    ok &= report(name + ".leak", (l is not None and l["leak_per_step"] and within(l["per_step_bytes"], own["leak_bytes_per_step"]))
                 or informational, (l["at"] + " " + mib(l["per_step_bytes"]) + "/step in %s%% of %s" % (l["steps_pct"], l["step"])) if l else "none",
                 own["leak_line"] + " " + mib(own["leak_bytes_per_step"]) + "/step", "the planted leak, named with its line")
    return ok


def torch_oom(run_path, own_path, text_path):
    """The live set the library wrote at the failure against torch.cuda.memory_reserved() and what
    lay outside the caching allocator's segments then (as torch_leak: cuBLAS's own allocations; not
    modules' variables, which no allocation call makes, so the library's table never holds them)."""
    run, own = load(run_path), load(own_path)
    f = failure_row(run)
    if not f:
        return report("torch_oom", False, None, own["asked"], "no failed allocation in the run file")
    ok = report("torch_oom.request", within(f["requested_bytes"], own["asked"]), mib(f["requested_bytes"]), mib(own["asked"]),
                "the caching allocator's cudaMalloc (its request rounded up)")
    raw = [x for x in run["memory"]["failures"] if x[1] == f["pid"] and x[6] == f["requested_bytes"]]
    live, _ = live_records(run, f["pid"], f["device"], raw[0][0]) if raw else ({}, [])
    _, outside, count, _ = split_by_segments({a: v for a, v in live.items() if v[1] != 0}, own["segments"])
    want = own["live_reserved"] + outside
    ok &= report("torch_oom.live", within(f["live_bytes"], want), mib(f["live_bytes"]), mib(want),
                 "the live set against torch.cuda.memory_reserved() %s + %s outside its segments in %d allocations "
                 "(modules' variables left out)" % (mib(own["live_reserved"]), mib(outside), count))
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


def api_rows(run):
    """The run file's CUDA API calls as (name, start_ns, dur_ns, correlation), from either form of
    its event store (event_columns.c: start and correlation delta-coded in the columns form)."""
    ev = run.get("events", {})
    a = ev.get("apis", [])
    if isinstance(a, list):
        return [(x["name"], x["start_ns"], x["dur_ns"] if "dur_ns" in x else x["end_ns"] - x["start_ns"], x["correlation"])
                for x in a]
    names, start, corr, out = ev.get("names", []), 0, 0, []
    for n, ds, d, dc in zip(a["name"], a["start_ns"], a["dur_ns"], a["correlation"]):
        start += ds
        corr += dc
        out.append((names[n], start, d, corr))
    return out


def alloc_split(run):
    """Where memory collection's cost per cudaMallocAsync/cudaFreeAsync pair lies, from the run's
    own API records (a call is "on" when a memory record carries its correlation): inside the
    calls' durations, CUPTI's own work for its memory records (CUPTI times a call without its
    subscribers' callbacks: the bench's cudaMalloc sites, 3 us each, showed in the gap before the
    call, not in its duration); between the calls, the library's callbacks. Medians, ns:
    {(name, on): (duration, gap before it)}."""
    rows = api_rows(run)
    with_record = {e[7] for e in run.get("memory", {}).get("events", [])}
    pair = ("cudaMallocAsync", "cudaFreeAsync")
    dur, gap, prev_end = {}, {}, None
    for name, start, d, corr in rows:
        base = name.split("_v")[0]
        if base not in pair:
            prev_end = None
            continue
        key = (base, corr in with_record)
        dur.setdefault(key, []).append(d)
        if prev_end is not None:
            gap.setdefault(key, []).append(start - prev_end)
        prev_end = start + d
    return {k: (statistics.median(v), statistics.median(gap[k]) if gap.get(k) else 0) for k, v in dur.items()}


def bench(own_path, run_path=None):
    own = load(own_path)
    ok = report("bench.launch", own["launch"]["median_cost_pct"] <= 5, "%+.2f%%" % own["launch"]["median_cost_pct"], "<= 5%",
                "per launch, memory collection on against paused (quartiles %+.2f..%+.2f%%)"
                % (own["launch"]["q1_pct"], own["launch"]["q3_pct"]))
    for w in ("alloc_async", "alloc"):
        ok &= report("bench." + w, own[w]["median_cost_pct"] <= 20, "%+.2f%%" % own[w]["median_cost_pct"], "<= 20%",
                     "per allocation and free (quartiles %+.2f..%+.2f%%)" % (own[w]["q1_pct"], own[w]["q3_pct"]))
    if run_path:
        m = alloc_split(load(run_path))
        if all((n, on) in m for n in ("cudaMallocAsync", "cudaFreeAsync") for on in (True, False)):
            inside = sum(m[(n, True)][0] - m[(n, False)][0] for n in ("cudaMallocAsync", "cudaFreeAsync"))
            between = sum(m[(n, True)][1] - m[(n, False)][1] for n in ("cudaMallocAsync", "cudaFreeAsync"))
            off = sum(m[(n, False)][0] + m[(n, False)][1] for n in ("cudaMallocAsync", "cudaFreeAsync"))
            report("bench.alloc_async_split", True, "%+.0f ns in CUPTI, %+.0f ns in callbacks" % (inside, between),
                   "of %.0f ns paused" % off, "per cudaMallocAsync/cudaFreeAsync pair from the API records' medians "
                   "(informational): inside the calls (CUPTI's memory records) %+.0f%%, between them (the library's "
                   "callbacks) %+.0f%%; %s" % (100 * inside / off, 100 * between / off,
                                               ", ".join("%s %s %.0f+%.0f" % (n, "on" if on else "off", d, g)
                                                         for (n, on), (d, g) in sorted(m.items()))))
    return ok


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    what = a[0]
    fns = {"allocators": lambda: allocators(a[1], a[2]), "oom": lambda: oom(a[1], a[2], a[3]),
           "torch_leak": lambda: torch_leak(a[1], a[2]), "torch_vmm": lambda: torch_leak(a[1], a[2], True),
           "torch_oom": lambda: torch_oom(a[1], a[2], a[3]), "kineto": lambda: kineto(a[1], a[2], a[3]),
           "crash": lambda: crash(a[1], a[2], a[3], int(a[4]) if len(a) > 4 else 300), "bench": lambda: bench(a[1], a[2] if len(a) > 2 else None)}
    if what not in fns:
        sys.exit(__doc__)
    try:
        ok = fns[what]()
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        ok = report(what, False, None, None, "could not check: %s: %s" % (type(e).__name__, e))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
