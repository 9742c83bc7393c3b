"""The host lines of a record stream (host-spec: frame, site, sample, sampler, samplestat, hspan) read
back for the checkers (tests/test_host_inject.sh, tests/host_causes_gpu.sh): each frame before its
first use, ids unique, parents known. A checker of the collection side, not the reader (stream_read.c)."""


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            i += 1
            c = {"t": "\t", "n": "\n", "r": "\r"}.get(s[i], s[i])
        out.append(c)
        i += 1
    return "".join(out)


class HostStream:
    def __init__(self, path):
        self.frames, self.sites, self.samplers, self.errors = {}, {}, [], []
        self.samples, self.problems, self.threads, self.apis = [], [], {}, {}
        self.samplestat = None
        self.kernels, self.copies, self.hspans = [], [], []
        with open(path) as f:
            for n, raw in enumerate(f, 1):
                if not raw.endswith("\n"):
                    continue
                p = raw[:-1].split("\t")
                kind = p[0]
                if kind == "frame":
                    fid, parent = int(p[1]), int(p[2])
                    if fid in self.frames:
                        self.problems.append(f"line {n}: frame {fid} written twice")
                    if parent and parent not in self.frames:
                        self.problems.append(f"line {n}: frame {fid}'s parent {parent} not written before it")
                    self.frames[fid] = {"parent": parent, "kind": p[3], "line": int(p[4]), "offset": int(p[5]),
                                        "function": unescape(p[6]), "file": unescape(p[7]), "module": unescape(p[8])}
                elif kind == "site":
                    corr, node = int(p[1]), int(p[2])
                    if node and node not in self.frames:
                        self.problems.append(f"line {n}: site {corr} names frame {node} not written before it")
                    self.sites[corr] = node
                elif kind == "sample":
                    node = int(p[3])
                    if node and node not in self.frames:
                        self.problems.append(f"line {n}: sample names frame {node} not written before it")
                    self.samples.append({"ts": int(p[1]), "tid": int(p[2]), "node": node, "source": p[4], "state": p[5]})
                elif kind == "hspan":
                    node = int(p[4])
                    if node and node not in self.frames:
                        self.problems.append(f"line {n}: hspan names frame {node} not written before it")
                    self.hspans.append({"start": int(p[1]), "end": int(p[2]), "tid": int(p[3]), "node": node,
                                        "name": unescape(p[5])})
                elif kind == "sampler":
                    self.samplers.append({"hz": float(p[1]), "mechanism": unescape(p[2]), "detail": unescape(p[3])})
                elif kind == "samplestat":
                    self.samplestat = dict(zip(("without_gil", "with_gil", "skipped", "torn"), map(int, p[1:5])))
                elif kind == "error":
                    self.errors.append(unescape(p[1]))
                elif kind == "thread":
                    self.threads[int(p[1])] = unescape(p[2])
                elif kind == "api":
                    self.apis[int(p[5])] = {"start": int(p[1]), "end": int(p[2]), "tid": int(p[4]), "name": unescape(p[6])}
                elif kind == "copy":
                    self.copies.append({"start": int(p[1]), "end": int(p[2]), "corr": int(p[5])})
                elif kind == "kernel":
                    self.kernels.append({"start": int(p[1]), "end": int(p[2]), "corr": int(p[5]), "name": unescape(p[17])})

    def stack(self, node):
        """Frames innermost first."""
        out = []
        while node:
            f = self.frames[node]
            out.append(f)
            node = f["parent"]
        return out
