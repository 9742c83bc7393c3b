"""The Python side of tests/test_host_inject.sh: a program that calls the injection library's
host-stack parts (tests/host_probe.so) as CUPTI's callbacks would, with and without the GIL, and
spends known time in known places. It writes where (function and line) each thing happened.

    python3 tests/host_inject_program.py PROBE.so OWN.json
"""
import ctypes
import json
import sys
import time

probe_path, own_path = sys.argv[1:3]
nogil = ctypes.CDLL(probe_path)   # ctypes drops the GIL around a call: PyTorch's and numba's launches run so
gil = ctypes.PyDLL(probe_path)    # PyDLL keeps it
own = {"sites": {}, "spans": {}}


def line_after():
    return sys._getframe(1).f_lineno + 1


def launch_with_gil(corr):
    own["sites"][corr] = {"function": "launch_with_gil", "line": line_after(), "gil": True}
    gil.probe_site(corr)


def launch_without_gil(corr):
    own["sites"][corr] = {"function": "launch_without_gil", "line": line_after(), "gil": False}
    nogil.probe_site(corr)


def launch_deep(depth, corr):
    """A launch 70 Python frames down: the stack keeps its outermost and innermost frames."""
    if depth:
        return launch_deep(depth - 1, corr)
    own["sites"][corr] = {"function": "launch_deep", "line": line_after(), "gil": False, "deep": True}
    nogil.probe_site(corr)


def spin_python(seconds):
    t0 = time.time()
    n = 0
    while time.time() - t0 < seconds:
        n += sum(i * i for i in range(1000))
    return t0, time.time()


def main():
    gil.probe_start()
    launch_with_gil(1)
    launch_without_gil(2)          # before the sampler's first look: the frame layout is not checked yet
    time.sleep(0.05)
    launch_without_gil(3)          # after it: read without the GIL where this Python's layout is known
    launch_deep(70, 4)
    own["spans"]["spin_python"] = spin_python(0.4)
    t0 = time.time()
    own["sleep_line"] = line_after()
    time.sleep(0.4)
    own["spans"]["sleep"] = (t0, time.time())
    t0 = time.time()
    nogil.probe_burn(400)
    own["spans"]["probe_burn"] = (t0, time.time())
    own["version"] = list(sys.version_info[:2])
    own["file"] = __file__
    nogil.probe_finish()
    with open(own_path, "w") as f:
        json.dump(own, f)


if __name__ == "__main__":
    main()
