"""A Python program without CUDA or NVTX, for tests/test_host_inject.sh's python_from_start: it
imports a module, computes, then sleeps, timing each by its own clock into OWN (JSON). Under
`mmprof profile` its samples must begin with the interpreter, not at a first CUDA or NVTX call it
never makes.

    python3 tests/python_start_program.py OWN
"""
import json
import sys
import time


def compute(seconds):
    t = time.perf_counter()
    n = 0
    while time.perf_counter() - t < seconds: n += 1  # noqa: E701  (the computing line: one line, loop and body)
    return n


def main():
    own = {}
    t = time.perf_counter()
    import decimal  # noqa: F401  (an import at start, before any work)
    own["import_ms"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    compute(0.3)
    own["compute_ms"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    time.sleep(0.3)  # the sleeping line
    own["sleep_ms"] = (time.perf_counter() - t) * 1e3
    with open(sys.argv[1], "w") as f:
        json.dump(own, f)


if __name__ == "__main__":
    main()
