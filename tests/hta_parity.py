#!/usr/bin/env python3
"""Holistic Trace Analysis (HTA) and mmprof on the same PyTorch profiler traces, figure by figure
(docs/hta-parity.md says which figures are the same definition and why the others differ).

    tests/hta_parity.py --hta HTA_SRC [--mmprof build/mmprof] [--rounding] [--last-step]
                        [--whole-us] [--tsv OUT.tsv] [--markdown] JOB [JOB ...]

JOB is a trace, or the traces of one job's ranks joined by '+' (rank0.json+rank1.json). HTA_SRC
is a checkout of HTA's source (github.com/facebookresearch/HolisticTraceAnalysis): it is run from
there (PYTHONPATH), never copied here; it needs pandas, plotly, psutil and networkx (Debian:
python3-pandas python3-plotly python3-psutil python3-networkx).

HTA is run as users run it, through its public calls, in a child process per job:
  TraceAnalysis(trace_files={rank: path, ...}, include_last_profiler_step=LAST)
    .get_temporal_breakdown(visualize=False)
    .get_comm_comp_overlap(visualize=False)
and, one rank's trace at a time (its kernel breakdown sums its ranks together):
  TraceAnalysis(trace_files={rank: path}, ...).get_gpu_kernel_breakdown(visualize=False,
    include_memory_kernels=True)
By default with HTA_DISABLE_NS_ROUNDING=1 (HTA otherwise rounds every event inward to whole
microseconds: hta/common/trace_parser.py, round_down_time_stamps); --rounding leaves HTA's
rounding on, --last-step keeps the last ProfilerStep (HTA drops it by default). --whole-us first
writes copies of the traces with ts and ts + dur rounded to the nearest microsecond and gives both
tools those copies: HTA's kernel-type sums cut every stretch to whole microseconds
(astype(int) in _get_gpu_kernel_type_time), which whole-microsecond input makes exact.

mmprof's side: `mmprof import JOB's traces --json F -q`, its figures under analysis.ranks.rows
(a trace with a rank), analysis.regions[0] (the whole trace) and its kernel_stats.

Prints one row per figure: job, rank, HTA's figure, kernel name, HTA's value, mmprof's (in HTA's
unit), mmprof's key, and whether they agree (percentages within 0.1 point, times within 0.1%).
--tsv writes the rows tests/data/hta_parity/expected.tsv holds (make test checks mmprof against
them); --markdown prints them as docs/hta-parity.md's table rows.
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile

# HTA's figure -> mmprof's key (registry table "rank", "region" or "kernel", src/analysis/metrics.c),
# and whether the definitions match (docs/hta-parity.md says why where they do not).
RANK_FIGURES = [
    ("kernel_time(us)", "rank.span_ms", True),
    ("compute_time(us)", "rank.compute_ms", True),
    ("idle_time_pctg", "rank.span_idle_pct", True),
    ("compute_time_pctg", "rank.span_compute_pct", True),
    ("non_compute_time_pctg", "rank.span_non_compute_pct", True),
    ("comp_comm_overlap_pctg", "rank.overlap_pct", True),
    # The kernel breakdown's sums per kernel type, the type's overlaps with the others included:
    # HTA cuts every stretch to whole microseconds, so these match only on whole-us input.
    ("COMPUTATION sum", "rank.compute_ms", False),
    ("COMMUNICATION sum", "rank.comm_ms", False),
    ("MEMORY sum", "rank.memory_ms", False),
]
# A trace that names no rank has no rank rows in mmprof: the whole trace's region says as much.
REGION_FIGURES = [
    ("kernel_time(us)", "region.gpu_span_ms", True),
    ("kernel_time(us) - idle_time(us)", "region.gpu_busy_ms", True),
    ("100 - idle_time_pctg", "region.projected_busy_pct", True),
]
KERNEL_FIGURES = [("sum (us)", "kernel.total_ms"), ("max (us)", "kernel.max_ms"), ("min (us)", "kernel.min_ms"),
                  ("stddev", "kernel.stddev_ms")]
TYPES = ["COMPUTATION", "COMMUNICATION", "MEMORY"]


def open_trace(path):
    with open(path, "rb") as f:
        head = f.read(2)
    return gzip.open(path, "rt") if head == b"\x1f\x8b" else open(path)


def trace_rank(path):
    """distributedInfo.rank, or None (HTA then takes rank 0)."""
    with open_trace(path) as f:
        info = json.load(f).get("distributedInfo")
    return info.get("rank") if isinstance(info, dict) else None


# ---------- HTA's side (in a child process: HTA reads its options once, from the environment) ----------

def hta_child(files, last_step):
    from hta.trace_analysis import TraceAnalysis  # noqa: E402 (HTA_SRC is on PYTHONPATH)

    ranks = {}
    for i, f in enumerate(files):
        r = trace_rank(f)
        ranks[i if r is None else r] = os.path.abspath(f)
    out = {"ranks": {}, "kernels": {}}
    ta = TraceAnalysis(trace_files=ranks, trace_dir="/", include_last_profiler_step=last_step)
    temporal = ta.get_temporal_breakdown(visualize=False)
    overlap = ta.get_comm_comp_overlap(visualize=False)
    for _, row in temporal.iterrows():
        out["ranks"][int(row["rank"])] = {k: float(row[k]) for k in temporal.columns if k != "rank"}
    for _, row in overlap.iterrows():
        v = float(row["comp_comm_overlap_pctg"])
        out["ranks"][int(row["rank"])]["comp_comm_overlap_pctg"] = None if math.isnan(v) else v
    for rank, path in ranks.items():
        one = TraceAnalysis(trace_files={rank: path}, trace_dir="/", include_last_profiler_step=last_step)
        types, kernels = one.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
        for t in TYPES:
            out["ranks"][rank][t + " sum"] = float(types[types["kernel_type"].str.contains(t)]["sum"].sum())
        rows = []
        for _, k in kernels.iterrows():
            grouped = bool((kernels["kernel_type"].eq(k["kernel_type"]) & kernels["name"].eq("others")).any())
            rows.append({"name": k["name"], "type": k["kernel_type"], "grouped": grouped,
                         **{c: float(k[c]) for c in ("sum (us)", "max (us)", "min (us)", "stddev", "mean (us)")}})
        out["kernels"][rank] = rows
    json.dump(out, sys.stdout)


def hta_side(hta_src, files, rounding, last_step):
    env = dict(os.environ, PYTHONPATH=hta_src, HTA_DISABLE_NS_ROUNDING="0" if rounding else "1")
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + (["--last-step"] if last_step else []) + files
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        return {"failed": lines[-1] if lines else f"exit {p.returncode}"}
    d = json.loads(p.stdout)
    d["ranks"] = {int(k): v for k, v in d["ranks"].items()}
    d["kernels"] = {int(k): v for k, v in d["kernels"].items()}
    return d


def hta_commit(hta_src):
    try:
        return subprocess.run(["git", "-C", hta_src, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def hta_version(hta_src):
    scope = {}
    try:
        with open(os.path.join(hta_src, "hta", "version.py")) as f:
            exec(f.read(), scope)  # a two-line file that sets __version__
    except OSError:
        return "unknown"
    return scope.get("__version__", "unknown")


# ---------- mmprof's side ----------

def mmprof_side(mmprof, files):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "run.json")
        p = subprocess.run([mmprof, "import", *files, "--json", out, "-q"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"mmprof import {' '.join(files)} failed ({p.returncode}): {p.stderr}")
        with open(out) as f:
            return json.load(f)["analysis"]


def mmprof_value(analysis, key, rank=None, kernel=None):
    table, name = key.split(".", 1)
    if table == "rank":
        rows = [r for r in (analysis.get("ranks") or {}).get("rows", []) if r["rank"] == rank]
        return rows[0].get(name) if rows else None
    region = analysis["regions"][0]
    if table == "region":
        return region.get(name)
    hits = [k for k in region.get("kernel_stats", []) if k["name"] == kernel]
    return hits[0].get(name) if hits else None


# ---------- both ----------

def in_hta_unit(value, hta_figure, key):
    """mmprof's milliseconds in HTA's microseconds where HTA's figure is a time."""
    if value is None:
        return None
    return value * 1e3 if key.endswith("_ms") else value


def agree(hta, mine, key):
    if hta is None or mine is None:
        return hta is None and mine is None  # both n/a: no NCCL kernels to overlap
    if key.endswith("_pct"):
        return abs(hta - mine) <= 0.1
    return abs(hta - mine) <= 1e-3 * abs(hta) + 1e-9


def rows_of_job(job_files, hta, mine):
    """(rank, figure, kernel, hta value, key, matches by definition, mmprof value in HTA's unit)."""
    rows = []
    ranked = bool((mine.get("ranks") or {}).get("rows"))
    for rank in sorted(hta["ranks"]):
        fig = hta["ranks"][rank]
        if ranked:
            for f, key, same in RANK_FIGURES:
                rows.append((rank, f, "-", fig.get(f), key, same, in_hta_unit(mmprof_value(mine, key, rank), f, key)))
        else:
            derived = {"kernel_time(us)": fig["kernel_time(us)"],
                       "kernel_time(us) - idle_time(us)": fig["kernel_time(us)"] - fig["idle_time(us)"],
                       "100 - idle_time_pctg": 100 - fig["idle_time_pctg"]}
            for f, key, same in REGION_FIGURES:
                rows.append((rank, f, "-", derived[f], key, same, in_hta_unit(mmprof_value(mine, key), f, key)))
    return rows


def kernel_rows(rank, hta_kernels, mine):
    """Per kernel name: HTA's named rows of kernels (not copies or memsets, not "others") against
    the trace's own kernel table. Where HTA grouped the rest into "others" it re-aggregates its
    sums, so its max, min and stddev of a named row are that sum, 0: only the sum is compared."""
    rows = []
    for k in hta_kernels:
        if k["name"] == "others" or k["type"] == "MEMORY":
            continue
        for f, key in KERNEL_FIGURES:
            if k["grouped"] and f != "sum (us)":
                continue
            mine_v = in_hta_unit(mmprof_value(mine, key, kernel=k["name"]), f, key)
            if f == "stddev" and mine_v is None:
                continue  # one launch: HTA writes 0, mmprof n/a
            rows.append((rank, f, k["name"], k[f], key, True, mine_v))
    return rows


def whole_us_copy(path, d):
    """The trace with every event's ts and ts + dur rounded to the nearest microsecond."""
    with open_trace(path) as f:
        t = json.load(f)
    for e in t.get("traceEvents", []):
        if isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float)):
            s, end = round(e["ts"]), round(e["ts"] + e["dur"])
            e["ts"], e["dur"] = s, end - s
    out = os.path.join(d, os.path.basename(path).replace(".gz", ""))
    with open(out, "w") as f:
        json.dump(t, f)
    return out


def call_of(figure):
    """The public HTA call that gives a figure."""
    if "overlap" in figure:
        return "TraceAnalysis(trace_files={rank: trace, ...}).get_comm_comp_overlap(visualize=False)"
    if " sum" in figure or "(us)" in figure and "time" not in figure or figure == "stddev":
        return ("TraceAnalysis(trace_files={rank: trace}).get_gpu_kernel_breakdown(visualize=False, "
                "include_memory_kernels=True)")
    return "TraceAnalysis(trace_files={rank: trace, ...}).get_temporal_breakdown(visualize=False)"


def fmt(v):
    return "n/a" if v is None else f"{v:.3f}"


KERNEL_LABEL = 48  # a kernel name's first characters in the doc's table (tests/test_hta_parity.c)


def doc_row(job, rank, fig, kernel, hv, key, same, mv):
    """The row as docs/hta-parity.md shows it; tests/test_hta_parity.c formats it the same way."""
    label = "-" if kernel == "-" else "`" + kernel[:KERNEL_LABEL] + ("..." if len(kernel) > KERNEL_LABEL else "") + "`"
    cells = [job, str(rank), fig, label, fmt(hv), fmt(mv), f"`{key}`", "yes" if same else "no",
             "yes" if agree(hv, mv, key) else "no"]
    return "| " + " | ".join(cells) + " |"


def measure(a, job, tmp, rounding, last_step, with_kernels=True):
    """The rows of one job: (traces, HTA call, rank, figure, kernel, HTA value, key, same, mmprof
    value); a string saying why when HTA failed on it."""
    files = job.split("+")
    fed = [whole_us_copy(f, tmp) for f in files] if a.whole_us else files
    hta = hta_side(a.hta, fed, rounding, last_step)
    if "failed" in hta:
        return f"{job}: HTA failed: {hta['failed']}"
    mine = mmprof_side(a.mmprof, fed)
    out = [(job, call_of(r[1])) + r for r in rows_of_job(files, hta, mine)]
    by_rank = {r if r is not None else i: i for i, r in enumerate(trace_rank(f) for f in files)}
    for rank, kernels in hta["kernels"].items() if with_kernels else []:
        # HTA's kernel table is per rank; mmprof's is per region: each rank's trace alone.
        i = by_rank[rank]
        own = mmprof_side(a.mmprof, [fed[i]]) if len(files) > 1 else mine
        out += [(files[i], call_of(r[1])) + r for r in kernel_rows(rank, kernels, own)]
    return out


# --modes: HTA's four ways of reading a trace, beside mmprof's one figure.
MODES = [(False, True, "HTA, rounding off, last step kept"), (False, False, "rounding off, last step dropped"),
         (True, True, "rounding on, last step kept"), (True, False, "HTA's defaults: rounding on, last step dropped")]


def print_modes(a, tmp):
    """One markdown row per figure (per-kernel rows as a count per trace): mmprof's value, HTA's in
    each mode, and whether the first mode agrees."""
    print("| traces | rank | figure | mmprof key | mmprof | " + " | ".join(m[2] for m in MODES) + " | agree |")
    print("|" + "---|" * (6 + len(MODES)))
    for job in a.jobs:
        results = [measure(a, job, tmp, r, l, with_kernels=(i == 0)) for i, (r, l, _) in enumerate(MODES)]
        base = results[0]
        if isinstance(base, str):
            print(f"| {base} |")
            continue
        kernels = [x for x in base if x[4] != "-"]
        for n, x in enumerate(x for x in base if x[4] == "-"):
            others = [fmt(res[n][5]) if not isinstance(res, str) else "HTA failed" for res in results[1:]]
            cells = [x[0], str(x[2]), x[3], f"`{x[6]}`", fmt(x[8]), fmt(x[5]), *others,
                     ("yes" if agree(x[5], x[8], x[6]) else "no") + ("" if x[7] else " (not the same definition)")]
            print("| " + " | ".join(cells) + " |")
        if kernels:
            ok = sum(agree(x[5], x[8], x[6]) for x in kernels)
            print(f"| {job} | | per-kernel sum, max, min, stddev | `kernel.*` | | | | | | {ok} of {len(kernels)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hta", help="HTA's source (a checkout)")
    ap.add_argument("--mmprof", default="build/mmprof")
    ap.add_argument("--rounding", action="store_true", help="leave HTA's microsecond rounding on")
    ap.add_argument("--last-step", action="store_true", help="keep the last ProfilerStep in HTA")
    ap.add_argument("--whole-us", action="store_true", help="give both tools copies rounded to whole us")
    ap.add_argument("--modes", action="store_true", help="a markdown table of HTA's four modes beside mmprof")
    ap.add_argument("--tsv", help="write the rows as tests/data/hta_parity/expected.tsv")
    ap.add_argument("--markdown", action="store_true", help="print docs/hta-parity.md's table rows")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("jobs", nargs="+")
    a = ap.parse_args()
    if a.child:
        return hta_child(a.jobs, a.last_step)
    if not a.hta:
        ap.error("--hta HTA_SRC is needed")
    how = (f"HTA {hta_version(a.hta)} (commit {hta_commit(a.hta)}) run from its source, "
           f"HTA_DISABLE_NS_ROUNDING={'0' if a.rounding else '1'}, include_last_profiler_step={a.last_step}"
           + (", both fed whole-us copies" if a.whole_us else ""))
    out, failed = [], []
    with tempfile.TemporaryDirectory() as tmp:
        if a.modes:
            return print_modes(a, tmp)
        for job in a.jobs:
            rows = measure(a, job, tmp, a.rounding, a.last_step)
            if isinstance(rows, str):
                failed.append("# " + rows)
            else:
                out += rows
    print(f"# {how}")
    for line in failed:
        print(line)
    header = ["traces", "rank", "figure", "kernel", "HTA", "mmprof", "mmprof key", "same definition", "agree"]
    if a.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("\t".join(header))
    for job, _, rank, fig, kernel, hv, key, same, mv in out:
        if a.markdown:
            print(doc_row(job, rank, fig, kernel, hv, key, same, mv))
        else:
            print("\t".join([job, str(rank), fig, kernel, fmt(hv), fmt(mv), key, "yes" if same else "no",
                             "yes" if agree(hv, mv, key) else "no"]))
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write(f"# HTA's figures on mmprof's committed traces: tests/hta_parity.py --tsv (docs/hta-parity.md)\n"
                    f"# produced by: {how}\n")
            f.write("traces\trank\tfigure\tkernel\thta\tkey\tsame\tcall\n")
            for job, call, rank, fig, kernel, hv, key, same, _ in out:
                f.write(f"{job}\t{rank}\t{fig}\t{kernel}\t{'' if hv is None else repr(hv)}\t{key}\t"
                        f"{'yes' if same else 'no'}\t{call}\n")


if __name__ == "__main__":
    main()
