#!/usr/bin/env python3
"""Checks that a stored run holds the figures of its JSON report, table by table.

  db_check.py REPORT.json sqlite DB.sqlite RUN_ID
  db_check.py REPORT.json pg URL RUN_ID          (through psql)

REPORT.json is `mmprof report RUN --json` of the same run by the same mmprof: every column of
every table that the JSON has (the registry names both alike) must hold the JSON's value. Prints
one line per table with the values compared; exits 1 on a mismatch or a table compared to nothing
where the JSON has rows."""
import csv
import io
import json
import math
import sqlite3
import subprocess
import sys

report, kind, db, run_id = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
a = json.load(open(report))["analysis"]


def query(sql):
    if kind == "sqlite":
        con = sqlite3.connect(db)
        cur = con.execute(sql)
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
        con.close()
        return rows
    # NULL printed as a marker: psql's CSV writes NULL and '' alike otherwise
    out = subprocess.run(["psql", db, "-X", "-q", "--csv", "-P", "null=<NULL>", "-c", sql], check=True,
                         capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    for r in rows:
        for k, v in r.items():
            if v == "<NULL>":
                r[k] = None
            elif v == "":
                pass
            else:
                try:
                    r[k] = float(v)
                except ValueError:
                    pass
    return rows


bad = []


def same(x, y):
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, str) or isinstance(y, str):
        return str(x) == str(y)
    return math.isclose(float(x), float(y), rel_tol=1e-6, abs_tol=1e-6)


def compare(table, rows, objects, key):
    """rows of the table against the JSON objects, matched by key(row) == key(object)."""
    by = {}
    for o in objects:
        by.setdefault(key(o), o)
    n = 0
    for r in rows:
        o = by.get(key(r))
        if o is None:
            bad.append(f"{table}: row {key(r)!r} has no JSON object")
            continue
        for col, v in r.items():
            if col in ("run_id",) or col not in o or isinstance(o[col], (dict, list, bool)):
                continue
            if not same(v, o[col]):
                bad.append(f"{table} {key(r)!r} {col}: database {v!r}, JSON {o[col]!r}")
            n += 1
    if objects and not rows:
        bad.append(f"{table}: no rows, the JSON has {len(objects)}")
    print(f"  {table}: {len(rows)} rows, {n} values as in the JSON")


def rows_of(table, order=""):
    return query(f"SELECT * FROM {table} WHERE run_id = {run_id} {order}")


run0 = next(r for r in a["regions"] if r["index"] == 0)
compare("regions", rows_of("regions"), a["regions"], lambda o: int(o.get("idx", o.get("index"))))
compare("range_groups", rows_of("range_groups"), a.get("range_groups", []), lambda o: o["name"])
compare("kernels", rows_of("kernels"), run0.get("kernel_stats", []), lambda o: o["name"])
accounts = a.get("wall_accounts", [])
compare("accounts", rows_of("accounts"), [dict(o, idx=i) for i, o in enumerate(accounts)], lambda o: int(o["idx"]))
states = [dict(s, account=i) for i, o in enumerate(accounts) for s in o["states"]]
compare("account_states", rows_of("account_states"), states, lambda o: (int(o["account"]), o["state"]))
causes = [dict(c, account=i) for i, o in enumerate(accounts) for c in o["host_causes"]]
compare("account_causes", rows_of("account_causes"), causes, lambda o: (int(o["account"]), o["cause"], o["at"]))
sites = [dict(s, kind=t["kind"], target=t["name"]) for t in a.get("call_sites", []) for s in t["sites"]]
compare("call_sites", rows_of("call_sites"), sites, lambda o: (o["kind"], o["at"], o["count"]))
compare("devices", rows_of("devices"), [dict(p, idx=i) for i, p in enumerate(a.get("device_peaks", []))],
        lambda o: int(o["idx"]))
flows = [dict(f, kind=("memset " if f["kind"] == "memset" else f["dir"] + " ") + f["host_memory"])
         for f in run0.get("copy_flows", [])]
compare("copies", rows_of("copies"), flows, lambda o: o["kind"])
compare("launches", rows_of("launches"), a.get("launch_counters", []), lambda o: (o["kernel"], round(o["duration_us"] or 0, 3)))
series = a.get("memory", {}).get("series", [])
compare("memory", rows_of("memory"), series, lambda o: (int(o["pid"]), int(o["device"])))
if bad:
    print("\n".join(bad[:20]))
    sys.exit(1)
