/* GPU memory's analysis (src/analysis/memory.c, memory_steps.c) on runs shaped as mmprof profile
 * and the Kineto importer record them (invented values, real shapes): the peak and what was live
 * at it by call site and by library, reserved memory of a pool, pinned memory apart, what was never
 * freed and its growth per step (a leak named with its line), each step's peak and growth, the
 * time in allocation calls with a driver call inside a runtime one counted once, NVML's readings
 * (of a device with no allocation too), a failed allocation with its live set; the findings that
 * lead the summary; and a Kineto trace's peak equal to its own "Total Allocated" maximum. A run
 * without memory data has no memory analysis, no section, and no memory columns in its CSV. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "csv.h"
#include "text.h"
#include "import.h"
#include "model_json.h"
#include "memory.h"
#include "sections.h"
#include "test_support.h"

#define T0 INT64_C(1800000000000000000)
#define MS INT64_C(1000000)
#define MIB (1ull << 20)
#define PID 4242
#define TID 4243

typedef struct {
    run_model m;
    uint32_t corr;
    int frame_step, frame_leak, frame_load;
} run;

static int py_frame(run *r, int parent, const char *fn, int line)
{
    host_frame f = {.pid = PID, .parent = parent, .kind = HOST_FRAME_PY, .function = (char *)fn, .file = "train.py",
                    .line = line};
    return host_add_frame(&r->m.host_activity, &f);
}

/* An allocation (or free) of the run at t ms, with its call site's frame (-1: none) and its
 * runtime call (and, where nested, the driver's inside it) as the API records have them. */
static void event(run *r, int64_t t_ms, mem_op op, uint64_t addr, uint64_t bytes, int kind, uint64_t pool,
                  int64_t pool_size, int frame, bool nested)
{
    uint32_t corr = ++r->corr;
    mem_event e = {.ts_ns = T0 + t_ms * MS + 10, .address = addr, .bytes = bytes, .pool = pool, .pool_size = pool_size,
                   .total_allocated = -1, .total_reserved = -1, .pid = PID, .device = 0, .correlation = corr,
                   .allocator = memory_name(&r->m.memory, "libtorch_cuda.so"), .op = (uint8_t)op, .kind = (uint8_t)kind};
    assert_true(memory_add_event(&r->m.memory, &e));
    api_event a = {.name = op == MEMOP_ALLOC ? "cudaMalloc_v3020" : "cudaFree_v3020", .start_ns = T0 + t_ms * MS,
                   .end_ns = T0 + t_ms * MS + 100000, .kind = API_RUNTIME, .pid = PID, .thread = TID,
                   .correlation = corr};
    assert_true(events_add_api(&r->m.events, &a));
    if (nested) {
        api_event d = a;
        d.name = "cuMemAlloc_v2";
        d.kind = API_DRIVER;
        d.start_ns += 20000;
        d.end_ns -= 20000;
        assert_true(events_add_api(&r->m.events, &d));
    }
    if (frame >= 0) {
        host_site s = {.pid = PID, .correlation = corr, .frame = frame};
        assert_true(host_add_site(&r->m.host_activity, &s));
    }
}

/* A profiled training loop: weights loaded (1 GiB, kept), then 5 steps of 100 ms, each with a
 * 64 MiB activation freed within it (through a pool of 256 MiB) and a 16 MiB tensor kept at the
 * leak's line (train.py:57), a pinned staging buffer, NVML readings of GPU 0 and of GPU 1 (no
 * allocation there), a kernel so the run is a GPU run. */
static void build(run *r)
{
    memset(r, 0, sizeof *r);
    model_init(&r->m);
    run_model *m = &r->m;
    m->source = SOURCE_PROFILE;
    m->epoch_ns = T0;
    assert_true(model_add_process(m, PID, "python3 train.py"));
    int top = py_frame(r, -1, "<module>", 90);
    r->frame_load = py_frame(r, top, "load", 12);
    r->frame_step = py_frame(r, top, "train_step", 60);
    r->frame_leak = py_frame(r, top, "train_step", 57);
    event(r, 1, MEMOP_ALLOC, 0x7f0000000000, 1024 * MIB, MEM_DEVICE, 0, -1, r->frame_load, true);
    event(r, 2, MEMOP_ALLOC, 0x200000000, 32 * MIB, MEM_PINNED, 0, -1, r->frame_load, false);
    for (int s = 0; s < 5; s++) {
        int64_t t = 100 + 100 * s;
        char name[32];
        snprintf(name, sizeof name, "step %d", s);
        int g = model_add_region(m, REGION_NVTX, name, NULL, T0 + t * MS, T0 + (t + 90) * MS, PID, TID, -1);
        assert_true(g > 0);
        event(r, t + 10, MEMOP_ALLOC, 0x7f1000000000 + (uint64_t)s * 64 * MIB, 64 * MIB, MEM_DEVICE, 0x7f1000000000,
              256 * MIB, r->frame_step, false);
        event(r, t + 20, MEMOP_ALLOC, 0x7f2000000000 + (uint64_t)s * 16 * MIB, 16 * MIB, MEM_DEVICE, 0, -1, r->frame_leak,
              true);
        event(r, t + 60, MEMOP_FREE, 0x7f1000000000 + (uint64_t)s * 64 * MIB, 64 * MIB, MEM_DEVICE, 0x7f1000000000,
              256 * MIB, -1, false);
        kernel_event k = {.name = "gemm", .start_ns = T0 + (t + 30) * MS, .end_ns = T0 + (t + 50) * MS, .pid = PID};
        assert_true(events_add_kernel(&m->events, &k));
    }
    for (int i = 0; i < 7; i++)
        for (uint32_t d = 0; d < 2; d++) {
            mem_sample s = {.ts_ns = T0 + (50 + 100 * i) * MS, .pid = PID, .device = d,
                            .used = (d ? 5000 : 2000 + 100 * (uint64_t)i) * MIB, .total = 143771ull * MIB};
            assert_true(memory_add_sample(&m->memory, &s));
        }
    assert_true(model_finish_regions(m, "train"));
}

static const mem_series *series_of(const memory_analysis *x, uint32_t pid, uint32_t device)
{
    for (int i = 0; i < x->nseries; i++)
        if (x->series[i].pid == pid && x->series[i].device == device)
            return &x->series[i];
    return NULL;
}

static const finding *finding_of(const analysis *a, finding_kind k)
{
    for (int i = 0; i < a->nsummary; i++)
        if (a->summary[i].kind == k)
            return &a->summary[i];
    return NULL;
}

static void profile_series_peak_and_holders(void **state)
{
    (void)state;
    run r;
    build(&r);
    analysis a;
    assert_true(analyze(&r.m, &a));
    assert_true(section_shown(&a, SEC_MEMORY));
    const memory_analysis *x = a.memory;
    assert_non_null(x);
    assert_int_equal(x->nseries, 2); /* process 4242 on GPU 0; GPU 1 from NVML alone */
    const mem_series *s = series_of(x, PID, 0);
    assert_non_null(s);
    /* The peak: the weights, the 4 earlier steps' leaks and the last step's activation and leak. */
    assert_true(s->peak_bytes.v == (double)((1024 + 5 * 16 + 64) * MIB));
    assert_true(s->peak_ms.v > 518.9 && s->peak_ms.v < 519.1); /* 520 ms, from the run's start at its first call */
    assert_string_equal(s->peak_in, "step 4");
    assert_true(s->end_bytes.v == (double)((1024 + 5 * 16) * MIB));
    assert_true(s->pinned_peak_bytes.v == (double)(32 * MIB));
    /* reserved: outside the pool, live; the pool by its size */
    assert_true(s->reserved_peak_bytes.v == (double)((1024 + 5 * 16 + 256) * MIB));
    assert_true(s->allocations.v == 12 && s->frees.v == 5);
    assert_true(s->never_freed_bytes.v == (double)((1024 + 5 * 16) * MIB) && s->never_freed_count.v == 6);
    /* calls: 16 runtime calls, the nested driver calls not counted again */
    assert_true(s->alloc_calls.v == 17);
    assert_true(s->alloc_call_ms.v > 1.69 && s->alloc_call_ms.v < 1.71);
    assert_true(s->device_used_peak_bytes.v == (double)(2600 * MIB));
    assert_int_equal(s->nholders, 3);
    const mem_holder *h = &x->holders[s->first_holder];
    assert_string_equal(h[0].at, "train.py:12 (load)");
    assert_true(h[0].bytes.v == (double)(1024 * MIB) && h[0].count.v == 1);
    assert_string_equal(h[1].at, "train.py:57 (train_step)");
    assert_true(h[1].bytes.v == (double)(80 * MIB) && h[1].count.v == 5);
    assert_string_equal(h[2].at, "train.py:60 (train_step)");
    assert_true(h[2].share_pct.v > 5.47 && h[2].share_pct.v < 5.48); /* 64 of 1168 MiB */
    assert_int_equal(s->nlibs, 1);
    assert_string_equal(x->holders[s->first_lib].at, "libtorch_cuda.so");
    /* GPU 1: NVML alone */
    const mem_series *d1 = series_of(x, 0, 1);
    assert_non_null(d1);
    assert_true(d1->device_only && !d1->peak_bytes.ok && d1->device_used_peak_bytes.v == (double)(5000 * MIB));
    /* The timeline keeps the peak: some bucket holds it whole. */
    double most = 0;
    for (int i = s->first_point; i < s->first_point + s->npoints; i++)
        most = x->points[i].live_bytes.v > most ? x->points[i].live_bytes.v : most;
    assert_true(most == s->peak_bytes.v);
    assert_true(s->npoints > 10 && s->npoints <= MEM_POINTS);
    analysis_free(&a);
    model_free(&r.m);
}

static void leak_per_step_named(void **state)
{
    (void)state;
    run r;
    build(&r);
    analysis a;
    assert_true(analyze(&r.m, &a));
    const memory_analysis *x = a.memory;
    assert_int_equal(x->nleaks, 2); /* the weights and the leak: most bytes first */
    assert_string_equal(x->leaks[0].at, "train.py:12 (load)");
    assert_false(x->leaks[0].per_step); /* once, before the steps */
    assert_true(x->leaks[0].steps_pct.v == 0);
    const mem_leak *l = &x->leaks[1];
    assert_string_equal(l->at, "train.py:57 (train_step)");
    assert_true(l->per_step && l->per_step_bytes.v == (double)(16 * MIB) && l->steps_pct.v == 100);
    assert_string_equal(l->step, "step *");
    /* Each step grows by the leak; its group's median too, and 64 MiB over the five. */
    int steps = 0;
    for (int i = 0; i < x->nranges; i++) {
        const mem_range *g = &x->ranges[i];
        if (g->region >= 0) {
            steps++;
            assert_true(g->growth_bytes.v == (double)(16 * MIB));
        } else {
            assert_string_equal(g->name, "step *");
            assert_true(g->instances.v == 5 && g->growing_pct.v == 100);
            assert_true(g->growth_total_bytes.v == (double)(80 * MIB));
            assert_true(g->peak_bytes.v == (double)((1024 + 80 + 64) * MIB));
        }
    }
    assert_int_equal(steps, 5);
    const finding *f = finding_of(&a, FIND_MEMORY_LEAK);
    assert_non_null(f);
    assert_non_null(strstr(f->text, "GPU memory grows every step *: train.py:57 (train_step) leaves 16.8 MB live in 100%"));
    assert_true(f->figure.v > 16.77 && f->figure.v < 16.78 && strcmp(f->unit, "MB") == 0);
    assert_non_null(finding_of(&a, FIND_MEMORY_PEAK));
    assert_null(finding_of(&a, FIND_OUT_OF_MEMORY));
    analysis_free(&a);
    model_free(&r.m);
}

/* A failed allocation with the library's live set: its row, its holders by user line, and the
 * finding first of all the summary's. */
static void failure_leads_the_summary(void **state)
{
    (void)state;
    run r;
    build(&r);
    memory_activity *mem = &r.m.memory;
    mem_failure f = {.ts_ns = T0 + 650 * MS, .pid = PID, .tid = TID, .device = 0, .correlation = 999,
                     .kind = MEM_DEVICE, .bytes = 8ull << 30, .error = 2, .api = memory_name(mem, "cudaMalloc_v3020"),
                     .error_name = memory_name(mem, "cudaErrorMemoryAllocation"), .has_live = true, .live_count = 7,
                     .live_bytes = (1024 + 80 + 32) * MIB};
    assert_true(memory_add_failure(mem, &f));
    mem_live_group g1 = {.frame = r.frame_load, .device = 0, .kind = MEM_DEVICE, .count = 1, .bytes = 1024 * MIB};
    mem_live_group g2 = {.frame = r.frame_leak, .device = 0, .kind = MEM_DEVICE, .count = 5, .bytes = 80 * MIB};
    mem_live_group g3 = {.frame = r.frame_load, .device = 0, .kind = MEM_PINNED, .count = 1, .bytes = 32 * MIB};
    assert_true(memory_add_live(mem, &g1) && memory_add_live(mem, &g2) && memory_add_live(mem, &g3));
    host_site s = {.pid = PID, .correlation = 999, .frame = r.frame_step};
    assert_true(host_add_site(&r.m.host_activity, &s));
    int g = model_add_region(&r.m, REGION_NVTX, "step 5", NULL, T0 + 600 * MS, T0 + 700 * MS, PID, TID, -1);
    assert_true(g > 0);
    analysis a;
    assert_true(analyze(&r.m, &a));
    const memory_analysis *x = a.memory;
    assert_int_equal(x->nfailures, 1);
    const mem_failure_row *row = &x->failures[0];
    assert_true(row->out_of_memory);
    assert_string_equal(row->api, "cudaMalloc");
    assert_string_equal(row->at, "train.py:60 (train_step)");
    assert_string_equal(row->in, "step 5");
    assert_true(row->device_used_bytes.v == (double)(2600 * MIB));
    assert_int_equal(row->nholders, 2); /* load's device and pinned memory as one line */
    assert_string_equal(x->holders[row->first_holder].at, "train.py:12 (load)");
    assert_true(x->holders[row->first_holder].bytes.v == (double)(1056 * MIB));
    assert_true(series_of(x, PID, 0)->failed.v == 1);
    assert_int_equal(a.summary[0].kind, FIND_OUT_OF_MEMORY);
    assert_string_equal(a.summary[0].text,
                        "Out of memory in step 5 at train.py:60 (train_step): cudaMalloc asked 8.59 GB with 1.19 GB live "
                        "(7 allocations); largest holders train.py:12 (load) (1.11 GB), train.py:57 (train_step) (83.9 MB)");
    analysis_free(&a);
    model_free(&r.m);
}

/* A Kineto trace's series from the allocator's own totals: its peak is the trace's "Total
 * Allocated" maximum, what the totals hold beyond the trace's events a holder of its own. */
static void kineto_peak_is_the_trace_total(void **state)
{
    (void)state;
    run_model m;
    char err[256];
    if (!import_kineto("tests/data/kineto/memory_steps.json", &m, err, sizeof err))
        fail_msg("%s", err);
    analysis a;
    assert_true(analyze(&m, &a));
    int64_t most = -1;
    for (size_t i = 0; i < m.memory.nevents; i++)
        most = m.memory.events[i].total_allocated > most ? m.memory.events[i].total_allocated : most;
    const mem_series *s = series_of(a.memory, 777, 0);
    assert_non_null(s);
    assert_true(s->totals);
    assert_true(s->peak_bytes.v == (double)most);
    assert_string_equal(a.memory->holders[s->first_holder].at, "allocated before the record");
    assert_true(a.memory->holders[s->first_holder].bytes.v == 100.0 * MIB);
    assert_true(s->reserved_peak_bytes.v == 140.0 * MIB);
    analysis_free(&a);
    model_free(&m);
}

/* A committed run without memory records (the built-in run: mmprof's own allocations are not
 * recorded): no analysis, no section. */
static void no_memory_no_section(void **state)
{
    (void)state;
    run_model m;
    char err[256];
    if (!model_read_file("samples/h200-2048.json", &m, err, sizeof err))
        fail_msg("%s", err);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_null(a.memory);
    assert_false(section_shown(&a, SEC_MEMORY));
    analysis_free(&a);
    model_free(&m);
}

/* The renderers show memory only where the run has it: the text's section with its tables, the
 * CSV's memory rows and their columns (a run without memory keeps the columns it always had). */
static void renderers_show_it_only_with_memory(void **state)
{
    (void)state;
    run_model m, plain;
    char err[256];
    if (!import_kineto("tests/data/kineto/memory_steps.json", &m, err, sizeof err) ||
        !model_read_file("samples/h200-2048.json", &plain, err, sizeof err))
        fail_msg("%s", err);
    analysis a, b;
    assert_true(analyze(&m, &a) && analyze(&plain, &b));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    render_text(&a, f, false);
    fclose(f);
    assert_non_null(strstr(text, "\nGPU memory  ("));
    assert_non_null(strstr(text, "    allocated before the record  "));
    assert_non_null(strstr(text, "ProfilerStep#*  leak per step"));
    assert_non_null(strstr(text, "\nMemory per range"));
    free(text);
    char *csv = render_csv(&a), *plain_csv = render_csv(&b);
    assert_non_null(csv);
    assert_non_null(plain_csv);
    assert_non_null(strstr(csv, ",memory.peak_bytes (B),"));
    assert_non_null(strstr(csv, "\r\nmemory_leak,,,,train.py:57 (train_step),777,ProfilerStep#*,,,0,,PyTorch caching allocator,"));
    assert_null(strstr(plain_csv, "memory."));
    free(csv);
    free(plain_csv);
    analysis_free(&a);
    analysis_free(&b);
    model_free(&m);
    model_free(&plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile_series_peak_and_holders),
        cmocka_unit_test(leak_per_step_named),
        cmocka_unit_test(failure_leads_the_summary),
        cmocka_unit_test(kineto_peak_is_the_trace_total),
        cmocka_unit_test(no_memory_no_section),
        cmocka_unit_test(renderers_show_it_only_with_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
