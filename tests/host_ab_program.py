"""The cost benchmark's pause (MMPROF_AB_FILE) without a GPU, for tests/test_host_inject.sh: a
Python program drives the injection library's host parts (tests/host_probe.so) through a pause,
a resumption, a second pause and a second resumption, doing the same in each (a pure-Python spin
for the wall-clock look, a native burn for the CPU-time timers, a call site), then checks its
stream: nothing sampled or taken while paused, both kinds of sample and the site each time it
runs, and no timer signal at all while paused (the timers disarmed, not their samples dropped;
the second resumption arms again the timers the second pause disarmed).

    MMPROF_PROFILE_DIR=DIR MMPROF_AB_FILE=PATH python3 tests/host_ab_program.py PROBE.so
"""
import ctypes
import glob
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_stream import HostStream  # noqa: E402

probe = ctypes.CDLL(sys.argv[1])
probe.probe_signals.restype = ctypes.c_uint64
ab = os.environ["MMPROF_AB_FILE"]
streams = os.environ["MMPROF_PROFILE_DIR"] + "/*.stream"


def switches():
    out = []
    for path in glob.glob(streams):
        with open(path) as f:
            out += [(int(p[1]), p[2]) for p in (x.rstrip("\n").split("\t") for x in f) if p[0] == "abswitch"]
    return sorted(out)


def wait_switch(n):
    """Until the library has written its n-th switch (it writes each once done)."""
    until = time.time() + 10
    while len(switches()) < n:
        if time.time() > until:
            sys.exit(f"no switch {n} written in 10 s (switches: {switches()})")
        time.sleep(0.005)


def spin_python(seconds):
    t0 = time.time()
    n = 0
    while time.time() - t0 < seconds:
        n += 1
    return n


def work(corr):
    """What the sampler and a site would record: 0.3 s in Python, 0.3 s in native code, a site."""
    spin_python(0.3)
    probe.probe_burn(300)
    probe.probe_site(corr)


def phase(paused, n, corr):
    """Makes or removes the file, waits for the library's n-th switch, works: the timer signals
    handled meanwhile."""
    if paused:
        open(ab, "w").close()
    else:
        os.unlink(ab)
    wait_switch(n)
    before = probe.probe_signals()
    work(corr)
    return probe.probe_signals() - before


open(ab, "w").close()
probe.probe_start()
# Paused from the start; running; paused again (the timers made on resuming disarmed); running
# again (those timers armed again).
fired = [phase(True, 1, 7), phase(False, 2, 8), phase(True, 3, 9), phase(False, 4, 10)]
probe.probe_finish()

failed = 0


def check(ok, what):
    global failed
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    failed += not ok


sw = switches()
check([x[1] for x in sw] == ["off", "on", "off", "on"], f"switches off, on, off, on ({sw})")
(path,) = glob.glob(streams)
s = HostStream(path)
check(not s.problems, f"a well-formed stream {s.problems[:3]}")
runs = [(sw[1][0], sw[2][0]), (sw[3][0], float("inf"))]
paused = [x for x in s.samples if not any(a <= x["ts"] <= b for a, b in runs)]
check(not paused, f"no sample while paused ({len(paused)} were)")
for i, (a, b) in enumerate(runs):
    by = {src: sum(x["source"] == src and a <= x["ts"] <= b for x in s.samples) for src in ("py", "cpu")}
    check(by["py"] >= 20 and by["cpu"] >= 20, f"Python and CPU samples while running, time {i + 1} (0.6 s at 200 Hz: {by})")
check(fired[0] == 0 and fired[2] == 0, f"no timer signal while paused: the timers are disarmed (signals in each phase {fired})")
check(fired[1] >= 20 and fired[3] >= 20, f"timer signals while running, both times ({fired[1]}, {fired[3]})")
check(sorted(s.sites) == [8, 10], f"the sites taken while running alone ({sorted(s.sites)})")
with open(path) as f:
    stat = [x.rstrip("\n") for x in f if x.startswith("sitestat\t")]
check(stat == ["sitestat\t2\t0\t0"], f"sitestat counts those sites alone, none skipped, callbacks never off ({stat})")
check(any("MMPROF_AB_FILE" in x["detail"] for x in s.samplers), f"the sampler line names the knob ({s.samplers})")
sys.exit(1 if failed else 0)
