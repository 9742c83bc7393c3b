#!/usr/bin/env python3
"""The cause programs (examples/causes/) against mmprof's wall-time account of them: for each
program, its run file (NAME.json, written by `mmprof profile`) and its own account (NAME.own.json,
examples/causes/own.py's format), recorded by tests/causes_gpu.sh on a GPU machine.

    tests/causes_check.py DIR

Over the program's "work" range (the account of that region), mmprof's host view must put the
program's cause first among the host's causes: the same class of state (own "cause") and, where the
program names them, the line of the cause (one of own "lines" in its file) and a share of the
range's wall within 10 points of the program's own (cause_ns / work_ns), the profiler's own cost
inside the range added back (the program's clock holds it). And every account of every
run must hold its wall: its states sum to it within 0.5%. The replay run (launch.cu under
--counters) holds mmprof's own-work state against the program's own time in its profiled launches.
Prints a table, one row per program; exits 1 when any check fails.
"""
import json
import os
import sys

SHARE_POINTS = 10.0  # the acceptance's: a share within 10 points of the program's own
SUM_PCT = 0.5        # an account's states sum to its wall within this
# tests/causes_gpu.sh profiles launch.cu's first 20 launches (--max-kernels 20); the first is its
# warm-up launch, before the work range: 19 replayed launches are in it.
REPLAYED_IN_WORK = 19


def load(path):
    with open(path) as f:
        return json.load(f)


def accounts(run):
    return run.get("analysis", {}).get("wall_accounts", [])


def work_account(run):
    """The "work" range's own account (a listed region's), else None."""
    for acc in accounts(run):
        if acc["scope"] == "region" and acc["name"] == "work":
            return acc
    return None


def sums_hold(run):
    """Every account's states sum to its wall: (ok, worst relative error in %)."""
    worst = 0.0
    for acc in accounts(run):
        wall = acc.get("wall_ms") or 0
        total = sum(s["ms"] for s in acc["states"] if s.get("ms") is not None)
        if wall > 0:
            worst = max(worst, 100.0 * abs(total - wall) / wall)
    return worst <= SUM_PCT, worst


def line_of(at):
    """"launch.cu:47 (launch_once)" -> ("launch.cu", 47); None where it names no line."""
    head = at.split(" ")[0]
    if ":" not in head:
        return None
    name, _, num = head.rpartition(":")
    return (name, int(num)) if num.isdigit() else None


def check(dirname, name):
    run_path, own_path = os.path.join(dirname, name + ".json"), os.path.join(dirname, name + ".own.json")
    if not os.path.exists(run_path) or not os.path.exists(own_path):
        return {"program": name, "ok": False, "why": "no run file or own account"}
    run, own = load(run_path), load(own_path)
    row = {"program": name, "want": own["cause"]}
    ok_sum, worst = sums_hold(run)
    row["sum_err_pct"] = worst
    acc = work_account(run)
    if acc is None:
        row.update(ok=False, why="no account of the work range")
        return row
    own_pct = 100.0 * own["cause_ns"] / own["work_ns"] if own["work_ns"] else 0.0
    if name == "replay":  # the counter pass: mmprof's own-work state against the profiled launches' time
        own_pct = 100.0 * sum(own["launch_ns"][:REPLAYED_IN_WORK]) / own["work_ns"]
        top = next((c for c in acc["host_causes"] if c["cause"]), None)
        want_state, want_lines = "mmprof", own["lines"]
    else:
        top = next((c for c in acc["host_causes"] if c["cause"]), None)
        want_state, want_lines = own["cause"], own["lines"]
    row["own_pct"] = own_pct
    # The program's own clock around its cause holds the profiler's callbacks too (CUPTI's and the
    # call sites' cost inside each launch call, about a microsecond), which mmprof accounts to itself
    # (the "profiler" row): the share compared is the cause's with that cost added back.
    profiler_pct = sum(c["share_pct"] for c in acc["host_causes"] if c["cause"] == "profiler")
    row["profiler_pct"] = profiler_pct
    if top is None:
        row.update(ok=False, why="no host cause named")
        return row
    row.update(got=top["state"], rule=top["cause"], at=top["at"], pct=top["share_pct"], verdict=acc["verdict"])
    problems = []
    if top["state"] != want_state:
        problems.append("top cause %s, want %s" % (top["state"], want_state))
    where = line_of(top["at"])
    base = os.path.basename(own["file"])
    if want_lines and (where is None or where[0] != base or where[1] not in want_lines):
        problems.append("at %r, want %s:%s" % (top["at"], base, "/".join(map(str, want_lines))))
    share = top["share_pct"] + (profiler_pct if top["cause"] != "profiler" else 0.0)
    if abs(share - own_pct) > SHARE_POINTS:
        problems.append("share %.1f%% (%.1f%% with the profiler's), own %.1f%%" % (top["share_pct"], share, own_pct))
    if not ok_sum:
        problems.append("an account's states miss its wall by %.2f%%" % worst)
    row.update(ok=not problems, why="; ".join(problems))
    return row


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    names = sorted(f[: -len(".own.json")] for f in os.listdir(d) if f.endswith(".own.json"))
    rows = [check(d, n) for n in names]
    with open(os.path.join(d, "causes_check.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("%-11s %-10s %-10s %7s %7s %6s  %s" % ("program", "want", "got", "mmprof", "own", "sum%", "line / why"))
    for r in rows:
        print("%-11s %-10s %-10s %6.1f%% %6.1f%% %6.3f  %s%s" % (
            r["program"], r.get("want", ""), r.get("got", ""), r.get("pct", float("nan")), r.get("own_pct", float("nan")),
            r.get("sum_err_pct", float("nan")), r.get("at", ""), "" if r["ok"] else "  FAIL: " + r["why"]))
    failed = [r for r in rows if not r["ok"]]
    print("%d of %d programs as their own accounts say" % (len(rows) - len(failed), len(rows)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
