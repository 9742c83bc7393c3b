/* What the host did while the GPU waited, and which line launched each kernel (host_idle.h):
 * runs built here with their host call tree, samples, spans and call sites, each known by
 * construction: a numba-like lead stretch full of compiler samples, a Python program asleep
 * between launches, a CUDA C host loop seen by CPU samples, a kernel launched from two lines
 * 95/5, an import's nested CPU spans, and a run whose sampling was off. The figures, the advice's
 * words, and every output showing them only where they exist. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include <cjson/cJSON.h>
#include "cause_match.h"
#include "csv.h"
#include "host_idle.h"
#include "html.h"
#include "json_report.h"
#include "site_line.h"
#include "test_support.h"
#include "trace.h"

#define MS 1000000LL /* ns */
#define T0 1732981234000000000LL
#define PID 42
#define MAIN_TID 42
#define WORKER_TID 43
#define AUTOGRAD_TID 44

static void kernel(run_model *m, const char *name, int64_t s, int64_t e, uint32_t corr)
{
    kernel_event k = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = PID, .stream = 7,
                      .correlation = corr, .grid = {1, 1, 1}, .block = {256, 1, 1}};
    assert_true(events_add_kernel(&m->events, &k));
}

static void call_on(run_model *m, uint32_t tid, const char *name, int64_t s, int64_t e, uint32_t corr)
{
    api_event a = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = PID, .thread = tid,
                   .correlation = corr, .kind = API_RUNTIME};
    assert_true(events_add_api(&m->events, &a));
}

static void call(run_model *m, const char *name, int64_t s, int64_t e, uint32_t corr)
{
    call_on(m, MAIN_TID, name, s, e, corr);
}

static int frame(run_model *m, int parent, host_frame_kind kind, const char *fn, const char *file, int line,
                 const char *module)
{
    host_frame f = {.pid = PID, .parent = parent, .kind = kind, .function = (char *)fn, .file = (char *)file,
                    .line = line, .module = (char *)module};
    int i = host_add_frame(&m->host_activity, &f);
    assert_true(i >= 0);
    return i;
}

static void samples(run_model *m, int node, uint32_t tid, host_sample_source src, char state, int64_t from,
                    int64_t step, int n)
{
    for (int i = 0; i < n; i++) {
        host_sample s = {.ts_ns = T0 + from + i * step, .pid = PID, .tid = tid, .frame = node, .source = src,
                         .state = state};
        assert_true(host_add_sample(&m->host_activity, &s));
    }
}

static void start_run(run_model *m)
{
    model_init(m);
    m->schema_version = MMPROF_SCHEMA_VERSION;
    m->source = SOURCE_PROFILE;
    m->epoch_ns = T0;
}

static void finish_run(run_model *m)
{
    assert_true(model_add_process(m, PID, "prog"));
    assert_true(model_finish_regions(m, "prog"));
}

#define SITE_PKG "/usr/lib/python3.12/site-packages/"

/* numba's first call: a short cuInit at 0, then 918 ms of compiling (no CUDA call) before the
 * first kernel at 920 ms. Of the main thread's 100 Python samples (every 9 ms from 1 ms), 87 are
 * under numba.core.compiler's compile_extra (50 in run_pass, 37 in lower) called from prog.py:30,
 * 13 in numpy from prog.py:25; a worker thread sleeps through it (100 samples in state S), which
 * must not outvote the thread that ran. */
static void numba_run(run_model *m, bool sampled)
{
    start_run(m);
    call(m, "cuInit", 0, 1 * MS, 1);
    kernel(m, "_Z6matmulPfS_S_i", 919 * MS, 920 * MS, 2);
    call(m, "cudaLaunchKernel_v7000", 918 * MS + MS / 2, 918 * MS + MS / 2 + 10000, 2);
    if (sampled) {
        host_activity *h = &m->host_activity;
        copy_str(h->mechanism, sizeof h->mechanism, "python-wall+cpu-timer");
        h->rate_hz = 111;
        int mod = frame(m, -1, HOST_FRAME_PY, "<module>", "/home/u/prog.py", 40, NULL);
        int at30 = frame(m, mod, HOST_FRAME_PY, "main", "/home/u/prog.py", 30, NULL);
        int at25 = frame(m, mod, HOST_FRAME_PY, "main", "/home/u/prog.py", 25, NULL);
        int disp = frame(m, at30, HOST_FRAME_PY, "Dispatcher.__call__", SITE_PKG "numba/cuda/dispatcher.py", 600,
                         NULL);
        int comp = frame(m, disp, HOST_FRAME_PY, "compile_extra", SITE_PKG "numba/core/compiler.py", 100, NULL);
        int pass = frame(m, comp, HOST_FRAME_PY, "run_pass", SITE_PKG "numba/core/compiler_machinery.py", 300,
                         NULL);
        int lower = frame(m, comp, HOST_FRAME_PY, "lower", SITE_PKG "numba/core/lowering.py", 80, NULL);
        int rand = frame(m, at25, HOST_FRAME_PY, "rand", SITE_PKG "numpy/random/__init__.py", 10, NULL);
        int wait = frame(m, -1, HOST_FRAME_PY, "wait", "/usr/lib/python3.12/threading.py", 320, NULL);
        samples(m, rand, MAIN_TID, HOST_SAMPLE_PY, 'R', 1 * MS, 9 * MS, 13);
        samples(m, pass, MAIN_TID, HOST_SAMPLE_PY, 'R', 1 * MS + 13 * 9 * MS, 9 * MS, 50);
        samples(m, lower, MAIN_TID, HOST_SAMPLE_PY, 'R', 1 * MS + 63 * 9 * MS, 9 * MS, 37);
        samples(m, wait, WORKER_TID, HOST_SAMPLE_PY, 'S', 2 * MS, 9 * MS, 100);
        /* During the kernel: not idle time. */
        samples(m, lower, MAIN_TID, HOST_SAMPLE_PY, 'R', 919 * MS + MS / 2, 1, 1);
    } else {
        copy_str(m->host_activity.mechanism, sizeof m->host_activity.mechanism, "off");
        copy_str(m->host_activity.why_not, sizeof m->host_activity.why_not, "--no-sample");
    }
    finish_run(m);
}

static void must_contain(const char *text, const char *part)
{
    if (!text || !strstr(text, part))
        fail_msg("'%s' does not say '%s'", text ? text : "(null)", part);
}

/* The page's timeline data (html_events.c): a sample in the compiler's lowering on thread 42's
 * track says its state, and its whole stack reads back from the frame table, innermost first, the
 * user's two frames flagged and none of numba's. */
static void sample_stack_on_the_page(const char *html)
{
    const char *open = "<script type=\"application/json\" id=\"tl-data\">", *p = strstr(html, open);
    assert_non_null(p);
    p += strlen(open);
    char *text = strndup(p, (size_t)(strstr(p, "</script>") - p));
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    const cJSON *names = cJSON_GetObjectItem(j, "names"), *frames = cJSON_GetObjectItem(j, "frames"), *t;
    assert_non_null(frames);
    const char *want[] = {"numba.core.lowering (lower)", "numba.core.compiler (compile_extra)",
                          "numba.cuda.dispatcher (Dispatcher.__call__)", "prog.py:30 (main)", "prog.py:40 (<module>)"};
    const bool user[] = {false, false, false, true, true};
    bool seen = false;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tracks")) {
        if (strcmp(cJSON_GetObjectItem(t, "l")->valuestring, "thread 42: host samples") != 0)
            continue;
        for (int i = 0; i < cJSON_GetArraySize(cJSON_GetObjectItem(t, "n")) && !seen; i++) {
            int name = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "n"), i)->valueint;
            if (strcmp(cJSON_GetArrayItem(names, name)->valuestring, want[0]) != 0)
                continue;
            seen = true;
            int info = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "i"), i)->valueint;
            assert_string_equal(cJSON_GetArrayItem(names, info)->valuestring, "py sample, running, thread state R");
            int f = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "f"), i)->valueint, k = 0;
            for (; f >= 0 && k < 5; k++) {
                int back = cJSON_GetArrayItem(cJSON_GetObjectItem(frames, "p"), f)->valueint;
                int fn = cJSON_GetArrayItem(cJSON_GetObjectItem(frames, "n"), f)->valueint;
                assert_string_equal(cJSON_GetArrayItem(names, fn)->valuestring, want[k]);
                bool flagged = false;
                const cJSON *u;
                cJSON_ArrayForEach(u, cJSON_GetObjectItem(frames, "u")) flagged |= u->valueint == f;
                assert_int_equal(flagged, user[k]);
                f = back ? f - back : -1;
            }
            assert_int_equal(k, 5);
            assert_int_equal(f, -1);
        }
    }
    assert_true(seen);
    cJSON_Delete(j);
}

static const host_view *gap_view(const analysis *a, int gap, host_from f)
{
    assert_non_null(a->host);
    assert_true(gap < a->host->ngaps);
    return &a->host->gaps[gap * HOST_NFROM + f];
}

static const call_site_row *row_of(const analysis *a, const char *kind, const char *name);

static void numba_compile_is_named(void **state)
{
    (void)state;
    run_model m;
    numba_run(&m, true);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.idle_gaps[0].where, STRETCH_LEAD);
    assert_int_equal(a.idle_gaps[0].cause, IDLE_HOST_BUSY);
    const host_view *v = gap_view(&a, 0, HOST_FROM_PY);
    assert_true(v->any);
    assert_int_equal(v->tid, MAIN_TID); /* the running thread, not the sleeping worker */
    assert_int_equal(v->threads, 2);
    assert_close(v->samples.v, 100, 0);
    assert_close(v->waiting_pct.v, 0, 0);
    assert_string_equal(v->hot.name, "numba.core.compiler (compile_extra)");
    assert_close(v->hot.share_pct.v, 87, 1e-9);
    assert_string_equal(v->user.name, "prog.py:30 (main)");
    assert_true(v->user.user);
    assert_close(v->user.share_pct.v, 87, 1e-9);
    assert_int_equal(v->ntop, 3);
    assert_string_equal(v->top[0].name, "numba.core.compiler_machinery (run_pass)");
    assert_close(v->top[0].share_pct.v, 50, 1e-9);
    assert_string_equal(v->top[2].name, "numpy.random (rand)");
    assert_false(gap_view(&a, 0, HOST_FROM_CPU)->any);
    assert_false(gap_view(&a, 0, HOST_FROM_SPANS)->any);
    /* The verdict, from the wall-time account, names the compiler (the outermost numba frame
     * the table knows: compile_extra), the user's line and the library entry it called; the
     * advice is the compiler's, not "prefetch inputs". The 88 samples under the compiler stand
     * for their instants, each at most one period (P = 1/111 s) away: from the midpoint before
     * the first (113.5 ms) to P after the 87th (892 ms), and from P before the 88th (919.5 ms,
     * under the kernel) to the kernel at 919 ms, less the launch call (918.5 to 918.51 ms). */
    assert_int_equal(a.rg[0].verdict, VERDICT_COMPILE_BOUND);
    must_contain(a.rg[0].verdict_text, "compile-bound: compiling with numba (JIT at the first call)");
    must_contain(a.rg[0].verdict_text, "at prog.py:30 (main), calling numba.cuda.dispatcher (Dispatcher.__call__)");
    must_contain(a.rg[0].advice, "compile ahead");
    assert_null(strstr(a.rg[0].advice, "prefetch inputs"));
    const wall_account *acc = run_account(&a);
    assert_non_null(acc);
    assert_int_equal(acc->rows[0].state, WS_COMPILE);
    assert_string_equal(acc->rows[0].cause, "numba_jit");
    const double P = 1000.0 / 111;
    assert_close(acc->rows[0].ms.v, (892 + P - 113.5) + (918.5 - (919.5 - P)) + (919 - 918.51), 1e-6);
    assert_close(acc->rows[0].samples.v, 87, 0); /* the 88th fell while the GPU ran */
    assert_false(acc->rows[0].few_samples);
    /* The run's host-busy idle time: the 100 samples in the stretch, not the one under the kernel. */
    const host_view *r = &a.host->regions[0 * HOST_NFROM + HOST_FROM_PY];
    assert_close(r->samples.v, 100, 0);
    assert_string_equal(r->hot.name, "numba.core.compiler (compile_extra)");
    analysis_free(&a);
    model_free(&m);
}

/* A Python program asleep between two launches: time.sleep has no Python frame of its own, so the
 * innermost Python frame is the user's line, in state S. */
static void python_sleep_is_named(void **state)
{
    (void)state;
    run_model m;
    start_run(&m);
    kernel(&m, "_Z4stepv", 0, 1 * MS, 1);
    kernel(&m, "_Z4stepv", 501 * MS, 502 * MS, 2);
    call(&m, "cudaLaunchKernel_v7000", 0, MS / 100, 1);
    call(&m, "cudaLaunchKernel_v7000", 500 * MS, 500 * MS + MS / 100, 2);
    int mod = frame(&m, -1, HOST_FRAME_PY, "<module>", "/home/u/sleepy.py", 20, NULL);
    int at12 = frame(&m, mod, HOST_FRAME_PY, "main", "/home/u/sleepy.py", 12, NULL);
    samples(&m, at12, MAIN_TID, HOST_SAMPLE_PY, 'S', 2 * MS, 10 * MS, 48);
    samples(&m, at12, MAIN_TID, HOST_SAMPLE_PY, 'R', 490 * MS, 2 * MS, 2);
    finish_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    const host_view *v = gap_view(&a, 0, HOST_FROM_PY);
    assert_close(v->waiting_pct.v, 96, 1e-9);
    assert_true(host_view_waited(v));
    assert_false(v->running_pct.ok); /* no CPU samples in the run */
    /* The wall-time account: asleep at sleepy.py:12, which the samples alone cannot tell from any
     * other wait: off the CPU there, the cause not known. */
    assert_int_equal(a.rg[0].verdict, VERDICT_IDLE);
    must_contain(a.rg[0].verdict_text, "idle, cause not known: waiting off the CPU");
    must_contain(a.rg[0].verdict_text, "at sleepy.py:12 (main)");
    analysis_free(&a);
    /* With the profile's span of the sleep (Python's time.sleep audit event, inject_pyhooks.c):
     * sleeping, exactly its 450 ms, at the line. */
    int sleep = frame(&m, at12, HOST_FRAME_OP, "time.sleep", NULL, 0, NULL);
    host_span z = {T0 + 20 * MS, T0 + 470 * MS, PID, MAIN_TID, sleep};
    assert_true(host_add_span(&m.host_activity, &z));
    assert_true(analyze(&m, &a));
    assert_int_equal(a.rg[0].verdict, VERDICT_SLEEPING);
    must_contain(a.rg[0].verdict_text, "sleeping: sleeping 89.6% of the run (450.000 ms of 502.000 ms) at sleepy.py:12 "
                                       "(main), calling time.sleep");
    must_contain(a.rg[0].advice, "remove the sleep");
    analysis_free(&a);
    model_free(&m);
}

/* A Python loop on the CPU whose wall-clock samples read the thread as waiting (it waits for the
 * GIL the sampler holds, as the H200's host_gaps.py recording showed): its CPU samples in the same
 * stretch say it ran, so the advice says busy, not asleep. */
/* busy.py's loop at line 39 between a kernel ending at 1 ms and one launched at gap_ms: Python
 * samples (state py_state) every py_every ms from 2 ms, CPU samples every cpu_every ms from 3 ms;
 * analysed into a, the stretch's Python view returned. */
static const host_view *busy_loop(run_model *m, analysis *a, int64_t gap_ms, char py_state, int64_t py_every, int npy,
                                  int64_t cpu_every, int ncpu)
{
    start_run(m);
    kernel(m, "_Z4stepv", 0, 1 * MS, 1);
    kernel(m, "_Z4stepv", (gap_ms + 1) * MS, (gap_ms + 2) * MS, 2);
    call(m, "cudaLaunchKernel_v7000", gap_ms * MS, gap_ms * MS + MS / 100, 2);
    int mod = frame(m, -1, HOST_FRAME_PY, "<module>", "/home/u/busy.py", 60, NULL);
    int work = frame(m, mod, HOST_FRAME_PY, "cpu_work", "/home/u/busy.py", 39, NULL);
    int eval = frame(m, -1, HOST_FRAME_NATIVE, "_PyEval_EvalFrameDefault", NULL, 0, "/usr/bin/python3.12");
    samples(m, work, MAIN_TID, HOST_SAMPLE_PY, py_state, 2 * MS, py_every * MS, npy);
    samples(m, eval, MAIN_TID, HOST_SAMPLE_CPU, 'R', 3 * MS, cpu_every * MS, ncpu);
    finish_run(m);
    assert_true(analyze(m, a));
    return gap_view(a, 0, HOST_FROM_PY);
}

static void cpu_samples_overrule_a_waiting_state(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    const host_view *v = busy_loop(&m, &a, 500, 'S', 10, 49, 10, 48);
    assert_close(v->waiting_pct.v, 100, 1e-9);
    assert_close(v->running_pct.v, 100.0 * 48 / 49, 1e-9);
    assert_false(host_view_waited(v));
    assert_false(gap_view(&a, 0, HOST_FROM_CPU)->user.user); /* no Python frame: no user's line */
    assert_int_equal(a.rg[0].verdict, VERDICT_HOST_BOUND);
    must_contain(a.rg[0].verdict_text, "host-bound: computing on the host");
    must_contain(a.rg[0].verdict_text, "at busy.py:39 (cpu_work)");
    /* every piece with a CPU sample in it ran; the last (no CPU sample after 473 ms) waited */
    const wall_account *acc = run_account(&a);
    assert_int_equal(acc->rows[0].state, WS_CPU);
    assert_true(acc->rows[0].share_pct.v > 90);
    analysis_free(&a);
    model_free(&m);
}

/* The Python sampler missing a tick of a busy thread (the GIL held) leaves fewer wall-clock
 * samples than CPU ones in a stretch: the thread ran all of it, 100%, not more (the H200's
 * host_gaps.py recording read 15 against 14 as "107% running"). */
static void running_is_at_most_all_of_the_time(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    const host_view *v = busy_loop(&m, &a, 300, 'R', 20, 14, 18, 15); /* 14 wall-clock samples, 15 CPU ones */
    assert_true(v->samples.v == 14 && gap_view(&a, 0, HOST_FROM_CPU)->samples.v == 15 && v->running_pct.ok);
    assert_close(v->running_pct.v, 100, 1e-9);
    analysis_free(&a);
    model_free(&m);
}

/* A CUDA C program's host loop between launches, seen by CPU samples with native frames: the hot
 * frame is libm's exp (75%), the user's line the loop's. */
static void cuda_c_host_loop_is_named(void **state)
{
    (void)state;
    run_model m;
    start_run(&m);
    kernel(&m, "_Z4stepv", 0, 1 * MS, 1);
    kernel(&m, "_Z4stepv", 101 * MS, 102 * MS, 2);
    call(&m, "cudaLaunchKernel_v7000", 100 * MS, 100 * MS + MS / 100, 2);
    int mainf = frame(&m, -1, HOST_FRAME_NATIVE, "main", "/home/u/loop.cu", 50, "/home/u/loop");
    int loop = frame(&m, mainf, HOST_FRAME_NATIVE, "host_loop", "/home/u/loop.cu", 31, "/home/u/loop");
    int exp_ = frame(&m, loop, HOST_FRAME_NATIVE, "exp", NULL, 0, "/usr/lib/x86_64-linux-gnu/libm.so.6");
    int anon = frame(&m, exp_, HOST_FRAME_NATIVE, NULL, NULL, 0, "/usr/lib/x86_64-linux-gnu/libm.so.6");
    samples(&m, anon, MAIN_TID, HOST_SAMPLE_CPU, 0, 2 * MS, 2 * MS, 30);
    samples(&m, loop, MAIN_TID, HOST_SAMPLE_CPU, 0, 70 * MS, 2 * MS, 10);
    finish_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    const host_view *v = gap_view(&a, 0, HOST_FROM_CPU);
    assert_true(v->any);
    assert_false(gap_view(&a, 0, HOST_FROM_PY)->any);
    assert_false(v->waiting_pct.ok);
    assert_string_equal(v->hot.name, "exp (libm.so.6)");
    assert_close(v->hot.share_pct.v, 75, 1e-9);
    assert_string_equal(v->user.name, "loop.cu:31 (host_loop)");
    assert_close(v->user.share_pct.v, 100, 1e-9);
    /* The unnamed frame counts for its named caller. */
    assert_string_equal(v->top[0].name, "exp (libm.so.6)");
    assert_string_equal(v->top[1].name, "loop.cu (host_loop)");
    assert_int_equal(a.rg[0].verdict, VERDICT_HOST_BOUND);
    must_contain(a.rg[0].verdict_text, "host-bound: computing on the host");
    must_contain(a.rg[0].verdict_text, "at loop.cu:31 (host_loop), calling exp (libm.so.6)");
    analysis_free(&a);
    model_free(&m);
}

/* A <<<>>> launch goes through nvcc's stub (a host function of the kernel's name at the kernel's
 * line, then __device_stub__...): the line named is main's, which launched it, by the call sites
 * and the account alike; a compiler's "[clone ...]" suffix is left out of a name. */
static void launch_stubs_are_passed_over(void **state)
{
    (void)state;
    run_model m;
    start_run(&m);
    kernel(&m, "_Z5scalePfif", 10 * MS, 11 * MS, 7);
    call(&m, "cudaLaunchKernel_v7000", 9 * MS, 9 * MS + MS / 100, 7);
    int mainf = frame(&m, -1, HOST_FRAME_NATIVE, "main", "/home/u/loop.cu", 95, "/home/u/loop");
    int stub = frame(&m, mainf, HOST_FRAME_NATIVE, "scale(float*, int, float)", "/home/u/loop.cu", 40, "/home/u/loop");
    int dev = frame(&m, stub, HOST_FRAME_NATIVE, "__device_stub__Z5scalePfif(float*, int, float)", "/home/u/loop.cu",
                    40, "/home/u/loop");
    int rt = frame(&m, dev, HOST_FRAME_NATIVE, "cudaLaunchKernel", "/usr/local/cuda/include/cuda_runtime.h", 216,
                   "/home/u/loop");
    host_site s = {.pid = PID, .correlation = 7, .frame = rt};
    assert_true(host_add_site(&m.host_activity, &s));
    int burn = frame(&m, mainf, HOST_FRAME_NATIVE, "burn_cpu(double) [clone .constprop.0] [clone .isra.0]",
                     "/home/u/loop.cu", 61, "/home/u/loop");
    finish_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    const call_site_row *r = row_of(&a, "kernel", "scale");
    assert_string_equal(r->sites[0].at, "loop.cu:95 (main)");
    /* The account quotes the same line for that stack, calling the kernel's host function: its
     * matcher passes over the stub as the call sites do, __device_stub__ at a line of the user's
     * included (cause_match.c) */
    cause_matcher *cm = cause_matcher_build(&m.host_activity);
    assert_non_null(cm);
    cause_hit hit = cause_of_stack(cm, rt, THREAD_RUNNING);
    assert_int_equal(hit.user, mainf);
    assert_int_equal(hit.via, stub);
    cause_matcher_free(cm);
    char b[HOST_NAME];
    host_frame_name(&m.host_activity.frames[burn], true, b, sizeof b);
    assert_string_equal(b, "loop.cu:61 (burn_cpu(double))");
    analysis_free(&a);
    model_free(&m);
}

/* The launch of examples/causes/launch.cu as recorded on the H200 (at -O2): `empty<<<1, 32>>>` at
 * launch.cu:46 in launch_once, called from main at launch.cu:67, 50 launches of 1 ms of
 * cudaLaunchKernel each, the GPU idle between. nvcc's host function empty(int*) is inlined into
 * launch_once, so the frame of the return address there reads as empty(int*) at the kernel's
 * line (37), its caller main; symbolize.c gives it an outer node, launch_once at launch.cu:46.
 * The call sites and the account (its launch row and the verdict from it) both name that line;
 * without the outer node (a run named before it) both name main's line, as before. */
static void inlined_launch_stub_run(run_model *m, bool outer)
{
    start_run(m);
    const char *cu = "/home/u/launch.cu", *exe = "/home/u/launch";
    int mainf = frame(m, -1, HOST_FRAME_NATIVE, "main", cu, 67, exe);
    int stub = frame(m, mainf, HOST_FRAME_NATIVE, "empty(int*)", cu, 37, exe);
    int helper = frame(m, stub, HOST_FRAME_NATIVE, "__cudaLaunchKernel_helper",
                       "/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_functions.h", 2963, exe);
    int rt = frame(m, helper, HOST_FRAME_NATIVE, "cudaLaunchKernel", NULL, 0, exe);
    if (outer)
        m->host_activity.frames[stub].outer = frame(m, mainf, HOST_FRAME_NATIVE, "launch_once", cu, 46, exe);
    for (uint32_t i = 1; i <= 50; i++) {
        int64_t at = (int64_t)i * 2 * MS;
        call(m, "cudaLaunchKernel_v7000", at, at + MS, i);
        kernel(m, "_Z5emptyPi", at + MS + MS / 10, at + MS + MS / 10 + 2000, i);
        host_site s = {.pid = PID, .correlation = i, .frame = rt};
        assert_true(host_add_site(&m->host_activity, &s));
    }
    finish_run(m);
}

static void inlined_launch_stub_names_its_line(void **state)
{
    (void)state;
    for (int outer = 1; outer >= 0; outer--) {
        const char *line = outer ? "launch.cu:46 (launch_once)" : "launch.cu:67 (main)";
        run_model m;
        inlined_launch_stub_run(&m, outer);
        analysis a;
        assert_true(analyze(&m, &a));
        const call_site_row *r = row_of(&a, "kernel", "empty");
        assert_int_equal(r->calls, 50);
        assert_int_equal(r->nsites, 1);
        assert_string_equal(r->sites[0].at, line);
        assert_true(a.naccounts > 0);
        const account_row *launch = NULL;
        for (int k = 0; k < a.accounts[0].nrows; k++)
            if (a.accounts[0].rows[k].state == WS_LAUNCH)
                launch = &a.accounts[0].rows[k];
        assert_non_null(launch);
        assert_string_equal(launch->at, line);
        assert_string_equal(launch->via, "launch.cu (empty)");
        char said[200];
        snprintf(said, sizeof said, "at %s, calling launch.cu (empty)", line);
        must_contain(a.rg[0].verdict_text, said);
        analysis_free(&a);
        model_free(&m);
    }
}

/* 20 launches of gemm: 19 from model.py:42 (forward) through torch's functional.linear, one from
 * model.py:60 (backward); a memcpy and a synchronize with their own sites. */
static void two_sites_run(run_model *m)
{
    start_run(m);
    int mod = frame(m, -1, HOST_FRAME_PY, "<module>", "/home/u/model.py", 90, NULL);
    int fwd = frame(m, mod, HOST_FRAME_PY, "forward", "/home/u/model.py", 42, NULL);
    int bwd = frame(m, mod, HOST_FRAME_PY, "backward", "/home/u/model.py", 60, NULL);
    int lin = frame(m, fwd, HOST_FRAME_PY, "linear", SITE_PKG "torch/nn/functional.py", 120, NULL);
    int nat = frame(m, lin, HOST_FRAME_NATIVE, "cudaLaunchKernel", NULL, 0, "/usr/lib/libcudart.so.12");
    int load = frame(m, mod, HOST_FRAME_PY, "load", "/home/u/model.py", 80, NULL);
    for (uint32_t i = 1; i <= 20; i++) {
        kernel(m, "_Z4gemmPfS_S_i", (int64_t)i * MS, (int64_t)i * MS + MS / 2, i);
        call(m, "cudaLaunchKernel_v7000", (int64_t)i * MS - MS / 10, (int64_t)i * MS - MS / 20, i);
        host_site s = {.pid = PID, .correlation = i, .frame = i == 20 ? bwd : nat};
        assert_true(host_add_site(&m->host_activity, &s));
    }
    copy_event c = {.dir = COPY_H2D, .src = MEM_PAGEABLE, .dst = MEM_DEVICE, .bytes = 1 << 20,
                    .start_ns = T0 + 30 * MS, .end_ns = T0 + 31 * MS, .pid = PID, .correlation = 100};
    assert_true(events_add_copy(&m->events, &c));
    call(m, "cudaMemcpy_v3020", 29 * MS, 31 * MS, 100);
    call(m, "cudaDeviceSynchronize_v3020", 32 * MS, 33 * MS, 101);
    host_site cs = {.pid = PID, .correlation = 100, .frame = load}, ss = {.pid = PID, .correlation = 101, .frame = load};
    assert_true(host_add_site(&m->host_activity, &cs));
    assert_true(host_add_site(&m->host_activity, &ss));
    finish_run(m);
}

static const call_site_row *row_of(const analysis *a, const char *kind, const char *name)
{
    for (int i = 0; a->host && i < a->host->nsites; i++)
        if (strcmp(a->host->sites[i].kind, kind) == 0 && strcmp(a->host->sites[i].name, name) == 0)
            return &a->host->sites[i];
    fail_msg("no call-site row for %s %s", kind, name);
    return NULL;
}

static void launch_sites_are_aggregated(void **state)
{
    (void)state;
    run_model m;
    two_sites_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.host->nsites, 3);
    const call_site_row *g = row_of(&a, "kernel", "gemm");
    assert_ptr_equal(g, &a.host->sites[0]); /* most calls first */
    assert_int_equal(g->calls, 20);
    assert_int_equal(g->nsites, 2);
    assert_string_equal(g->sites[0].at, "model.py:42 (forward)");
    assert_close(g->sites[0].count.v, 19, 0);
    assert_close(g->sites[0].share_pct.v, 95, 1e-9);
    assert_string_equal(g->sites[1].at, "model.py:60 (backward)");
    assert_close(g->sites[1].share_pct.v, 5, 1e-9);
    const call_site_row *c = row_of(&a, "copy", "HtoD pageable");
    assert_string_equal(c->sites[0].at, "model.py:80 (load)");
    const call_site_row *s = row_of(&a, "call", "cudaDeviceSynchronize");
    assert_int_equal(s->calls, 1);
    /* The summary says which line launched the top kernel. */
    bool said = false;
    for (int i = 0; i < a.nsummary; i++)
        if (a.summary[i].kind == FIND_LAUNCHED_FROM) {
            must_contain(a.summary[i].text, "The top kernel gemm (100% of kernel time) was launched from model.py:42 "
                                            "(forward) in 95% of 20 launches with a call site; then model.py:60 (backward) 5%");
            said = true;
        }
    assert_true(said);
    analysis_free(&a);
    model_free(&m);
}

/* A launch at..at+10 us by tid, of kernel name, with the host stack node. */
static void sited_launch(run_model *m, uint32_t tid, const char *name, int64_t at, uint32_t corr, int node)
{
    kernel(m, name, at + MS / 10, at + MS / 5, corr);
    call_on(m, tid, "cudaLaunchKernel_v7000", at, at + MS / 100, corr);
    host_site s = {.pid = PID, .correlation = corr, .frame = node};
    assert_true(host_add_site(&m->host_activity, &s));
}

static const char *line_of_kernel(const analysis *a, const char *name)
{
    const call_site_row *r = row_of(a, "kernel", name);
    assert_int_equal(r->nsites, 1);
    return r->sites[0].at;
}

/* PyTorch's backward pass: autograd's thread (44) launches with native stacks alone (libtorch in
 * site-packages), while the Python main thread (42) waits in loss.backward() at train.py:17.
 * Sampled at 100 Hz, so a borrowed sample lies within 20 ms of the launch. Each launch its own
 * kernel name, each a case of site_line.h's rule:
 *   a  waiting samples at :17 at 100, 110, 120 ms; launch at 105         -> the main thread's :17
 *   b  no sample of the main thread within 20 ms of 300 ms             -> its own native frame
 *   c  the main thread in a sited sync (train.py:20) over 500..540 ms, a waiting sample at :17
 *      just past it (545); launch at 510                                -> :20, the call in progress
 *   d  the main thread running (state R) at train.py:15 near 705        -> its own: not borrowed
 *   e  waiting at :17 (900) and :20 (915), each past a main call from 908 -> they disagree: its own
 *   f  the same with both at :17 (1100, 1115), launch at 1108            -> :17
 *   g  at :20 2 ms before (1306, past a main call) and :17 8 ms after (1316, no call between) -> :17
 *   h  a waiting sample at :20 inside a main sync (1500..1520, no site), launch at 1525 -> its own
 *   i  a span of the main thread (a collection under train.py:22, 2500..2600), launch at 2550 -> :22
 * and the main thread's own launch with a native stack (2000, waiting samples at :17 beside it),
 * and a worker thread with a Python line of its own (loader.py:8), keep their own lines. */
static void autograd_run(run_model *m)
{
    start_run(m);
    host_activity *h = &m->host_activity;
    copy_str(h->mechanism, sizeof h->mechanism, "python-wall+cpu-timer");
    h->rate_hz = 100;
    int mod = frame(m, -1, HOST_FRAME_PY, "<module>", "/home/u/train.py", 30, NULL);
    int at15 = frame(m, mod, HOST_FRAME_PY, "train", "/home/u/train.py", 15, NULL);
    int at17 = frame(m, mod, HOST_FRAME_PY, "train", "/home/u/train.py", 17, NULL);
    int at20 = frame(m, mod, HOST_FRAME_PY, "train", "/home/u/train.py", 20, NULL);
    int at22 = frame(m, mod, HOST_FRAME_PY, "train", "/home/u/train.py", 22, NULL);
    int bwd = frame(m, at17, HOST_FRAME_PY, "Tensor.backward", SITE_PKG "torch/_tensor.py", 631, NULL);
    int engine = frame(m, bwd, HOST_FRAME_PY, "_engine_run_backward", SITE_PKG "torch/autograd/graph.py", 869, NULL);
    int item = frame(m, at20, HOST_FRAME_PY, "Tensor.item", SITE_PKG "torch/_tensor.py", 700, NULL);
    int lin = frame(m, at15, HOST_FRAME_PY, "linear", SITE_PKG "torch/nn/functional.py", 120, NULL);
    int gc = frame(m, at22, HOST_FRAME_OP, "gc.collect", NULL, 0, NULL);
    int thr = frame(m, -1, HOST_FRAME_NATIVE, "start_thread", NULL, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    int eng = frame(m, thr, HOST_FRAME_NATIVE, "torch::autograd::Engine::thread_main()", NULL, 0,
                    SITE_PKG "torch/lib/libtorch_cpu.so");
    int gemm = frame(m, eng, HOST_FRAME_NATIVE, "cublasLtMatrixTransform", NULL, 0, SITE_PKG "nvidia/cu13/lib/libcublasLt.so.13");
    int mainnat = frame(m, -1, HOST_FRAME_NATIVE, "at::native::fill_kernel_cuda", NULL, 0,
                        SITE_PKG "torch/lib/libtorch_cuda.so");
    int loader = frame(m, -1, HOST_FRAME_PY, "worker", "/home/u/loader.py", 8, NULL);
    samples(m, engine, MAIN_TID, HOST_SAMPLE_PY, 'S', 100 * MS, 10 * MS, 3);        /* a */
    sited_launch(m, AUTOGRAD_TID, "bwd_a", 105 * MS, 1, gemm);
    sited_launch(m, AUTOGRAD_TID, "bwd_b", 300 * MS, 2, gemm);                      /* b */
    call(m, "cudaStreamSynchronize_v3020", 500 * MS, 540 * MS, 3);                    /* c */
    host_site sync = {.pid = PID, .correlation = 3, .frame = item};
    assert_true(host_add_site(h, &sync));
    samples(m, engine, MAIN_TID, HOST_SAMPLE_PY, 'S', 545 * MS, 1, 1);
    sited_launch(m, AUTOGRAD_TID, "bwd_c", 510 * MS, 4, gemm);
    samples(m, lin, MAIN_TID, HOST_SAMPLE_PY, 'R', 700 * MS, 10 * MS, 2);           /* d */
    sited_launch(m, AUTOGRAD_TID, "bwd_d", 705 * MS, 5, gemm);
    int64_t e[3] = {900 * MS, 1100 * MS, 1300 * MS};                                  /* e, f, g */
    for (int k = 0; k < 2; k++) {
        samples(m, engine, MAIN_TID, HOST_SAMPLE_PY, 'S', e[k], 1, 1);
        call(m, "cudaLaunchKernel_v7000", e[k] + 5 * MS, e[k] + 6 * MS, 10 + k);
        call(m, "cudaLaunchKernel_v7000", e[k] + 9 * MS, e[k] + 10 * MS, 20 + k);
        samples(m, k == 0 ? item : engine, MAIN_TID, HOST_SAMPLE_PY, 'S', e[k] + 15 * MS, 1, 1);
        sited_launch(m, AUTOGRAD_TID, k == 0 ? "bwd_e" : "bwd_f", e[k] + 8 * MS, 6 + k, gemm);
    }
    samples(m, item, MAIN_TID, HOST_SAMPLE_PY, 'S', e[2] + 6 * MS, 1, 1);
    call(m, "cudaLaunchKernel_v7000", e[2] + 7 * MS, e[2] + 7 * MS + MS / 2, 12);
    samples(m, engine, MAIN_TID, HOST_SAMPLE_PY, 'S', e[2] + 16 * MS, 1, 1);
    sited_launch(m, AUTOGRAD_TID, "bwd_g", e[2] + 8 * MS, 8, gemm);
    call(m, "cudaStreamSynchronize_v3020", 1500 * MS, 1520 * MS, 13);                /* h */
    samples(m, item, MAIN_TID, HOST_SAMPLE_PY, 'S', 1510 * MS, 1, 1);
    sited_launch(m, AUTOGRAD_TID, "bwd_h", 1525 * MS, 9, gemm);
    host_span span = {T0 + 2500 * MS, T0 + 2600 * MS, PID, MAIN_TID, gc};             /* i */
    assert_true(host_add_span(h, &span));
    sited_launch(m, AUTOGRAD_TID, "bwd_i", 2550 * MS, 14, gemm);
    samples(m, engine, MAIN_TID, HOST_SAMPLE_PY, 'S', 1995 * MS, 10 * MS, 2);
    sited_launch(m, MAIN_TID, "fill", 2000 * MS, 15, mainnat);
    sited_launch(m, WORKER_TID, "load", 106 * MS, 16, loader);
    finish_run(m);
}

static void autograd_launches_read_the_main_line(void **state)
{
    (void)state;
    run_model m;
    autograd_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_string_equal(line_of_kernel(&a, "bwd_a"), "main thread at train.py:17 (train)");
    assert_string_equal(line_of_kernel(&a, "bwd_b"), "cublasLtMatrixTransform (libcublasLt.so.13)");
    assert_string_equal(line_of_kernel(&a, "bwd_c"), "main thread at train.py:20 (train)");
    assert_string_equal(line_of_kernel(&a, "bwd_d"), "cublasLtMatrixTransform (libcublasLt.so.13)");
    assert_string_equal(line_of_kernel(&a, "bwd_e"), "cublasLtMatrixTransform (libcublasLt.so.13)");
    assert_string_equal(line_of_kernel(&a, "bwd_f"), "main thread at train.py:17 (train)");
    assert_string_equal(line_of_kernel(&a, "bwd_g"), "main thread at train.py:17 (train)");
    assert_string_equal(line_of_kernel(&a, "bwd_h"), "cublasLtMatrixTransform (libcublasLt.so.13)");
    assert_string_equal(line_of_kernel(&a, "bwd_i"), "main thread at train.py:22 (train)");
    assert_string_equal(line_of_kernel(&a, "fill"), "at::native::fill_kernel_cuda (libtorch_cuda.so)");
    assert_string_equal(line_of_kernel(&a, "load"), "loader.py:8 (worker)");
    /* The rule itself, as the wall-time account will ask it: where each line came from. */
    const host_activity *h = &m.host_activity;
    site_lines *x = site_lines_build(&m);
    assert_non_null(x);
    static const struct {
        uint32_t corr;
        site_line_from from;
        uint32_t tid;
    } want[] = {{1, SITE_LINE_MAIN_SAMPLE, MAIN_TID}, {2, SITE_LINE_OWN, AUTOGRAD_TID},
                {4, SITE_LINE_MAIN_CALL, MAIN_TID},   {14, SITE_LINE_MAIN_SPAN, MAIN_TID},
                {15, SITE_LINE_OWN, MAIN_TID},        {16, SITE_LINE_OWN, WORKER_TID}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const host_site *s = NULL;
        for (size_t i = 0; i < h->nsites && !s; i++)
            s = h->sites[i].correlation == want[k].corr ? &h->sites[i] : NULL;
        assert_non_null(s);
        site_line l = site_line_of(x, s);
        assert_int_equal(l.from, want[k].from);
        assert_int_equal(l.tid, want[k].tid);
    }
    /* By thread and time, for a call without a site (frame -1): the same rule. */
    site_line l = site_line_at(x, PID, AUTOGRAD_TID, T0 + 112 * MS, -1);
    assert_int_equal(l.from, SITE_LINE_MAIN_SAMPLE);
    char at[HOST_NAME];
    site_line_words(h, l, at, sizeof at);
    assert_string_equal(at, "main thread at train.py:17 (train)");
    l = site_line_at(x, PID, MAIN_TID, T0 + 112 * MS, -1);
    assert_int_equal(l.node, -1);
    site_line_words(h, l, at, sizeof at);
    assert_string_equal(at, "");
    site_lines_free(x);
    analysis_free(&a);
    model_free(&m);
}

/* The committed training loop (samples/h200-profile-train.json, examples/torch_train.py): the
 * launches of autograd's thread (pt_autograd_0) have native stacks alone (libtorch, cuBLASLt), made
 * while the main thread waited in loss.backward() at line 55; each reads that line, and the main
 * thread's own launches keep theirs. */
static void recorded_backward_reads_the_main_line(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-train.json", &m);
    uint32_t autograd = 0;
    for (int i = 0; i < m.nthreads; i++)
        if (strcmp(m.threads[i].name, "pt_autograd_0") == 0)
            autograd = m.threads[i].tid;
    assert_true(autograd != 0);
    const host_activity *h = &m.host_activity;
    site_lines *x = site_lines_build(&m);
    assert_non_null(x);
    int borrowed = 0, own = 0;
    for (size_t i = 0; i < h->nsites; i++) {
        site_line l = site_line_of(x, &h->sites[i]);
        char at[HOST_NAME];
        site_line_words(h, l, at, sizeof at);
        if (l.from == SITE_LINE_OWN) {
            assert_true(l.tid != autograd);
            assert_non_null(strstr(at, "torch_train.py:")); /* the main thread's own line */
            own++;
            continue;
        }
        assert_string_equal(at, "main thread at torch_train.py:55 (train)");
        borrowed++;
    }
    /* the recording of 2026-12-03 15:27 UTC: 262 of its 493 sites on autograd's thread */
    assert_int_equal(borrowed, 262);
    assert_int_equal(own, 231);
    assert_int_equal((size_t)(borrowed + own), h->nsites);
    site_lines_free(x);
    analysis a;
    assert_true(analyze(&m, &a));
    bool seen = false;
    for (int i = 0; i < a.host->nsites; i++)
        if (strncmp(a.host->sites[i].name, "cutlass::Kernel2<", 17) == 0) {
            assert_string_equal(a.host->sites[i].sites[0].at, "main thread at torch_train.py:55 (train)");
            seen = true;
        }
    assert_true(seen);
    analysis_free(&a);
    model_free(&m);
}

/* An import's nested CPU spans: the outer op's 100 ms holds an inner one of 80 ms, so the inner is
 * innermost for 80% of the time. */
static void spans_weigh_the_innermost(void **state)
{
    (void)state;
    run_model m;
    start_run(&m);
    m.source = SOURCE_KINETO;
    kernel(&m, "_Z4stepv", 0, 1 * MS, 1);
    kernel(&m, "_Z4stepv", 201 * MS, 202 * MS, 2);
    call(&m, "cudaLaunchKernel", 200 * MS, 200 * MS + MS / 100, 2);
    int step = frame(&m, -1, HOST_FRAME_OP, "ProfilerStep#3", NULL, 0, NULL);
    int copy = frame(&m, step, HOST_FRAME_OP, "aten::copy_", NULL, 0, NULL);
    host_span outer = {T0 + 50 * MS, T0 + 150 * MS, PID, MAIN_TID, step};
    host_span inner = {T0 + 60 * MS, T0 + 140 * MS, PID, MAIN_TID, copy};
    assert_true(host_add_span(&m.host_activity, &inner)); /* out of order on purpose */
    assert_true(host_add_span(&m.host_activity, &outer));
    finish_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    const host_view *v = gap_view(&a, 0, HOST_FROM_SPANS);
    assert_true(v->any);
    assert_close(v->ms.v, 100, 1e-9);
    assert_false(v->samples.ok);
    assert_string_equal(v->top[0].name, "aten::copy_");
    assert_close(v->top[0].share_pct.v, 80, 1e-9);
    assert_close(v->top[0].ms.v, 80, 1e-9);
    assert_string_equal(v->top[1].name, "ProfilerStep#3");
    assert_close(v->top[1].ms.v, 20, 1e-9);
    assert_string_equal(v->hot.name, "aten::copy_");
    /* The account's host view: the spans' 100 ms are host work, by the innermost span. */
    const wall_account *acc = run_account(&a);
    assert_non_null(acc);
    bool spans = false;
    for (int i = 0; i < acc->nrows; i++)
        if (acc->rows[i].state == WS_CPU) {
            assert_close(acc->rows[i].ms.v, 100, 1e-9);
            spans = true;
        }
    assert_true(spans);
    /* In the trace, each span on its thread's host track. */
    char *trace = render_trace(&a);
    must_contain(trace, "{\"name\":\"aten::copy_\",\"cat\":\"cpu_span\",\"ph\":\"X\"");
    free(trace);
    analysis_free(&a);
    model_free(&m);
}

/* Sampling off: said as such, with the reason, and no host view anywhere. */
static void sampling_off_is_said(void **state)
{
    (void)state;
    run_model m;
    numba_run(&m, false);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_non_null(a.host);
    assert_false(gap_view(&a, 0, HOST_FROM_PY)->any);
    /* What no call explains is not known, and the account says why: sampling was off. */
    assert_int_equal(a.rg[0].verdict, VERDICT_IDLE);
    must_contain(a.rg[0].verdict_text, "no host samples: sampling off (--no-sample)");
    analysis_free(&a);
    model_free(&m);
    /* A run that never carried host activity: no host analysis, the advice as it always was. */
    numba_run(&m, false);
    m.host_activity.mechanism[0] = m.host_activity.why_not[0] = '\0';
    assert_true(analyze(&m, &a));
    assert_null(a.host);
    assert_null(strstr(a.rg[0].advice, "host samples"));
    analysis_free(&a);
    model_free(&m);
}

static void frames_are_named_and_judged(void **state)
{
    (void)state;
    host_frame lib = {.kind = HOST_FRAME_PY, .function = "compile_extra", .file = SITE_PKG "numba/core/compiler.py",
                      .line = 100};
    host_frame std = {.kind = HOST_FRAME_PY, .function = "wait", .file = "/usr/lib/python3.12/threading.py"};
    host_frame frozen = {.kind = HOST_FRAME_PY, .function = "_call", .file = "<frozen importlib._bootstrap>"};
    host_frame init = {.kind = HOST_FRAME_PY, .function = "f", .file = "/x/dist-packages/torch/__init__.py"};
    host_frame user = {.kind = HOST_FRAME_PY, .function = "main", .file = "/home/u/prog.py", .line = 3};
    host_frame sys = {.kind = HOST_FRAME_NATIVE, .function = "f", .file = "/usr/include/c++/vector", .line = 9};
    host_frame own = {.kind = HOST_FRAME_NATIVE, .function = "g", .file = "/src/a.cu", .line = 7};
    assert_false(host_user_frame(&lib));
    assert_false(host_user_frame(&std));
    assert_false(host_user_frame(&frozen));
    assert_false(host_user_frame(&init));
    host_frame vendored = {.kind = HOST_FRAME_PY, .function = "linear", .file = "/opt/tools/site-packages/torch/nn/f.py"};
    assert_false(host_user_frame(&vendored));
    assert_true(host_user_frame(&user));
    assert_false(host_user_frame(&sys));
    assert_true(host_user_frame(&own));
    host_frame glibc = {.kind = HOST_FRAME_NATIVE, .function = "___res_dnok", .file = "res-name-checking.c",
                        .line = 217, .module = "/lib/x86_64-linux-gnu/libc.so.6"};
    host_frame torch = {.kind = HOST_FRAME_NATIVE, .function = "f", .file = "/pytorch/aten/x.cpp", .line = 5,
                        .module = "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"};
    assert_false(host_user_frame(&glibc));
    host_frame mangled = {.kind = HOST_FRAME_NATIVE, .function = "_ZN2at6native18structured_sum_out4implEv",
                          .module = "/x/libtorch_cuda.so"};
    char m[HOST_NAME];
    host_frame_name(&mangled, true, m, sizeof m);
    assert_string_equal(m, "at::native::structured_sum_out::impl (libtorch_cuda.so)");
    /* One the demangler refuses stays mangled (before: endless recursion, a crash of the report). */
    host_frame refused = {.kind = HOST_FRAME_NATIVE, .function = "_Znotmangled", .module = "/x/libtorch_cpu.so"};
    host_frame_name(&refused, true, m, sizeof m);
    assert_string_equal(m, "_Znotmangled (libtorch_cpu.so)");
    /* A name addr2line gave demangled loses its parameters, and a cut name says it is cut (the
     * training sample's peak holder read "...::alloc_block(c10 (libc10_cuda.so)"). */
    host_frame demangled = {.kind = HOST_FRAME_NATIVE, .module = "/x/libc10_cuda.so",
                            .function = "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block("
                                        "c10::cuda::CUDACachingAllocator::Native::(anonymous namespace)::AllocParams&, bool)"};
    host_frame_name(&demangled, true, m, sizeof m);
    assert_string_equal(m, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block (libc10_cuda.so)");
    host_frame long_name = {.kind = HOST_FRAME_NATIVE, .module = "/x/libtorch_cpu.so",
                            .function = "at::native::a_function_whose_name_runs_on_and_on_past_eighty_characters_of_its_own_x"};
    host_frame_name(&long_name, true, m, sizeof m);
    assert_string_equal(m, "at::native::a_function_whose_name_runs_on_and_on_past_eighty_characters_of_it... (libtorch_cpu.so)");
    assert_false(host_user_frame(&torch));
    char b[HOST_NAME];
    /* CPU samples whose frames no symbol named (as the H200's host_loop recording before
     * symbolisation): said so, not an empty name. */
    host_view unnamed = {.any = true, .from = HOST_FROM_CPU};
    metric_set(&unnamed.samples, 20);
    metric_na(&unnamed.waiting_pct, "CPU samples");
    metric_na(&unnamed.running_pct, "CPU samples");
    host_view_words(&unnamed, b, sizeof b);
    assert_string_equal(b, "in frames with no name (20 CPU samples: the modules' symbols were not read)");
    host_frame_name(&std, false, b, sizeof b);
    assert_string_equal(b, "threading (wait)");
    host_frame_name(&init, false, b, sizeof b);
    assert_string_equal(b, "torch (f)");
    host_frame_name(&own, true, b, sizeof b);
    assert_string_equal(b, "a.cu:7 (g)");
}

/* Every output of a run: text, JSON, CSV, page and trace. */
typedef struct {
    char *text, *json, *csv, *html, *trace;
} outputs;

static void render_all(const analysis *a, outputs *o)
{
    o->text = text_report_of(a);
    o->json = render_json(a);
    o->csv = render_csv(a);
    o->html = render_html(a);
    o->trace = render_trace(a);
    assert_non_null(o->text);
    assert_non_null(o->json);
    assert_non_null(o->csv);
    assert_non_null(o->html);
    assert_non_null(o->trace);
    /* HOST_IDLE_DUMP=dir keeps them, to look at. */
    const char *dump = getenv("HOST_IDLE_DUMP");
    static int n;
    const char *const all[] = {o->text, o->json, o->csv, o->html, o->trace};
    const char *const ext[] = {"txt", "json", "csv", "html", "trace.json"};
    for (int i = 0; dump && i < 5; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/run%d.%s", dump, n, ext[i]);
        assert_true(write_text(path, all[i]));
    }
    n++;
}

static void outputs_free(outputs *o)
{
    free(o->text);
    free(o->json);
    free(o->csv);
    free(o->html);
    free(o->trace);
}

static const cJSON *at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("no member '%s'", key);
    return v;
}

/* The numba run's stretch and breakdown say where the host was in every output; the JSON's
 * figures are the analysis's. */
static void outputs_show_the_host(void **state)
{
    (void)state;
    run_model m;
    numba_run(&m, true);
    analysis a;
    assert_true(analyze(&m, &a));
    outputs o;
    render_all(&a, &o);
    must_contain(o.text, "\nHost    samples: 201 Python wall-clock, 0 CPU (python-wall+cpu-timer, 111 Hz); 0 launch "
                         "call sites\n");
    must_contain(o.text, "host (Python wall-clock samples of thread 42, 100, 0% waiting):\n");
    must_contain(o.text, "in numba.core.compiler (compile_extra) 87%; user's line\n");
    /* The run's breakdown: its host-busy row, then the same functions. */
    must_contain(strstr(o.text, "Idle time by cause"), "host busy outside CUDA");
    must_contain(strstr(o.text, "Idle time by cause"), "in numba.core.compiler (compile_extra) 87%");

    cJSON *root = cJSON_Parse(o.json);
    assert_non_null(root);
    const cJSON *an = at(root, "analysis");
    const cJSON *gap = cJSON_GetArrayItem(at(an, "idle_gaps"), 0);
    const cJSON *view = cJSON_GetArrayItem(at(gap, "host"), 0);
    assert_int_equal(cJSON_GetArraySize(at(gap, "host")), 1); /* only the source that saw anything */
    assert_string_equal(at(view, "source")->valuestring, "py");
    assert_int_equal(at(view, "tid")->valueint, MAIN_TID);
    assert_close(at(view, "samples")->valuedouble, 100, 0);
    assert_true(cJSON_IsNull(at(view, "ms")));
    must_contain(at(at(view, "not_available"), "ms")->valuestring, "counted in samples");
    assert_string_equal(at(at(view, "hot"), "name")->valuestring, "numba.core.compiler (compile_extra)");
    assert_close(at(at(view, "hot"), "share_pct")->valuedouble, 87, 1e-9);
    assert_true(cJSON_IsTrue(at(at(view, "user_line"), "user")));
    assert_int_equal(cJSON_GetArraySize(at(view, "innermost")), 3);
    const cJSON *busy = cJSON_GetArrayItem(at(an, "idle_breakdown"), IDLE_HOST_BUSY);
    assert_string_equal(at(busy, "cause")->valuestring, "host_busy");
    assert_close(at(cJSON_GetArrayItem(at(busy, "host"), 0), "samples")->valuedouble, 100, 0);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(at(an, "idle_breakdown"), IDLE_SYNC), "host"));
    assert_string_equal(at(at(an, "host_sampling"), "mechanism")->valuestring, "python-wall+cpu-timer");
    assert_int_equal(cJSON_GetArraySize(at(an, "call_sites")), 0);
    cJSON_Delete(root);

    must_contain(o.csv, "host_view,,,,py,0,idle_gap,,,0,,numba.core.compiler (compile_extra),");
    must_contain(o.csv, "host_function,,,,py.hot,0,idle_gap,,,0,,numba.core.compiler (compile_extra),");
    must_contain(o.csv, "host_function,0,prog,run,py.user_line,,host_busy,,,,,prog.py:30 (main),");
    must_contain(o.html, "<th data-sort=\"text\">host (samples)</th>");
    must_contain(o.html, "data-fig=\"analysis.idle_gaps[0].host[0].hot.share_pct\"");
    must_contain(o.html, "<code>numba.core.compiler (compile_extra)</code>");
    /* The canvas timeline: a host-samples track per thread, each sample's thread state and whole
     * stack on hover, the key naming the states' colours. */
    must_contain(o.html, "data-kind=\"host\" data-events=\"101\">thread 42: host samples");
    must_contain(o.html, "data-kind=\"host\" data-events=\"100\">thread 43: host samples");
    sample_stack_on_the_page(o.html);
    must_contain(o.html, "<span class=\"tl-key-line\"><span>Host samples:</span> <span class=\"tl-k\">"
                         "<span class=\"sw hs\"></span>running");
    /* No call sites: no such section. */
    assert_null(strstr(o.text, "Launched from"));
    assert_null(strstr(o.html, "id=\"call-sites\""));
    /* The trace: each sample an instant on its thread's track, with its stack. */
    must_contain(o.trace, "\"name\":\"host (process 42 thread 42)\"");
    must_contain(o.trace, "\"name\":\"numba.core.lowering (lower)\",\"cat\":\"host_sample\",\"ph\":\"i\"");
    must_contain(o.trace, "\"stack\":[\"numba.core.lowering (lower)\",\"numba.core.compiler (compile_extra)\"");
    cJSON *trace = cJSON_Parse(o.trace);
    assert_non_null(trace);
    cJSON_Delete(trace);
    outputs_free(&o);
    analysis_free(&a);
    model_free(&m);
}

static void outputs_show_the_call_sites(void **state)
{
    (void)state;
    run_model m;
    two_sites_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(section_shown(&a, SEC_CALL_SITES));
    outputs o;
    render_all(&a, &o);
    must_contain(o.text, "\nLaunched from  ");
    must_contain(o.text, "kernel gemm                                 20  model.py:42 (forward)                      19    95%\n"
                         "                                                model.py:60 (backward)                      1     5%\n");
    cJSON *root = cJSON_Parse(o.json);
    const cJSON *row = cJSON_GetArrayItem(at(at(root, "analysis"), "call_sites"), 0);
    assert_string_equal(at(row, "name")->valuestring, "gemm");
    assert_int_equal(at(row, "calls")->valueint, 20);
    const cJSON *site = cJSON_GetArrayItem(at(row, "sites"), 0);
    assert_string_equal(at(site, "at")->valuestring, "model.py:42 (forward)");
    assert_close(at(site, "share_pct")->valuedouble, 95, 1e-9);
    cJSON_Delete(root);
    must_contain(o.csv, "call_site,,,,gemm,20,kernel,,,,,model.py:42 (forward),");
    must_contain(o.html, "id=\"call-sites\"");
    must_contain(o.html, "data-fig=\"analysis.call_sites[0].sites[1].share_pct\"");
    /* long kernel names wrap in their cell (report.css), so the line beside stays in view at 1280 px */
    must_contain(o.html, "<td class=\"kname\"><code>gemm</code></td>");
    must_contain(o.html, "<td class=\"host\"><code>model.py:42 (forward)</code></td>");
    /* On the timeline, a launch and its kernel say where they came from on hover. */
    must_contain(o.html, "\"grid 1\u00d71\u00d71, block 256\u00d71\u00d71; launched from model.py:42 (forward)\"");
    must_contain(o.html, "\"from model.py:60 (backward)\"");
    must_contain(o.html, "\"host to device, pageable to device; launched from model.py:80 (load)\"");
    assert_null(strstr(o.html, "<span class=\"sw hs")); /* no host sample in the key */
    /* Call sites but no sampling: the idle tables have no host column to leave empty. */
    assert_null(strstr(o.html, "host (samples)"));
    assert_null(strstr(o.json, "\"host\":["));
    must_contain(o.trace, "\"launched_from\":\"model.py:42 (forward)\",\"host_stack\":[\"cudaLaunchKernel (libcudart.so.12)\"");
    /* No sitestat line: no word on sites skipped, and the JSON says why not. */
    assert_null(strstr(o.text, "skipped to hold"));
    assert_null(strstr(o.html, "Call sites were taken for"));
    must_contain(o.json, "\"sites_skipped\":null");
    outputs_free(&o);
    analysis_free(&a);

    /* Sites held to their cost (the library's sitestat: 22 taken, 66 skipped in a callback, the
     * callbacks off 1.5 s): 79 more kernels launched without one, so the 21 with a site are 21% of
     * the GPU work, which the Host line, the call-site section and the JSON say. */
    m.host_activity.stats = (host_collect_stats){.has_sites = true, .sites_taken = 22, .sites_skipped = 66,
                                                 .sites_off_ns = 1500000000};
    for (uint32_t i = 0; i < 79; i++)
        kernel(&m, "_Z4gemmPfS_S_i", 40 * MS + (int64_t)i * MS, 40 * MS + (int64_t)i * MS + MS / 2, 200 + i);
    assert_true(analyze(&m, &a));
    render_all(&a, &o);
    must_contain(o.text, "; 22 launch call sites (for 21.0% of the GPU work: the rest left without one to\n"
                         "        hold their cost to 1% of the program's time)");
    must_contain(o.html, "<p>Call sites were taken for <span class=\"num\" data-t=\"host_collection\" "
                         "data-fig=\"analysis.host_sampling.sites_pct\">21.0%</span> of the GPU work");
    must_contain(o.html, "data-fig=\"analysis.host_sampling.sites_off_ms\">1500 ms</span>)");
    root = cJSON_Parse(o.json);
    const cJSON *hs = at(at(root, "analysis"), "host_sampling");
    assert_close(at(hs, "sites_pct")->valuedouble, 21, 1e-9);
    assert_close(at(hs, "sites_skipped")->valuedouble, 66, 0);
    assert_close(at(hs, "sites_off_ms")->valuedouble, 1500, 0);
    assert_true(cJSON_IsNull(at(hs, "nogil_pct")));
    cJSON_Delete(root);
    must_contain(o.csv, "\nhost_sampling,");
    outputs_free(&o);
    analysis_free(&a);
    model_free(&m);
}

/* A borrowed line reads the same in every output that names a launch's line: the call-site table
 * (text, JSON, CSV, page), a launch's hover on the page's timeline, and the trace's launched_from,
 * which keeps the launch's own host stack beside it. */
static void outputs_show_borrowed_lines(void **state)
{
    (void)state;
    run_model m;
    autograd_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    outputs o;
    render_all(&a, &o);
    must_contain(o.text, "kernel bwd_a                                 1  main thread at train.py:17 (train)          1   100%\n");
    must_contain(o.json, "\"at\":\"main thread at train.py:17 (train)\"");
    must_contain(o.csv, ",main thread at train.py:17 (train),");
    must_contain(o.html, "<td class=\"host\"><code>main thread at train.py:17 (train)</code></td>");
    must_contain(o.html, "block 256\u00d71\u00d71; launched from main thread at train.py:17 (train)\"");
    must_contain(o.trace, "\"launched_from\":\"main thread at train.py:17 (train)\",\"host_stack\":[\"cublasLtMatrixTransform "
                          "(libcublasLt.so.13)\"");
    /* where nothing was borrowed, the launch's own frame as before */
    must_contain(o.trace, "\"launched_from\":\"cublasLtMatrixTransform (libcublasLt.so.13)\"");
    outputs_free(&o);
    analysis_free(&a);
    model_free(&m);
}

/* The PyTorch recording's listed ranges (samples/h200-profile-torch.json): each one with host-busy
 * idle time and samples in it gets its own line in the text and row on the page, marked with its
 * idle_breakdown row's place in the JSON; the run's own stays in the breakdown above them. */
static void regions_show_their_host_busy(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-torch.json", &m);
    analysis a;
    assert_true(analyze(&m, &a));
    outputs o;
    render_all(&a, &o);
    const char *by = strstr(o.text, "\nHost busy outside CUDA, by region\n");
    assert_non_null(by);
    int li = -1;
    for (int i = 1; i < a.nlisted && li < 0; i++)
        if (strcmp(m.regions[a.rg[a.listed[i]].region].name, "main step 0") == 0)
            li = i;
    assert_true(li > 0);
    char line[160], ms[32];
    snprintf(ms, sizeof ms, "%.3f ms", a.rg[a.listed[li]].idle[IDLE_HOST_BUSY].ms.v);
    snprintf(line, sizeof line, "\n  main step 0: %s idle with no CUDA call in progress", ms);
    must_contain(by, line);
    must_contain(by, "user's line torch_nvtx.py:36 (loop)");
    must_contain(o.html, "<h3>Host busy outside CUDA, by region</h3>");
    char fig[96];
    snprintf(fig, sizeof fig, "data-fig=\"analysis.idle_breakdown[%d].host[0].hot.share_pct\"",
             li * IDLE_NCAUSES + IDLE_HOST_BUSY);
    must_contain(o.html, fig);
    outputs_free(&o);
    analysis_free(&a);
    model_free(&m);
}

/* A run without host activity (the committed built-in run: mmprof's own, which samples no host)
 * says nothing about it anywhere. */
static void outputs_without_host_activity(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-2048.json", &m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_null(a.host);
    assert_false(section_shown(&a, SEC_CALL_SITES));
    outputs o;
    render_all(&a, &o);
    assert_null(strstr(o.text, "Launched from"));
    assert_null(strstr(o.text, "host ("));
    assert_null(strstr(o.text, "host samples"));
    assert_null(strstr(o.text, "\nHost    samples")); /* a built-in run's Host line is its CPU */
    assert_null(strstr(o.text, "\nHost    no samples"));
    assert_null(strstr(o.json, "\"call_sites\""));
    assert_null(strstr(o.json, "\"host\":["));
    assert_null(strstr(o.json, "host_sampling"));
    assert_null(strstr(o.csv, "\nhost_view,"));
    assert_null(strstr(o.html, "host (samples)"));
    assert_null(strstr(o.html, "call-sites"));
    assert_null(strstr(o.html, "; launched from "));
    assert_null(strstr(o.html, "data-kind=\"host\""));
    assert_null(strstr(o.trace, "host_sample"));
    assert_null(strstr(o.trace, "launched_from"));
    outputs_free(&o);
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_are_named_and_judged),
        cmocka_unit_test(numba_compile_is_named),
        cmocka_unit_test(python_sleep_is_named),
        cmocka_unit_test(cpu_samples_overrule_a_waiting_state),
        cmocka_unit_test(running_is_at_most_all_of_the_time),
        cmocka_unit_test(cuda_c_host_loop_is_named),
        cmocka_unit_test(launch_stubs_are_passed_over),
        cmocka_unit_test(inlined_launch_stub_names_its_line),
        cmocka_unit_test(launch_sites_are_aggregated),
        cmocka_unit_test(autograd_launches_read_the_main_line),
        cmocka_unit_test(recorded_backward_reads_the_main_line),
        cmocka_unit_test(spans_weigh_the_innermost),
        cmocka_unit_test(sampling_off_is_said),
        cmocka_unit_test(outputs_show_the_host),
        cmocka_unit_test(outputs_show_the_call_sites),
        cmocka_unit_test(outputs_show_borrowed_lines),
        cmocka_unit_test(regions_show_their_host_busy),
        cmocka_unit_test(outputs_without_host_activity),
    };
    return cmocka_run_group_tests_name("host idle", tests, NULL, NULL);
}
