/* The PyTorch profiler (Kineto) importer: what it puts in the run model, checked against the raw
 * trace by another path, and what it refuses.
 *
 *  - totals (kernels, copies per direction, memsets, API calls, syncs, annotations) against sums
 *    the test makes itself from the whole file parsed by cJSON, on every trace in samples/
 *    (*.kineto.json, recorded on the H200) and tests/data/kineto/ (hand-made in Kineto's layout);
 *  - what analysis needs to attribute a kernel that ends after its record_function range: the
 *    range, the launching call on the same thread inside it, the shared correlation id, and the
 *    launching process in the kernel's pid (Kineto writes the device there);
 *  - the region analysis on the import: the late kernel and the copies land in their ranges;
 *  - processes, threads, devices and sync records; a ROCm trace's copy names and AMD devices;
 *  - times to the nanosecond where a double would be off, and streaming across read chunks;
 *  - every prefix of a trace refused, structural bytes put in at many places never a crash;
 *  - distributedInfo: two ranks' traces (made from train_step.json) merged give one rank row each,
 *    on two devices; a trace without it has no rank; a rank alone (HTA's form) is taken with the
 *    world size unknown; a faulty one is refused;
 *  - the same trace gzip-, zstd- and xz-compressed (told by content, not name), in two gzip members,
 *    two xz streams and behind a byte-order mark imports the same; cut or damaged compressed traces
 *    are refused, and so is an xz stream asking for more memory than the reader allows;
 *  - bad input: each refused with the file, what is wrong and where, leaving the model empty;
 *    names of 100 kB and names with markup kept as data. */
#include <glob.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include <zlib.h>

#include "import.h"
#include "model_merge.h"
#include "ranks.h"
#include "regions.h"
#include "test_support.h"

/* ---------- the traces under test ---------- */

static glob_t traces;

static int find_traces(void **state)
{
    (void)state;
    int rc = glob("samples/*.kineto.json", 0, NULL, &traces);
    if (rc != 0 && rc != GLOB_NOMATCH)
        return -1;
    rc = glob("tests/data/kineto/*.json", traces.gl_pathc ? GLOB_APPEND : 0, NULL, &traces);
    return rc == 0 ? 0 : -1; /* no hand-made trace is a failure: they are in the repository */
}

static int free_traces(void **state)
{
    (void)state;
    globfree(&traces);
    return 0;
}

static void import_ok(const char *path, run_model *m)
{
    char err[512];
    model_init(m);
    if (!import_kineto(path, m, err, sizeof err))
        fail_msg("import of %s failed: %s", path, err);
}

/* ---------- totals by another path ---------- */

typedef struct {
    size_t kernels, memsets, apis, annotations, syncs;
    int64_t kernel_ns;
    size_t copies[11];
    int64_t copy_ns[11];
    uint64_t copy_bytes[11];
} totals;

static int64_t ns_of(const cJSON *ev, const char *key)
{
    return llround(cJSON_GetObjectItem(ev, key)->valuedouble * 1000.0);
}

static double arg_of(const cJSON *ev, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "args"), key);
    return v ? v->valuedouble : 0;
}

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Sums straight from the JSON: durations are small enough for a double to hold to the ns. */
static totals expected_totals(const char *path)
{
    char *text = read_file(path, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    totals t = {0};
    static const struct { const char *tag; int dir; } dirs[] = {
        {"Memcpy HtoD", COPY_H2D}, {"Memcpy DtoH", COPY_D2H}, {"Memcpy DtoD", COPY_D2D},
        {"Memcpy HtoH", COPY_H2H}, {"Memcpy PtoP", COPY_P2P},
    };
    const cJSON *ev;
    /* correlation ids of the synchronizing runtime calls, which cuda_sync records repeat */
    double sync_corr[4096];
    size_t nsync_corr = 0;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(root, "traceEvents")) {
        const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "cat"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "name"));
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "ph"));
        if (!cat || !ph || strcmp(ph, "X") != 0)
            continue;
        if (strcmp(cat, "kernel") == 0) {
            t.kernels++;
            t.kernel_ns += ns_of(ev, "dur");
        } else if (strcmp(cat, "gpu_memcpy") == 0) {
            int dir = COPY_OTHER;
            for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
                if (strstr(name, dirs[i].tag))
                    dir = dirs[i].dir;
            t.copies[dir]++;
            t.copy_ns[dir] += ns_of(ev, "dur");
            t.copy_bytes[dir] += (uint64_t)arg_of(ev, "bytes");
        } else if (strcmp(cat, "gpu_memset") == 0) {
            t.memsets++;
        } else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
            t.apis++;
            if (starts(name, "cudaDeviceSynchronize") || starts(name, "cudaStreamSynchronize") ||
                starts(name, "cudaEventSynchronize") || starts(name, "cuCtxSynchronize") ||
                starts(name, "cuStreamSynchronize") || starts(name, "cuEventSynchronize")) {
                t.syncs++;
                assert_true(nsync_corr < 4096);
                sync_corr[nsync_corr++] = arg_of(ev, "correlation");
            }
        } else if (strcmp(cat, "user_annotation") == 0) {
            t.annotations++;
        }
    }
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(root, "traceEvents")) {
        const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "cat"));
        if (!cat || strcmp(cat, "cuda_sync") != 0)
            continue;
        bool repeated = false;
        for (size_t i = 0; i < nsync_corr; i++)
            repeated |= sync_corr[i] == arg_of(ev, "correlation");
        t.syncs += !repeated;
    }
    cJSON_Delete(root);
    return t;
}

static void test_totals_match_independent_sum(void **state)
{
    (void)state;
    assert_true(traces.gl_pathc >= 2);
    for (size_t f = 0; f < traces.gl_pathc; f++) {
        const char *path = traces.gl_pathv[f];
        printf("checking %s\n", path);
        totals want = expected_totals(path);
        run_model m;
        import_ok(path, &m);
        const event_list *e = &m.events;
        assert_true(want.kernels > 0);
        assert_int_equal(e->nkernels, want.kernels);
        int64_t kernel_ns = 0;
        for (size_t i = 0; i < e->nkernels; i++)
            kernel_ns += e->kernels[i].end_ns - e->kernels[i].start_ns;
        assert_int_equal(kernel_ns, want.kernel_ns);
        for (int dir = 0; dir < 11; dir++) {
            size_t n = 0;
            int64_t ns = 0;
            uint64_t bytes = 0;
            for (size_t i = 0; i < e->ncopies; i++)
                if ((int)e->copies[i].dir == dir) {
                    n++;
                    ns += e->copies[i].end_ns - e->copies[i].start_ns;
                    bytes += e->copies[i].bytes;
                }
            assert_int_equal(n, want.copies[dir]);
            assert_int_equal(ns, want.copy_ns[dir]);
            assert_int_equal(bytes, want.copy_bytes[dir]);
        }
        assert_int_equal(e->nmemsets, want.memsets);
        assert_int_equal(e->napis, want.apis);
        assert_int_equal(e->nsyncs, want.syncs);
        size_t annotations = 0;
        for (int i = 0; i < m.nregions; i++)
            annotations += m.regions[i].kind == REGION_ANNOTATION;
        assert_int_equal(annotations, want.annotations);
        assert_int_equal(m.regions[0].kind, REGION_RUN);
        assert_int_equal(m.source, SOURCE_KINETO);
        /* Every GPU event carries the process that launched it, not Kineto's device index. */
        for (size_t i = 0; i < e->nkernels; i++) {
            bool launched = false;
            for (size_t a = 0; a < e->napis && !launched; a++)
                launched = e->apis[a].correlation == e->kernels[i].correlation &&
                           e->apis[a].pid == e->kernels[i].pid;
            assert_true(launched || (m.nprocesses == 1 && e->kernels[i].pid == m.processes[0].pid));
        }
        model_free(&m);
    }
}

/* ---------- regions, processes, devices ---------- */

static const region *find_region(const run_model *m, const char *name)
{
    for (int i = 0; i < m->nregions; i++)
        if (strcmp(m->regions[i].name, name) == 0)
            return &m->regions[i];
    fail_msg("no region %s", name);
    return NULL;
}

static const kernel_event *kernel_by_corr(const run_model *m, uint32_t corr)
{
    for (size_t i = 0; i < m->events.nkernels; i++)
        if (m->events.kernels[i].correlation == corr)
            return &m->events.kernels[i];
    fail_msg("no kernel with correlation %u", corr);
    return NULL;
}

static const api_event *api_by_corr(const run_model *m, uint32_t corr)
{
    for (size_t i = 0; i < m->events.napis; i++)
        if (m->events.apis[i].correlation == corr)
            return &m->events.apis[i];
    fail_msg("no API call with correlation %u", corr);
    return NULL;
}

/* forward's first kernel (correlation 11) runs from 1030 us to 1280.5 us; forward closes at
 * 1210 us. Analysis attributes it to forward through the launching cudaLaunchKernel. */
static void test_kernel_ending_after_its_annotation(void **state)
{
    (void)state;
    run_model m;
    import_ok("tests/data/kineto/train_step.json", &m);
    const region *fwd = find_region(&m, "forward");
    assert_int_equal(fwd->kind, REGION_ANNOTATION);
    assert_int_equal(fwd->pid, 777);
    assert_int_equal(fwd->tid, 777);
    const kernel_event *k = kernel_by_corr(&m, 11);
    const api_event *launch = api_by_corr(&m, 11);
    assert_true(k->end_ns > fwd->end_ns);
    assert_true(launch->start_ns >= fwd->start_ns && launch->end_ns <= fwd->end_ns);
    assert_int_equal(launch->pid, fwd->pid);
    assert_int_equal(launch->thread, fwd->tid);
    assert_int_equal(k->pid, 777); /* the trace says pid 0: the device */
    assert_int_equal(k->device, 0);
    assert_int_equal(k->stream, 7);
    assert_true(k->has_resources);
    assert_int_equal(k->registers, 86);
    assert_int_equal(k->static_smem + k->dynamic_smem, 16384);
    assert_int_equal(k->grid[0], 16);
    assert_int_equal(k->grid[1], 8);
    assert_int_equal(k->block[0], 128);
    /* Nesting on a thread: forward inside ProfilerStep#1, SGD.step inside optimizer, and the
     * autograd thread's range at the top of its own thread. */
    assert_string_equal(m.regions[fwd->parent].name, "ProfilerStep#1");
    const region *sgd = find_region(&m, "Optimizer.step#SGD.step");
    assert_string_equal(m.regions[sgd->parent].name, "optimizer");
    const region *autograd = find_region(&m, "autograd::engine::evaluate_function: MmBackward0");
    assert_int_equal(autograd->tid, 790);
    assert_int_equal(autograd->parent, 0);
    assert_int_equal(m.regions[0].kind, REGION_RUN);
    /* The backward kernel came from the autograd thread; its process is still 777. */
    assert_int_equal(api_by_corr(&m, 13)->thread, 790);
    assert_int_equal(kernel_by_corr(&m, 13)->pid, 777);
    model_free(&m);
}

static const region_metrics *metrics_of(const run_model *m, const region_metrics *rm, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(m->regions[rm[i].region].name, name) == 0)
            return &rm[i];
    fail_msg("no figures for region %s", name);
    return NULL;
}

/* The region analysis on the imported trace: forward owns both kernels its thread launched, the
 * one that ran past its end too, through the launching call (not by time); the pageable and
 * pinned ranges of the matmul trace own their copies with the right memory kinds. */
static void test_region_analysis_on_import(void **state)
{
    (void)state;
    run_model m;
    region_metrics *rm;
    int n;
    import_ok("tests/data/kineto/train_step.json", &m);
    assert_true(analyze_regions(&m, &rm, &n));
    const region_metrics *fwd = metrics_of(&m, rm, n, "forward");
    assert_int_equal(fwd->nkernels, 2);
    assert_int_equal(fwd->by_time, 0);
    assert_true(fwd->kernel_ms.ok);
    assert_close(fwd->kernel_ms.v, (250.5 + 3.2) / 1000.0, 1e-12);
    const region_metrics *bwd = metrics_of(&m, rm, n, "autograd::engine::evaluate_function: MmBackward0");
    assert_int_equal(bwd->nkernels, 1);
    assert_int_equal(bwd->nmemsets, 1);
    assert_int_equal(rm[0].nkernels, 4);
    region_metrics_free(rm, n);
    model_free(&m);

    import_ok("tests/data/kineto/matmul_copies.json", &m);
    assert_true(analyze_regions(&m, &rm, &n));
    const region_metrics *pageable = metrics_of(&m, rm, n, "pageable");
    const region_metrics *pinned = metrics_of(&m, rm, n, "pinned");
    assert_int_equal(pageable->ncopies, 2);
    assert_int_equal(pinned->ncopies, 2);
    assert_close(pageable->h2d_bytes.v, 16777216, 0);
    /* Copies' flows first (H2D, D2H), then one row for the memset (of device memory). */
    assert_int_equal(pinned->nflows, 3);
    for (int i = 0; i < 2; i++) {
        assert_false(pinned->flows[i].memset);
        assert_int_equal(pinned->flows[i].host, MEM_PINNED);
    }
    assert_true(pinned->flows[2].memset);
    assert_int_equal(pinned->flows[2].host, MEM_DEVICE);
    assert_int_equal(pinned->flows[2].count, 1);
    for (int i = 0; i < pageable->nflows; i++)
        assert_int_equal(pageable->flows[i].host, MEM_PAGEABLE);
    assert_int_equal(pinned->nkernels, 1);
    assert_int_equal(pinned->nmemsets, 1);
    region_metrics_free(rm, n);
    model_free(&m);
}

static void test_processes_threads_devices_syncs(void **state)
{
    (void)state;
    run_model m;
    import_ok("tests/data/kineto/train_step.json", &m);
    /* Only the CPU process: Kineto's per-device "process" (pid 0) is not one. */
    assert_int_equal(m.nprocesses, 1);
    assert_int_equal(m.processes[0].pid, 777);
    assert_string_equal(m.processes[0].name, "python3");
    assert_int_equal(m.nthreads, 2);
    assert_int_equal(m.threads[0].tid, 777);
    assert_string_equal(m.threads[1].name, "thread 790 (pt_autograd_0)");
    assert_int_equal(m.ndevices, 1);
    assert_string_equal(m.devices[0].name, "NVIDIA H200");
    assert_int_equal(m.devices[0].cc_major, 9);
    assert_int_equal(m.devices[0].sm_count, 132);
    assert_int_equal(m.devices[0].regs_per_sm, 65536);
    assert_int_equal(m.devices[0].smem_per_block_optin, 232448);
    assert_int_equal(m.devices[0].max_threads_per_sm, 2048);
    assert_int_equal(m.devices[0].driver_version, 13000);
    assert_int_equal(m.devices[0].max_blocks_per_sm, 0); /* not in the trace: stays unknown */
    /* cudaStreamSynchronize, and the Stream Wait Event record (its cudaStreamWaitEvent is no
     * host wait by name); the Stream Sync record repeats the cudaStreamSynchronize. */
    assert_int_equal(m.events.nsyncs, 2);
    assert_int_equal(m.events.syncs[0].kind, SYNC_STREAM);
    assert_int_equal(m.events.syncs[0].correlation, 17);
    assert_int_equal(m.events.syncs[1].kind, SYNC_STREAM_WAIT_EVENT);
    assert_int_equal(m.events.syncs[1].pid, 777);
    assert_int_equal(m.events.syncs[1].thread, 777);
    assert_int_equal(m.events.syncs[1].stream, 7);
    /* Copies: the DtoD, and the memset on the autograd thread's stream. */
    assert_int_equal(m.events.ncopies, 1);
    assert_int_equal(m.events.copies[0].dir, COPY_D2D);
    assert_int_equal(m.events.copies[0].src, MEM_DEVICE);
    assert_int_equal(m.events.memsets[0].mem, MEM_DEVICE);
    assert_int_equal(m.events.memsets[0].stream, 20);
    assert_int_equal(m.events.memsets[0].bytes, 2048);
    assert_int_equal(m.epoch_ns, m.regions[0].start_ns);
    assert_string_equal(m.started_at, "2025-11-30T00:00:00Z");
    model_free(&m);

    import_ok("tests/data/kineto/matmul_copies.json", &m);
    int kinds[4][2] = {{COPY_H2D, MEM_PAGEABLE}, {COPY_D2H, MEM_PAGEABLE}, {COPY_H2D, MEM_PINNED}, {COPY_D2H, MEM_PINNED}};
    assert_int_equal(m.events.ncopies, 4);
    for (int i = 0; i < 4; i++) {
        const copy_event *c = &m.events.copies[i];
        assert_int_equal(c->dir, kinds[i][0]);
        assert_int_equal(c->dir == COPY_H2D ? c->src : c->dst, kinds[i][1]);
        assert_int_equal(c->dir == COPY_H2D ? c->dst : c->src, MEM_DEVICE);
        assert_int_equal(c->pid, 4242);
    }
    assert_int_equal(m.events.nsyncs, 2); /* cudaStreamSynchronize, cudaDeviceSynchronize */
    assert_int_equal(m.events.syncs[1].kind, SYNC_CONTEXT);
    assert_int_equal(m.events.apis[5].kind, API_DRIVER); /* cuLaunchKernel */
    assert_string_equal(m.events.apis[5].name, "cuLaunchKernel");
    /* pageable and pinned: the only regions besides the run, gpu_user_annotation not repeated */
    assert_int_equal(m.nregions, 3);
    model_free(&m);
}

static bool has_warning(const run_model *m, const char *part)
{
    for (int i = 0; i < m->nwarnings; i++)
        if (strstr(m->warnings[i], part))
            return true;
    return false;
}

/* A ROCm trace (tests/data/kineto/rocm_copies.json, in the layout PyTorch's ROCm build writes):
 * copies named "(Host -> Device)" keep their direction with the host memory kind unknown, and the
 * AMD GPUs are not given HIP's computeMajor 9 as a CUDA compute capability; gcnArchName names the
 * architecture where the trace has it. */
static void test_rocm_trace(void **state)
{
    (void)state;
    run_model m;
    import_ok("tests/data/kineto/rocm_copies.json", &m);
    assert_int_equal(m.events.ncopies, 3);
    const copy_event *c = m.events.copies;
    assert_int_equal(c[0].dir, COPY_H2D);
    assert_int_equal(c[0].src, MEM_UNKNOWN);
    assert_int_equal(c[0].dst, MEM_DEVICE);
    assert_int_equal(c[0].bytes, 4194304);
    assert_int_equal(c[0].pid, 5151);
    assert_int_equal(c[1].dir, COPY_D2H);
    assert_int_equal(c[1].src, MEM_DEVICE);
    assert_int_equal(c[1].dst, MEM_UNKNOWN);
    assert_int_equal(c[2].dir, COPY_D2D);
    assert_int_equal(m.ndevices, 2);
    assert_string_equal(m.devices[0].name, "AMD Instinct MI250X (gfx90a)");
    assert_string_equal(m.devices[1].name, "AMD Radeon Graphics");
    for (int i = 0; i < m.ndevices; i++) {
        assert_int_equal(m.devices[i].cc_major, 0);
        assert_int_equal(m.devices[i].cc_minor, 0);
        assert_int_equal(m.devices[i].sm_count, i == 0 ? 110 : 104);
    }
    assert_true(has_warning(&m, "2 AMD GPUs (a ROCm trace)"));
    assert_true(has_warning(&m, "2 copies name their host memory \"Host\""));
    assert_false(has_warning(&m, "names not in Kineto's form"));
    model_free(&m);
    /* An NVIDIA trace keeps its compute capability. */
    import_ok("tests/data/kineto/matmul_copies.json", &m);
    assert_int_equal(m.devices[0].cc_major, 9);
    assert_false(has_warning(&m, "AMD"));
    model_free(&m);
}

/* ---------- exact times ---------- */

static const char *tmp; /* the test's temporary directory (temp_dir_setup) */

static char *tmp_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    assert_true(write_text(path, text));
    return path;
}

#define HEAD "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1764460800123456789, \"traceEvents\": ["
#define KERNEL(ts, dur, corr)                                                                     \
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": " ts  \
    ", \"dur\": " dur ", \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": " corr "}}"

static void test_exact_timestamps(void **state)
{
    tmp = *state;
    const char *path = tmp_file("times.json", HEAD
        KERNEL("5107758229125.166", "0.001", "1") ","
        KERNEL("1e3", "2.5e-3", "2") ","
        KERNEL("0.0005", "1.23456", "3") ","
        KERNEL("-1.000", "0", "4") "]}");
    run_model m;
    import_ok(path, &m);
    const int64_t base = 1764460800123456789;
    const kernel_event *k = m.events.kernels;
    assert_int_equal(k[0].start_ns, base + 5107758229125166);
    assert_int_equal(k[0].end_ns, base + 5107758229125167);
    /* The same through doubles lands elsewhere: what the decimal reading is for. */
    assert_true((int64_t)((double)base + 5107758229125.166 * 1000.0) != base + 5107758229125166);
    assert_int_equal(k[1].start_ns, base + 1000000);
    assert_int_equal(k[1].end_ns - k[1].start_ns, 3); /* 2.5 ns rounds half away from zero */
    assert_int_equal(k[2].start_ns, base + 1);
    assert_int_equal(k[2].end_ns - k[2].start_ns, 1235);
    assert_int_equal(k[3].start_ns, base - 1000);
    assert_int_equal(m.regions[0].start_ns, base - 1000);
    model_free(&m);

    /* Past 2^53 ns in ts itself: older PyTorch wrote absolute times (no baseTimeNanoseconds),
     * microseconds since 1970 with three decimals, which a double cannot hold to the ns. */
    path = tmp_file("absolute.json", "{\"traceEvents\": ["
        KERNEL("1764460800123456.789", "1.001", "1") ","
        KERNEL("9007199254740.993", "0.001", "2") "]}");
    import_ok(path, &m);
    k = m.events.kernels;
    assert_int_equal(k[0].start_ns, 1764460800123456789);
    assert_int_equal(k[0].end_ns, 1764460800123457790);
    assert_int_equal(k[1].start_ns, 9007199254740993);
    assert_true(llround(9007199254740.993 * 1000.0) != 9007199254740993);
    model_free(&m);
}

/* A CUPTI sync record with no API call of its own in the trace, for a context (no stream: Kineto
 * writes -1 or 2^32 - 1): kept, on the trace's only process, stream 0. */
static void test_sync_record_without_stream(void **state)
{
    tmp = *state;
    const char *path = tmp_file("sync.json", HEAD KERNEL("1", "1", "1") ","
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 5, \"tid\": 6, "
        "\"ts\": 0.5, \"dur\": 0.2, \"args\": {\"correlation\": 1}},"
        "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, \"tid\": 1, "
        "\"ts\": 3, \"dur\": 2, \"args\": {\"cuda_sync_kind\": \"Context Sync\", \"stream\": -1, \"correlation\": 2}},"
        "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": 6, \"dur\": 1, \"args\": {\"stream\": 4294967295, \"correlation\": 3}}]}");
    run_model m;
    import_ok(path, &m);
    assert_int_equal(m.events.nsyncs, 2);
    const sync_event *s = m.events.syncs;
    assert_int_equal(s[0].kind, SYNC_CONTEXT);
    assert_int_equal(s[0].stream, 0);
    assert_int_equal(s[0].pid, 5);
    assert_int_equal(s[0].thread, 0); /* no launching call: the thread is not known */
    assert_int_equal(s[0].end_ns - s[0].start_ns, 2000);
    assert_int_equal(s[1].kind, SYNC_STREAM);
    assert_int_equal(s[1].stream, 0);
    assert_int_equal(m.events.kernels[0].pid, 5);
    model_free(&m);
}

/* Events cut across the reader's 1 MB chunks, one with an escape split at the boundary. */
static void test_chunk_boundaries(void **state)
{
    tmp = *state;
    const size_t chunk = 1 << 20;
    size_t cap = 4 * chunk, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)sprintf(text, "%s", HEAD);
    int kernels = 0;
    int64_t want_ns = 0;
    while (n < 3 * chunk) {
        /* Before the first boundary: pad so that the backslash of \" is its last byte. */
        if (n < chunk && n + 400 > chunk) {
            const char *lead = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"q";
            size_t pad = chunk - n - strlen(lead) - 1;
            memset(text + n, ' ', pad);
            n += pad;
            n += (size_t)sprintf(text + n, "%s\\\"\", \"pid\": 0, \"tid\": 7, \"ts\": 1.000, \"dur\": 0.500, "
                                           "\"args\": {\"correlation\": 1}},", lead);
            assert_int_equal(text[chunk - 1], '\\');
            kernels++;
            want_ns += 500;
            continue;
        }
        n += (size_t)sprintf(text + n, KERNEL("%d.%03d", "%d.%03d", "%d") ",", kernels, kernels % 1000,
                             kernels % 7, kernels % 13, kernels + 1);
        want_ns += (kernels % 7) * 1000 + kernels % 13;
        kernels++;
    }
    n += (size_t)sprintf(text + n, "%s", KERNEL("0", "0", "0") "]}");
    kernels++;
    const char *path = tmp_file("chunks.json", text);
    free(text);
    run_model m;
    import_ok(path, &m);
    assert_int_equal(m.events.nkernels, kernels);
    int64_t got_ns = 0;
    for (size_t i = 0; i < m.events.nkernels; i++)
        got_ns += m.events.kernels[i].end_ns - m.events.kernels[i].start_ns;
    assert_int_equal(got_ns, want_ns);
    bool quoted = false;
    for (size_t i = 0; i < m.events.nkernels; i++)
        quoted |= strcmp(m.events.kernels[i].name, "q\"") == 0;
    assert_true(quoted);
    model_free(&m);
}

/* ---------- names are data ---------- */

static void test_names_kept_as_data(void **state)
{
    tmp = *state;
    const size_t big = 100 * 1024;
    char *text = malloc(big + 1024);
    assert_non_null(text);
    int n = sprintf(text, HEAD "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"");
    memset(text + n, 'k', big);
    sprintf(text + n + big, "\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1},"
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
            "\"<script>alert(\\\"x\\\")</script>\\n'quoted' & \\u00e9\", \"pid\": 0, \"tid\": 7, \"ts\": 2, \"dur\": 1}]}");
    const char *path = tmp_file("names.json", text);
    free(text);
    run_model m;
    import_ok(path, &m);
    assert_int_equal(m.events.nkernels, 2);
    assert_int_equal(strlen(m.events.kernels[0].name), big);
    assert_int_equal(strspn(m.events.kernels[0].name, "k"), big);
    assert_string_equal(m.events.kernels[1].name, "<script>alert(\"x\")</script>\n'quoted' & \xc3\xa9");
    model_free(&m);
}

/* ---------- bad input ---------- */

/* Imports path, which must fail with a message holding the path and each of the fragments (up
 * to three), and leave the model as model_init made it. */
static void refused(const char *path, const char *want1, const char *want2, const char *want3)
{
    run_model m, fresh;
    model_init(&m);
    model_init(&fresh);
    char err[512] = "";
    bool ok = import_kineto(path, &m, err, sizeof err);
    printf("%s -> %s\n", path, err);
    assert_false(ok);
    assert_non_null(strstr(err, path));
    const char *wants[] = {want1, want2, want3};
    for (int i = 0; i < 3; i++)
        if (wants[i] && !strstr(err, wants[i]))
            fail_msg("message \"%s\" lacks \"%s\"", err, wants[i]);
    assert_memory_equal(&m, &fresh, sizeof m);
}

static void test_truncated_and_not_json(void **state)
{
    tmp = *state;
    size_t len;
    char *whole = read_file("tests/data/kineto/matmul_copies.json", &len);
    assert_non_null(whole);
    whole[len / 2] = '\0';
    char at[64];
    snprintf(at, sizeof at, "ends at byte %zu", len / 2);
    refused(tmp_file("cut.json", whole), "truncated", at, "traceEvents[");
    free(whole);
    refused(tmp_file("text.json", "hello, world\n"), "not JSON", "'h'", NULL);
    refused(tmp_file("empty.json", ""), "empty file", NULL, NULL);
    refused(tmp_file("blank.json", " \n\t"), "empty file", NULL, NULL);
    refused("tests/data/kineto/no-such-file.json", "No such file", NULL, NULL);
    /* A bad token inside an event: the offset is the token's own. */
    const char *bad = HEAD KERNEL("1.000", "2.0x5", "1") "]}";
    const char *path = tmp_file("token.json", bad);
    snprintf(at, sizeof at, "near byte %td", strchr(bad, 'x') - bad);
    refused(path, "not valid JSON", at, "traceEvents[0]");
    refused(tmp_file("bracket.json", HEAD KERNEL("1", "1", "1") ", {\"args\": [1, 2}}]}"), "does not match", NULL, NULL);
    refused(tmp_file("comma.json", HEAD KERNEL("1", "1", "1") " " KERNEL("1", "1", "2") "]}"),
            "expected ',' or ']' after traceEvents[0]", NULL, NULL);
    refused(tmp_file("after.json", HEAD KERNEL("1", "1", "1") "]} {}"), "data after the end", NULL, NULL);
    refused(tmp_file("colon.json", "{\"traceEvents\" []}"), "near byte 15: expected ':'", NULL, NULL);
    refused(tmp_file("key.json", "{\"a\": 1, 2: 3}"), "near byte 9: expected a key", NULL, NULL);
    refused(tmp_file("pairs.json", "{\"a\": 1 \"b\": 2}"), "near byte 8: expected ',' or '}'", NULL, NULL);
    refused(tmp_file("array.json", "[" KERNEL("1", "1", "1") "]"), "a JSON array at the top level", NULL, NULL);
}

static void test_other_kinds_of_file(void **state)
{
    tmp = *state;
    refused("samples/h200-2048.json", "an mmprof run file", NULL, NULL);
    refused("samples/h200-2048.trace.json", "a Chrome trace written by mmprof", NULL, NULL);
    refused(tmp_file("other.json", "{\"name\": \"x\", \"version\": [1, 2], \"deps\": {\"a\": 1}}"),
            "no traceEvents", "keys \"name\", \"version\", \"deps\"", NULL);
    refused(tmp_file("events-not-list.json", "{\"traceEvents\": {\"a\": 1}}"), "traceEvents is an object, not a list",
            NULL, NULL);
    refused(tmp_file("cpu-only.json", HEAD
                     "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2},"
                     "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMalloc\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}"),
            "no GPU activity", "2 events", NULL);
    refused(tmp_file("no-events.json", HEAD "]}"), "no GPU activity", NULL, NULL);
}

static void test_wrong_types(void **state)
{
    tmp = *state;
    refused(tmp_file("ts-string.json", HEAD KERNEL("1", "1", "1") "," KERNEL("2", "1", "2") ","
                     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": \"12.5\", \"dur\": 1}]}"),
            "traceEvents[2]", "ts is a string, not a number", NULL);
    refused(tmp_file("args-list.json", HEAD KERNEL("1", "1", "1") ","
                     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1, \"args\": [1, 2]}]}"),
            "traceEvents[1]", "args is an array, not an object", NULL);
    refused(tmp_file("corr-string.json", HEAD "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
                     "\"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": \"7\"}}]}"),
            "traceEvents[0]", "args.correlation is a string", NULL);
    refused(tmp_file("pid-string.json", HEAD "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"c\", \"pid\": \"a\", "
                     "\"tid\": 7, \"ts\": 1, \"dur\": 1}]}"),
            "traceEvents[0]", "pid is a string", NULL);
    refused(tmp_file("no-dur.json", HEAD "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", "
                     "\"pid\": 0, \"tid\": 7, \"ts\": 1}]}"),
            "traceEvents[0]", "no dur", NULL);
    refused(tmp_file("negative.json", HEAD KERNEL("1", "-1", "1") "]}"), "traceEvents[0]", "dur is negative", NULL);
    refused(tmp_file("event-number.json", HEAD "3]}"), "traceEvents[0]", "a number, not an object", NULL);
    refused(tmp_file("huge-ts.json", HEAD KERNEL("1e30", "1", "1") "]}"), "traceEvents[0]", "ts", "out of range");
    refused(tmp_file("devices.json", "{\"deviceProperties\": 3, \"traceEvents\": [" KERNEL("1", "1", "1") "]}"),
            "deviceProperties is a number, not a list", NULL, NULL);
}

/* ---------- distributedInfo: ranks ---------- */

/* train_step.json as rank `rank`'s trace of a job on one host: distributedInfo added (dist, raw
 * JSON; none when NULL), both GPUs listed as torchrun's ranks see them, and the trace's GPU events
 * moved to device `device`. Written to tmp/name; the path, in a static buffer. */
static char *rank_trace(const char *name, const char *dist, int device)
{
    char *text = read_file("tests/data/kineto/train_step.json", NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    if (dist) {
        cJSON *d = cJSON_Parse(dist);
        assert_non_null(d);
        cJSON_AddItemToObject(root, "distributedInfo", d);
    }
    cJSON *devs = cJSON_GetObjectItem(root, "deviceProperties");
    cJSON *second = cJSON_Duplicate(cJSON_GetArrayItem(devs, 0), true);
    cJSON_SetNumberValue(cJSON_GetObjectItem(second, "id"), 1);
    cJSON_AddItemToArray(devs, second);
    cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(root, "traceEvents")) {
        const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "cat"));
        if (!cat || (strcmp(cat, "kernel") && strcmp(cat, "gpu_memcpy") && strcmp(cat, "gpu_memset")))
            continue;
        cJSON_SetNumberValue(cJSON_GetObjectItem(ev, "pid"), device);
        cJSON *dev = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "args"), "device");
        if (dev)
            cJSON_SetNumberValue(dev, device);
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    assert_non_null(out);
    char *path = tmp_file(name, out);
    free(out);
    return path;
}


#define DIST(rank, world) \
    "{\"backend\": \"nccl\", \"rank\": " rank ", \"world_size\": " world ", \"pg_count\": 1, " \
    "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", " \
    "\"pg_size\": 2, \"ranks\": [0, 1]}], \"nccl_version\": \"2.27.5\"}"

static void test_ranks_of_two_traces(void **state)
{
    tmp = *state;
    char path0[512], path1[512], err[512];
    copy_str(path0, sizeof path0, rank_trace("rank0.json", DIST("0", "2"), 0));
    copy_str(path1, sizeof path1, rank_trace("rank1.json", DIST("1", "2"), 1));
    run_model a, b;
    import_ok(path0, &a);
    import_ok(path1, &b);
    assert_true(a.nprocesses > 0);
    for (int i = 0; i < b.nprocesses; i++) {
        assert_int_equal(b.processes[i].rank, 1);
        assert_int_equal(b.processes[i].world_size, 2);
        assert_int_equal(b.processes[i].local_rank, -1);
        assert_string_equal(b.processes[i].host, "");
    }
    assert_true(has_warning(&b, "rank 1 of 2, backend nccl"));
    assert_true(has_warning(&b, "no host"));

    merge_state ms;
    assert_true(model_merge_begin(&ms, &a, path0));
    if (!model_merge(&ms, &a, &b, path1, err, sizeof err))
        fail_msg("merge: %s", err);
    assert_true(model_merge_finish(&ms, &a));
    /* No PCI bus id in either trace: nothing is matched, so GPU 1 of rank 1 is not rank 0's GPU 1
     * nor its GPU 0; each file's two devices stay its own. */
    assert_int_equal(a.ndevices, 4);

    rank_analysis *ra = NULL;
    assert_true(analyze_ranks(&a, &ra));
    assert_non_null(ra);
    assert_true(ra->by_rank);
    assert_int_equal(ra->nrows, 2);
    assert_int_equal(ra->rows[0].rank, 0);
    assert_int_equal(ra->rows[1].rank, 1);
    assert_int_equal(ra->rows[0].device, 0);
    assert_int_equal(ra->rows[1].device, 3); /* rank 1's device 1, the second file's second */
    assert_int_equal(ra->ngpus, 2);
    assert_int_equal(ra->rows[0].kernels, ra->rows[1].kernels);
    assert_true(ra->rows[0].kernels > 0);
    rank_analysis_free(ra);
    model_free(&b);
    model_free(&a);

    /* Without distributedInfo: no rank, no rank warning. */
    run_model c;
    import_ok(rank_trace("plain.json", NULL, 0), &c);
    for (int i = 0; i < c.nprocesses; i++)
        assert_int_equal(c.processes[i].rank, -1);
    assert_false(has_warning(&c, "distributedInfo"));
    model_free(&c);
}

static void test_faulty_distributed_info(void **state)
{
    tmp = *state;
    refused(rank_trace("negative.json", DIST("-1", "2"), 0), "distributedInfo.rank is -1", NULL, NULL);
    refused(rank_trace("beyond.json", DIST("2", "2"), 0), "distributedInfo.rank is 2, not below world_size 2", NULL,
            NULL);
    refused(rank_trace("string.json", DIST("\"0\"", "2"), 0), "distributedInfo.rank is a string, not a number", NULL,
            NULL);
    refused(rank_trace("fraction.json", DIST("0.5", "2"), 0), "distributedInfo.rank is 0.5", "whole number", NULL);
    refused(rank_trace("huge.json", DIST("0", "1048576"), 0), "distributedInfo.world_size is 1048576", NULL,
            NULL);
    refused(rank_trace("zero.json", DIST("0", "0"), 0), "distributedInfo.world_size is 0", NULL, NULL);
    refused(rank_trace("no-rank.json", "{\"backend\": \"nccl\", \"world_size\": 2}", 0), "distributedInfo has no \"rank\"",
            NULL, NULL);
    refused(rank_trace("list.json", "[0, 2]", 0), "distributedInfo is an array, not an object", NULL, NULL);
}

/* Only a rank, as HTA documents distributedInfo and as its alexnet trace has it: the rank is
 * taken, the world size stays unknown (-1), and the warning says so. */
static void test_rank_without_world_size(void **state)
{
    tmp = *state;
    run_model m;
    import_ok(rank_trace("rank-only.json", "{\"rank\": 3}", 0), &m);
    assert_true(m.nprocesses > 0);
    for (int i = 0; i < m.nprocesses; i++) {
        assert_int_equal(m.processes[i].rank, 3);
        assert_int_equal(m.processes[i].world_size, -1);
    }
    assert_true(has_warning(&m, "rank 3, world size not recorded"));
    model_free(&m);
    /* A world size that is there is still checked. */
    refused(rank_trace("rank-beyond.json", "{\"rank\": 3, \"world_size\": 2}", 0), "not below world_size 2", NULL,
            NULL);
}

/* ---------- traces as users have them ---------- */

/* Runs a shell command line (the test's own compressors), failing the test when it fails. */
#define shell(...)                                                                                 \
    do {                                                                                           \
        cmd_result r_ = run_shell(__VA_ARGS__);                                                    \
        if (r_.status != 0)                                                                        \
            fail_msg("command failed (%d): %s", r_.status, r_.err);                                \
        cmd_free(&r_);                                                                             \
    } while (0)

/* The same trace plain, gzip-compressed (as torch.profiler's tensorboard handler writes it, and
 * as two gzip members one after the other), zstd-compressed, xz-compressed (also as two xz streams)
 * and behind a UTF-8 byte-order mark, under names that say nothing of it: every one imports to the
 * same events and regions. */
static void test_compressed_and_bom_traces(void **state)
{
    tmp = *state;
    const char *plain = "tests/data/kineto/train_step.json";
    run_model want;
    import_ok(plain, &want);
    char path[512];
    const char *variants[] = {"gzip -c %1$s > %2$s/trace.gz.data", "gzip -c %1$s > %2$s/trace.json",
                              "head -c 1000 %1$s | gzip -c > %2$s/members && tail -c +1001 %1$s | gzip -c >> %2$s/members",
                              "zstd -q -c %1$s > %2$s/trace.zst.bin", "xz -c %1$s > %2$s/trace.xz.bin",
                              "head -c 1000 %1$s | xz -c > %2$s/streams && tail -c +1001 %1$s | xz -c >> %2$s/streams",
                              "printf '\\357\\273\\277' > %2$s/bom.json && cat %1$s >> %2$s/bom.json"};
    const char *outputs[] = {"trace.gz.data", "trace.json", "members", "trace.zst.bin",
                             "trace.xz.bin", "streams", "bom.json"};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        shell(variants[v], plain, tmp);
        snprintf(path, sizeof path, "%s/%s", tmp, outputs[v]);
        run_model m;
        import_ok(path, &m);
        assert_int_equal(m.events.nkernels, want.events.nkernels);
        assert_int_equal(m.events.ncopies, want.events.ncopies);
        assert_int_equal(m.events.napis, want.events.napis);
        assert_int_equal(m.nregions, want.nregions);
        for (int i = 0; i < m.nregions; i++) {
            assert_string_equal(m.regions[i].name, i == 0 ? outputs[v] : want.regions[i].name);
            assert_int_equal(m.regions[i].parent, want.regions[i].parent);
            assert_true(m.regions[i].start_ns == want.regions[i].start_ns);
        }
        assert_true(m.events.kernels[0].start_ns == want.events.kernels[0].start_ns);
        model_free(&m);
    }
    model_free(&want);
}

/* xz data of the start of plain written to path, its block header then made to ask for a 1 GiB
 * dictionary (its LZMA2 filter's property byte, and the header's CRC32 made again): liblzma would
 * allocate it whole. xz -T1: one block, as single-threaded xz writes it. */
static void xz_asking_1gib(const char *plain, const char *path)
{
    shell("head -c 2000 %s | xz -T1 -c > %s", plain, path);
    size_t len = 0;
    unsigned char *b = (unsigned char *)read_file(path, &len);
    assert_non_null(b);
    /* The stream header's 12 bytes, then the block header: its size byte, flags (the filter count
     * and which sizes follow, each a variable-length integer), the filter's id, its property count
     * and the property: 2^(12 + p/2) bytes for an even p. */
    size_t start = 12, size = (b[start] + 1u) * 4, at = start + 2;
    for (int k = 0; k < 2; k++)
        if (b[start + 1] & (0x40 << k))
            while (b[at++] & 0x80)
                ;
    assert_true(at + 3 <= start + size - 4 && start + size <= len);
    assert_int_equal(b[at], 0x21); /* LZMA2 */
    assert_int_equal(b[at + 1], 1);
    b[at + 2] = 36;
    uLong crc = crc32(0, b + start, (uInt)(size - 4));
    for (int k = 0; k < 4; k++)
        b[start + size - 4 + k] = (unsigned char)(crc >> (8 * k));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(b);
}

/* Compressed traces cut short or damaged are refused with what is wrong, as plain ones are; an
 * offset names the decompressed text. */
static void test_damaged_compressed_traces(void **state)
{
    tmp = *state;
    const char *plain = "tests/data/kineto/train_step.json";
    char path[512];
    shell("gzip -c %s | head -c 700 > %s/cut.gz", plain, tmp);
    snprintf(path, sizeof path, "%s/cut.gz", tmp);
    refused(path, "the gzip data ends early", NULL, NULL);
    shell("zstd -q -c %s | head -c 700 > %s/cut.zst", plain, tmp);
    snprintf(path, sizeof path, "%s/cut.zst", tmp);
    refused(path, "the zstd data ends early", NULL, NULL);
    shell("xz -c %s | head -c 700 > %s/cut.xz", plain, tmp);
    snprintf(path, sizeof path, "%s/cut.xz", tmp);
    refused(path, "the xz data ends early", NULL, NULL);
    /* A flipped byte inside the deflate data: zlib's check finds it. */
    shell("gzip -c %1$s > %2$s/bad.gz && printf 'XXXX' | dd of=%2$s/bad.gz bs=1 seek=400 conv=notrunc 2>/dev/null",
          plain, tmp);
    snprintf(path, sizeof path, "%s/bad.gz", tmp);
    refused(path, "damaged gzip data", NULL, NULL);
    /* The same in xz data: liblzma's decoder finds it (or the block's CRC64 at its end). */
    shell("xz -c %1$s > %2$s/bad.xz && printf 'XXXX' | dd of=%2$s/bad.xz bs=1 seek=400 conv=notrunc 2>/dev/null",
          plain, tmp);
    snprintf(path, sizeof path, "%s/bad.xz", tmp);
    refused(path, "damaged xz data", NULL, NULL);
    snprintf(path, sizeof path, "%s/greedy.xz", tmp);
    xz_asking_1gib(plain, path);
    refused(path, "the xz data needs 1024 MiB of memory to decode, more than the 256 MiB allowed", NULL, NULL);
    /* Whole gzip data whose text stops in the middle: the JSON reader's message, in its terms. */
    shell("head -c 300 %s | gzip -c > %s/short.json.gz", plain, tmp);
    snprintf(path, sizeof path, "%s/short.json.gz", tmp);
    refused(path, "truncated", "byte 300", "gzip-decompressed text");
    shell("printf '' | gzip -c > %s/empty.gz", tmp);
    snprintf(path, sizeof path, "%s/empty.gz", tmp);
    refused(path, "empty file", NULL, NULL);
}

static void test_nesting_too_deep(void **state)
{
    tmp = *state;
    char text[2048];
    int n = sprintf(text, HEAD KERNEL("1", "1", "1") ",{\"args\": ");
    for (int i = 0; i < 100; i++)
        text[n++] = '[';
    for (int i = 0; i < 100; i++)
        text[n++] = ']';
    sprintf(text + n, "}]}");
    refused(tmp_file("deep.json", text), "nested deeper than 64 levels", "traceEvents[1]", NULL);
}

/* Imports path's text[0, n) with byte `at` replaced by c (at >= n: unchanged); returns whether
 * it imported, and checks that a refusal names the file and leaves the model empty. */
static bool import_variant(const char *path, const char *text, size_t n, size_t at, char c)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, n, f);
    if (at < n) {
        fseek(f, (long)at, SEEK_SET);
        fputc(c, f);
    }
    assert_int_equal(fclose(f), 0);
    run_model m, fresh;
    model_init(&m);
    model_init(&fresh);
    char err[512] = "";
    bool ok = import_kineto(path, &m, err, sizeof err);
    if (!ok) {
        if (!strstr(err, path))
            fail_msg("cut at %zu, byte %zu = '%c': message \"%s\" does not name the file", n, at, c, err);
        assert_memory_equal(&m, &fresh, sizeof m);
    }
    model_free(&m);
    return ok;
}

/* Every prefix of a trace, and the trace with structural bytes put in at many places: refused
 * with a message or imported, never a crash (the sanitizers watch). */
static void test_cut_and_corrupted_traces(void **state)
{
    tmp = *state;
    size_t len;
    char *whole = read_file("tests/data/kineto/train_step.json", &len);
    assert_non_null(whole);
    char path[512];
    snprintf(path, sizeof path, "%s/variant.json", tmp);
    size_t last_brace = (size_t)(strrchr(whole, '}') - whole);
    for (size_t cut = 0; cut <= last_brace; cut += 23)
        if (import_variant(path, whole, cut, len, 0))
            fail_msg("a %zu-byte prefix of a %zu-byte trace imported", cut, len);
    assert_true(import_variant(path, whole, last_brace + 1, len, 0));
    const char bytes[] = {'"', '{', '}', '[', ']', ',', ':', '\\', '\0', 'x', '-', '9'};
    size_t refused_count = 0, variants = 0;
    for (size_t at = 0; at < len; at += 53)
        for (size_t b = 0; b < sizeof bytes; b++, variants++)
            refused_count += !import_variant(path, whole, len, at, bytes[b]);
    printf("%zu of %zu corrupted traces refused\n", refused_count, variants);
    assert_true(refused_count > variants / 2);
    free(whole);
}

/* The frame chain of a span, innermost first, as "kind:function@file:line" joined by " < ". */
static void chain_of(const host_activity *h, int f, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t used = 0; f >= 0; f = h->frames[f].parent) {
        const host_frame *x = &h->frames[f];
        int n = snprintf(out + used, len - used, "%s%s:%s@%s:%d", used ? " < " : "", host_frame_kind_name(x->kind),
                         x->function ? x->function : "", x->file ? x->file : "", x->line);
        assert_true(n > 0 && (size_t)n < len - used);
        used += (size_t)n;
    }
}

#define PYFN(name, tid, ts, dur, id, parent)                                                      \
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"" name "\", \"pid\": 5, \"tid\": " tid \
    ", \"ts\": " ts ", \"dur\": " dur ", \"args\": {\"Python id\": " id ", \"Python parent id\": " parent "}}"

/* Host spans (issue 20): python_function events become Python frames (file, line and function
 * from "model.py(42): forward"), linked by "Python parent id" even across threads; a cpu_op nests
 * by time under the innermost Python call of its thread; the same stack twice is one node. On
 * the H200 training trace (no Python stacks recorded), every cpu_op is a span of an op frame,
 * autograd's nesting kept. */
static void test_host_spans(void **state)
{
    tmp = *state;
    const char *path = tmp_file("py.json", HEAD KERNEL("250", "10", "1") ","
        PYFN("train.py(10): <module>", "6", "0", "1000", "1", "null") ","
        PYFN("train.py(5): step", "6", "100", "800", "2", "1") ","
        PYFN("torch/nn/modules/module.py(1501): _call_impl", "6", "150", "650", "3", "2") ","
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 5, \"tid\": 6, \"ts\": 200, \"dur\": 100},"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 5, \"tid\": 6, "
        "\"ts\": 210, \"dur\": 5, \"args\": {\"correlation\": 1}},"
        PYFN("loader.py(7): fetch", "9", "400", "100", "4", "2") ","
        PYFN("train.py(5): step", "6", "950", "40", "5", "1") ","
        PYFN("<built-in method cat of type object at 0x7f>", "6", "960", "10", "6", "5") "]}");
    run_model m;
    import_ok(path, &m);
    const host_activity *h = &m.host_activity;
    assert_int_equal(h->nspans, 7);
    const int64_t base = 1764460800123456789;
    char chain[1024];
    int mm = -1, fetch = -1, step1 = -1, step2 = -1, cat = -1;
    for (size_t i = 0; i < h->nspans; i++) {
        const host_frame *f = &h->frames[h->spans[i].frame];
        if (strcmp(f->function, "aten::mm") == 0)
            mm = (int)i;
        else if (strcmp(f->function, "fetch") == 0)
            fetch = (int)i;
        else if (strcmp(f->function, "step") == 0)
            *(step1 < 0 ? &step1 : &step2) = (int)i;
        else if (strstr(f->function, "built-in method cat"))
            cat = (int)i;
    }
    assert_true(mm >= 0 && fetch >= 0 && step1 >= 0 && step2 >= 0 && cat >= 0);
    assert_int_equal(h->spans[mm].start_ns, base + 200000);
    assert_int_equal(h->spans[mm].end_ns, base + 300000);
    assert_int_equal(h->spans[mm].tid, 6);
    chain_of(h, h->spans[mm].frame, chain, sizeof chain);
    assert_string_equal(chain, "op:aten::mm@:0 < py:_call_impl@torch/nn/modules/module.py:1501 < py:step@train.py:5 < "
                               "py:<module>@train.py:10");
    chain_of(h, h->spans[fetch].frame, chain, sizeof chain);
    assert_string_equal(chain, "py:fetch@loader.py:7 < py:step@train.py:5 < py:<module>@train.py:10");
    assert_int_equal(h->spans[fetch].tid, 9);
    assert_int_equal(h->spans[step1].frame, h->spans[step2].frame); /* one node for one stack */
    chain_of(h, h->spans[cat].frame, chain, sizeof chain);
    assert_string_equal(chain, "py:<built-in method cat of type object at 0x7f>@:0 < py:step@train.py:5 < "
                               "py:<module>@train.py:10");
    assert_int_equal(h->nframes, 6);
    model_free(&m);

    import_ok("samples/h200-train.kineto.json", &m);
    h = &m.host_activity;
    assert_int_equal(h->nspans, 2104); /* the trace's cpu_op events */
    assert_true(h->nframes < (int)h->nspans);
    bool found = false;
    for (size_t i = 0; i < h->nspans && !found; i++) {
        assert_int_equal(h->frames[h->spans[i].frame].kind, HOST_FRAME_OP);
        chain_of(h, h->spans[i].frame, chain, sizeof chain);
        found = strcmp(chain, "op:aten::mse_loss_backward@:0 < op:MseLossBackward0@:0 < "
                              "op:autograd::engine::evaluate_function: MseLossBackward0@:0") == 0;
    }
    assert_true(found);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals_match_independent_sum),
        cmocka_unit_test(test_kernel_ending_after_its_annotation),
        cmocka_unit_test(test_region_analysis_on_import),
        cmocka_unit_test(test_processes_threads_devices_syncs),
        cmocka_unit_test(test_rocm_trace),
        cmocka_unit_test_setup_teardown(test_exact_timestamps, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_sync_record_without_stream, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_chunk_boundaries, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_names_kept_as_data, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_truncated_and_not_json, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_other_kinds_of_file, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_wrong_types, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_ranks_of_two_traces, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_faulty_distributed_info, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_rank_without_world_size, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_compressed_and_bom_traces, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_damaged_compressed_traces, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_nesting_too_deep, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cut_and_corrupted_traces, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(test_host_spans, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests(tests, find_traces, free_traces);
}
