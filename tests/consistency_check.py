#!/usr/bin/env python3
"""No figure of a report contradicts another (issue 36): every output of one run (the JSON
report, the text, the CSV and the HTML page) read side by side, one rule a function.

  consistency_check.py DIR [SAMPLES_DIR]    checks every NAME.json in DIR with its NAME.txt,
                                            .csv and .html there and, where SAMPLES_DIR holds
                                            committed outputs of that NAME, those too
  consistency_check.py --plant DIR          plants one contradiction per rule into a copy of a
                                            sample's outputs in DIR; fails unless that rule, and
                                            no other, finds something it did not find before

DIR is what tests/render_samples.sh writes. Prints one line per rule; exits 1 on a
contradiction. The rules:
  launch_counts      "launched from X in P% of M launches with a call site (of its T)": T (M
                     where no "of its") is that kernel's launch count, as is "Top kernel: ...
                     (N launches"; the text and the page say the JSON's figures
  kernel_vs_wall     busy is the GPU during the range (busy ms <= wall, busy % = busy ms / wall);
                     where a range's kernel and copy time exceeds its wall, its work ran past it:
                     every output that prints the range's kernel ms beside its busy % prints its
                     GPU span (the work projected onto the GPU) in the row and says what busy is
  busy_vs_verdict    a verdict's share of its range is no more than the GPU's working share (a
                     GPU state: computing, copies, collectives) or its idle share (an idle state);
                     a region's busy and its account's GPU working agree within half a point, or
                     the verdict says both; no busy beside "no-gpu"; no "no GPU work ran during
                     the region" beside GPU work launched from it without saying when that ran
  speedup_factors    pinned against pageable copies: each direction's pair of GB/s is the same
                     wherever printed, and a factor printed beside a pair is that pair's ratio
  time_origin        the tables' "at ms" count from the run's start, as the JSON's start_ms,
                     and the page's timeline puts its axis's origin there: each listed idle
                     stretch is a gap of its GPU's busy track at that time
  account_sums       each wall-time account's states sum to its wall (+-0.5%) and their shares
                     to 100% (+-0.5) in every output that prints it, and the text, CSV and page
                     print the JSON's figures
  group_rows         a repeated range's group is its instances: its count their number, its
                     min, median and max their walls', its median and longest instance among
                     them; the text's row, the CSV's and the page's group say the JSON's count
                     and median, and the page's group opens to its listed instances"""
import csv
import glob
import html as htmlmod
import io
import json
import os
import re
import shutil
import sys
import tempfile

# The wall-time states in which the GPU works, and those in which it idles (the briefs of
# src/analysis/cause_table.c); a group's verdict ("copies (the most, ...)") mixes both.
GPU_BRIEFS = ("GPU in collectives", "GPU computing", "H2D copies from pageable memory", "H2D copies from pinned memory",
              "D2H copies into pageable memory", "D2H copies into pinned memory", "device copies", "memsets")
IDLE_BRIEFS = ("waiting for input", "compiling", "importing", "CUDA start-up", "allocating", "synchronising",
               "launch overhead", "in copy calls", "I/O", "sleeping", "waiting on a thread or lock", "garbage collection",
               "exiting", "host computing", "mmprof's own work", "other CUDA calls", "waiting (cause not known)",
               "not known")


class Sample:
    """One run's outputs: the JSON report and each text, CSV and HTML output of it."""

    def __init__(self, name, jpath, others):
        self.name = name
        self.j = json.load(open(jpath))
        self.a = self.j.get("analysis", {})
        self.texts, self.csvs, self.htmls = [], [], []
        for path in others:
            if os.path.exists(path):
                kind = {".txt": self.texts, ".csv": self.csvs, ".html": self.htmls}[os.path.splitext(path)[1]]
                kind.append((path, open(path, encoding="utf-8").read()))


def flat(s):
    return re.sub(r"\s+", " ", s)


def html_text(page):
    """The page's words, without its scripts, styles and tags (inline tags add no space)."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"</?(span|b|a|code|strong|em|abbr)\b[^>]*>", "", page)
    return htmlmod.unescape(re.sub(r"<[^>]+>", " ", page))


def near(x, y, tol):
    return abs(x - y) <= tol


def path_get(root, path):
    """analysis.wall_accounts[0].states[2].ms in the JSON; KeyError where it is not there."""
    v = root
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            i = int(part[1:-1])
            if not isinstance(v, list) or i >= len(v):
                return KeyError
            v = v[i]
        else:
            if not isinstance(v, dict) or part not in v:
                return KeyError
            v = v[part]
    return v


def figure_matches(value, text):
    """A page's figure as shown ("10076.688", "82.6", "1.14 GB", "n/a") against the JSON's value."""
    m = re.match(r"^-?[\d.]+", text.replace(",", ""))
    if value is None:
        return m is None
    if not m:
        return False
    digits = m.group(0)
    dec = len(digits.split(".")[1]) if "." in digits else 0
    rest = text[len(digits):].strip()
    if rest and rest[0] in "kMGT" and rest.endswith("B"):  # bytes with an SI prefix, three significant digits
        v = float(digits) * {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[rest[0]]
        return near(v, float(value), abs(float(value)) * 0.006 + 1)
    return near(float(digits), float(value), 0.5 * 10 ** -dec + 1e-9)


def check_page_figures(s, prefix, what, bad):
    """Every figure a page marks with a JSON path under prefix shows that path's value."""
    for path, body in s.htmls:
        for p, t in re.findall(r'data-fig="([^"]+)"[^>]*>([^<]*)<', body):
            if not p.startswith(prefix):
                continue
            t = htmlmod.unescape(t).strip()
            v = path_get(s.j, p)
            if v is KeyError:
                bad.append(f"{s.name}: {path}: {what}: the page marks {p}, which the JSON report lacks")
            elif (v is None or isinstance(v, (int, float))) and not figure_matches(v, t):
                bad.append(f"{s.name}: {path}: {what}: {p} shows '{t}', the JSON report has {v}")


# ---------------------------------------------------------------------------------------------
# Rule 1: launch counts

LAUNCHED = re.compile(r"(\d+)% of (\d+) launches with a call site(?: \(of its (\d+)\))?")
TOP = re.compile(r"Top kernel: (\S+) takes [\d.]+% of kernel time \((\d+) launches")


def launch_counts(s):
    bad = []
    kernels = {}
    events = s.j.get("events", {}).get("kernels", [])
    if isinstance(events, list):
        for k in events:
            kernels[k["name"]] = kernels.get(k["name"], 0) + 1
    else:  # a large run's events in columns: the run's kernels by name
        run = s.a.get("regions") or [{}]
        kernels = {k["name"]: k["count"] for k in run[0].get("kernel_stats", [])}
    summary = s.j.get("summary", [])
    for item in summary:
        t = item["text"]
        name = re.match(r"(?:The top kernel |Top kernel: )(\S+)", t)
        said = LAUNCHED.search(t) if item["kind"] == "launched_from" else TOP.search(t)
        if not name or not said or item["kind"] not in ("launched_from", "top_kernel"):
            continue
        total = int(said.group(3) or said.group(2)) if item["kind"] == "launched_from" else int(said.group(2))
        cut = name.group(1).rstrip(".")
        counts = [n for k, n in kernels.items() if k.startswith(cut)]
        if len(counts) != 1:
            continue  # a cut name that starts several kernels' names: no one count to hold it to
        if total != counts[0]:
            bad.append(f"{s.name}: JSON summary: {cut[:60]}: {total} launches said, the kernel has {counts[0]}: {t[:160]}")
        if item["kind"] == "launched_from" and int(said.group(2)) > counts[0]:
            bad.append(f"{s.name}: JSON summary: {cut[:60]}: {said.group(2)} launches with a call site of its {counts[0]}")
    # the text and the page say the JSON's figures
    want = sorted((int(f.group(2)), int(f.group(3) or f.group(2))) for i in summary for f in LAUNCHED.finditer(i["text"]))
    want_top = sorted(int(m.group(2)) for i in summary for m in TOP.finditer(i["text"]))
    for path, body in s.texts + [(p, html_text(b)) for p, b in s.htmls]:
        body = flat(body)
        got = sorted((int(f.group(2)), int(f.group(3) or f.group(2))) for f in LAUNCHED.finditer(body))
        # a kernel name wrapped in the text has spaces in it: the count after it is what is compared
        got_top = sorted(int(n) for n in re.findall(r"Top kernel: .{0,400}? takes [\d.]+% of kernel time \((\d+) launches",
                                                    body))
        if want and got != want:
            bad.append(f"{s.name}: {path}: 'launched from' says (launches with a call site, of all) {got}, the JSON "
                       f"report {want}")
        if want_top and got_top and got_top != want_top:
            bad.append(f"{s.name}: {path}: 'Top kernel' says {got_top} launches, the JSON report {want_top}")
    return bad


# ---------------------------------------------------------------------------------------------
# Rule 2: kernel time against the wall

def past_wall(r):
    work = (r.get("kernel_ms") or 0) + (r.get("memcpy_ms") or 0)
    return r.get("wall_ms") is not None and work > r["wall_ms"] * 1.001 + 0.001


def text_table(body, heading, columns):
    """A text table: its heading's lines (from the one starting with heading), its column line
    (the next starting with columns) and its rows up to a blank line; None where it is not."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith(heading):
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith(columns):
            j += 1
        if j == len(lines):
            return None
        rows = []
        for row in lines[j + 1:]:
            if not row.strip():
                break
            rows.append(row)
        return flat(" ".join(lines[i:j])), lines[j], rows
    return None


def text_timeline(body):
    """The text's Timeline table: its heading, its column line and its rows."""
    return text_table(body, "Timeline  regions:", "region ")


def kernel_vs_wall(s):
    bad = []
    regions = s.a.get("regions", [])
    for r in regions:
        wall, busy_ms, busy = r.get("wall_ms"), r.get("gpu_busy_ms"), r.get("busy_pct")
        if busy is not None and busy > 100.05:
            bad.append(f"{s.name}: JSON: region '{r['name']}': busy {busy:.1f}%, over 100")
        if busy_ms is not None and wall is not None and busy_ms > wall * 1.000001 + 1e-6:
            bad.append(f"{s.name}: JSON: region '{r['name']}': GPU busy {busy_ms:.3f} ms during a wall of {wall:.3f} ms")
        if busy is not None and busy_ms is not None and wall and not near(busy, 100 * busy_ms / wall, 0.05):
            bad.append(f"{s.name}: JSON: region '{r['name']}': busy {busy:.1f}% is not GPU busy {busy_ms:.3f} ms over the "
                       f"wall of {wall:.3f} ms")
        if past_wall(r) and r.get("gpu_span_ms") is None:
            bad.append(f"{s.name}: JSON: region '{r['name']}': kernels {r['kernel_ms']:.3f} ms past its wall of "
                       f"{wall:.3f} ms, with no GPU span")
    past = [i for i, r in enumerate(regions) if past_wall(r)]
    if not past:
        return bad
    listed = s.a.get("listed_regions") or list(range(len(regions)))
    # the text's Timeline rows are the listed regions less the repeated ranges (one row per name
    # under "Repeated ranges")
    grouped = {i for g in s.a.get("range_groups") or [] if g["count"] >= 2 and g.get("listed", 0) > 0
               for i in g.get("instances") or []}
    listed = [li for li in listed if li not in grouped]
    for path, body in s.texts:
        t = text_timeline(body)
        if t is None:
            continue
        head, cols, rows = t
        if "GPU span" not in cols or "busy is the GPU during the range" not in head:
            r = regions[past[0]]
            bad.append(f"{s.name}: {path}: Timeline: '{r['name']}' has kernel {r['kernel_ms']:.3f} ms against a wall of "
                       f"{r['wall_ms']:.3f} ms, and the table neither shows the GPU span nor says what busy is")
            continue
        for row, li in zip(rows, listed):
            r = regions[li] if li < len(regions) else None
            if r is None or not past_wall(r):
                continue
            cells = row[31:].split()
            if len(cells) < 5 or cells[3] == "n/a" or not near(float(cells[3]), r["gpu_span_ms"], 0.0005 + 1e-9):
                bad.append(f"{s.name}: {path}: Timeline: '{r['name']}' kernel {r['kernel_ms']:.3f} ms over its wall of "
                           f"{r['wall_ms']:.3f} ms: its GPU span {r['gpu_span_ms']:.3f} ms is not in its row "
                           f"({row.strip()})")
    for path, body in s.htmls:
        m = re.search(r'<table class="regions\b.*?</table>', body, re.S)
        if not m:
            continue
        for li in past:
            if f'data-fig="analysis.regions[{li}].busy_pct"' in m.group(0) and \
                    f'data-fig="analysis.regions[{li}].gpu_span_ms"' not in m.group(0):
                r = regions[li]
                bad.append(f"{s.name}: {path}: regions table: '{r['name']}' shows kernel {r['kernel_ms']:.3f} ms, wall "
                           f"{r['wall_ms']:.3f} ms and busy {r['busy_pct']}, without its GPU span")
                break
        if "busy is the GPU during the range" not in flat(html_text(body)):
            bad.append(f"{s.name}: {path}: regions table: ranges whose work ran past them, and the page does not say "
                       f"that busy is the GPU during the range")
    for path, body in s.csvs:
        for r in csv.DictReader(io.StringIO(body)):
            if r["row"] != "region" or not r["region_index"].isdigit() or int(r["region_index"]) >= len(regions):
                continue
            j = regions[int(r["region_index"])]
            v = r.get("region.gpu_span_ms (ms)", "")
            if past_wall(j) and (v == "" or not near(float(v), j["gpu_span_ms"], 1e-6 * max(1, j["gpu_span_ms"]))):
                bad.append(f"{s.name}: {path}: region '{j['name']}': GPU span '{v}', the JSON report "
                           f"{j['gpu_span_ms']}")
    return bad


# ---------------------------------------------------------------------------------------------
# Rule 3: busy against the verdict

VERDICT_SHARE = re.compile(r"^[\w/-]+: (.+?) ([\d.]+)% of the (?:range|run)\b")
# where the process's GPU work and the range's own differ, the verdict says both (accounts.c)
BOTH = re.compile(r"\(all of the process's GPU work: the GPU working ([\d.]+)% of the range; the range's own work "
                  r"alone: busy ([\d.]+)%\)")
AGREE = 0.5  # points: a region's busy and its account's GPU share agree within it, else the verdict says both


def busy_vs_verdict(s):
    bad = []
    regions = s.a.get("regions", [])
    for r in regions:
        busy = r.get("busy_pct")
        reason = r.get("verdict_reason") or ""
        if busy is not None and busy > 0.05 and (r.get("verdict") == "no-gpu" or "no GPU work" in reason):
            bad.append(f"{s.name}: JSON: region '{r['name']}': busy {busy:.1f}% and verdict '{r['verdict']}': "
                       f"{reason[:100]}")
        m, both = VERDICT_SHARE.match(reason), BOTH.search(reason)
        if both and busy is not None and not near(float(both.group(2)), busy, 0.051):
            bad.append(f"{s.name}: JSON: region '{r['name']}': its verdict says busy {both.group(2)}%, the region has "
                       f"{busy:.1f}%")
        if m and busy is not None and m.group(1) in GPU_BRIEFS + IDLE_BRIEFS:
            share, gpu = float(m.group(2)), m.group(1) in GPU_BRIEFS
            working = float(both.group(1)) if both else busy  # the GPU share the verdict's share is part of
            room = working if gpu else 100 - working
            if share > room + (0.1 if both else AGREE):
                bad.append(f"{s.name}: JSON: region '{r['name']}': verdict '{r['verdict']}' gives {m.group(1)} "
                           f"{share:.1f}% of the range, beside busy {busy:.1f}% (the GPU {'busy' if gpu else 'idle'} "
                           f"{room:.1f}%)")
        why = (r.get("not_available") or {}).get("busy_pct", "")
        launched = (r.get("kernel_ms") or 0) + (r.get("memcpy_ms") or 0)
        if why.startswith("no GPU work ran during") and launched > 0 and "after" not in why:
            bad.append(f"{s.name}: JSON: region '{r['name']}': busy n/a, '{why}', beside {launched:.3f} ms of kernels "
                       f"and copies launched from it, without saying when they ran")
    by_index = {r["index"]: r for r in regions}
    for acc in s.a.get("wall_accounts", []):
        gpu, idle, vp = acc.get("gpu_pct"), acc.get("idle_pct"), acc.get("verdict_pct")
        if gpu is not None and idle is not None and not near(gpu + idle, 100, 0.05):
            bad.append(f"{s.name}: JSON: account '{acc['name']}': GPU working {gpu:.1f}% and idle {idle:.1f}% do not "
                       f"make 100%")
        m = VERDICT_SHARE.match(acc.get("verdict_text") or "")
        if m and vp is not None and gpu is not None and m.group(1) in GPU_BRIEFS + IDLE_BRIEFS:
            room = gpu if m.group(1) in GPU_BRIEFS else idle
            if vp > room + 0.05:
                bad.append(f"{s.name}: JSON: account '{acc['name']}': verdict {m.group(1)} {vp:.1f}% beside the GPU "
                           f"{'working' if m.group(1) in GPU_BRIEFS else 'idle'} {room:.1f}%")
        # the run's busy and its account's GPU working are one figure (an account of several processes sums
        # each one's time, and says so: not the union of the GPUs' busy time)
        r = by_index.get(acc.get("region")) if acc.get("scope") == "run" and acc.get("processes", 1) <= 1 else None
        if r is not None and r.get("busy_pct") is not None and gpu is not None and not near(r["busy_pct"], gpu, 0.1):
            bad.append(f"{s.name}: JSON: '{acc['name']}': busy {r['busy_pct']:.1f}% in the regions, GPU working "
                       f"{gpu:.1f}% in its wall-time account")
    run_acc = next((x for x in s.a.get("wall_accounts", []) if x.get("scope") == "run" and x.get("processes", 1) <= 1),
                   None)
    for path, body in s.texts:
        m = re.search(r"GPU busy ([\d.]+)% of the run's", flat(body))
        if m and run_acc and run_acc.get("gpu_pct") is not None and not near(float(m.group(1)), run_acc["gpu_pct"], 0.051):
            bad.append(f"{s.name}: {path}: summary 'GPU busy {m.group(1)}% of the run' against its account's GPU "
                       f"working {run_acc['gpu_pct']:.1f}%")
    return bad


# ---------------------------------------------------------------------------------------------
# Rule 4: speed-up factors, pinned against pageable

PAIR_SUMMARY = re.compile(r"(H2D|D2H) ([\d.]+) against ([\d.]+) GB/s(?: \(([\d.]+)x\))?")
PAIR_PAGE = re.compile(r"(host to device|device to host): pinned ([\d.]+) GB/s against pageable ([\d.]+) GB/s"
                       r"(?: \([^)]*\))?, ([\d.]+)\s*(?:x|\u00d7) faster")
PRODUCT = re.compile(r"Pinned host memory makes copies ([\d.]+)x faster: ([\d.]+) ms against ([\d.]+) ms per product")


def speedup_factors(s):
    bad = []
    pairs = {}  # direction -> [(output, pinned GB/s, pageable GB/s, factor or None)]
    outputs = [("JSON summary", " ".join(i["text"] for i in s.j.get("summary", [])))]
    outputs += [(p, flat(b)) for p, b in s.texts] + [(p, flat(html_text(b))) for p, b in s.htmls]
    for where, body in outputs:
        for m in PRODUCT.finditer(body):
            x, pn, pg = float(m.group(1)), float(m.group(2)), float(m.group(3))
            if pn > 0 and not near(x, pg / pn, 0.051 + 0.0005 * (pg + pn) / pn ** 2):
                bad.append(f"{s.name}: {where}: 'copies {x}x faster', but {pg} ms against {pn} ms is {pg / pn:.2f}x")
        for m in PAIR_SUMMARY.finditer(body):
            pairs.setdefault(m.group(1), []).append((where, float(m.group(2)), float(m.group(3)),
                                                     float(m.group(4)) if m.group(4) else None))
        for m in PAIR_PAGE.finditer(body):
            d = "H2D" if m.group(1) == "host to device" else "D2H"
            pairs.setdefault(d, []).append((where, float(m.group(2)), float(m.group(3)), float(m.group(4))))
    for d, said in pairs.items():
        first = said[0]
        for where, pn, pg, x in said:
            if x is not None and pg > 0 and not near(x, pn / pg, 0.051 + 0.05 * (pn + pg) / pg ** 2):
                bad.append(f"{s.name}: {where}: {d} pinned {pn} against pageable {pg} GB/s said to be {x}x faster "
                           f"({pn / pg:.2f}x)")
            if not (near(pn, first[1], 0.051) and near(pg, first[2], 0.051)):
                bad.append(f"{s.name}: {where}: {d} pinned {pn} against pageable {pg} GB/s; {first[0]} says "
                           f"{first[1]} against {first[2]} GB/s for the same comparison")
    return bad


# ---------------------------------------------------------------------------------------------
# Rule 5: one time origin

def timeline_data(page):
    m = re.search(r'<script type="application/json" id="tl-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1)) if m else None


def busy_tracks(data):
    """GPU index -> its busy intervals, ns on the page's axis."""
    out = {}
    for t in data["tracks"]:
        if t["k"] == "busy":
            acc, iv = 0, []
            for start, d in zip(t["s"], t["d"]):
                acc += start
                iv.append((acc, acc + d))
            out[int(re.match(r"GPU (\d+)", t["l"]).group(1))] = iv
    return out


def time_origin(s):
    bad = []
    gaps = s.a.get("idle_gaps", [])
    for path, body in s.texts:  # the text's "at ms" are the JSON's start_ms
        m = re.search(r"\nGPU\s+at ms\s+idle ms where\s+cause\n(.*?)(?:\n\S|\Z)", body, re.S)
        if not m:
            continue
        rows = re.findall(r"^(\d+)\s+(\d+\.\d{3})\s+(\d+\.\d{3}) ", m.group(1), re.M)
        for (dev, at, ms), g in zip(rows, gaps):
            if int(dev) != g["device"] or not near(float(at), g["start_ms"], 0.0005 + 1e-9) or \
                    not near(float(ms), g["ms"], 0.0005 + 1e-9):
                bad.append(f"{s.name}: {path}: idle stretch at {at} ms ({ms} ms, GPU {dev}); the JSON report has "
                           f"{g['start_ms']:.3f} ms ({g['ms']:.3f} ms, GPU {g['device']})")
    check_page_figures(s, "analysis.idle_gaps[", "idle stretches", bad)
    # the page's timeline: a stretch at "at ms" is a gap of its GPU's busy track that long after the run's start
    for path, body in s.htmls:
        data = timeline_data(body)
        if not data or not gaps:
            continue
        run0, tracks, tol = data.get("run0", 0), busy_tracks(data), 2e3  # ns: the figures' rounding
        for g in gaps:
            iv = tracks.get(g["device"])
            lo = run0 + g["start_ms"] * 1e6
            hi = lo + g["ms"] * 1e6
            if not iv or hi > data["span"] + tol:
                continue  # past the page's window
            inside = [x for x in iv if x[0] < hi - tol and x[1] > lo + tol]
            ends = lo < iv[0][0] + tol or any(near(x[1], lo, tol) for x in iv)
            if inside or not ends:
                bad.append(f"{s.name}: {path}: the idle stretch at {g['start_ms']:.3f} ms ({g['ms']:.3f} ms, GPU "
                           f"{g['device']}) is not a gap of the timeline's busy track that long after the run's start "
                           f"(the page puts the run's start {run0 / 1e6:.1f} ms into its axis)")
                break
    return bad


# ---------------------------------------------------------------------------------------------
# Rule 6: the wall-time account's sums

ACCT_HEAD = re.compile(r"^(\S.*?) \((.*), ([\d.]+) ms; GPU working ([\d.]+)%\): (\S.*)$")
ACCT_ROW = re.compile(r"^  (\S.*?)\s+(\d+\.\d{3})\s+(\d+\.\d)%(?:\s+(\d+))?(?:\s|$)")
ACCT_MORE = re.compile(r"^  \((\d+) more states?, ([\d.]+) ms")


def text_accounts(body):
    """The text's account blocks: [name, wall, GPU working %, rows [(state, ms, share)], more ms]."""
    out, cur = [], None
    for line in body.split("\n"):
        m = ACCT_HEAD.match(line)
        if m:
            cur = [m.group(1), float(m.group(3)), float(m.group(4)), [], 0.0]
            out.append(cur)
        elif cur is not None and not line.strip():
            cur = None
        elif cur is not None:
            r = ACCT_ROW.match(line)
            if r:
                cur[3].append((r.group(1), float(r.group(2)), float(r.group(3))))
            r = ACCT_MORE.match(line)
            if r:
                cur[4] = float(r.group(2))
    return out


def account_sums(s):
    bad = []
    accounts = s.a.get("wall_accounts", [])
    for acc in accounts:
        wall, states = acc.get("wall_ms"), acc.get("states", [])
        if wall is None or not states:
            continue
        total = sum(x["ms"] or 0 for x in states)
        shares = sum(x["share_pct"] or 0 for x in states)
        if not near(total, wall, 0.005 * wall):
            bad.append(f"{s.name}: JSON: account '{acc['name']}': its states sum to {total:.3f} ms of a wall of "
                       f"{wall:.3f} ms")
        if not near(shares, 100, 0.5):
            bad.append(f"{s.name}: JSON: account '{acc['name']}': its shares sum to {shares:.1f}%")
    for path, body in s.texts:
        for name, wall, gpu, rows, more in text_accounts(body):
            total = sum(ms for _, ms, _ in rows) + more
            shares = sum(sh for _, _, sh in rows) + (100 * more / wall if wall else 0)
            if not near(total, wall, 0.005 * wall + 0.002):
                bad.append(f"{s.name}: {path}: account '{name}': the states shown sum to {total:.3f} ms of its "
                           f"{wall:.3f} ms")
            if not near(shares, 100, 0.5 + 0.05 * len(rows)):
                bad.append(f"{s.name}: {path}: account '{name}': the shares shown sum to {shares:.1f}%")
            acc = next((a for a in accounts if a.get("wall_ms") is not None and near(a["wall_ms"], wall, 0.0005 + 1e-9)
                        and a["name"].startswith(name.rstrip("."))), None)
            if acc is None:
                bad.append(f"{s.name}: {path}: account '{name}' ({wall:.3f} ms) is not in the JSON report")
                continue
            if acc.get("gpu_pct") is not None and not near(gpu, acc["gpu_pct"], 0.051):
                bad.append(f"{s.name}: {path}: account '{name}': GPU working {gpu}%, the JSON report "
                           f"{acc['gpu_pct']:.2f}%")
            for (state, ms, sh), js in zip(rows, acc["states"]):
                if not near(ms, js["ms"], 0.0005 + 1e-9) or not near(sh, js["share_pct"], 0.05 + 1e-9):
                    bad.append(f"{s.name}: {path}: account '{name}': {state} {ms:.3f} ms {sh:.1f}%, the JSON report "
                               f"{js['ms']:.3f} ms {js['share_pct']:.1f}%")
    for path, body in s.csvs:
        got = {}
        for r in csv.DictReader(io.StringIO(body)):
            if r["row"] == "account_state":  # its count column is its account's index
                got.setdefault(int(r["count"]), []).append((r["name"], float(r["account_state.ms (ms)"]),
                                                             float(r["account_state.share_pct (%)"])))
        for i, acc in enumerate(accounts):
            want = [(x["state"], x["ms"], x["share_pct"]) for x in acc.get("states", [])]
            have = got.get(i, [])
            if len(have) != len(want) or not all(
                    a[0] == b[0] and near(a[1], b[1], 1e-6 * max(1, b[1])) and near(a[2], b[2], 1e-6 * max(1, b[2]))
                    for a, b in zip(have, want)):
                bad.append(f"{s.name}: {path}: account '{acc['name']}': the CSV's states {have[:2]}..., the JSON "
                           f"report's {want[:2]}...")
    check_page_figures(s, "analysis.wall_accounts[", "wall-time account", bad)
    for path, body in s.htmls:
        for bar in re.findall(r'<div class="acct-bar"[^>]*>(.*?)</div>', body, re.S):
            widths = [float(w) for w in re.findall(r'style="width:([\d.]+)%"', bar)]
            if widths and not near(sum(widths), 100, 0.5):
                bad.append(f"{s.name}: {path}: an account's bar is {sum(widths):.1f}% wide")
    return bad

# ---------------------------------------------------------------------------------------------
# Rule 7: a group row is its instances

def median_of(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def text_groups(body):
    """The text's "Repeated ranges" rows: (name, count, median ms as printed)."""
    t = text_table(body, "Repeated ranges", "range ")
    rows = []
    for row in t[2] if t else []:
        cells = row[24:].split()
        if len(cells) >= 2 and cells[0].isdigit() and row[:24].strip():
            rows.append((row[:24].strip(), int(cells[0]), cells[1]))
    return rows


def group_rows(s):
    bad = []
    regions = s.a.get("regions", [])
    groups = s.a.get("range_groups") or []
    for g in groups:
        inst = g.get("instances") or []
        if len(inst) != g["count"]:
            bad.append(f"{s.name}: JSON: group '{g['name']}': count {g['count']}, {len(inst)} instances")
            continue
        walls = [regions[i]["wall_ms"] for i in inst if i < len(regions) and regions[i].get("wall_ms") is not None]
        if walls and len(walls) == len(inst):
            for key, v in (("min_ms", min(walls)), ("max_ms", max(walls)), ("median_ms", median_of(walls))):
                if g.get(key) is None or not near(g[key], v, 1e-6 * max(1, v)):
                    bad.append(f"{s.name}: JSON: group '{g['name']}': {key} {g.get(key)}, its instances' {v}")
        for which in ("median_instance", "longest_instance"):
            if (g.get(which) or {}).get("region") not in inst:
                bad.append(f"{s.name}: JSON: group '{g['name']}': its {which} is not one of its instances")
        lon = (g.get("longest_instance") or {}).get("region")
        if lon in inst and g.get("max_ms") is not None and \
                not near(regions[lon]["wall_ms"], g["max_ms"], 1e-6 * max(1, g["max_ms"])):
            bad.append(f"{s.name}: JSON: group '{g['name']}': its longest instance's wall {regions[lon]['wall_ms']}, "
                       f"its max {g['max_ms']}")
        told = sum(x["count"] for x in g.get("advice") or []) + (g.get("advice_other") or 0)
        if told > g["count"]:
            bad.append(f"{s.name}: JSON: group '{g['name']}': advice told {told} times for {g['count']} instances")
    for path, body in s.texts:
        for name, count, med in text_groups(body):
            label = lambda g: (g["domain"] + "@" if g.get("domain") else "") + g["name"]  # as the text names it
            cands = [g for g in groups if label(g) == name or (name.endswith("...") and label(g).startswith(name[:-3]))]
            if not any(g["count"] == count and g.get("median_ms") is not None and figure_matches(g["median_ms"], med)
                       for g in cands):
                bad.append(f"{s.name}: {path}: Repeated ranges: '{name}', {count} instances, median {med}: not a group "
                           f"of the JSON report")
    for path, body in s.csvs:
        for r in csv.DictReader(io.StringIO(body)):
            if r["row"] != "range_group":
                continue
            g = next((g for g in groups if g["name"] == r["name"] and str(g["count"]) == r["count"]), None)
            v = r.get("range_group.median_ms (ms)", "")
            if g is None or v == "" or not near(float(v), g["median_ms"], 1e-6 * max(1, g["median_ms"])):
                bad.append(f"{s.name}: {path}: range_group '{r['name']}' of {r['count']}: not a group of the JSON report")
    for path, body in s.htmls:
        for m in re.finditer(r'<details class="rgroup".*?</details>', body, re.S):
            d = m.group(0)
            gi = re.search(r'data-fig="analysis\.range_groups\[(\d+)\]', d)
            g = groups[int(gi.group(1))] if gi and int(gi.group(1)) < len(groups) else None
            count = re.search(r"&times;(\d+)", d)
            rows = [int(r) for r in re.findall(r'data-fig="analysis\.regions\[(\d+)\]\.wall_ms"', d)]
            if g is None or not count or int(count.group(1)) != g["count"]:
                bad.append(f"{s.name}: {path}: a repeated range's group ({count.group(0) if count else 'no count'}) is "
                           f"not the JSON report's")
            elif any(r not in g["instances"] for r in rows) or len(rows) != g.get("listed", len(rows)):
                bad.append(f"{s.name}: {path}: group '{g['name']}' opens to {len(rows)} rows, not its "
                           f"{g.get('listed')} listed instances")
    return bad



RULES = [launch_counts, kernel_vs_wall, busy_vs_verdict, speedup_factors, time_origin, account_sums, group_rows]


def samples_in(d, committed=None):
    out = []
    for jpath in sorted(glob.glob(os.path.join(d, "*.json"))):
        name = os.path.basename(jpath)[:-5]
        others = [os.path.join(d, name + e) for e in (".txt", ".csv", ".html")]
        if committed:
            others += [os.path.join(committed, name + e) for e in (".txt", ".csv", ".html")]
        out.append(Sample(name, jpath, others))
    return out


def check(samples):
    return {rule.__name__: [f for s in samples for f in rule(s)] for rule in RULES}


# ---------------------------------------------------------------------------------------------
# Planted contradictions, one per rule, each as the issue saw it.

def sub_once(path, old, new):
    body = open(path, encoding="utf-8").read()
    found = old in body if isinstance(old, str) else re.search(old, body)
    if not found:
        raise SystemExit(f"plant: {old if isinstance(old, str) else old.pattern} is not in {path}: update the plant")
    body = body.replace(old, new, 1) if isinstance(old, str) else old.sub(new, body, count=1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)


def edit_json(path, change):
    j = json.load(open(path))
    change(j)
    with open(path, "w") as f:
        json.dump(j, f)


def plant_launches(d):  # "100% of 4 launches" for a kernel with 48
    sub_once(f"{d}/h200-profile-train.txt", re.compile(r"in 100% of 48(\s+)launches"), r"in 100% of 4\1launches")


def plant_span(d):  # a step's kernel time past its wall, its GPU span and what busy is gone from the table
    sub_once(f"{d}/h200-profile-train.txt", "GPU span ms", "   other ms")
    sub_once(f"{d}/h200-profile-train.txt", "busy is the GPU during the range", "busy is the GPU")


def plant_verdict(d):  # a range busy 100.0 and no-gpu
    def change(j):
        r = j["analysis"]["regions"][3]
        r["verdict"], r["verdict_reason"] = "no-gpu", "no-gpu: no GPU work was launched from the range"
        r["busy_pct"], r["gpu_busy_ms"] = 100.0, r["wall_ms"]
    edit_json(f"{d}/h200-profile-train.json", change)


def plant_speedup(d):  # the copy section's pageable GB/s from other runs than the summary's
    sub_once(f"{d}/h200-2048.html", re.compile(r"(<b>host to device</b>: pinned .*? against pageable <span[^>]*>)[\d.]+"),
             r"\g<1>7.4")


def plant_origin(d):  # the canvas's origin 169.8 ms off the tables' "at ms"
    sub_once(f"{d}/h200-profile-train.html", '"run0":0,', '"run0":169800000,')


def plant_account(d):  # a state's time changed in the text: the account no longer sums to its wall
    sub_once(f"{d}/h200-profile-train.txt", re.compile(r"(\n  importing +)10076\.688"), r"\g<1>10176.688")


def plant_group(d):  # a group row's count that is not its instances'
    sub_once(f"{d}/h200-profile-train.txt", re.compile(r"(\nstep \* +)12 "), r"\g<1>11 ")


PLANTS = {"group_rows": ("h200-profile-train", plant_group),
          "launch_counts": ("h200-profile-train", plant_launches), "kernel_vs_wall": ("h200-profile-train", plant_span),
          "busy_vs_verdict": ("h200-profile-train", plant_verdict), "speedup_factors": ("h200-2048", plant_speedup),
          "time_origin": ("h200-profile-train", plant_origin), "account_sums": ("h200-profile-train", plant_account)}


def planted(d):
    ok = True
    for rule in RULES:
        name = rule.__name__
        sample, plant = PLANTS[name]
        with tempfile.TemporaryDirectory() as tmp:
            for f in glob.glob(os.path.join(d, sample + ".*")):
                shutil.copy(f, tmp)
            before = check(samples_in(tmp))
            plant(tmp)
            after = check(samples_in(tmp))
        new = {r: [f.replace(tmp, "PLANTED") for f in after[r] if f not in before[r]] for r in after}
        others = [r for r in new if new[r] and r != name]
        if new[name] and not others:
            print(f"planted {name}: caught: {new[name][0][:240]}")
        else:
            ok = False
            print(f"planted {name}: {'caught' if new[name] else 'NOT caught'}"
                  + (f"; other rules failed too: {others[0]}: {new[others[0]][0][:240]}" if others else ""))
    return ok


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--plant":
        sys.exit(0 if planted(args[1]) else 1)
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    samples = samples_in(args[0], args[1] if len(args) > 1 else None)
    if not samples:
        sys.exit(f"no NAME.json in {args[0]}")
    outputs = sum(len(s.texts) + len(s.csvs) + len(s.htmls) + 1 for s in samples)
    bad = 0
    for rule, fails in check(samples).items():
        print(f"{rule}: {len(fails) or 'no'} contradiction(s) over {len(samples)} samples, {outputs} outputs")
        for f in fails[:20]:
            print("  " + f)
        bad += len(fails)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
