/* Why the GPU waits (idle_causes.h): calls classified by name as the samples and Kineto name them;
 * timelines built here where each idle stretch's cause is known by construction (a module load,
 * a synchronization, nothing at all, a short gap between kernels); the breakdown summing to the
 * idle time; the idle verdict's advice following the cause; and the committed recordings, whose
 * largest stretches must be attributed to what their calls really show. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "csv.h"
#include "import.h"
#include "test_support.h"
#include "thresholds.h"

#define US 1000LL     /* ns */
#define MS 1000000LL  /* ns */
#define T0 1732981234000000000LL

static void kernel(run_model *m, const char *name, int64_t s, int64_t e)
{
    kernel_event k = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42, .stream = 7,
                      .grid = {1, 1, 1}, .block = {256, 1, 1}};
    assert_true(events_add_kernel(&m->events, &k));
}

static void call(run_model *m, const char *name, uint32_t thread, int64_t s, int64_t e)
{
    api_event a = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42, .thread = thread,
                   .kind = name[2] == 'd' ? API_RUNTIME : API_DRIVER};
    assert_true(events_add_api(&m->events, &a));
}

/* Kernels of 1 ms at 0, 101, 152, 233 and 234.005 ms, so the GPU idles from 1 to 101 ms (a
 * cuModuleLoadData from 1 to 91 ms: module load, 90%), from 102 to 152 ms (cudaDeviceSynchronize
 * throughout: sync), from 153 to 233 ms (no call: host busy) and 5 us before the last kernel
 * (between kernels). first_call names the call of the first stretch. */
static void gaps_run(run_model *m, const char *first_call)
{
    model_init(m);
    m->schema_version = MMPROF_SCHEMA_VERSION;
    m->source = SOURCE_PROFILE;
    m->epoch_ns = T0;
    kernel(m, "_Z4gemmPfS_S_i", 0, 1 * MS);
    kernel(m, "_Z4gemmPfS_S_i", 101 * MS, 102 * MS);
    kernel(m, "_Z4gemmPfS_S_i", 152 * MS, 153 * MS);
    kernel(m, "_Z4gemmPfS_S_i", 233 * MS, 234 * MS);
    kernel(m, "_Z4gemmPfS_S_i", 234 * MS + 5 * US, 235 * MS);
    if (first_call)
        call(m, first_call, 1, 1 * MS, 91 * MS);
    /* Another thread's cheap call during the load: the load still explains the stretch. */
    call(m, "cudaGetDevice_v3020", 2, 10 * MS, 11 * MS);
    call(m, "cudaDeviceSynchronize_v3020", 1, 102 * MS, 152 * MS);
    assert_true(model_add_process(m, 42, "prog"));
    assert_true(model_finish_regions(m, "prog"));
}

static const idle_stretch *stretch_at(const analysis *a, int64_t start)
{
    for (int i = 0; i < a->nidle_gaps; i++)
        if (a->idle_gaps[i].start_ns == T0 + start)
            return &a->idle_gaps[i];
    fail_msg("no idle stretch starts at %.3f ms", (double)start / MS);
    return NULL;
}

static void names_are_classified_as_recorded(void **state)
{
    (void)state;
    /* CUPTI's names (runtime calls with their version suffix) and Kineto's plain ones. */
    assert_int_equal(idle_cause_of_name("cuModuleLoadData"), IDLE_MODULE_LOAD);
    assert_int_equal(idle_cause_of_name("cuLibraryLoadData"), IDLE_MODULE_LOAD);
    assert_int_equal(idle_cause_of_name("cuLibraryGetKernel"), IDLE_MODULE_LOAD);
    assert_int_equal(idle_cause_of_name("nvrtcCompileProgram"), IDLE_MODULE_LOAD);
    assert_int_equal(idle_cause_of_name("cuDevicePrimaryCtxRetain"), IDLE_CONTEXT);
    assert_int_equal(idle_cause_of_name("cuDevicePrimaryCtxRelease_v2"), IDLE_CONTEXT);
    assert_int_equal(idle_cause_of_name("cuCtxCreate_v2"), IDLE_CONTEXT);
    assert_int_equal(idle_cause_of_name("cudaHostAlloc_v3020"), IDLE_ALLOC);
    assert_int_equal(idle_cause_of_name("cudaMallocHost"), IDLE_ALLOC);
    assert_int_equal(idle_cause_of_name("cudaMalloc"), IDLE_ALLOC);
    assert_int_equal(idle_cause_of_name("cuMemHostAlloc"), IDLE_ALLOC);
    assert_int_equal(idle_cause_of_name("cudaDeviceSynchronize_v3020"), IDLE_SYNC);
    assert_int_equal(idle_cause_of_name("cudaStreamSynchronize"), IDLE_SYNC);
    assert_int_equal(idle_cause_of_name("cudaEventSynchronize_v3020"), IDLE_SYNC);
    assert_int_equal(idle_cause_of_name("cuCtxSynchronize"), IDLE_SYNC);
    assert_int_equal(idle_cause_of_name("cudaLaunchKernel_v7000"), IDLE_OTHER_API);
    assert_int_equal(idle_cause_of_name("cudaMemcpyAsync"), IDLE_OTHER_API); /* pageable only by its copy */
    assert_int_equal(idle_cause_of_name("cudaGetDevice_v3020"), IDLE_OTHER_API);
}

/* A stretch covered by cuModuleLoadData is module load, one by cudaDeviceSynchronize sync, one
 * with no call host busy, a 5 us one between kernels; the calls and the next kernel are named. */
static void stretches_get_their_causes(void **state)
{
    (void)state;
    run_model m;
    gaps_run(&m, "cuModuleLoadData");
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.nidle_gaps, 4); /* the run spans its events: no lead or tail */

    const idle_stretch *load = stretch_at(&a, 1 * MS);
    assert_int_equal(load->cause, IDLE_MODULE_LOAD);
    assert_int_equal(load->where, STRETCH_BETWEEN);
    assert_close(load->ms.v, 100, 1e-9);
    assert_close(load->by[IDLE_MODULE_LOAD].v, 90, 1e-9);
    assert_close(load->by[IDLE_HOST_BUSY].v, 10, 1e-9);
    assert_close(load->by[IDLE_OTHER_API].v, 0, 0); /* cudaGetDevice ran under the load */
    assert_close(load->cause_pct.v, 90, 1e-9);
    assert_string_equal(load->calls[0].name, "cuModuleLoadData");
    assert_string_equal(load->next, "gemm");

    const idle_stretch *sync = stretch_at(&a, 102 * MS);
    assert_int_equal(sync->cause, IDLE_SYNC);
    assert_close(sync->by[IDLE_SYNC].v, 50, 1e-9);
    assert_string_equal(sync->calls[0].name, "cudaDeviceSynchronize");

    const idle_stretch *busy = stretch_at(&a, 153 * MS);
    assert_int_equal(busy->cause, IDLE_HOST_BUSY);
    assert_close(busy->by[IDLE_HOST_BUSY].v, 80, 1e-9);
    assert_int_equal(busy->ncalls, 0);

    const idle_stretch *between = stretch_at(&a, 234 * MS);
    assert_int_equal(between->cause, IDLE_BETWEEN_KERNELS);
    assert_close(between->by[IDLE_BETWEEN_KERNELS].v, 0.005, 1e-9);
    /* Longest first: the 100 ms one leads. */
    assert_ptr_equal(&a.idle_gaps[0], load);
    analysis_free(&a);
    model_free(&m);
}

/* Every idle nanosecond in exactly one cause: the breakdown sums to the idle time, wall - busy. */
static void check_breakdown_sums(const analysis *a, const char *what)
{
    int checked = 0;
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        if (!r->idle_ms.ok)
            continue;
        double sum = 0, share = 0;
        for (int c = 0; c < IDLE_NCAUSES; c++) {
            assert_true(r->idle[c].ms.ok);
            assert_true(r->idle[c].ms.v >= 0);
            sum += r->idle[c].ms.v;
            share += r->idle[c].share_pct.ok ? r->idle[c].share_pct.v : 0;
        }
        if (fabs(sum - r->idle_ms.v) > 1e-6 * (1 + r->idle_ms.v))
            fail_msg("%s, region %d: the causes sum to %.9f ms, the idle time is %.9f ms", what, r->region, sum,
                     r->idle_ms.v);
        assert_close(r->idle_ms.v, r->wall_ms.v - r->gpu_busy_ms.v, 1e-9);
        if (r->idle_ms.v > 0)
            assert_close(share, 100, 1e-9);
        checked++;
    }
    assert_true(checked > 0);
    /* And each listed stretch's causes sum to its length. */
    for (int i = 0; i < a->nidle_gaps; i++) {
        double sum = 0;
        for (int c = 0; c < IDLE_NCAUSES; c++)
            sum += a->idle_gaps[i].by[c].v;
        assert_close(sum, a->idle_gaps[i].ms.v, 1e-9);
    }
}

static void breakdown_sums_to_idle_time(void **state)
{
    (void)state;
    run_model m;
    gaps_run(&m, "cuModuleLoadData");
    analysis a;
    assert_true(analyze(&m, &a));
    check_breakdown_sums(&a, "built here");
    const region_metrics *run = &a.rg[0];
    assert_close(run->idle_ms.v, 230.005, 1e-9);
    assert_close(run->idle[IDLE_MODULE_LOAD].ms.v, 90, 1e-9);
    assert_close(run->idle[IDLE_SYNC].ms.v, 50, 1e-9);
    assert_close(run->idle[IDLE_HOST_BUSY].ms.v, 90, 1e-9); /* 10 of the load's stretch, 80 alone */
    assert_close(run->idle[IDLE_BETWEEN_KERNELS].ms.v, 0.005, 1e-9);
    analysis_free(&a);
    model_free(&m);

    static const char *const runs[] = {"samples/h200-profile-numba.json", "samples/h200-profile-torch.json",
                                       "samples/h200-profile-cuda.json"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        load_run(runs[i], &m);
        assert_true(analyze(&m, &a));
        check_breakdown_sums(&a, runs[i]);
        analysis_free(&a);
        model_free(&m);
    }
}

/* The run's verdict (from its wall-time account), its text and advice, for a run whose largest
 * stretch (the first, 100 ms) is covered by first_call from 1 to 91 ms, or by nothing. */
static verdict_kind verdict_of(const char *first_call, char *text, char *advice, size_t len)
{
    run_model m;
    gaps_run(&m, first_call);
    analysis a;
    assert_true(analyze(&m, &a));
    verdict_kind v = a.rg[0].verdict;
    snprintf(text, len, "%s", a.rg[0].verdict_text);
    snprintf(advice, len, "%s", a.rg[0].advice);
    analysis_free(&a);
    model_free(&m);
    return v;
}

static void must_contain(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("'%s' does not say '%s'", text, part);
}

/* The run (235 ms; no host samples) is judged on its account: the first stretch's call names it
 * where its 90 ms (38% of the wall) is the largest known cause; where nothing known holds a
 * quarter of the wall, it is idle, cause not known, and says why. */
static void verdict_follows_the_cause(void **state)
{
    (void)state;
    char text[VERDICT_TEXT], advice[VERDICT_TEXT];
    assert_int_equal(verdict_of("cuModuleLoadData", text, advice, sizeof text), VERDICT_COMPILE_BOUND);
    must_contain(text, "compile-bound: loading GPU code: cuModuleLoadData 38.3% of the run (90.000 ms of 235.000 ms)");
    must_contain(advice, "load kernels once ahead");
    assert_null(strstr(advice, "prefetch inputs"));
    assert_int_equal(verdict_of("cuDevicePrimaryCtxRetain", text, advice, sizeof text), VERDICT_START_UP);
    must_contain(text, "creating the CUDA context: cuDevicePrimaryCtxRetain 38.3%");
    /* the first stretch's 90 ms and the second's 50 ms */
    assert_int_equal(verdict_of("cudaStreamSynchronize_v3020", text, advice, sizeof text), VERDICT_SYNC_BOUND);
    must_contain(text, "sync-bound: synchronising with the GPU: cudaStreamSynchronize 59.6% of the run");
    /* No call in the first stretch (only another thread's 1 ms cudaGetDevice): not known, and
     * why; the synchronisation's 21% is the next. */
    assert_int_equal(verdict_of(NULL, text, advice, sizeof text), VERDICT_IDLE);
    must_contain(text, "idle, cause not known: no CUDA call, and the host was not sampled 76.2% of the run");
    must_contain(text, "then synchronising with the GPU: cudaDeviceSynchronize 21.3%");
    /* Several calls of one cause are one state. */
    run_model m;
    gaps_run(&m, "cuMemHostAlloc");
    call(&m, "cuMemHostAlloc", 1, 91 * MS, 95 * MS);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.rg[0].verdict, VERDICT_ALLOC_BOUND);
    must_contain(a.rg[0].verdict_text, "allocating or freeing GPU or pinned memory: cuMemHostAlloc 40.0%");
    analysis_free(&a);
    model_free(&m);
    /* Launch calls holding under half of the idle time (90 of 230 ms) are not the verdict: the
     * time is spread (89 ms not known, 50 ms synchronising)... */
    assert_int_equal(verdict_of("cudaLaunchKernel_v7000", text, advice, sizeof text), VERDICT_MIXED);
    must_contain(text, "mixed: no one cause holds the time of the run: in launch calls: cudaLaunchKernel 38.3%");
    /* ... and they are where they hold most of it (170 of 230 ms). */
    gaps_run(&m, "cudaLaunchKernel_v7000");
    call(&m, "cudaLaunchKernel_v7000", 1, 153 * MS, 233 * MS);
    assert_true(analyze(&m, &a));
    assert_int_equal(a.rg[0].verdict, VERDICT_LAUNCH_BOUND);
    must_contain(a.rg[0].verdict_text, "launch-bound: in launch calls: cudaLaunchKernel 72.3% of the run");
    must_contain(a.rg[0].advice, "CUDA graph");
    analysis_free(&a);
    model_free(&m);
}

/* A pageable copy by its copy record; a long first allocation of a process is where its context
 * was created, the next one an allocation. */
static void copies_and_lazy_context(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m); /* a pageable cudaMemcpy from 0 to 30 ms */
    host_causes *h = host_causes_build(&m, NULL);
    assert_non_null(h);
    int64_t by[IDLE_NCAUSES] = {0};
    host_causes_split(h, m.events.apis[0].start_ns, m.events.apis[0].end_ns, by);
    assert_int_equal(by[IDLE_PAGEABLE_COPY], 30 * MS);
    host_causes_free(h);
    model_free(&m);

    model_init(&m);
    call(&m, "cudaMalloc_v3020", 1, 0, 100 * MS);
    call(&m, "cudaMalloc_v3020", 1, 200 * MS, 300 * MS);
    h = host_causes_build(&m, NULL);
    assert_non_null(h);
    memset(by, 0, sizeof by);
    host_causes_split(h, T0, T0 + 400 * MS, by);
    assert_int_equal(by[IDLE_CONTEXT], 100 * MS);
    assert_int_equal(by[IDLE_ALLOC], 100 * MS);
    assert_int_equal(by[IDLE_HOST_BUSY], 200 * MS);
    host_causes_free(h);
    model_free(&m);
}

/* A stretch of one cause longer than one painted piece holds (4.3 s): a 10 s synchronization
 * with a 1 ms allocation inside it (the stronger cause for that millisecond), an allocation after
 * it and a 9 s synchronization right after that. Each cause gets what the calls give, whole or in
 * windows that cut the span anywhere, and the cause at an instant is the call's. */
static void long_calls_are_painted_whole(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    call(&m, "cudaDeviceSynchronize_v3020", 1, 0, 10000 * MS);
    call(&m, "cudaMalloc_v3020", 2, 5000 * MS, 5001 * MS);    /* inside: allocation is the stronger */
    call(&m, "cudaMalloc_v3020", 2, 12000 * MS, 13000 * MS); /* after it */
    call(&m, "cudaDeviceSynchronize_v3020", 1, 13000 * MS, 22000 * MS); /* 9 s, right after */
    host_causes *h = host_causes_build(&m, NULL);
    assert_non_null(h);
    int64_t whole[IDLE_NCAUSES] = {0}, parts[IDLE_NCAUSES] = {0};
    host_causes_split(h, T0 - MS, T0 + 23000 * MS, whole);
    assert_int_equal(whole[IDLE_SYNC], 18999 * MS);
    assert_int_equal(whole[IDLE_ALLOC] + whole[IDLE_CONTEXT], 1001 * MS);
    assert_int_equal(whole[IDLE_HOST_BUSY], 3001 * MS); /* the 1 ms before the first call too */
    /* The same span in windows of 777 ms: the parts add up to the whole. */
    for (int64_t at = T0 - MS; at < T0 + 23000 * MS; at += 777 * MS) {
        int64_t end = at + 777 * MS < T0 + 23000 * MS ? at + 777 * MS : T0 + 23000 * MS;
        host_causes_split(h, at, end, parts);
    }
    for (int c = 0; c < IDLE_NCAUSES; c++)
        assert_int_equal(parts[c], whole[c]);
    const int64_t sync_at[] = {0, 4300 * MS, 4500 * MS, 5001 * MS, 8700 * MS, 9999 * MS, 13000 * MS, 21999 * MS};
    for (size_t i = 0; i < sizeof sync_at / sizeof sync_at[0]; i++)
        assert_int_equal(host_causes_at(h, T0 + sync_at[i]), IDLE_SYNC);
    idle_cause inside = host_causes_at(h, T0 + 5000 * MS + 500 * US);
    assert_true(inside == IDLE_ALLOC || inside == IDLE_CONTEXT);
    assert_int_equal(host_causes_at(h, T0 + 11000 * MS), IDLE_HOST_BUSY);
    assert_int_equal(host_causes_at(h, T0 + 22000 * MS), IDLE_HOST_BUSY);
    host_causes_free(h);
    model_free(&m);
}

/* samples/h200-profile-numba.json (examples/numba_copies.py on the H200, recorded 2026-12-03
 * 16:40 UTC): the GPU's longest stretch between GPU work, 620.9 ms from 1355.2 ms into the run
 * (which starts at its first host sample) until the first saxpy launch, has no CUDA call of weight
 * in progress: cuLibraryLoadData takes 0.057 ms of it, cuLaunchKernelEx 0.151 ms (the raw API
 * records). numba compiles the kernel through NVVM inside the process, not through the driver, so
 * the records say "host busy outside CUDA", and the report must not call it a module load. The
 * stretch before the first GPU work (1337.2 ms: the sampler starts with the program, so it holds
 * the imports) is mostly host work outside CUDA: its calls, cuDevicePrimaryCtxRetain's context
 * creation (125.2 ms, the longest) and cuMemHostAlloc's 49.9 ms, hold 176 ms of it. */
static void numba_sample_is_attributed_to_what_it_recorded(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-numba.json", &m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(a.nidle_gaps >= IDLE_GAP_ALWAYS);
    const idle_stretch *g = NULL;
    for (int i = 0; i < a.nidle_gaps; i++)
        if (a.idle_gaps[i].where == STRETCH_BETWEEN && (!g || a.idle_gaps[i].ms.v > g->ms.v))
            g = &a.idle_gaps[i];
    assert_non_null(g);
    assert_close(g->ms.v, 620.945947, 1e-5);
    assert_close(g->start_ms.v, 1355.190104, 1e-5);
    assert_string_equal(g->next, "__main__::saxpy");
    assert_int_equal(g->cause, IDLE_HOST_BUSY);
    assert_true(g->by[IDLE_HOST_BUSY].v > 0.99 * g->ms.v);
    assert_true(g->by[IDLE_MODULE_LOAD].v > 0.05 && g->by[IDLE_MODULE_LOAD].v < 0.1); /* cuLibraryLoadData 0.057 ms */
    bool named = false;
    for (int i = 0; i < g->ncalls; i++)
        named |= strcmp(g->calls[i].name, "cuLibraryLoadData") == 0 && g->calls[i].cause == IDLE_MODULE_LOAD;
    assert_true(named);
    const idle_stretch *lead = NULL;
    for (int i = 0; i < a.nidle_gaps; i++)
        if (a.idle_gaps[i].where == STRETCH_LEAD)
            lead = &a.idle_gaps[i];
    assert_non_null(lead);
    assert_close(lead->ms.v, 1337.186629, 1e-5);
    assert_int_equal(lead->cause, IDLE_HOST_BUSY);
    assert_string_equal(lead->calls[0].name, "cuDevicePrimaryCtxRetain");
    assert_int_equal(lead->calls[0].cause, IDLE_CONTEXT);
    assert_close(lead->calls[0].ms.v, 125.241015, 1e-4);
    analysis_free(&a);
    model_free(&m);
}

/* The other recordings: torch's (2026-12-03 16:40 UTC) first stretch (4352.9 ms from its first
 * host sample: the sampler starts with the program, so it holds `import torch`) is mostly host
 * busy; its longest call is the runtime's lazy context creation inside the first cudaHostAlloc
 * (124.6 ms); the CUDA program's stretches say what their calls were. */
static void torch_and_cuda_samples(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    load_run("samples/h200-profile-torch.json", &m);
    assert_true(analyze(&m, &a));
    const idle_stretch *g = NULL;
    for (int i = 0; i < a.nidle_gaps; i++)
        if (a.idle_gaps[i].where == STRETCH_LEAD)
            g = &a.idle_gaps[i];
    assert_non_null(g);
    assert_close(g->ms.v, 4352.851287, 1e-4);
    assert_int_equal(g->cause, IDLE_HOST_BUSY);
    assert_string_equal(g->calls[0].name, "cudaHostAlloc");
    assert_int_equal(g->calls[0].cause, IDLE_CONTEXT);
    assert_close(g->calls[0].ms.v, 124.598907, 1e-4);
    /* its largest state is now the import (371 of the main thread's 448 Python samples are under
     * torch_nvtx.py:17's `import torch`, from 48.6 ms to 3918.7 ms of the 4900.5 ms run), which is
     * its verdict, with the import's advice (before the sampler started with the program, the run
     * began at the first CUDA call, and this sample tested that the exit is never the verdict) */
    assert_int_equal(a.rg[0].verdict, VERDICT_IMPORT_BOUND);
    must_contain(a.rg[0].verdict_text, "import-bound: importing torch ");
    must_contain(a.rg[0].verdict_text, "at torch_nvtx.py:17 (<module>)");
    must_contain(a.rg[0].advice, "import once at start-up");
    analysis_free(&a);
    model_free(&m);

    /* The CUDA program (recorded 2026-12-03 15:26 UTC): its wall is mostly the host's own work
     * (its lead, 600.9 ms, with the runtime's lazy context creation inside its first cudaMalloc,
     * 118.7 ms, the longest call); the concurrent part's lead and the stretch before it are its
     * four cudaHostAlloc calls (33.3 ms). */
    load_run("samples/h200-profile-cuda.json", &m);
    assert_true(analyze(&m, &a));
    assert_int_equal(a.rg[0].verdict, VERDICT_HOST_BOUND);
    must_contain(a.rg[0].verdict_text, "host-bound: computing on the host 32.7% of the run");
    const idle_stretch *lead = NULL, *alloc = NULL;
    for (int i = 0; i < a.nidle_gaps; i++) {
        if (a.idle_gaps[i].where == STRETCH_LEAD)
            lead = &a.idle_gaps[i];
        if (a.idle_gaps[i].where == STRETCH_BETWEEN && a.idle_gaps[i].cause == IDLE_ALLOC && !alloc)
            alloc = &a.idle_gaps[i];
    }
    assert_non_null(lead);
    assert_close(lead->ms.v, 600.878, 1e-3);
    assert_int_equal(lead->cause, IDLE_HOST_BUSY);
    assert_string_equal(lead->calls[0].name, "cudaMalloc");
    assert_int_equal(lead->calls[0].cause, IDLE_CONTEXT);
    assert_close(lead->calls[0].ms.v, 118.691, 1e-3);
    assert_non_null(alloc);
    assert_close(alloc->ms.v, 77.869, 1e-3);
    assert_string_equal(alloc->calls[0].name, "cudaHostAlloc");
    assert_int_equal(alloc->calls[0].count, 4);
    bool concurrent = false;
    for (int i = 1; i < a.nrg; i++)
        if (strcmp(m.regions[a.rg[i].region].name, "concurrent") == 0) {
            concurrent = true;
            assert_int_equal(a.rg[i].verdict, VERDICT_ALLOC_BOUND);
            must_contain(a.rg[i].verdict_text, "allocation-bound: allocating or freeing GPU or pinned memory: "
                                               "cudaHostAlloc 79.9% of the range");
        }
    assert_true(concurrent);
    analysis_free(&a);
    model_free(&m);
}

/* A Kineto trace: its cuda_runtime events are the store's API calls, classified the same way (a
 * cudaMemcpyAsync from pageable memory by its copy), and its annotations are the open ranges. */
static void kineto_trace(void **state)
{
    (void)state;
    run_model m;
    char err[512];
    model_init(&m);
    if (!import_file("samples/h200-matmul-copies.kineto.json", &m, err, sizeof err))
        fail_msg("%s", err);
    analysis a;
    assert_true(analyze(&m, &a));
    check_breakdown_sums(&a, "h200-matmul-copies.kineto.json");
    assert_true(a.rg[0].idle[IDLE_PAGEABLE_COPY].ms.v > 1);
    bool pageable = false, ranged = false;
    for (int i = 0; i < a.nidle_gaps; i++) {
        pageable |= a.idle_gaps[i].cause == IDLE_PAGEABLE_COPY;
        ranged |= a.idle_gaps[i].nranges > 0;
    }
    assert_true(pageable);
    assert_true(ranged);
    analysis_free(&a);
    model_free(&m);
}

static int count_of(const char *text, const char *part)
{
    int n = 0;
    for (const char *p = strstr(text, part); p; p = strstr(p + 1, part))
        n++;
    return n;
}

/* The text report's section and the CSV's rows: the numba recording's longest stretch as the
 * analysis explains it; no section for a run without host records to explain with. */
static void text_and_csv(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    load_run("samples/h200-profile-numba.json", &m);
    assert_true(analyze(&m, &a));
    char *text = text_report_of(&a);
    must_contain(text, "Idle stretches and their causes");
    /* the stretch in its process's wall-time account: numba's JIT at the user's line */
    /* (the recording of 2026-12-03 16:40 UTC: all 54 Python samples in the stretch are under
     * numba_copies.py:46 in numba's dispatcher, from 3.8 ms into it to 7.2 ms before its end) */
    must_contain(text, "compiling 96.5%: compiling with numba (JIT at the first call) at"); /* wrapped there */
    must_contain(text, "numba_copies.py:46 (main), calling");
    must_contain(text, "cuLibraryLoadData 0.057 ms");
    must_contain(text, "Idle time by cause");
    /* The summary's busy finding says the largest stretch (its cause is the account's). */
    bool said = false;
    for (int i = 0; i < a.nsummary; i++)
        said |= strstr(a.summary[i].text, "largest idle stretch between GPU work 620.9 ms") != NULL;
    assert_true(said);
    free(text);
    char *csv = render_csv(&a);
    assert_non_null(csv);
    assert_int_equal(count_of(csv, "\r\nidle_gap,"), a.nidle_gaps);
    assert_int_equal(count_of(csv, "\r\nidle_breakdown,"), a.nlisted * IDLE_NCAUSES);
    free(csv);
    analysis_free(&a);
    model_free(&m);

    model_init(&m);
    m.epoch_ns = T0;
    kernel(&m, "k", 0, 1 * MS);
    kernel(&m, "k", 50 * MS, 51 * MS);
    assert_true(model_finish_regions(&m, "no-host"));
    assert_true(analyze(&m, &a));
    assert_true(a.nidle_gaps > 0);
    text = text_report_of(&a);
    assert_null(strstr(text, "Idle stretches and their causes"));
    free(text);
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_classified_as_recorded),
        cmocka_unit_test(stretches_get_their_causes),
        cmocka_unit_test(breakdown_sums_to_idle_time),
        cmocka_unit_test(verdict_follows_the_cause),
        cmocka_unit_test(copies_and_lazy_context),
        cmocka_unit_test(long_calls_are_painted_whole),
        cmocka_unit_test(numba_sample_is_attributed_to_what_it_recorded),
        cmocka_unit_test(torch_and_cuda_samples),
        cmocka_unit_test(kineto_trace),
        cmocka_unit_test(text_and_csv),
    };
    return cmocka_run_group_tests_name("idle causes", tests, NULL, NULL);
}
