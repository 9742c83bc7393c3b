/* The cause table (cause_table.h) and its matcher (cause_match.h): every row on a stack shaped as
 * recorded on the H200 (the installation's paths, PyTorch's and numba's own frames), on the
 * committed recordings' own stacks where they hold the cause, and the rules that pick among rows:
 * the outermost specific frame first (compiling that imports is compiling; a DataLoader's queue is
 * input), generic rows only where no specific one matches, a row's wanted thread state, a CUDA
 * call by its name, an open range by its kind and name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "cause_match.h"
#include "test_support.h"

#define SITE "/opt/torch/.venv/lib/python3.12/site-packages/"
#define STDLIB "/usr/lib/python3.12/"

static int frame(host_activity *h, int parent, host_frame_kind kind, const char *function, const char *file,
                 int line, const char *module)
{
    host_frame f = {.pid = 1, .parent = parent, .kind = kind, .function = (char *)function, .file = (char *)file,
                    .module = (char *)module, .line = line};
    int i = host_add_frame(h, &f);
    assert_true(i >= 0);
    return i;
}

static int py(host_activity *h, int parent, const char *function, const char *file, int line)
{
    return frame(h, parent, HOST_FRAME_PY, function, file, line, NULL);
}

/* The row id naming the stack at node for a thread in state c ("" none). */
static const char *row_of(const host_activity *h, int node, thread_class c, cause_hit *hit)
{
    cause_matcher *cm = cause_matcher_build(h);
    assert_non_null(cm);
    cause_hit x = cause_of_stack(cm, node, c);
    cause_matcher_free(cm);
    if (hit)
        *hit = x;
    return x.rule >= 0 ? cause_rules[x.rule].id : "";
}

static void expect_row(const host_activity *h, int node, thread_class c, const char *want)
{
    const char *got = row_of(h, node, c, NULL);
    if (strcmp(got, want) != 0)
        fail_msg("stack at node %d (%s): row '%s', want '%s'", node, c == THREAD_RUNNING ? "running" : "waiting", got,
                 want);
}

static void table_is_sound(void **state)
{
    (void)state;
    assert_true(cause_nrules <= 64); /* a frame's rows are a word's bits (cause_match.c) */
    bool generic = false;
    for (int r = 0; r < cause_nrules; r++) {
        const cause_rule *c = &cause_rules[r];
        assert_non_null(c->id);
        assert_non_null(c->label);
        assert_true(c->state >= 0 && c->state < WS_COUNT);
        for (int k = 0; k < r; k++)
            assert_string_not_equal(cause_rules[k].id, c->id);
        /* the generic rows come last: they are tried in table order after every specific one */
        if (c->tier == TIER_GENERIC)
            generic = true;
        else
            assert_false(generic);
    }
    for (int s = 0; s < WS_COUNT; s++) {
        assert_non_null(wall_states[s].key);
        assert_non_null(wall_states[s].brief);
        assert_non_null(wall_groups[wall_states[s].group].verdict);
        assert_non_null(wall_groups[wall_states[s].group].advice);
    }
    /* the rows the analysis names itself exist */
    const char *named[] = {"cuda_context_lazy", "counter_replay", "pageable_copy", "copy_to_host", "between_kernels",
                           "other_api", "sync", "launch", "waiting"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        assert_true(cause_rule_find(named[i]) >= 0);
}

/* A DataLoader's next() waits in selectors under the loader: input, not a select wait; the user's
 * line and the loader's frame it called are quoted. Its workers' items made on the main thread
 * (no workers) are input too. */
static void dataloader_is_input(void **state)
{
    (void)state;
    host_activity h = {0};
    int mod = py(&h, -1, "<module>", "/home/u/train.py", 90);
    int at = py(&h, mod, "main", "/home/u/train.py", 38);
    int nxt = py(&h, at, "_BaseDataLoaderIter.__next__", SITE "torch/utils/data/dataloader.py", 631);
    int get = py(&h, nxt, "_MultiProcessingDataLoaderIter._get_data", SITE "torch/utils/data/dataloader.py", 1285);
    int q = py(&h, get, "Queue.get", STDLIB "multiprocessing/queues.py", 113);
    int sel = py(&h, q, "_PollLikeSelector.select", STDLIB "selectors.py", 415);
    cause_hit hit;
    assert_string_equal(row_of(&h, sel, THREAD_WAITING, &hit), "dataloader");
    assert_int_equal(hit.user, at);
    assert_int_equal(hit.via, nxt);
    int item = py(&h, nxt, "_SingleProcessDataLoaderIter._next_data", SITE "torch/utils/data/dataloader.py", 673);
    int mine = py(&h, item, "Slow.__getitem__", "/home/u/data.py", 12);
    expect_row(&h, mine, THREAD_RUNNING, "dataloader");
    /* outside a loader a select wait is its own */
    int solo = py(&h, at, "_PollLikeSelector.select", STDLIB "selectors.py", 415);
    expect_row(&h, solo, THREAD_WAITING, "select_wait");
    expect_row(&h, solo, THREAD_RUNNING, "host_cpu");
    host_activity_free(&h);
}

/* torch.compile compiling imports sympy: compiling (the outermost specific frame); the compiled
 * function called again (dynamo's frame without convert_frame) is PyTorch's host work. */
static void compiling_outranks_importing(void **state)
{
    (void)state;
    host_activity h = {0};
    int at = py(&h, -1, "main", "/home/u/train.py", 20);
    int fn = py(&h, at, "_TorchDynamoContext.__call__.<locals>._fn", SITE "torch/_dynamo/eval_frame.py", 655);
    int conv = py(&h, fn, "ConvertFrameAssert.__call__", SITE "torch/_dynamo/convert_frame.py", 1432);
    int imp = py(&h, conv, "_find_and_load", "<frozen importlib._bootstrap>", 1360);
    int sym = py(&h, imp, "<module>", SITE "sympy/__init__.py", 30);
    expect_row(&h, sym, THREAD_RUNNING, "torch_compile");
    int graph = py(&h, fn, "call", "/tmp/torchinductor_root/xy/cxy.py", 50);
    expect_row(&h, graph, THREAD_RUNNING, "torch_ops");
    int tri = py(&h, conv, "compile", SITE "triton/compiler/compiler.py", 300);
    expect_row(&h, tri, THREAD_RUNNING, "torch_compile"); /* Triton under dynamo: dynamo's */
    int alone = py(&h, at, "compile", SITE "triton/compiler/compiler.py", 300);
    expect_row(&h, alone, THREAD_RUNNING, "triton_jit");
    host_activity_free(&h);
}

/* An import names the module imported first (its first <module> frame inside the import). */
static void importing_names_the_module(void **state)
{
    (void)state;
    host_activity h = {0};
    int at = py(&h, -1, "train", "/home/u/train.py", 39);
    int sgd = py(&h, at, "SGD.__init__", SITE "torch/optim/sgd.py", 40);
    int imp = py(&h, sgd, "_find_and_load", "<frozen importlib._bootstrap>", 1360);
    int ld = py(&h, imp, "_load_unlocked", "<frozen importlib._bootstrap>", 935);
    int dyn = py(&h, ld, "<module>", SITE "torch/_dynamo/__init__.py", 3);
    int imp2 = py(&h, dyn, "_find_and_load", "<frozen importlib._bootstrap>", 1360);
    int sym = py(&h, imp2, "<module>", SITE "sympy/core/basic.py", 10);
    cause_hit hit;
    assert_string_equal(row_of(&h, sym, THREAD_WAITING, &hit), "python_import");
    assert_int_equal(hit.detail, dyn);
    assert_int_equal(hit.user, at);
    assert_int_equal(hit.via, sgd);
    char name[96];
    host_module_name(h.frames[hit.detail].file, name, sizeof name);
    assert_string_equal(name, "torch._dynamo");
    host_activity_free(&h);
}

/* The other specific rows, each on a stack of its kind. */
static void each_specific_row(void **state)
{
    (void)state;
    host_activity h = {0};
    int at = py(&h, -1, "main", "/home/u/prog.py", 10);
    /* numba's first call: the dispatcher's compile, whatever it calls (here an import) */
    int call = py(&h, at, "_LaunchConfiguration.__call__", SITE "numba_cuda/numba/cuda/dispatcher.py", 751);
    int cfa = py(&h, call, "CUDADispatcher._compile_for_args", SITE "numba_cuda/numba/cuda/dispatcher.py", 1863);
    int imp = py(&h, cfa, "_find_and_load", "<frozen importlib._bootstrap>", 1360);
    expect_row(&h, imp, THREAD_RUNNING, "numba_jit");
    expect_row(&h, call, THREAD_RUNNING, "host_cpu"); /* a launch through the dispatcher is not compiling */
    expect_row(&h, py(&h, at, "_lazy_init", SITE "torch/cuda/__init__.py", 372), THREAD_RUNNING, "torch_cuda_init");
    expect_row(&h, py(&h, at, "save", SITE "torch/serialization.py", 945), THREAD_WAITING, "checkpoint_io");
    expect_row(&h, py(&h, at, "socket.recv_into", STDLIB "socket.py", 720), THREAD_WAITING, "network_io");
    expect_row(&h, py(&h, at, "compile", SITE "cupy/cuda/compiler.py", 500), THREAD_RUNNING, "cupy_compile");
    expect_row(&h, py(&h, at, "synchronize", SITE "torch/cuda/__init__.py", 985), THREAD_WAITING, "sync");
    /* waiting on another thread: only while waiting */
    int ev = py(&h, at, "Event.wait", STDLIB "threading.py", 655);
    int cond = py(&h, ev, "Condition.wait", STDLIB "threading.py", 355);
    expect_row(&h, cond, THREAD_WAITING, "thread_wait");
    expect_row(&h, cond, THREAD_RUNNING, "host_cpu");
    /* native frames of CPU samples */
    expect_row(&h, frame(&h, at, HOST_FRAME_NATIVE, "nvrtcCompileProgram", NULL, 0, "/usr/lib/libnvrtc.so.13"),
               THREAD_RUNNING, "nvrtc");
    expect_row(&h, frame(&h, at, HOST_FRAME_NATIVE, "cublasCreate_v2", NULL, 0, SITE "nvidia/cu13/lib/libcublas.so.13"),
               THREAD_RUNNING, "cuda_lib_init");
    expect_row(&h, frame(&h, at, HOST_FRAME_NATIVE, "gc_collect_main", NULL, 0, "/usr/bin/python3.12"), THREAD_RUNNING,
               "gc");
    /* a CPU sample in the profiler's own callbacks (its innermost frame alone) */
    expect_row(&h, frame(&h, -1, HOST_FRAME_NATIVE, NULL, NULL, 0, "/usr/local/cuda/lib64/libcupti.so.13"),
               THREAD_RUNNING, "profiler");
    expect_row(&h, frame(&h, -1, HOST_FRAME_NATIVE, "cupti_record_store", NULL, 0, "/opt/mmprof/libmmprof_inject.so"),
               THREAD_RUNNING, "profiler");
    /* the profile's spans of what Python told (inject_pyhooks.c) */
    expect_row(&h, frame(&h, at, HOST_FRAME_OP, "time.sleep", NULL, 0, NULL), THREAD_UNKNOWN, "sleep");
    expect_row(&h, frame(&h, at, HOST_FRAME_OP, "gc", NULL, 0, NULL), THREAD_UNKNOWN, "gc");
    host_activity_free(&h);
}

/* Generic rows in table order, whichever frame matches: the backward pass, PyTorch's operators,
 * NumPy, the user's own computing, and waiting where nothing says why. */
static void generic_rows_in_order(void **state)
{
    (void)state;
    host_activity h = {0};
    int at = py(&h, -1, "train", "/home/u/train.py", 17);
    int bwd = py(&h, at, "Tensor.backward", SITE "torch/_tensor.py", 626);
    int eng = py(&h, bwd, "_engine_run_backward", SITE "torch/autograd/graph.py", 823);
    expect_row(&h, eng, THREAD_WAITING, "autograd"); /* waits while autograd's thread runs the pass */
    int lin = py(&h, at, "linear", SITE "torch/nn/functional.py", 120);
    expect_row(&h, lin, THREAD_RUNNING, "torch_ops");
    int np = py(&h, at, "dot", SITE "numpy/_core/multiarray.py", 741);
    expect_row(&h, np, THREAD_RUNNING, "numpy");
    expect_row(&h, at, THREAD_RUNNING, "host_cpu");
    expect_row(&h, at, THREAD_WAITING, "waiting");
    expect_row(&h, at, THREAD_UNKNOWN, "host_cpu"); /* an unknown state matches a running row first */
    host_activity_free(&h);
}

/* CUDA calls by name (CUPTI's with their version suffix, Kineto's plain), open ranges by kind. */
static void calls_and_ranges(void **state)
{
    (void)state;
    const struct {
        const char *name, *row;
    } calls[] = {
        {"cuModuleLoadData", "gpu_code_load"}, {"cuLibraryLoadData", "gpu_code_load"},
        {"cuDevicePrimaryCtxRetain", "cuda_context"}, {"cudaMalloc_v3020", "alloc"}, {"cudaFreeHost", "alloc"},
        {"cuMemCreate", "alloc"}, {"cudaStreamSynchronize_v3020", "sync"}, {"cuCtxSynchronize", "sync"},
        {"cudaLaunchKernel_v7000", "launch"}, {"cuLaunchKernel", "launch"}, {"cudaGraphLaunch_v10000", "launch"},
        {"cudaMemcpyAsync_v3020", "launch"}, {"cudaMemcpy_v3020", "copy_call"}, {"cuMemcpyHtoD_v2", "copy_call"},
        {"nvrtcCompileProgram", "nvrtc"}, {"cudaGetDevice_v3020", "other_api"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        int r = cause_of_api(calls[i].name);
        if (r < 0 || strcmp(cause_rules[r].id, calls[i].row) != 0)
            fail_msg("%s: row %s, want %s", calls[i].name, r >= 0 ? cause_rules[r].id : "(none)", calls[i].row);
    }
    assert_string_equal(cause_rules[cause_of_range("tool", "reference")].id, "mmprof_own");
    assert_string_equal(cause_rules[cause_of_range("phase", "verify")].id, "mmprof_own");
    assert_string_equal(cause_rules[cause_of_range("tool", "cuda-init")].id, "mmprof_setup");
    assert_string_equal(cause_rules[cause_of_range("workload", "cpu-openblas")].id, "cpu_workload");
    assert_string_equal(
        cause_rules[cause_of_range("annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")].id,
        "dataloader_range");
    assert_int_equal(cause_of_range("nvtx", "verify"), -1); /* a program's own range of that name is its own */
}

/* The committed recordings' stacks: numba's first call compiling (its 1 s gap under the
 * dispatcher's _compile_for_args, which imports scipy on the way), and the training loop's
 * optimizer importing torch._dynamo. */
static void recorded_stacks(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-numba.json", &m);
    const host_activity *h = &m.host_activity;
    int compiling = 0, importing = 0;
    cause_matcher *cm = cause_matcher_build(h);
    assert_non_null(cm);
    for (size_t i = 0; i < h->nsamples; i++) {
        if (h->samples[i].source != HOST_SAMPLE_PY || h->samples[i].frame < 0)
            continue;
        bool in_compile = false, in_import = false;
        for (int n = h->samples[i].frame; n >= 0; n = h->frames[n].parent) {
            const char *fn = h->frames[n].function ? h->frames[n].function : "";
            in_compile |= strstr(fn, "_compile_for_args") != NULL;
            in_import |= strcmp(fn, "_find_and_load") == 0;
        }
        if (!in_compile)
            continue;
        cause_hit hit = cause_of_stack(cm, h->samples[i].frame, thread_class_of(h->samples[i].state));
        assert_string_equal(cause_rules[hit.rule].id, "numba_jit");
        char at[HOST_NAME];
        host_frame_name(&h->frames[hit.user], true, at, sizeof at);
        assert_string_equal(at, "numba_copies.py:46 (main)");
        compiling++;
        importing += in_import;
    }
    cause_matcher_free(cm);
    assert_true(compiling > 50);
    assert_true(importing > 10); /* compiling that imports: still compiling */
    model_free(&m);

    load_run("samples/h200-profile-train.json", &m);
    h = &m.host_activity;
    cm = cause_matcher_build(h);
    assert_non_null(cm);
    int named = 0;
    for (size_t i = 0; i < h->nsamples; i++) {
        if (h->samples[i].source != HOST_SAMPLE_PY || h->samples[i].frame < 0)
            continue;
        cause_hit hit = cause_of_stack(cm, h->samples[i].frame, thread_class_of(h->samples[i].state));
        if (hit.rule < 0 || strcmp(cause_rules[hit.rule].id, "python_import") != 0 || hit.detail < 0)
            continue;
        char mod[96];
        host_module_name(h->frames[hit.detail].file, mod, sizeof mod);
        if (strcmp(mod, "torch._dynamo") == 0)
            named++;
    }
    cause_matcher_free(cm);
    assert_true(named > 300); /* most of the 4 s the optimizer's first import takes */
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_is_sound),          cmocka_unit_test(dataloader_is_input),
        cmocka_unit_test(compiling_outranks_importing), cmocka_unit_test(importing_names_the_module),
        cmocka_unit_test(each_specific_row),       cmocka_unit_test(generic_rows_in_order),
        cmocka_unit_test(calls_and_ranges),        cmocka_unit_test(recorded_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
