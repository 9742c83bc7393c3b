#!/usr/bin/env python3
"""The structure docs/architecture.md describes, checked against the tree (tests/test_architecture.sh).

  layers   every quoted #include of a source folder resolves to a header of its own folder or of
           a folder on a lower layer (the order below, the doc's: util, model, the sources, the
           library injected into the program and the built-in run, analysis, the renderers and
           the store, the CLI). cuda/ implements src/builtin's interface headers (gpu_compute.h,
           gpu_runner.h), so it stands just above builtin. Calls are not read here: a call
           upward needs a declaration, and the declaration an include.
  files    every source file (.c, .cpp, .cu under src/, report/ and cuda/) is named in the doc,
           and every file name the doc names exists in the tree: a new file is described where
           it belongs, a moved or removed one leaves no stale name behind.
Each prints what it found and exits non-zero on the first kind of failure.
"""
import os
import re
import sys

LAYERS = {"src/util": 1, "src/model": 2, "src/collect": 3, "src/import": 3, "src/builtin": 4, "src/inject": 4,
          "cuda": 4.5, "src/analysis": 5, "report": 6, "src/store": 6, "src/cli": 7}
SOURCE = re.compile(r"\.(c|cpp|cu)$")
CODE = re.compile(r"\.(c|h|cpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files_of(d):
    return sorted(f for f in os.listdir(d) if CODE.search(f))


def layers(root):
    where = {}
    for d in LAYERS:
        for f in files_of(os.path.join(root, d)):
            where.setdefault(f, []).append(d)
    bad, edges = [], 0
    for d, level in LAYERS.items():
        for f in files_of(os.path.join(root, d)):
            with open(os.path.join(root, d, f), errors="replace") as fh:
                text = fh.read()
            for inc in INCLUDE.findall(text):
                homes = where.get(os.path.basename(inc))
                if not homes or d in homes:
                    continue  # a system, generated or test header, or one of its own folder
                edges += 1
                home = min(homes, key=lambda h: LAYERS[h])
                if LAYERS[home] >= level:
                    bad.append("%s/%s includes %s, of %s (layer %s, not below %s's %s)"
                               % (d, f, inc, home, LAYERS[home], d, level))
    return bad, edges


def named_files(doc):
    return set(re.findall(r"\b([A-Za-z0-9_]+\.(?:c|h|cpp|cu|cuh))\b", doc))


def files(root):
    with open(os.path.join(root, "docs/architecture.md")) as fh:
        doc = fh.read()
    named = named_files(doc)
    tree = set()
    for top in ("src", "report", "cuda", "templates", "tests", "examples"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            tree.update(names)
    sources = sorted(os.path.join(d, f) for d in LAYERS for f in files_of(os.path.join(root, d))
                     if SOURCE.search(f))
    unnamed = [s for s in sources if os.path.basename(s) not in named]
    stale = sorted(n for n in named if n not in tree)
    return unnamed, stale, len(sources), len(named)


def main():
    root = sys.argv[2] if len(sys.argv) > 2 else "."
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "layers":
        bad, edges = layers(root)
        print("%d include edges between folders, %d upward" % (edges, len(bad)))
        for b in bad:
            print("  " + b)
        return 1 if bad or edges < 50 else 0
    if what == "files":
        unnamed, stale, nsources, nnamed = files(root)
        print("%d source files, %d file names in docs/architecture.md" % (nsources, nnamed))
        for u in unnamed:
            print("  not described: " + u)
        for s in stale:
            print("  named but not in the tree: " + s)
        return 1 if unnamed or stale or nsources < 100 else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
