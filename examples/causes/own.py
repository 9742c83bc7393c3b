"""The cause programs' own account of their time (examples/causes/*.py).

Each program keeps the GPU waiting on one known cause (input, compiling, importing, ...) inside an
NVTX range named "work", and times that cause itself, on the host clock, around the very lines that
cause it. `--own F` writes the account as JSON:

    {"program": ..., "cause": the state key mmprof should find (cause_table.c's wall_states),
     "rule": the cause row that should name it, "file": the program, "lines": the lines of the cause
     (each the one statement inside a `with acc.spent():` block), "cause_ns": the time the program
     spent in it, "work_ns": the "work" range's wall time}

tests/causes_check.py profiles every program with `mmprof profile` on a GPU and holds mmprof's
account of the "work" range against this one: the top cause's class and line, and its share within
10 points of cause_ns / work_ns.
"""
import argparse
import contextlib
import json
import os
import sys
import time

import torch


def parser(doc):
    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--own", help="write the program's own account here (JSON)")
    p.add_argument("--seconds", type=float, default=2.5, help="about how long the work runs")
    return p


class Account:
    """The time a program spends in its cause, inside its "work" range."""

    def __init__(self, cause, rule):
        self.cause, self.rule = cause, rule
        self.cause_ns = 0
        self.work_ns = 0
        self.lines = []
        self.file = os.path.abspath(sys.argv[0])

    @contextlib.contextmanager
    def work(self):
        """The range mmprof's account is compared over (an NVTX range, so the profile has it)."""
        torch.cuda.nvtx.range_push("work")
        t0 = time.perf_counter_ns()
        try:
            yield
        finally:
            torch.cuda.synchronize()
            self.work_ns += time.perf_counter_ns() - t0
            torch.cuda.nvtx.range_pop()

    @contextlib.contextmanager
    def spent(self):
        """Times the cause: the one statement of the block, on the line after the `with`."""
        line = sys._getframe(2).f_lineno + 1
        if line not in self.lines:
            self.lines.append(line)
        t0 = time.perf_counter_ns()
        try:
            yield
        finally:
            self.cause_ns += time.perf_counter_ns() - t0

    def write(self, path):
        own = {"program": os.path.basename(self.file), "cause": self.cause, "rule": self.rule, "file": self.file,
               "lines": self.lines, "cause_ns": self.cause_ns, "work_ns": self.work_ns}
        print(json.dumps({k: own[k] for k in ("program", "cause", "lines", "cause_ns", "work_ns")}))
        if path:
            with open(path, "w") as f:
                json.dump(own, f)


def gpu_step(x):
    """A little GPU work, so the range has some (and is listed with its own account)."""
    return (x @ x).relu_()
