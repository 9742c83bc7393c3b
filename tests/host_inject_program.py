"""The Python side of tests/test_host_inject.sh: a program that calls the injection library's
host-stack parts (tests/host_probe.so) as CUPTI's callbacks would, with and without the GIL, and
spends known time in known places. It writes where (function and line) each thing happened.

    python3 tests/host_inject_program.py PROBE.so OWN.json
"""
import ctypes
import gc
import json
import sys
import threading
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


class Launcher:
    def launch(self, corr):
        """A method: named by its qualified name (its code object's co_qualname, not co_name)."""
        own["sites"][corr] = {"function": "Launcher.launch", "line": line_after(), "gil": False}
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


def hold_gil(ms):
    """Native work with the GIL held throughout (PyDLL): the sampler cannot take the GIL meanwhile."""
    t0 = time.time()
    own["hold_line"] = line_after()
    gil.probe_burn(ms)
    return t0, time.time()


def spin_thread(seconds):
    """Python on a second thread, while the main thread waits for it."""
    own["thread_tid"] = threading.get_native_id()
    t0 = time.time()
    n = 0
    while time.time() - t0 < seconds:
        n += sum(i * i for i in range(1000))
    own["spans"]["spin_thread"] = (t0, time.time())


def lines_of(fn):
    """The first and last line of a function's code, nested code included."""
    lines = [line for code in (fn.__code__, *[c for c in fn.__code__.co_consts if hasattr(c, "co_lines")])
             for _, _, line in code.co_lines() if line]
    return [min(lines), max(lines)]


def line_reads():
    """Every instruction's line of every code object of a few modules, as the library reads it from
    the code's memory, against Python's own (co_lines): the mismatches, and how many were asked."""
    import argparse, ast, json.decoder, typing  # noqa: E401 (large modules: many kinds of line steps)
    codes, todo = [], [m.__loader__.get_code(m.__name__) for m in (argparse, ast, json.decoder, typing)]
    while todo:
        c = todo.pop()
        codes.append(c)
        todo += [k for k in c.co_consts if hasattr(k, "co_lines")]
    gil.probe_code_line.argtypes = [ctypes.py_object, ctypes.c_int]
    bad, asked = [], 0
    for c in codes:
        for start, end, line in c.co_lines():
            for b in range(start, end, 2):
                got = gil.probe_code_line(c, b)
                asked += 1
                if got != (-1 if line is None else line):
                    bad.append([c.co_qualname, b, line, got])
    return bad, asked


def main():
    gil.probe_start()
    launch_with_gil(1)
    launch_without_gil(2)          # before the sampler's first look: the frame layout is not checked yet
    time.sleep(0.05)
    launch_without_gil(3)          # after it: read without the GIL where this Python's layout is known
    launch_deep(70, 4)
    Launcher().launch(5)
    own["spans"]["spin_python"] = spin_python(0.4)
    t0 = time.time()
    own["sleep_line"] = line_after()
    time.sleep(0.4)
    own["spans"]["sleep"] = (t0, time.time())
    # A full collection over a heap of cycles: a garbage collection Python tells of (gc.callbacks)
    heap = []
    for _ in range(300000):
        a, b = [], []
        a.append(b)
        b.append(a)
        heap.append(a)
    t0 = time.time()
    own["gc_line"] = line_after()
    gc.collect()
    own["spans"]["gc"] = (t0, time.time())
    del heap
    t0 = time.time()
    nogil.probe_burn(400)
    own["spans"]["probe_burn"] = (t0, time.time())
    own["spans"]["hold_gil"] = hold_gil(300)
    worker = threading.Thread(target=spin_thread, args=(0.4,))
    worker.start()
    worker.join()
    own["lines"] = {f.__name__: lines_of(f) for f in (spin_python, spin_thread)}
    own["code_reads"] = gil.probe_code_reads()
    own["line_mismatches"], own["lines_asked"] = line_reads()
    own["tid"] = threading.get_native_id()
    own["version"] = list(sys.version_info[:2])
    own["file"] = __file__
    nogil.probe_finish()
    with open(own_path, "w") as f:
        json.dump(own, f)


if __name__ == "__main__":
    main()
