# python3 tests/data/kineto/memory_steps.py tests/data/kineto/memory_steps.json writes
# the trace the memory tests import: a torch.profiler trace of four training steps with
# profile_memory=True and with_stack=True, shaped as PyTorch 2.x writes one (instants
# "[memory]", cat "cpu_instant_event", args Total Reserved/Total Allocated/Bytes/Addr/Device Id/
# Device Type/Ev Idx), invented values: 100 MiB allocated before the profiler started, each step a
# 4 MiB tensor kept (leaked) at train.py:57 and a 16 MiB one freed within the step at train.py:60,
# a CPU allocation (left out), a kernel per step.
import json, sys
MIB = 1 << 20
ev = []
def X(cat, name, pid, tid, ts, dur, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3)}
    if args is not None:
        e["args"] = args
    ev.append(e)
idx = [0]
def mem(ts, addr, nbytes, alloc, reserved, dev_type=1, dev=0):
    idx[0] += 1
    ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 777, "tid": 777,
               "ts": round(ts, 3), "args": {"Total Reserved": reserved, "Total Allocated": alloc, "Bytes": nbytes,
                                            "Addr": addr, "Device Id": dev, "Device Type": dev_type, "Ev Idx": idx[0]}})
alloc = 100 * MIB
reserved = 120 * MIB
corr = 10
pyid = [0]
def py(name, ts, dur, parent):
    pyid[0] += 1
    X("python_function", name, 777, 777, ts, dur, {"Python parent id": parent, "Python id": pyid[0], "Python thread": 0})
    return pyid[0]
pyid[0] = 1
X("python_function", "train.py(90): <module>", 777, 777, 900, 42000, {"Python parent id": None, "Python id": 1, "Python thread": 0})
for step in range(4):
    t0 = 1000 + step * 10000
    X("user_annotation", f"ProfilerStep#{step + 1}", 777, 777, t0, 9000, {"External id": step + 1, "Record function id": 0, "Ev Idx": 0})
    s = py("train.py(70): train_step", t0 + 10, 8800, 1)
    # the leak: a 4 MiB tensor kept in a list
    py("train.py(57): train_step", t0 + 100, 300, s)
    X("cpu_op", "aten::randn", 777, 777, t0 + 110, 250, {"External id": 100 + step, "Record function id": 0, "Ev Idx": 0})
    if alloc + 4 * MIB > reserved:
        reserved += 20 * MIB
    alloc += 4 * MIB
    mem(t0 + 120, 0x7f3a40000000 + step * 4 * MIB, 4 * MIB, alloc, reserved)
    # a transient 16 MiB tensor freed in the step
    py("train.py(60): train_step", t0 + 1000, 5000, s)
    X("cpu_op", "aten::mm", 777, 777, t0 + 1010, 4000, {"External id": 200 + step, "Record function id": 0, "Ev Idx": 0})
    if alloc + 16 * MIB > reserved:
        reserved += 20 * MIB
    alloc += 16 * MIB
    mem(t0 + 1020, 0x7f3a80000000, 16 * MIB, alloc, reserved)
    corr += 1
    X("cuda_runtime", "cudaLaunchKernel", 777, 777, t0 + 1100, 5, {"cbid": 211, "correlation": corr})
    X("kernel", "ampere_sgemm_128x64_nn", 0, 7, t0 + 1200, 3000,
      {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": corr, "registers per thread": 126,
       "shared memory": 32768, "grid": [64, 8, 1], "block": [256, 1, 1]})
    alloc -= 16 * MIB
    mem(t0 + 5000, 0x7f3a80000000, -16 * MIB, alloc, reserved)
    mem(t0 + 5100, 0x55d0c0000000, 4096, 0, 0, dev_type=0, dev=-1)  # CPU memory: left out
doc = {
    "schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9,
                          "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
                          "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,
                          "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 233472, "numSms": 132,
                          "sharedMemPerBlockOptin": 232448}],
    "cupti_version": 26, "cuda_runtime_version": 13000, "cuda_driver_version": 13000,
    "displayTimeUnit": "ms", "baseTimeNanoseconds": 1764460800123456789,
    "traceEvents": ev,
}
json.dump(doc, open(sys.argv[1], "w"), indent=1)
