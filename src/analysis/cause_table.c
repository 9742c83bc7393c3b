/* The states and the cause table (cause_table.h): data only. A row's place matters: of the rules a
 * frame matches, the first row wins; generic rows are tried in this order over the whole stack
 * after every specific one (cause_table.h says why). */
#include "cause_table.h"

const wall_state_def wall_states[WS_COUNT] = {
    [WS_GPU_COLLECTIVE] = {"gpu_collective", "GPU in collectives (NCCL)", "GPU in collectives", WG_COLLECTIVE},
    [WS_GPU_COMPUTE] = {"gpu_compute", "GPU computing", "GPU computing", WG_COMPUTE},
    [WS_GPU_COPY_H2D_PAGEABLE] = {"gpu_copy_h2d_pageable", "GPU copying host to device, from pageable memory", "H2D copies from pageable memory", WG_COPIES},
    [WS_GPU_COPY_H2D_PINNED] = {"gpu_copy_h2d_pinned", "GPU copying host to device, from pinned memory", "H2D copies from pinned memory", WG_COPIES},
    [WS_GPU_COPY_D2H_PAGEABLE] = {"gpu_copy_d2h_pageable", "GPU copying device to host, into pageable memory", "D2H copies into pageable memory", WG_COPIES},
    [WS_GPU_COPY_D2H_PINNED] = {"gpu_copy_d2h_pinned", "GPU copying device to host, into pinned memory", "D2H copies into pinned memory", WG_COPIES},
    [WS_GPU_COPY_DEVICE] = {"gpu_copy_device", "GPU copying on the device or between devices", "device copies", WG_COPIES},
    [WS_GPU_MEMSET] = {"gpu_memset", "GPU setting memory (memsets)", "memsets", WG_MEMSET},
    [WS_INPUT] = {"input", "GPU idle: the host waits for input", "waiting for input", WG_INPUT},
    [WS_COMPILE] = {"compile", "GPU idle: the host compiles or loads GPU code", "compiling", WG_COMPILE},
    [WS_IMPORT] = {"import", "GPU idle: the host imports modules", "importing", WG_IMPORT},
    [WS_CUDA_INIT] = {"cuda_init", "GPU idle: CUDA and library start-up", "CUDA start-up", WG_CUDA_INIT},
    [WS_ALLOC] = {"alloc", "GPU idle: the host allocates or frees memory", "allocating", WG_ALLOC},
    [WS_SYNC] = {"sync", "GPU idle: the host synchronises", "synchronising", WG_SYNC},
    [WS_LAUNCH] = {"launch", "GPU idle: launch calls and launch latency", "launch overhead", WG_LAUNCH},
    [WS_COPY_CALL] = {"copy_call", "GPU idle: the host in copy calls (staging pageable memory, or waiting)", "in copy calls", WG_COPIES},
    [WS_IO] = {"io", "GPU idle: file or network I/O", "I/O", WG_IO},
    [WS_SLEEP] = {"sleep", "GPU idle: the host sleeps", "sleeping", WG_SLEEP},
    [WS_LOCK] = {"lock", "GPU idle: the host waits on another thread or a lock", "waiting on a thread or lock", WG_LOCK},
    [WS_GC] = {"gc", "GPU idle: garbage collection", "garbage collection", WG_GC},
    [WS_EXIT] = {"exit", "GPU idle: the process exits (the interpreter and libraries tear down)", "exiting", WG_EXIT},
    [WS_CPU] = {"cpu", "GPU idle: the host computes", "host computing", WG_CPU},
    [WS_MMPROF] = {"mmprof", "GPU idle: mmprof's own work", "mmprof's own work", WG_MMPROF},
    [WS_OTHER_API] = {"other_api", "GPU idle: other CUDA calls", "other CUDA calls", WG_OTHER_API},
    [WS_WAITING] = {"waiting", "GPU idle: the host waits (off the CPU, cause not known)", "waiting (cause not known)", WG_UNKNOWN},
    [WS_UNKNOWN] = {"not_known", "GPU idle: not known (no call, sample or span)", "not known", WG_UNKNOWN},
    [WS_UNRECORDED] = {"unrecorded", "not recorded (outside the capture windows, or the GPU before its first recorded work)",
                       "not recorded", WG_UNRECORDED},
};

const wall_group_def wall_groups[WG_COUNT] = {
    [WG_COMPUTE] = {"compute", "compute-bound", "GPU computing", "the top kernel is where to start: see its share of kernel time"},
    [WG_COLLECTIVE] = {"collective", "communication-bound", "collectives",
                       "overlap communication with compute (bucketed gradients, a separate stream), or "
                       "communicate less (larger buckets, gradient accumulation)"},
    [WG_COPIES] = {"copies", "copy-bound", "copies",
                   "keep the data on the GPU, pin host memory, or overlap copies with compute on another stream"},
    [WG_MEMSET] = {"memset", "memset-bound", "memsets", "set less memory, or fold the zeroing into the kernels that write it"},
    [WG_INPUT] = {"input", "input-bound", "waiting for input",
                  "load input ahead of the GPU: more loader workers, pinned memory, prefetching"},
    [WG_COMPILE] = {"compile", "compile-bound", "compiling",
                    "compile once ahead (warm-up, cached or ahead-of-time kernels) and keep the result"},
    [WG_IMPORT] = {"import", "import-bound", "importing", "import once at start-up, before the work you time"},
    [WG_CUDA_INIT] = {"cuda_init", "start-up-bound", "CUDA start-up",
                      "a one-off start-up cost: initialise CUDA and its libraries once, before timing"},
    [WG_ALLOC] = {"alloc", "allocation-bound", "allocating", "allocate once and reuse (a caching allocator, buffers made up front)"},
    [WG_SYNC] = {"sync", "sync-bound", "synchronising",
                 "synchronise less often (per batch, not per operation); queue the next work before waiting"},
    [WG_LAUNCH] = {"launch", "launch-bound", "launch overhead",
                   "capture the launches in a CUDA graph, or fuse kernels (torch.compile)"},
    [WG_IO] = {"io", "I/O-bound", "I/O", "move the I/O off the critical path: a background thread or process, or less often"},
    [WG_SLEEP] = {"sleep", "sleeping", "sleeping", "remove the sleep, or keep the GPU busy during it"},
    [WG_LOCK] = {"lock", "waiting on another thread", "waiting on a thread or lock",
                 "find what the other thread does meanwhile; hand work over without blocking the GPU's thread"},
    [WG_EXIT] = {"exit", "mixed", "exiting",
                 "a one-off cost at the end: once the results are saved, os._exit(0) skips the teardown; "
                 "or time only the work"},
    [WG_GC] = {"gc", "GC-bound", "garbage collection", "allocate fewer short-lived Python objects in the loop, or gc.freeze() after start-up"},
    [WG_CPU] = {"cpu", "host-bound", "host computing",
                "move this host work to the GPU, overlap it with GPU work, or do it once ahead"},
    [WG_MMPROF] = {"mmprof", "mmprof's own work", "mmprof's own work", "mmprof's own work is not the program's: leave it out of timings"},
    [WG_OTHER_API] = {"other_api", "CUDA-call-bound", "other CUDA calls", "look at the CUDA calls the host makes between GPU work"},
    [WG_UNKNOWN] = {"not_known", "idle, cause not known", "not known",
                    "sample the host (mmprof profile samples by default) to see what it did"},
    [WG_UNRECORDED] = {"unrecorded", "not recorded", "not recorded",
                       "widen the capture window to see this time, or open it later (the GPU may still run work "
                       "launched before it)"},
};

/* Where a Python file lives decides whose it is. A package's file is anchored at the packages
 * folder ("*-packages/torch/...": site- or dist-packages), never by a bare "/torch/": the H200's
 * Python itself lives under /opt/torch/.venv. The standard library's file x is STD(x): in its own
 * folder, lib/python3.N/x, which a file of that name in site-packages or the user's is not. */
#define STD(x) "*/python3.[0-9][0-9]/" x "|*/python3.[0-9]/" x

/* The load, context, allocation, sync and launch calls by name, as CUPTI records them (without
 * the version suffix) and as Kineto writes them. */
#define API_LOAD                                                                                            \
    "cuModuleLoad*|cuLibraryLoad*|cuLinkCreate*|cuLinkAdd*|cuLinkComplete*|cudaLibraryLoad*|cuModuleGetFunction|" \
    "cuLibraryGetKernel|cuKernelGetFunction|cudaGetFuncBySymbol|cudaGetKernel"
#define API_ALLOC                                                                                           \
    "cudaMalloc*|cudaFree*|cudaHostAlloc|cudaMallocHost|cudaFreeHost|cudaHostRegister|cudaHostUnregister|"  \
    "cuMemAlloc*|cuMemFree*|cuMemHostAlloc|cuMemHostRegister*|cuMemHostUnregister|cuMemCreate|cuMemRelease|" \
    "cuMemMap|cuMemUnmap|cuMemAddressReserve|cuMemAddressFree|cuMemPoolTrimTo|cudaMemPoolTrimTo"
#define API_SYNC                                                                                             \
    "cudaDeviceSynchronize|cudaStreamSynchronize|cudaEventSynchronize|cudaThreadSynchronize|cuCtxSynchronize|" \
    "cuStreamSynchronize|cuEventSynchronize"
#define API_LAUNCH                                                                                           \
    "cudaLaunch*|cuLaunch*|cudaGraphLaunch|cuGraphLaunch|cudaMemcpy*Async|cuMemcpy*Async|cudaMemset*Async|"   \
    "cuMemset*Async|cudaEventRecord*|cuEventRecord*|cudaStreamWaitEvent|cuStreamWaitEvent"

const cause_rule cause_rules[] = {
    /* ---- CUDA calls: exact, from the records. Four rows are named by the analysis itself
     * (cause_match.c): the lazy context, a pageable copy, the latency between kernels, a call no
     * row names. ---- */
    {.id = "cuda_context", .state = WS_CUDA_INIT, .label = "creating the CUDA context",
     .api = "cuInit|cuCtxCreate*|cuCtxDestroy*|cuDevicePrimaryCtxRetain|cuDevicePrimaryCtxRelease*|"
            "cuDevicePrimaryCtxReset*|cudaDeviceReset|cudaInitDevice"},
    {.id = "cuda_context_lazy", .state = WS_CUDA_INIT,
     .label = "creating the CUDA context in its first runtime call"},
    {.id = "counter_replay", .state = WS_MMPROF, .label = "replaying kernels for hardware counters (--counters)",
     .advice = "the counter pass is mmprof's, not the program's: time without --counters"},
    {.id = "gpu_code_load", .state = WS_COMPILE, .label = "loading GPU code",
     .advice = "load kernels once ahead (warm-up, or CUDA_MODULE_LOADING=EAGER to load at start-up)",
     .api = API_LOAD},
    {.id = "nvrtc", .state = WS_COMPILE, .label = "compiling GPU code at run time",
     .advice = "compile once and cache the result (or build the kernels ahead of time)",
     .api = "nvrtc*|nvJitLink*", .native = "nvrtc*|__nvrtc*|nvJitLink*|*@libnvrtc*|*@libnvJitLink*"},
    {.id = "alloc", .state = WS_ALLOC, .label = "allocating or freeing GPU or pinned memory",
     .advice = "allocate once and reuse: a caching allocator or pool (cudaMallocAsync), buffers made up front",
     .api = API_ALLOC},
    {.id = "sync", .state = WS_SYNC, .label = "synchronising with the GPU",
     .advice = "synchronise less often (.item(), .cpu() and torch.cuda.synchronize() per batch, not per "
               "operation); queue the next work before waiting",
     .api = API_SYNC, .py = "*-packages/torch/cuda/__init__.py:synchronize|*-packages/torch/cuda/streams.py:*synchronize"},
    {.id = "pageable_copy", .state = WS_COPY_CALL, .label = "staging copies of pageable memory",
     .advice = "pin the host buffers (cudaHostAlloc, pin_memory=True) so copies run asynchronously at full speed"},
    {.id = "copy_to_host", .state = WS_SYNC, .label = "waiting for a copy into pageable host memory",
     .advice = "copy into pinned memory with non_blocking=True and synchronise once per batch (.item(), .cpu() "
               "and .numpy() each wait for the GPU)"},
    {.id = "launch", .state = WS_LAUNCH, .label = "in launch calls",
     .advice = "capture the launches in a CUDA graph (torch.cuda.graphs, cudaGraphLaunch), or fuse kernels "
               "(torch.compile)",
     .api = API_LAUNCH},
    {.id = "copy_call", .state = WS_COPY_CALL, .label = "in synchronous copy calls",
     .advice = "copy asynchronously (cudaMemcpyAsync from pinned memory) and keep the host working meanwhile",
     .api = "cudaMemcpy|cudaMemcpy2D*|cudaMemcpy3D*|cudaMemcpyPeer|cudaMemcpyToSymbol|cudaMemcpyFromSymbol|cuMemcpy|"
            "cuMemcpyHtoD*|cuMemcpyDtoH*|cuMemcpyDtoD*|cuMemcpy2D*|cuMemcpy3D*|cuMemcpyPeer"},
    {.id = "between_kernels", .state = WS_LAUNCH, .label = "between kernels (launch latency, under 10 us)",
     .advice = "fewer, larger kernels (fusion, torch.compile) or a CUDA graph"},
    {.id = "other_api", .state = WS_OTHER_API, .label = "in other CUDA calls"},

    /* ---- open ranges: the built-in run's own phases, a PyTorch trace's loader annotation ---- */
    {.id = "mmprof_setup", .state = WS_CUDA_INIT, .label = "mmprof starting CUDA, cuBLAS and NVML",
     .range = "tool:cuda-init|tool:cuda-context|tool:cublas-init|tool:nvml-init|tool:counters-init"},
    {.id = "mmprof_own", .state = WS_MMPROF,
     .label = "mmprof's own work (inputs, the FP64 reference, verifying, the counter pass, flushing records)",
     .range = "tool:inputs|tool:reference|tool:flush|tool:peer-matrix|phase:verify|phase:counters"},
    {.id = "cpu_workload", .state = WS_CPU, .label = "the built-in CPU workload (OpenBLAS)",
     .advice = "the CPU workload is what the GPU ones are compared with", .range = "workload:cpu-*"},
    {.id = "dataloader_range", .state = WS_INPUT, .label = "waiting for the DataLoader",
     .advice = "give the DataLoader more workers (num_workers), pin_memory=True and a prefetch_factor, or make "
               "each batch cheaper to load",
     .range = "annotation:enumerate(DataLoader)*"},

    /* ---- host stacks, specific: the outermost matching frame decides ---- */
    {.id = "dataloader", .state = WS_INPUT, .label = "waiting for the DataLoader",
     .advice = "give the DataLoader more workers (num_workers), pin_memory=True and a prefetch_factor, or make "
               "each batch cheaper to load",
     .py = "*-packages/torch/utils/data/*|*-packages/lightning/pytorch/loops/fetchers.py|*-packages/pytorch_lightning/loops/fetchers.py|"
           "*-packages/datasets/iterable_dataset.py:*__iter__"},
    {.id = "torch_compile", .state = WS_COMPILE, .label = "compiling with torch.compile (dynamo, inductor, Triton)",
     .advice = "compile once and keep the compiled module (avoid recompiles: fixed shapes, or dynamic=True); "
               "keep the compile cache between runs",
     .py = "*-packages/torch/_dynamo/convert_frame.py|*-packages/torch/_inductor/compile_fx.py|*-packages/torch/_inductor/codecache.py|"
           "*-packages/torch/_inductor/async_compile.py|*-packages/torch/_inductor/select_algorithm.py|*-packages/torch/_functorch/aot_autograd.py|"
           "*-packages/torch/_inductor/runtime/triton_heuristics.py:*precompile*|"
           "*-packages/torch/_inductor/runtime/triton_heuristics.py:*autotune*"},
    {.id = "triton_jit", .state = WS_COMPILE, .label = "compiling Triton kernels",
     .advice = "warm up with the real shapes once, and keep Triton's cache (TRITON_CACHE_DIR) between runs",
     .py = "*-packages/triton/compiler/*|*-packages/triton/runtime/build.py"},
    {.id = "numba_jit", .state = WS_COMPILE, .label = "compiling with numba (JIT at the first call)",
     .advice = "compile ahead: give the kernel explicit signatures (eager compilation), cache=True, or call it "
               "once at start-up",
     .py = "*-packages/numba*/dispatcher.py:*compile*|*-packages/numba*/compiler.py|*-packages/numba*/core/compiler.py"},
    {.id = "cupy_compile", .state = WS_COMPILE, .label = "compiling CuPy kernels",
     .advice = "warm up once; CuPy caches compiled kernels on disk (CUPY_CACHE_DIR)", .py = "*-packages/cupy/cuda/compiler.py"},
    {.id = "jax_compile", .state = WS_COMPILE, .label = "compiling with JAX (XLA)",
     .advice = "jit once with fixed shapes and reuse the compiled function",
     .py = "*-packages/jax/_src/compiler.py|*-packages/jax/_src/interpreters/pxla.py:*compile*|*-packages/jax/_src/dispatch.py:*compile*"},
    {.id = "python_import", .state = WS_IMPORT, .label = "importing",
     .advice = "import once at start-up, before the work you time (move lazy imports to the top)",
     .py = "<frozen importlib._bootstrap>:_find_and_load|" STD("importlib/__init__.py:import_module"),
     .detail = DETAIL_PACKAGE},
    {.id = "torch_cuda_init", .state = WS_CUDA_INIT, .label = "initialising CUDA in PyTorch",
     .advice = "a one-off start-up cost: initialise CUDA once at start (torch.cuda.init()) before timing",
     .py = "*-packages/torch/cuda/__init__.py:_lazy_init|*-packages/torch/cuda/__init__.py:init"},
    {.id = "cuda_lib_init", .state = WS_CUDA_INIT, .label = "creating a CUDA library handle (cuBLAS, cuDNN, NCCL)",
     .advice = "create library handles once and reuse them",
     .native = "cublasCreate*|cublasLtCreate*|cudnnCreate*|cusparseCreate*|cusolverDnCreate*|cufftPlan*|ncclCommInit*"},
    {.id = "checkpoint_io", .state = WS_IO, .label = "reading or writing files (checkpoints, arrays)",
     .advice = "write checkpoints less often or from a background thread or process; read data in the loader's "
               "workers",
     .py = "*-packages/torch/serialization.py:save|*-packages/torch/serialization.py:load|*-packages/torch/serialization.py:_save|"
           "*-packages/torch/serialization.py:_load|*-packages/safetensors/*|*-packages/numpy/lib/_npyio_impl.py|*-packages/numpy/lib/npyio.py|"
           "*-packages/numpy/lib/format.py|" STD("pickle.py") "|" STD("shutil.py") "|*-packages/h5py/*|*-packages/torch/distributed/checkpoint/*|"
           STD("json/__init__.py:dump") "|" STD("json/__init__.py:load")},
    {.id = "network_io", .state = WS_IO, .label = "network I/O (sockets, HTTP)",
     .advice = "move network I/O off the GPU's thread, or overlap it with GPU work",
     .py = STD("socket.py") "|" STD("ssl.py") "|" STD("http/client.py") "|" STD("urllib/*") "|*-packages/urllib3/*|*-packages/requests/*"},
    {.id = "select_wait", .state = WS_IO, .label = "waiting on sockets, pipes or other processes (select, poll)",
     .advice = "find what the other end is doing; prefetch so the GPU's thread does not wait",
     .py = STD("selectors.py:*select") "|" STD("multiprocessing/connection.py:*wait") "|" STD("multiprocessing/connection.py:*poll") "|"
           STD("multiprocessing/connection.py:*recv*"),
     .want = WANT_WAITING},
    {.id = "sleep", .state = WS_SLEEP, .label = "sleeping", .advice = "remove the sleep, or keep the GPU busy during it",
     .op = "time.sleep|nanosleep|clock_nanosleep|usleep|sleep", .py = STD("asyncio/tasks.py:sleep"),
     .native = "nanosleep|clock_nanosleep|__nanosleep|__clock_nanosleep|usleep"},
    {.id = "gc", .state = WS_GC, .label = "Python's garbage collection",
     .advice = "allocate fewer short-lived Python objects in the loop; gc.freeze() after start-up, or raise the "
               "collector's thresholds (gc.set_threshold)",
     .op = "gc|gc *",
     .native = "gc_collect_main|_PyGC_Collect|PyGC_Collect|_Py_RunGC|collect_generations|gc_collect_region|"
               "deduce_unreachable|subtract_refs|move_unreachable"},
    /* The process's exit: Python's finalization and the C library's exit handlers (the CUDA
     * context's teardown among them). wall_account.c also gives this row to the CPU samples of a
     * Python thread after its last Python sample: the interpreter has left the script's last line,
     * and its own frames (a stripped python3) often have no names. */
    {.id = "py_exit", .state = WS_EXIT, .label = "the process exiting (the interpreter and libraries tearing down)",
     .native = "Py_FinalizeEx|Py_Finalize|_Py_Finalize|finalize_modules|_PyImport_Cleanup|Py_Exit|"
               "__run_exit_handlers|_dl_fini"},
    /* A CPU sample has its innermost frame alone: in the profiler's library or CUPTI's, it is the
     * cost of recording the program (callbacks, records, call sites), not the program's work. */
    {.id = "profiler", .state = WS_MMPROF, .label = "mmprof and CUPTI recording the program (the profiler's cost)",
     .advice = "the profiler's cost, not the program's: --no-sample and MMPROF_SITES=0 lower it",
     .native = "*@libmmprof_inject.so*|*@libmmprof_exit.so*|*@libcupti.so*"},
    {.id = "thread_wait", .state = WS_LOCK, .label = "waiting on another thread or a lock",
     .py = STD("threading.py") "|" STD("queue.py:Queue.get") "|" STD("queue.py:Queue.put") "|" STD("concurrent/futures/*") "|"
           STD("multiprocessing/pool.py") "|" STD("multiprocessing/queues.py:*get"),
     .native = "pthread_cond_*wait*|pthread_mutex_lock|__lll_lock_wait*|pthread_join|sem_wait|sem_timedwait|"
               "__futex_abstimed_wait*|futex_wait*",
     .op = "pthread_cond_wait|pthread_cond_timedwait|pthread_mutex_lock|pthread_join|sem_wait|sem_timedwait|futex",
     .want = WANT_WAITING},

    /* ---- host stacks, generic: the first row that matches any frame ---- */
    /* The main thread waits in backward() while autograd's own thread runs the pass: host work. */
    {.id = "autograd", .state = WS_CPU, .label = "PyTorch's autograd on the host (the backward pass)",
     .advice = "the host is the bottleneck: capture the step in a CUDA graph, or torch.compile it",
     .py = "*-packages/torch/autograd/__init__.py:backward|*-packages/torch/_tensor.py:Tensor.backward|*-packages/torch/autograd/graph.py",
     .tier = TIER_GENERIC},
    {.id = "torch_ops", .state = WS_CPU, .label = "PyTorch operators on the host (dispatch and launch overhead)",
     .advice = "the host is the bottleneck: fewer, larger operations (batching), torch.compile, or a CUDA graph",
     .py = "*-packages/torch/*", .want = WANT_RUNNING, .tier = TIER_GENERIC},
    {.id = "numpy", .state = WS_CPU, .label = "NumPy on the host",
     .advice = "move the array work to the GPU (CuPy, torch), or overlap it with GPU work",
     .py = "*-packages/numpy/*", .want = WANT_RUNNING, .tier = TIER_GENERIC},
    {.id = "host_cpu", .state = WS_CPU, .label = "computing on the host",
     .advice = "move this host work to the GPU, overlap it with GPU work (a thread, the loader's workers), or do "
               "it once ahead",
     .py = "*", .native = "*", .op = "*", .want = WANT_RUNNING, .tier = TIER_GENERIC},
    {.id = "waiting", .state = WS_WAITING, .label = "waiting off the CPU",
     .advice = "find what the thread waits for at that line", .py = "*", .native = "*", .op = "*",
     .want = WANT_WAITING, .tier = TIER_GENERIC},
};
const int cause_nrules = (int)(sizeof cause_rules / sizeof cause_rules[0]);
