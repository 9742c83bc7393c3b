/* The run model's JSON form: what is written reads back the same, field by field, and what is
 * not a run file is refused with a message that names where it went wrong.
 *
 *  - round trip of the recorded H200 run and of a synthetic run that takes the branches the
 *    sample does not (null registers, skipped and unverified workloads, DtoD copies, times
 *    before the epoch, a seed of 2^64-1);
 *  - rejection of a wrong schema, a wrong schema_version, missing fields, wrong types, values out
 *    of range and intervals that end before they start, each error naming its path;
 *  - model_read_file on files that are not JSON, are cut short, are empty or do not exist. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "event_columns.h"
#include "model_json.h"
#include "test_support.h"

/* ---------- comparing two models ---------- */

#define EQ_INT(a, b, f) assert_int_equal((a)->f, (b)->f)
#define EQ_STR(a, b, f) assert_string_equal((a)->f, (b)->f)
/* Doubles may come back one unit in the last place off: cJSON writes 15 significant digits
 * whenever they read back within DBL_EPSILON, which 0.1 + 0.2 does not survive exactly. That
 * is cJSON's, and far below anything a report prints; times and counts are integers and must be
 * exact. */
#define EQ_DBL(a, b, f) same_double((a)->f, (b)->f, #f)

static void same_double(double a, double b, const char *what)
{
    if (a != b && nextafter(a, b) != b)
        fail_msg("%s: %.17g read back as %.17g", what, a, b);
}

static void phases_equal(const phase *a, const phase *b, int n)
{
    for (int i = 0; i < n; i++) {
        assert_string_equal(a[i].name, b[i].name);
        assert_int_equal(a[i].start_ns, b[i].start_ns);
        assert_int_equal(a[i].end_ns, b[i].end_ns);
    }
}

static void kernels_equal(const kernel_event *a, const kernel_event *b)
{
    EQ_STR(a, b, name);
    EQ_INT(a, b, start_ns);
    EQ_INT(a, b, end_ns);
    EQ_INT(a, b, pid);
    EQ_INT(a, b, device);
    EQ_INT(a, b, stream);
    EQ_INT(a, b, correlation);
    for (int d = 0; d < 3; d++) {
        EQ_INT(a, b, grid[d]);
        EQ_INT(a, b, block[d]);
    }
    EQ_INT(a, b, has_resources);
    if (a->has_resources) {
        EQ_INT(a, b, registers);
        EQ_INT(a, b, static_smem);
        EQ_INT(a, b, dynamic_smem);
        EQ_INT(a, b, smem_optin);
        EQ_INT(a, b, local_mem);
    }
    EQ_INT(a, b, region);
}

static void copies_equal(const copy_event *a, const copy_event *b)
{
    EQ_INT(a, b, dir);
    EQ_INT(a, b, src);
    EQ_INT(a, b, dst);
    EQ_INT(a, b, bytes);
    EQ_INT(a, b, start_ns);
    EQ_INT(a, b, end_ns);
    EQ_INT(a, b, pid);
    EQ_INT(a, b, device);
    EQ_INT(a, b, stream);
    EQ_INT(a, b, correlation);
    EQ_INT(a, b, region);
}

static void memsets_equal(const memset_event *a, const memset_event *b)
{
    EQ_INT(a, b, mem);
    EQ_INT(a, b, bytes);
    EQ_INT(a, b, start_ns);
    EQ_INT(a, b, end_ns);
    EQ_INT(a, b, pid);
    EQ_INT(a, b, device);
    EQ_INT(a, b, stream);
    EQ_INT(a, b, correlation);
    EQ_INT(a, b, region);
}

static void apis_equal(const api_event *a, const api_event *b)
{
    EQ_STR(a, b, name);
    EQ_INT(a, b, kind);
    EQ_INT(a, b, start_ns);
    EQ_INT(a, b, end_ns);
    EQ_INT(a, b, pid);
    EQ_INT(a, b, thread);
    EQ_INT(a, b, correlation);
    EQ_INT(a, b, region);
}

static void syncs_equal(const sync_event *a, const sync_event *b)
{
    EQ_INT(a, b, kind);
    EQ_INT(a, b, start_ns);
    EQ_INT(a, b, end_ns);
    EQ_INT(a, b, pid);
    EQ_INT(a, b, thread);
    EQ_INT(a, b, stream);
    EQ_INT(a, b, correlation);
    EQ_INT(a, b, region);
}

/* The event store of two models, compared element by element. */
#define EVENTS_EQUAL(a, b)                                                                        \
    do {                                                                                          \
        EQ_INT(a, b, nkernels);                                                                   \
        for (size_t i_ = 0; i_ < (a)->nkernels; i_++)                                             \
            kernels_equal(&(a)->kernels[i_], &(b)->kernels[i_]);                                  \
        EQ_INT(a, b, ncopies);                                                                    \
        for (size_t i_ = 0; i_ < (a)->ncopies; i_++)                                              \
            copies_equal(&(a)->copies[i_], &(b)->copies[i_]);                                     \
        EQ_INT(a, b, nmemsets);                                                                   \
        for (size_t i_ = 0; i_ < (a)->nmemsets; i_++)                                             \
            memsets_equal(&(a)->memsets[i_], &(b)->memsets[i_]);                                  \
        EQ_INT(a, b, napis);                                                                      \
        for (size_t i_ = 0; i_ < (a)->napis; i_++)                                                \
            apis_equal(&(a)->apis[i_], &(b)->apis[i_]);                                           \
        EQ_INT(a, b, nsyncs);                                                                     \
        for (size_t i_ = 0; i_ < (a)->nsyncs; i_++)                                               \
            syncs_equal(&(a)->syncs[i_], &(b)->syncs[i_]);                                        \
    } while (0)

static void regions_equal(const region *a, const region *b)
{
    EQ_STR(a, b, name);
    if (!a->domain || !b->domain)
        assert_ptr_equal(a->domain, b->domain); /* both NULL */
    else
        EQ_STR(a, b, domain);
    EQ_INT(a, b, kind);
    EQ_INT(a, b, start_ns);
    EQ_INT(a, b, end_ns);
    EQ_INT(a, b, pid);
    EQ_INT(a, b, tid);
    EQ_INT(a, b, parent);
    EQ_INT(a, b, workload);
    EQ_INT(a, b, push_pop);
}

static void occ_equal(const occupancy_check *a, const occupancy_check *b)
{
    EQ_STR(a, b, kernel);
    EQ_INT(a, b, block_size);
    EQ_INT(a, b, dynamic_smem);
    EQ_INT(a, b, registers);
    EQ_INT(a, b, static_smem);
    EQ_INT(a, b, runtime_blocks_per_sm);
}

static void workloads_equal(const workload_run *a, const workload_run *b)
{
    EQ_STR(a, b, name);
    EQ_INT(a, b, host_memory);
    EQ_INT(a, b, needs_gpu);
    EQ_INT(a, b, prec);
    EQ_INT(a, b, status);
    EQ_STR(a, b, status_reason);
    EQ_INT(a, b, device);
    EQ_INT(a, b, repeat);
    EQ_INT(a, b, launched);
    EQ_INT(a, b, timing);
    EQ_INT(a, b, nphases);
    phases_equal(a->phases, b->phases, a->nphases);
    EQ_INT(a, b, region);
    EQ_INT(a, b, nproduct_ms);
    for (int i = 0; i < a->nproduct_ms; i++)
        EQ_DBL(a, b, product_ms[i]);
    EQ_INT(a, b, nocc);
    for (int i = 0; i < a->nocc; i++)
        occ_equal(&a->occ[i], &b->occ[i]);
    EQ_INT(a, b, verified);
    if (a->verified)
        EQ_DBL(a, b, rel_error);
    EQ_DBL(a, b, error_bound);
}

static void devices_equal(const device_info *a, const device_info *b)
{
    EQ_INT(a, b, index);
    EQ_STR(a, b, name);
    EQ_INT(a, b, cc_major);
    EQ_INT(a, b, cc_minor);
    EQ_INT(a, b, sm_count);
    EQ_INT(a, b, clock_khz);
    EQ_INT(a, b, mem_clock_khz);
    EQ_INT(a, b, bus_width_bits);
    EQ_INT(a, b, l2_bytes);
    EQ_INT(a, b, total_mem);
    EQ_INT(a, b, free_mem);
    EQ_INT(a, b, max_threads_per_sm);
    EQ_INT(a, b, max_threads_per_block);
    EQ_INT(a, b, max_blocks_per_sm);
    EQ_INT(a, b, regs_per_sm);
    EQ_INT(a, b, regs_per_block);
    EQ_INT(a, b, warp_size);
    EQ_INT(a, b, smem_per_sm);
    EQ_INT(a, b, smem_per_block);
    EQ_INT(a, b, smem_per_block_optin);
    EQ_INT(a, b, reserved_smem_per_block);
    EQ_STR(a, b, pci_bus_id);
    EQ_INT(a, b, pcie_gen);
    EQ_INT(a, b, pcie_width);
    EQ_STR(a, b, pcie_why);
    EQ_INT(a, b, driver_version);
    EQ_INT(a, b, runtime_version);
}

/* schema_version is the version of the file each was read from, so it is not compared: a model
 * read from a version 1 or 2 file is written as version 3. */
static void models_equal(const run_model *a, const run_model *b)
{
    EQ_INT(a, b, source);
    EQ_STR(a, b, source_file);
    EQ_STR(a, b, tool_version);
    EQ_STR(a, b, command_line);
    EQ_STR(a, b, started_at);
    EQ_INT(a, b, epoch_ns);
    EQ_INT(a, b, builtin.n);
    EQ_INT(a, b, builtin.seed);
    EQ_INT(a, b, builtin.repeat_requested);
    EQ_STR(a, b, builtin.host_memory_requested);

    EQ_INT(a, b, host.known);
    EQ_STR(a, b, host.cpu_model);
    EQ_INT(a, b, host.logical_cores);
    EQ_INT(a, b, host.has_avx2);
    EQ_INT(a, b, host.has_avx512f);
    EQ_STR(a, b, host.os);
    EQ_STR(a, b, builtin.blas.config);
    EQ_STR(a, b, builtin.blas.version);
    EQ_STR(a, b, builtin.blas.core);
    EQ_INT(a, b, builtin.blas.threads);
    EQ_STR(a, b, builtin.blas.library);
    EQ_INT(a, b, counters.asked);
    EQ_INT(a, b, counters.passes);
    EQ_STR(a, b, counters.why);
    EQ_STR(a, b, counters.kernels);
    EQ_INT(a, b, counters.max);

    EQ_INT(a, b, collection.source);
    EQ_STR(a, b, collection.reason);
    EQ_INT(a, b, collection.cupti_version);
    EQ_INT(a, b, collection.records);
    EQ_INT(a, b, collection.dropped);
    EQ_INT(a, b, collection.lost_timestamps);
    EQ_INT(a, b, collection.overhead_records);
    EQ_INT(a, b, collection.outside_workloads);
    EQ_INT(a, b, collection.overhead_ns);
    EQ_DBL(a, b, collection.flush_ms);

    EQ_INT(a, b, ndevices);
    for (int i = 0; i < a->ndevices; i++)
        devices_equal(&a->devices[i], &b->devices[i]);
    EQ_STR(a, b, builtin.gpu_skip_reason);
    EQ_INT(a, b, builtin.ntool_phases);
    phases_equal(a->builtin.tool_phases, b->builtin.tool_phases, a->builtin.ntool_phases);
    EQ_INT(a, b, builtin.nworkloads);
    for (int i = 0; i < a->builtin.nworkloads; i++)
        workloads_equal(&a->builtin.workloads[i], &b->builtin.workloads[i]);
    EVENTS_EQUAL(&a->events, &b->events);
    EQ_INT(a, b, nregions);
    for (int i = 0; i < a->nregions; i++)
        regions_equal(&a->regions[i], &b->regions[i]);
    EQ_INT(a, b, nprocesses);
    for (int i = 0; i < a->nprocesses; i++) {
        EQ_INT(a, b, processes[i].pid);
        EQ_STR(a, b, processes[i].name);
    }
    EQ_INT(a, b, nthreads);
    for (int i = 0; i < a->nthreads; i++) {
        EQ_INT(a, b, threads[i].pid);
        EQ_INT(a, b, threads[i].tid);
        EQ_STR(a, b, threads[i].name);
    }
    EQ_INT(a, b, nwarnings);
    for (int i = 0; i < a->nwarnings; i++)
        EQ_STR(a, b, warnings[i]);
}

/* Writes m, reads it back into out and checks the two agree; the tree written from out must
 * also be the same tree, so nothing the comparison above forgot can differ either. */
static void round_trip(const run_model *m, run_model *out)
{
    cJSON *tree = model_to_json(m);
    assert_non_null(tree);
    /* Through text, as a file would go. */
    char *text = cJSON_PrintUnformatted(tree);
    assert_non_null(text);
    cJSON *parsed = cJSON_Parse(text);
    assert_non_null(parsed);
    char err[512] = "";
    if (!model_from_json(parsed, out, err, sizeof err))
        fail_msg("reading back what was written failed: %s", err);
    assert_int_equal(out->schema_version, MMPROF_SCHEMA_VERSION);
    models_equal(m, out);
    cJSON *again = model_to_json(out);
    assert_non_null(again);
    assert_true(cJSON_Compare(tree, again, true));
    cJSON_Delete(again);
    cJSON_Delete(parsed);
    cJSON_free(text);
    cJSON_Delete(tree);
}

static void sample_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    load_sample(&m);
    /* The sample is what it claims: enough of it that the comparison means something. */
    assert_true(m.ndevices >= 1);
    assert_true(m.builtin.nworkloads >= 2);
    assert_true(m.epoch_ns > ((int64_t)1 << 53)); /* absolute times would not fit a double */
    round_trip(&m, &back);
    model_free(&back);
    model_free(&m);
}

static void ncu_sample_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    load_run(NCU_SAMPLE, &m);
    assert_int_equal(m.collection.source, TIMING_CUDA_EVENT);
    round_trip(&m, &back);
    model_free(&back);
    model_free(&m);
}

/* Under Nsight Systems mmprof left CUPTI alone, said why, and every workload still verified. */
static void nsys_sample_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    load_run(NSYS_SAMPLE, &m);
    assert_int_equal(m.collection.source, TIMING_CUDA_EVENT);
    assert_non_null(strstr(m.collection.reason, "CUDA_INJECTION64_PATH="));
    for (int i = 0; i < m.builtin.nworkloads; i++)
        assert_int_equal(m.builtin.workloads[i].status, WL_OK);
    round_trip(&m, &back);
    model_free(&back);
    model_free(&m);
}

/* Kernel k of the store, as the file's text has it: version 3 keeps every kernel in
 * events.kernels; version 2 kept the run's own there and each workload's inside it, which the
 * reader appends to the store after the run's own, workload by workload. */
static const cJSON *file_kernel(const cJSON *root, size_t k)
{
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "events"), "kernels");
    if (k < (size_t)cJSON_GetArraySize(own))
        return cJSON_GetArrayItem(own, (int)k);
    k -= (size_t)cJSON_GetArraySize(own);
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(root, "workloads")) {
        const cJSON *ks = cJSON_GetObjectItemCaseSensitive(w, "kernels");
        if (k < (size_t)cJSON_GetArraySize(ks))
            return cJSON_GetArrayItem(ks, (int)k);
        k -= (size_t)cJSON_GetArraySize(ks);
    }
    return NULL;
}

/* The file keeps times relative to epoch_ns; the model holds them absolute. Both forms of each
 * kernel's start must agree with the file's text exactly. */
static void times_are_relative_to_the_epoch(void **state)
{
    (void)state;
    cJSON *root = read_json(sample_path());
    assert_non_null(root);
    run_model m;
    load_sample(&m);
    const cJSON *epoch = cJSON_GetObjectItemCaseSensitive(root, "epoch_ns");
    assert_true(cJSON_IsString(epoch));
    assert_int_equal(m.epoch_ns, strtoll(epoch->valuestring, NULL, 10));
    assert_true(m.events.nkernels > 0);
    for (size_t k = 0; k < m.events.nkernels; k++) {
        const cJSON *e = file_kernel(root, k);
        assert_non_null(e);
        int64_t start = (int64_t)cJSON_GetObjectItemCaseSensitive(e, "start_ns")->valuedouble;
        int64_t end = (int64_t)cJSON_GetObjectItemCaseSensitive(e, "end_ns")->valuedouble;
        assert_int_equal(m.events.kernels[k].start_ns, m.epoch_ns + start);
        assert_int_equal(m.events.kernels[k].end_ns, m.epoch_ns + end);
    }
    assert_null(file_kernel(root, m.events.nkernels));
    model_free(&m);
    cJSON_Delete(root);
}

/* A run built here, with what the sample lacks. */
static void build_synthetic(run_model *m)
{
    model_init(m);
    const int64_t epoch = INT64_C(1800000000123456789);
    m->epoch_ns = epoch;
    m->command_line = strdup("mmprof --size 3 --seed 18446744073709551615");
    copy_str(m->started_at, sizeof m->started_at, "2026-01-02T03:04:05Z");
    m->builtin.n = 3;
    m->builtin.seed = UINT64_MAX;
    m->builtin.repeat_requested = 4;
    copy_str(m->builtin.host_memory_requested, sizeof m->builtin.host_memory_requested, "pinned");
    copy_str(m->host.cpu_model, sizeof m->host.cpu_model, "Test CPU \"quoted\" \\ backslash");
    m->host.logical_cores = 2;
    m->host.has_avx2 = true;
    m->host.known = true;
    copy_str(m->builtin.blas.core, sizeof m->builtin.blas.core, "Prescott");
    m->collection.source = TIMING_CUDA_EVENT;
    copy_str(m->collection.reason, sizeof m->collection.reason, "another tool holds CUPTI");
    m->collection.flush_ms = 0.1 + 0.2; /* not a short decimal */
    m->devices = calloc(1, sizeof *m->devices);
    m->ndevices = 1;
    device_info *d = &m->devices[0];
    copy_str(d->name, sizeof d->name, "Test GPU");
    d->cc_major = 8;
    d->cc_minor = 6;
    d->sm_count = 2;
    d->max_threads_per_sm = 1536;
    d->max_threads_per_block = 1024;
    d->warp_size = 32;
    d->total_mem = (uint64_t)1 << 40;
    copy_str(d->pcie_why, sizeof d->pcie_why, "NVML not available"); /* pcie_gen 0: null */
    copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, "");
    phase *tp = &m->builtin.tool_phases[m->builtin.ntool_phases++];
    copy_str(tp->name, sizeof tp->name, "before-epoch");
    tp->start_ns = epoch - 5000; /* negative relative times */
    tp->end_ns = epoch - 1;

    workload_run *cpu = model_add_workload(m);
    copy_str(cpu->name, sizeof cpu->name, "cpu-openblas");
    cpu->timing = TIMING_HOST_CLOCK;
    cpu->status = WL_FAILED;
    copy_str(cpu->status_reason, sizeof cpu->status_reason, "result holds NaN or infinity");
    cpu->verified = false; /* rel_error is written as null */
    cpu->error_bound = 1e-5;
    workload_add_product_ms(cpu, 1.0 / 3.0);

    workload_run *w = model_add_workload(m);
    copy_str(w->name, sizeof w->name, "cuda-naive");
    w->needs_gpu = true;
    w->host_memory = MEM_PINNED;
    w->prec = PREC_TF32;
    w->device = 0;
    w->repeat = 1;
    w->launched = 1;
    w->timing = TIMING_CUDA_EVENT;
    w->verified = true;
    w->rel_error = 2.5e-7;
    w->error_bound = 1e-3;
    phase *p = workload_add_phase(w, "compute");
    p->start_ns = epoch + 10;
    p->end_ns = epoch + 20;
    kernel_event k = {.name = "no_resources", .start_ns = epoch + 11, .end_ns = epoch + 19,
                      .grid = {1, 2, 3}, .block = {4, 5, 6}, .has_resources = false};
    workload_add_kernel(w, &k);
    copy_event c = {.dir = COPY_D2D, .src = MEM_DEVICE, .dst = MEM_DEVICE, .bytes = (uint64_t)1 << 52,
                    .start_ns = epoch + 1, .end_ns = epoch + 2, .device = 0, .stream = UINT32_MAX};
    workload_add_copy(w, &c);
    c.dir = COPY_OTHER;
    c.src = MEM_UNKNOWN;
    workload_add_copy(w, &c);
    api_event a = {.name = "cudaLaunchKernel_v7000", .start_ns = epoch, .end_ns = epoch,
                   .thread = UINT32_MAX, .correlation = 7};
    workload_add_api(w, &a);
    occupancy_check o = {.kernel = "no_resources", .block_size = 120, .registers = 255,
                         .runtime_blocks_per_sm = 0};
    workload_add_occ(w, &o);

    workload_run *s = model_add_workload(m);
    copy_str(s->name, sizeof s->name, "cublas-tf32");
    s->needs_gpu = true;
    s->host_memory = MEM_PAGEABLE;
    s->status = WL_SKIPPED;
    copy_str(s->status_reason, sizeof s->status_reason, "no GPU");

    model_add_warning(m, "first warning");
    model_add_warning(m, "second, with a newline\nand a tab\t");
    assert_true(model_finish_regions(m, "synthetic")); /* as a run recorded now has them */
}

static void synthetic_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    build_synthetic(&m);
    round_trip(&m, &back);
    /* The values that take the other branches came back as such. */
    assert_false(back.events.kernels[0].has_resources);
    assert_int_equal(back.events.kernels[0].region, back.builtin.workloads[1].region);
    assert_int_equal(back.builtin.workloads[0].device, -1);
    assert_false(back.builtin.workloads[0].verified);
    assert_int_equal(back.builtin.seed, UINT64_MAX);
    assert_int_equal(back.devices[0].pcie_gen, 0);
    model_free(&back);
    model_free(&m);
}

static cJSON *at(cJSON *root, const char *path); /* below, with the rejection tests */

/* A sweep's sizes, each workload's own n and its sampling (noise, samples, why it stopped) and the
 * run's sampling settings come back as written. */
static void sweep_fields_round_trip(void **state)
{
    (void)state;
    run_model m, back;
    build_synthetic(&m);
    m.builtin.sizes[0] = 3, m.builtin.sizes[1] = 1000, m.builtin.nsizes = 2;
    m.builtin.max_noise_pct = 0.5;
    m.builtin.max_time_s = 0.25;
    m.builtin.cold_l2 = true;
    m.builtin.workloads[1].n = 1000;
    m.builtin.workloads[1].samples = 17;
    m.builtin.workloads[1].noise_pct = 0.125;
    m.builtin.workloads[1].stopped_by = STOP_TIME;
    round_trip(&m, &back);
    assert_int_equal(back.builtin.nsizes, 2);
    assert_int_equal(back.builtin.sizes[1], 1000);
    assert_close(back.builtin.max_noise_pct, 0.5, 0);
    assert_close(back.builtin.max_time_s, 0.25, 0);
    assert_true(back.builtin.cold_l2);
    assert_int_equal(back.builtin.workloads[0].n, 3);
    assert_int_equal(back.builtin.workloads[1].n, 1000);
    assert_int_equal(back.builtin.workloads[1].samples, 17);
    assert_close(back.builtin.workloads[1].noise_pct, 0.125, 0);
    assert_int_equal(back.builtin.workloads[1].stopped_by, STOP_TIME);
    assert_true(back.builtin.workloads[0].noise_pct < 0); /* not recorded: null, read back as such */
    assert_int_equal(back.builtin.workloads[0].stopped_by, STOP_UNKNOWN);
    model_free(&back);
    model_free(&m);
}

/* The recorded sample predates per-workload sizes and sampling: every workload takes the run's n,
 * and sampling reads as not recorded. */
static void sample_without_sweep_fields_takes_the_run_n(void **state)
{
    (void)state;
    run_model m;
    load_run(V1_SAMPLE, &m);
    assert_int_equal(m.builtin.n, 2048);
    assert_int_equal(m.builtin.nsizes, 0);
    assert_false(m.builtin.cold_l2);
    for (int i = 0; i < m.builtin.nworkloads; i++) {
        assert_int_equal(m.builtin.workloads[i].n, 2048);
        assert_int_equal(m.builtin.workloads[i].samples, 0);
        assert_true(m.builtin.workloads[i].noise_pct < 0);
        assert_int_equal(m.builtin.workloads[i].stopped_by, STOP_UNKNOWN);
    }
    model_free(&m);
}

/* Bad values of the new members are refused with their path. */
static void rejects_bad_sweep_fields(void **state)
{
    (void)state;
    static const struct {
        const char *path, *json, *want;
    } cases[] = {
        {"builtin.config", "{\"sizes\": [64, 0]}", "builtin.config.sizes: expected whole numbers from 1"},
        {"builtin.config", "{\"sizes\": 64}", "builtin.config.sizes: expected an array"},
        {"builtin.config", "{\"max_noise_pct\": -1}", "builtin.config.max_noise_pct: expected a number from 0"},
        {"builtin.config", "{\"cold_l2\": 1}", "builtin.config.cold_l2: expected true or false"},
        {"builtin.workloads[0]", "{\"n\": 0}", "builtin.workloads[0].n: expected an integer from 1"},
        {"builtin.workloads[0]", "{\"stopped_by\": \"boredom\"}", "builtin.workloads[0].stopped_by: expected noise"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_model m;
        build_synthetic(&m);
        cJSON *tree = model_to_json(&m);
        model_free(&m);
        cJSON *obj = at(tree, cases[i].path);
        cJSON *patch = cJSON_Parse(cases[i].json);
        assert_non_null(obj);
        assert_non_null(patch);
        cJSON *item = patch->child;
        cJSON_DetachItemViaPointer(patch, item);
        cJSON_DeleteItemFromObjectCaseSensitive(obj, item->string);
        cJSON_AddItemToObject(obj, item->string, item);
        char err[512] = "";
        run_model back;
        assert_false(model_from_json(tree, &back, err, sizeof err));
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: '%s' does not contain '%s'", i, err, cases[i].want);
        cJSON_Delete(patch);
        cJSON_Delete(tree);
    }
}



/* A run with every field version 1 lacked: events of each kind owned by the run, regions with
 * and without a domain in a parent chain, processes and threads; as an import (source), or as a
 * built-in run (SOURCE_BUILTIN), which adds a workload whose memsets and syncs are owned by its
 * region. */
static void build_timeline(run_model *m, run_source source)
{
    model_init(m);
    const int64_t epoch = INT64_C(1800000000123456789);
    m->epoch_ns = epoch;
    m->source = source;
    copy_str(m->source_file, sizeof m->source_file, "traces/train step.sqlite");
    m->command_line = strdup("mmprof import traces/train step.sqlite");
    m->builtin.n = source == SOURCE_BUILTIN ? 3 : 0; /* an import multiplies no matrices */
    m->collection.source = TIMING_CUPTI;
    m->collection.outside_workloads = 7;
    /* Two devices, as an export describes them: only what it knows (0 where it does not). */
    m->devices = calloc(2, sizeof *m->devices);
    assert_non_null(m->devices);
    m->ndevices = 2;
    for (int i = 0; i < 2; i++) {
        m->devices[i].index = i;
        snprintf(m->devices[i].name, sizeof m->devices[i].name, "NVIDIA H200 #%d", i);
        m->devices[i].cc_major = 9;
        m->devices[i].sm_count = 132;
    }

    const int64_t far = (int64_t)1 << 50; /* far from the epoch, still exact in a double */
    event_list *ev = &m->events;
    kernel_event k = {.name = "void gemm<float, 128>(float const*, float*)", .start_ns = epoch + far,
                      .end_ns = epoch + far + 3, .pid = 4242, .device = 1, .stream = 7, .correlation = 99,
                      .grid = {8, 4, 1}, .block = {128, 1, 1}, .has_resources = true, .registers = 96,
                      .static_smem = 1024, .dynamic_smem = 65536, .smem_optin = true, .local_mem = 8};
    assert_true(events_add_kernel(ev, &k));
    copy_event c = {.dir = COPY_P2P, .src = MEM_ARRAY, .dst = MEM_MANAGED, .bytes = 4096,
                    .start_ns = epoch - far, .end_ns = epoch - far + 5, .pid = UINT32_MAX, .device = 1,
                    .stream = 7, .correlation = 100};
    assert_true(events_add_copy(ev, &c));
    c.dir = COPY_H2H;
    c.src = MEM_PAGEABLE;
    c.dst = MEM_PINNED;
    assert_true(events_add_copy(ev, &c));
    memset_event ms = {.mem = MEM_MANAGED, .bytes = 1 << 20, .start_ns = epoch + 50, .end_ns = epoch + 60,
                       .pid = 4242, .device = 1, .stream = 7, .correlation = 101};
    assert_true(events_add_memset(ev, &ms));
    api_event a = {.name = "cuLaunchKernel", .kind = API_DRIVER, .start_ns = epoch + far - 10,
                   .end_ns = epoch + far - 2, .pid = 4242, .thread = 4243, .correlation = 99};
    assert_true(events_add_api(ev, &a));
    sync_event y = {.kind = SYNC_STREAM_WAIT_EVENT, .start_ns = epoch + 70, .end_ns = epoch + 90, .pid = 4242,
                    .thread = 4243, .stream = 7, .correlation = 102};
    assert_true(events_add_sync(ev, &y));

    /* run > nvtx "step" (domain "app") > annotation (no domain) */
    assert_int_equal(model_add_region(m, REGION_RUN, "train step", NULL, epoch - far, epoch + far + 3, 0, 0, -1), 0);
    int nv = model_add_region(m, REGION_NVTX, "step", "app", epoch + 40, epoch + 95, 4242, UINT32_MAX, 0);
    assert_int_equal(nv, 1);
    m->regions[nv].push_pop = true;
    assert_int_equal(model_add_region(m, REGION_ANNOTATION, "aten::mm", NULL, epoch + 45, epoch + 90, 4242, 4243, nv), 2);

    if (source == SOURCE_BUILTIN) { /* run > workload > phase, the workload owning its events */
        workload_run *w = model_add_workload(m);
        copy_str(w->name, sizeof w->name, "cuda-tiled");
        w->needs_gpu = true;
        w->host_memory = MEM_PINNED;
        w->timing = TIMING_CUPTI;
        phase *p = workload_add_phase(w, "compute");
        p->start_ns = epoch + 100;
        p->end_ns = epoch + 200;
        k.pid = 17;
        k.start_ns = epoch + 110;
        k.end_ns = epoch + 190;
        assert_true(workload_add_kernel(w, &k));
        c.dir = COPY_P2P;
        c.src = MEM_DEVICE;
        c.dst = MEM_ARRAY;
        assert_true(workload_add_copy(w, &c));
        ms.mem = MEM_ARRAY;
        ms.pid = 17;
        assert_true(workload_add_memset(w, &ms));
        a.kind = API_DRIVER;
        a.pid = 17;
        assert_true(workload_add_api(w, &a));
        a.kind = API_RUNTIME;
        a.name = "cudaDeviceSynchronize";
        assert_true(workload_add_api(w, &a));
        y.kind = SYNC_CONTEXT;
        y.pid = 17;
        assert_true(workload_add_sync(w, &y));
    }
    assert_true(model_finish_regions(m, "unused: the run is named"));

    assert_true(model_add_process(m, 4242, "python3"));
    assert_true(model_add_process(m, UINT32_MAX, "pt_main_thread"));
    assert_true(model_add_thread(m, 4242, 4243, "main"));
    assert_true(model_add_thread(m, 4242, UINT32_MAX, "pin_memory"));
}

static void timeline_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    build_timeline(&m, SOURCE_NSYS);
    round_trip(&m, &back);
    /* The new kinds came back as themselves, not as a fallback. */
    assert_int_equal(back.source, SOURCE_NSYS);
    assert_int_equal(back.events.copies[0].dir, COPY_P2P);
    assert_int_equal(back.events.copies[0].src, MEM_ARRAY);
    assert_int_equal(back.events.copies[0].dst, MEM_MANAGED);
    assert_int_equal(back.events.copies[1].dir, COPY_H2H);
    assert_int_equal(back.events.apis[0].kind, API_DRIVER);
    assert_string_equal(back.regions[0].name, "train step");
    assert_string_equal(back.regions[1].domain, "app");
    assert_null(back.regions[2].domain);
    assert_int_equal(back.regions[2].parent, 1);
    assert_true(back.regions[1].push_pop);
    assert_int_equal(back.nregions, 3); /* the file's regions, nothing added on reading */
    assert_false(back.host.known);      /* an import's host is not written */

    /* In the file, times are relative to the epoch: exactly, for the events and the regions too. */
    cJSON *tree = model_to_json(&m);
    assert_non_null(tree);
    assert_null(cJSON_GetObjectItemCaseSensitive(tree, "builtin")); /* only a built-in run has one */
    struct { const char *path; int64_t start; } times[] = {
        {"events.kernels[0]", m.events.kernels[0].start_ns}, {"events.copies[0]", m.events.copies[0].start_ns},
        {"events.memsets[0]", m.events.memsets[0].start_ns}, {"events.apis[0]", m.events.apis[0].start_ns},
        {"events.syncs[0]", m.events.syncs[0].start_ns},     {"regions[0]", m.regions[0].start_ns},
        {"regions[2]", m.regions[2].start_ns},
    };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(at(tree, times[i].path), "start_ns");
        assert_true(cJSON_IsNumber(v));
        assert_true(v->valuedouble == (double)(times[i].start - m.epoch_ns));
    }
    cJSON_Delete(tree);
    model_free(&back);
    model_free(&m);

    /* A built-in run: the workload's events join the store after the run's own, owned by the
     * workload's region, and come back so. */
    build_timeline(&m, SOURCE_BUILTIN);
    round_trip(&m, &back);
    int wr = back.builtin.workloads[0].region;
    assert_int_equal(back.regions[wr].kind, REGION_WORKLOAD);
    assert_int_equal(back.regions[wr].workload, 0);
    assert_int_equal(back.regions[wr + 1].kind, REGION_PHASE);
    assert_int_equal(back.regions[wr + 1].parent, wr);
    assert_int_equal(back.nregions, 5);
    assert_int_equal(back.events.apis[0].region, 0);
    assert_int_equal(back.events.apis[1].region, wr);
    assert_int_equal(back.events.apis[2].kind, API_RUNTIME);
    assert_int_equal(back.events.apis[2].region, wr);
    assert_int_equal(back.events.syncs[1].kind, SYNC_CONTEXT);
    assert_int_equal(back.events.syncs[1].region, wr);
    assert_int_equal(back.events.memsets[1].mem, MEM_ARRAY);
    assert_int_equal(back.events.kernels[1].region, wr);
    assert_int_equal(back.events.copies[2].region, wr);
    assert_int_equal(back.builtin.workloads[0].timed.nkernels, 0); /* nothing left staged */
    model_free(&back);
    model_free(&m);
}

/* Frames in inlined code (host_frame.outer, symbolize.c) round-trip as the "inlined" member, from
 * the tree and from the text, and after a move (model_merge.c's) still name their outer nodes; a
 * run without them has no such member, and one whose member is left out (files before it) reads
 * with none. Refused: an outer node not after its frame, of another process, not native, or a
 * frame given two. */
static void inlined_frames_round_trip(void **state)
{
    (void)state;
    run_model m, back;
    build_timeline(&m, SOURCE_PROFILE);
    host_activity *h = &m.host_activity;
    host_frame mainf = {.pid = 7, .parent = -1, .kind = HOST_FRAME_NATIVE, .function = "main", .file = "/u/l.cu",
                        .line = 67, .module = "/u/l", .offset = 0x9b04};
    host_frame stub = {.pid = 7, .parent = 0, .kind = HOST_FRAME_NATIVE, .function = "empty(int*)", .file = "/u/l.cu",
                       .line = 37, .module = "/u/l", .offset = 0xa0f6};
    host_frame py = {.pid = 7, .parent = -1, .kind = HOST_FRAME_PY, .function = "run", .file = "r.py", .line = 2};
    host_frame outer = {.pid = 7, .parent = 0, .kind = HOST_FRAME_NATIVE, .function = "launch_once",
                        .file = "/u/l.cu", .line = 46, .module = "/u/l", .offset = 0xa0f6};
    assert_int_equal(host_add_frame(h, &mainf), 0);
    assert_int_equal(host_add_frame(h, &stub), 1);
    assert_int_equal(host_add_frame(h, &py), 2);
    cJSON *tree = model_to_json(&m);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tree, "host_activity"), "inlined"));
    cJSON_Delete(tree);
    assert_int_equal(host_add_frame(h, &outer), 3);
    h->frames[1].outer = 3;
    round_trip(&m, &back);
    assert_int_equal(back.host_activity.nframes, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(back.host_activity.frames[i].outer, i == 1 ? 3 : 0);
    assert_string_equal(back.host_activity.frames[3].function, "launch_once");
    /* moved after another run's frames, as a merge moves them */
    host_activity moved = {0};
    assert_int_equal(host_add_frame(&moved, &py), 0);
    assert_true(host_activity_move(&moved, &back.host_activity));
    assert_int_equal(moved.frames[2].outer, 4);
    assert_int_equal(moved.frames[1].outer, 0);
    host_activity_free(&moved);
    model_free(&back);
    char *text = model_to_text(&m);
    assert_non_null(text);
    char err[512] = "";
    if (!model_read_text("inlined.json", text, strlen(text), &back, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(back.host_activity.frames[1].outer, 3);
    model_free(&back);
    free(text);
    tree = model_to_json(&m);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(tree, "host_activity"), "inlined");
    assert_true(model_from_json(tree, &back, err, sizeof err));
    assert_int_equal(back.host_activity.frames[1].outer, 0);
    model_free(&back);
    cJSON_Delete(tree);

    struct { const char *json; const char *detail; } bad[] = {
        {"[[1,0]]", "host_activity.inlined[0][1]: names no frame after its own"},
        {"[[1,1]]", "host_activity.inlined[0][1]: names no frame after its own"},
        {"[[1,4]]", "host_activity.inlined[0][1]: expected an integer from 0 to 3"},
        {"[[0,2]]", "host_activity.inlined[0]: names a frame that is not native"},
        {"[[1,3],[1,3]]", "host_activity.inlined[1][0]: names a frame given an outer node before"},
        {"[[1]]", "host_activity.inlined[0]: expected an array of 2 values"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tree = model_to_json(&m);
        cJSON *ha = cJSON_GetObjectItemCaseSensitive(tree, "host_activity");
        assert_true(cJSON_ReplaceItemInObjectCaseSensitive(ha, "inlined", cJSON_Parse(bad[i].json)));
        err[0] = '\0';
        assert_false(model_from_json(tree, &back, err, sizeof err));
        if (!strstr(err, bad[i].detail))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, bad[i].detail);
        cJSON_Delete(tree);
    }
    /* another process's */
    h->frames[3].pid = 8;
    h->frames[3].parent = -1;
    tree = model_to_json(&m);
    assert_false(model_from_json(tree, &back, err, sizeof err));
    if (!strstr(err, "host_activity.inlined[0][1]: names a frame of process 8, not of its own 7"))
        fail_msg("another process's: \"%s\"", err);
    cJSON_Delete(tree);
    model_free(&m);
}

/* Host activity (host_json.c): frames with their parents, kinds and absent strings, samples (with
 * and without a stack, with and without a state), spans and call sites come back exactly, times
 * relative to the epoch; through model_read_text as a file is read too. A run without any has no
 * member. Kept compact: a sample is an array of six values, about 30 bytes. Refused: a record
 * naming a frame that is not there or is another process's, a parent after its child, a kind,
 * source or state of nothing known. */
static void host_activity_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    build_timeline(&m, SOURCE_PROFILE);
    cJSON *none = model_to_json(&m);
    assert_null(cJSON_GetObjectItemCaseSensitive(none, "host_activity"));
    cJSON_Delete(none);
    host_activity *h = &m.host_activity;
    copy_str(h->mechanism, sizeof h->mechanism, "python-wall+cpu-timer");
    h->rate_hz = 97.5;
    copy_str(h->why_not, sizeof h->why_not, "process 9: timer_create failed: EPERM");
    copy_str(h->symbols_why, sizeof h->symbols_why, "addr2line not found");
    h->stats = (host_collect_stats){.has_sites = true, .sites_taken = ((uint64_t)1 << 40) + 1, .sites_skipped = 7,
                                    .sites_off_ns = 9876543210,
                                    .has_looks = true, .looks_nogil = 1000, .looks_gil = 2, .samples_left_out = 3,
                                    .samples_torn = 4};
    host_frame f0 = {.pid = 4242, .parent = -1, .kind = HOST_FRAME_PY, .function = "main", .file = "t.py", .line = 3};
    host_frame f1 = {.pid = 4242, .parent = 0, .kind = HOST_FRAME_NATIVE, .module = "/lib/x.so",
                     .offset = ((uint64_t)1 << 40) + 7, .function = "f\tg"};
    host_frame f2 = {.pid = UINT32_MAX, .parent = -1, .kind = HOST_FRAME_OP, .function = "aten::mm"};
    assert_int_equal(host_add_frame(h, &f0), 0);
    assert_int_equal(host_add_frame(h, &f1), 1);
    assert_int_equal(host_add_frame(h, &f2), 2);
    host_sample s0 = {.ts_ns = m.epoch_ns + 123456789012, .pid = 4242, .tid = 4243, .frame = 1,
                      .source = HOST_SAMPLE_CPU, .state = 'R'};
    host_sample s1 = {.ts_ns = m.epoch_ns - 5, .pid = 4242, .tid = UINT32_MAX, .frame = -1, .source = HOST_SAMPLE_PY};
    host_span sp = {.start_ns = m.epoch_ns + 10, .end_ns = m.epoch_ns + 20, .pid = UINT32_MAX, .tid = 1, .frame = 2};
    host_site si = {.pid = 4242, .correlation = UINT32_MAX, .frame = 1};
    assert_true(host_add_sample(h, &s0) && host_add_sample(h, &s1) && host_add_span(h, &sp) && host_add_site(h, &si));
    round_trip(&m, &back);
    const host_activity *b = &back.host_activity;
    assert_string_equal(b->mechanism, h->mechanism);
    assert_true(b->rate_hz == 97.5);
    assert_string_equal(b->why_not, h->why_not);
    assert_string_equal(b->symbols_why, h->symbols_why);
    assert_memory_equal(&b->stats, &h->stats, sizeof h->stats);
    {
        /* a sitestat without off_ns (run files before it) reads as none off */
        cJSON *tree = model_to_json(&m);
        cJSON *ss = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tree, "host_activity"), "sitestat");
        cJSON_DeleteItemFromObjectCaseSensitive(ss, "off_ns");
        run_model older;
        char why[256];
        assert_true(model_from_json(tree, &older, why, sizeof why));
        assert_true(older.host_activity.stats.has_sites && older.host_activity.stats.sites_skipped == 7 &&
                    older.host_activity.stats.sites_off_ns == 0);
        model_free(&older);
        cJSON_Delete(tree);
    }
    assert_int_equal(b->nframes, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(b->frames[i].pid, h->frames[i].pid);
        assert_int_equal(b->frames[i].parent, h->frames[i].parent);
        assert_int_equal(b->frames[i].kind, h->frames[i].kind);
        assert_int_equal(b->frames[i].line, h->frames[i].line);
        assert_true(b->frames[i].offset == h->frames[i].offset);
        assert_string_equal(b->frames[i].function, h->frames[i].function);
    }
    assert_string_equal(b->frames[0].file, "t.py");
    assert_null(b->frames[0].module);
    assert_string_equal(b->frames[1].module, "/lib/x.so");
    assert_null(b->frames[1].file);
    assert_int_equal(b->nsamples, 2);
    assert_true(b->samples[0].ts_ns == s0.ts_ns && b->samples[1].ts_ns == s1.ts_ns);
    assert_int_equal(b->samples[0].state, 'R');
    assert_int_equal(b->samples[1].state, 0);
    assert_int_equal(b->samples[1].frame, -1);
    assert_int_equal(b->samples[1].tid, UINT32_MAX);
    assert_int_equal(b->samples[1].source, HOST_SAMPLE_PY);
    assert_int_equal(b->nspans, 1);
    assert_true(b->spans[0].start_ns == sp.start_ns && b->spans[0].end_ns == sp.end_ns);
    assert_int_equal(b->spans[0].frame, 2);
    assert_int_equal(b->nsites, 1);
    assert_int_equal(b->sites[0].correlation, UINT32_MAX);
    assert_int_equal(b->sites[0].frame, 1);
    model_free(&back);

    /* As a file is read (the event arrays and this member's records element by element). */
    char *text = model_to_text(&m);
    assert_non_null(text);
    char err[512] = "";
    if (!model_read_text("host.json", text, strlen(text), &back, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(back.host_activity.nsamples, 2);
    assert_int_equal(back.host_activity.frames[1].parent, 0);
    model_free(&back);
    free(text);

    /* Refusals, each naming the record and field. */
    struct { const char *path; int field; const char *json; const char *detail; } bad[] = {
        {"samples", 3, "7", "host_activity.samples[0][3]: expected an integer from -1 to 2"},
        {"samples", 3, "2", "host_activity.samples[0][3]: names a frame of process 4294967295"},
        {"frames", 1, "2", "host_activity.frames[0][1]: expected an integer from -1 to -1"},
        {"frames", 2, "\"java\"", "host_activity.frames[0][2]: expected \"native\""},
        {"samples", 4, "\"gpu\"", "host_activity.samples[0][4]: expected \"cpu\" or \"py\""},
        {"samples", 5, "\"RS\"", "host_activity.samples[0][5]: expected a letter or null"},
        {"sites", 2, "-1", "host_activity.sites[0][2]: a call site needs a frame"},
        {"sitestat", -1, "{\"taken\":1}", "host_activity: sitestat.skipped: expected a count"},
        {"samplestat", -1, "{\"looks_nogil\":1,\"looks_gil\":2,\"left_out\":-1,\"torn\":0}",
         "host_activity: samplestat.left_out: expected a count"},
        {"sitestat", -1, "[]", "host_activity: sitestat: expected an object or null"},
        {"sitestat", -1, "{\"taken\":1,\"skipped\":2,\"off_ns\":-5}", "host_activity: sitestat.off_ns: expected a count"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *tree = model_to_json(&m);
        cJSON *ha = cJSON_GetObjectItemCaseSensitive(tree, "host_activity");
        if (bad[i].field < 0) /* a member of host_activity itself */
            assert_true(cJSON_ReplaceItemInObjectCaseSensitive(ha, bad[i].path, cJSON_Parse(bad[i].json)));
        else
            assert_true(cJSON_ReplaceItemInArray(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ha, bad[i].path), 0),
                                                 bad[i].field, cJSON_Parse(bad[i].json)));
        err[0] = '\0';
        assert_false(model_from_json(tree, &back, err, sizeof err));
        if (!strstr(err, bad[i].detail))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, bad[i].detail);
        /* The same from the text, its records read element by element */
        char *bad_text = cJSON_PrintUnformatted(tree);
        assert_non_null(bad_text);
        err[0] = '\0';
        assert_false(model_read_text("bad.json", bad_text, strlen(bad_text), &back, err, sizeof err));
        if (!strstr(err, bad[i].detail))
            fail_msg("case %zu, read as text: \"%s\" lacks \"%s\"", i, err, bad[i].detail);
        free(bad_text);
        cJSON_Delete(tree);
    }

    /* Compact: 20000 samples add about 30 bytes each. */
    char *before = model_to_text(&m);
    for (int i = 0; i < 20000; i++) {
        host_sample s = {.ts_ns = m.epoch_ns + 1000000000 + (int64_t)i * 10000019, .pid = 4242, .tid = 4243 + i % 8,
                         .frame = i % 2, .source = HOST_SAMPLE_CPU, .state = 'R'};
        assert_true(host_add_sample(h, &s));
    }
    char *after = model_to_text(&m);
    double per = (double)(strlen(after) - strlen(before)) / 20000;
    assert_true(per < 40);
    free(before);
    free(after);
    model_free(&m);
}

/* A version 1 file loads with the defaults of what it lacks and gets the regions a run recorded
 * now has: the whole run first, a region per workload that ran and one per phase inside it, and
 * its workloads' events in the store, owned by their regions. */
static void v1_sample_gets_regions(void **state)
{
    (void)state;
    run_model m, back;
    load_run(V1_SAMPLE, &m);
    assert_int_equal(m.schema_version, 1);
    assert_int_equal(m.source, SOURCE_BUILTIN);
    assert_int_equal(m.nprocesses, 0);
    assert_true(m.nregions > 0);
    const region *run = &m.regions[0];
    assert_int_equal(run->kind, REGION_RUN);
    assert_int_equal(run->parent, -1);
    assert_int_equal(run->workload, -1);
    int ran = 0, phases = 0, wl_regions = 0, phase_regions = 0;
    for (int i = 0; i < m.builtin.nworkloads; i++) {
        const workload_run *w = &m.builtin.workloads[i];
        ran += w->nphases > 0;
        phases += w->nphases;
        /* its region is the one made for it */
        if (w->nphases > 0)
            assert_int_equal(m.regions[w->region].workload, i);
    }
    /* Every event a workload recorded joined the store, owned by its workload's region. */
    assert_int_equal(m.events.nmemsets + m.events.nsyncs, 0);
    assert_true(m.events.nkernels > 0);
    for (size_t k = 0; k < m.events.nkernels; k++) {
        const kernel_event *e = &m.events.kernels[k];
        assert_int_equal(e->pid, 0);
        assert_true(e->region > 0 && m.regions[e->region].kind == REGION_WORKLOAD);
        assert_true(e->start_ns >= run->start_ns && e->end_ns <= run->end_ns);
    }
    for (size_t a = 0; a < m.events.napis; a++)
        assert_int_equal(m.events.apis[a].kind, API_RUNTIME);
    assert_true(ran >= 2);
    for (int i = 1; i < m.nregions; i++) {
        const region *g = &m.regions[i];
        assert_true(g->parent >= 0 && g->parent < i);
        assert_true(g->workload >= 0 && g->workload < m.builtin.nworkloads);
        assert_true(g->start_ns >= run->start_ns && g->end_ns <= run->end_ns);
        if (g->kind == REGION_WORKLOAD) {
            wl_regions++;
            assert_int_equal(g->parent, 0);
        } else {
            assert_int_equal(g->kind, REGION_PHASE);
            phase_regions++;
            const region *up = &m.regions[g->parent];
            assert_int_equal(up->kind, REGION_WORKLOAD);
            assert_int_equal(up->workload, g->workload);
            assert_non_null(workload_find_phase(&m.builtin.workloads[g->workload], g->name));
        }
    }
    assert_int_equal(wl_regions, ran);
    assert_int_equal(phase_regions, phases);
    /* Written (as version 3) and read back: the same regions, not a second set. */
    round_trip(&m, &back);
    assert_int_equal(back.nregions, m.nregions);
    model_free(&back);
    model_free(&m);
}

/* ---------- rejection ---------- */

/* The element of root at a path like "workloads[1].kernels[0]" ("" is root itself). */
static cJSON *at(cJSON *root, const char *path)
{
    cJSON *cur = root;
    const char *p = path;
    while (cur && *p) {
        char key[64];
        size_t n = strcspn(p, ".[");
        assert_true(n < sizeof key);
        memcpy(key, p, n);
        key[n] = '\0';
        p += n;
        if (n > 0)
            cur = cJSON_GetObjectItemCaseSensitive(cur, key);
        while (cur && *p == '[') {
            cur = cJSON_GetArrayItem(cur, atoi(p + 1));
            p = strchr(p, ']') + 1;
        }
        if (*p == '.')
            p++;
    }
    if (!cur)
        fail_msg("the sample has no '%s'", path);
    return cur;
}

static cJSON *sample_tree; /* the sample as this mmprof writes it (the current version) */
static cJSON *v2_tree;     /* a version 2 built-in run file, as an earlier mmprof wrote it */

static int load_tree(void **state)
{
    (void)state;
    run_model m;
    char err[512];
    if (!model_read_file(sample_path(), &m, err, sizeof err))
        return -1;
    sample_tree = model_to_json(&m);
    model_free(&m);
    char *dir = make_temp_dir();
    char *v2 = dir ? unxz_sample(V2_BUILTIN_XZ, dir, "v2.json") : NULL;
    v2_tree = v2 ? read_json(v2) : NULL;
    free(v2);
    if (dir)
        rm_rf(dir);
    free(dir);
    return sample_tree && v2_tree ? 0 : -1;
}

static int free_tree(void **state)
{
    (void)state;
    cJSON_Delete(sample_tree);
    cJSON_Delete(v2_tree);
    return 0;
}

/* A fresh copy of the sample to spoil. */
static cJSON *sample_copy(void)
{
    cJSON *c = cJSON_Duplicate(sample_tree, true);
    assert_non_null(c);
    return c;
}

static cJSON *v2_copy(void)
{
    cJSON *c = cJSON_Duplicate(v2_tree, true);
    assert_non_null(c);
    return c;
}

static void set_field(cJSON *root, const char *obj, const char *key, cJSON *value)
{
    cJSON *o = at(root, obj);
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        assert_true(cJSON_ReplaceItemInObjectCaseSensitive(o, key, value));
    else
        assert_true(cJSON_AddItemToObject(o, key, value));
}

static void remove_field(cJSON *root, const char *obj, const char *key)
{
    cJSON *o = at(root, obj);
    assert_non_null(cJSON_GetObjectItemCaseSensitive(o, key));
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
}

/* model_from_json refuses root (which it then frees), leaves the model empty, and its message
 * starts with where: the path, then ": ", and contains detail when given. */
static void assert_rejected(cJSON *root, const char *where, const char *detail)
{
    run_model m;
    memset(&m, 0x5A, sizeof m); /* the reader must not rely on the caller's zeroing */
    char err[512] = "";
    bool ok = model_from_json(root, &m, err, sizeof err);
    cJSON_Delete(root);
    if (ok) {
        model_free(&m);
        fail_msg("accepted a run spoilt at '%s'", where);
    }
    print_message("rejected: %s\n", err);
    size_t n = strlen(where);
    if (strncmp(err, where, n) != 0 || strncmp(err + n, ": ", 2) != 0)
        fail_msg("message '%s' does not start with '%s: '", err, where);
    if (detail && !strstr(err, detail))
        fail_msg("message '%s' does not say '%s'", err, detail);
    assert_int_equal(m.builtin.nworkloads, 0);
    assert_null(m.builtin.workloads);
    assert_null(m.devices);
    assert_null(m.command_line);
    assert_int_equal(m.nregions, 0);
    assert_null(m.regions);
    assert_int_equal(m.events.nkernels, 0);
}

/* root with obj.key set to json (removed when json is NULL) is refused, the message naming
 * obj.key and saying detail. */
static void assert_spoilt_rejected(cJSON *root, const char *obj, const char *key, const char *json,
                                   const char *detail)
{
    if (json) {
        cJSON *v = cJSON_Parse(json);
        assert_non_null(v);
        set_field(root, obj, key, v);
    } else {
        remove_field(root, obj, key);
    }
    char where[160];
    snprintf(where, sizeof where, "%s%s%s", obj, obj[0] ? "." : "", key);
    assert_rejected(root, where, detail);
}

static void rejects_wrong_schema(void **state)
{
    (void)state;
    cJSON *r = sample_copy();
    set_field(r, "", "schema", cJSON_CreateString("chrome-trace"));
    assert_rejected(r, "schema", "chrome-trace");

    r = sample_copy();
    set_field(r, "", "schema", cJSON_CreateNumber(1));
    assert_rejected(r, "schema", NULL);
}

/* A JSON document of some other tool has no "schema" at all: the message says what the file
 * is not, rather than only that a field is missing. */
static void rejects_other_documents(void **state)
{
    (void)state;
    run_model m;
    char err[512] = "";
    cJSON *trace = cJSON_Parse("{\"traceEvents\": []}");
    assert_false(model_from_json(trace, &m, err, sizeof err));
    cJSON_Delete(trace);
    assert_non_null(strstr(err, "not an mmprof run file"));

    cJSON *arr = cJSON_Parse("[1, 2, 3]");
    assert_false(model_from_json(arr, &m, err, sizeof err));
    cJSON_Delete(arr);
    assert_non_null(strstr(err, "not a JSON object"));
    assert_true(err[0] != ':' && err[0] != ' '); /* no empty path in front */
}

static void rejects_other_schema_versions(void **state)
{
    (void)state;
    int versions[] = {0, MMPROF_SCHEMA_VERSION + 1, 99};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        cJSON *r = sample_copy();
        set_field(r, "", "schema_version", cJSON_CreateNumber(versions[i]));
        assert_rejected(r, "schema_version", "this mmprof reads 1 to 3");
    }
    /* A newer file says so, rather than only that its version is unknown. */
    cJSON *newer = sample_copy();
    set_field(newer, "", "schema_version", cJSON_CreateNumber(4));
    assert_rejected(newer, "schema_version", "written by a newer mmprof: schema_version 4; this mmprof reads 1 to 3");
    cJSON *r = sample_copy();
    set_field(r, "", "schema_version", cJSON_CreateString("1"));
    assert_rejected(r, "schema_version", NULL);
}

static void rejects_missing_fields(void **state)
{
    (void)state;
    static const struct { const char *obj, *key; } cases[] = {
        {"", "schema_version"},
        {"", "epoch_ns"},
        {"", "builtin"},
        {"builtin", "workloads"},
        {"builtin.config", "seed"},
        {"builtin.blas", "core"},
        {"host", "cpu_model"},
        {"collection", "source"},
        {"devices[0]", "sm_count"},
        {"devices[0]", "pcie_gen"},
        {"builtin.workloads[1]", "phases"},
        {"builtin.workloads[1]", "region"},
        {"builtin.workloads[1]", "verification"},
        {"builtin.workloads[1].verification", "rel_error"},
        {"events.kernels[0]", "start_ns"},
        {"events.kernels[0]", "registers"},
        {"events.copies[1]", "bytes"},
        {"events.apis[4]", "correlation"},
        {"builtin.workloads[1].occupancy_checks[0]", "runtime_blocks_per_sm"},
        {"builtin.workloads[1].phases[2]", "end_ns"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_spoilt_rejected(sample_copy(), cases[i].obj, cases[i].key, NULL, "missing");
}

static void rejects_wrong_types(void **state)
{
    (void)state;
    static const struct { const char *obj, *key, *json; } cases[] = {
        {"events.kernels[0]", "start_ns", "\"754100796\""},
        {"events.kernels[0]", "start_ns", "1.5"},
        {"events.kernels[0]", "grid", "[1, 2]"},
        {"events.kernels[0]", "block", "[16, -16, 1]"},
        {"events.kernels[0]", "name", "null"},
        {"events.kernels[0]", "smem_optin", "0"},
        {"events.kernels[0]", "region", "99999"},
        {"events.kernels[0]", "region", "-1"},
        {"events.copies[0]", "dir", "\"sideways\""},
        {"events.copies[0]", "src", "\"cloud\""},
        {"events.copies[0]", "bytes", "-1"},
        {"builtin.workloads[1]", "needs_gpu", "\"yes\""},
        {"builtin.workloads[1]", "status", "\"great\""},
        {"builtin.workloads[1]", "timing", "\"sundial\""},
        {"builtin.workloads[1]", "device", "99"}, /* the run recorded two devices */
        {"builtin.workloads[1]", "region", "0"},  /* the run's, not a workload region */
        {"events", "kernels", "{}"},
        {"builtin.workloads[1]", "product_ms", "[1, -2]"},
        {"host", "avx2", "1"},
        {"builtin.config", "n", "0"},
        {"builtin.config", "seed", "\"-1\""},
        {"builtin.config", "seed", "\"12abc\""},
        {"", "epoch_ns", "1795967178639765135"},
        {"devices[0]", "sm_count", "\"132\""},
        {"devices[0]", "pcie_gen", "99"},
        {"", "warnings", "[\"ok\", 3]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *r = sample_copy();
        cJSON *v = cJSON_Parse(cases[i].json);
        assert_non_null(v);
        set_field(r, cases[i].obj, cases[i].key, v);
        char where[160];
        snprintf(where, sizeof where, "%s%s%s", cases[i].obj, cases[i].obj[0] ? "." : "", cases[i].key);
        /* Errors inside an array name the element. */
        if (strcmp(cases[i].key, "product_ms") == 0)
            snprintf(where, sizeof where, "%s.product_ms[1]", cases[i].obj);
        if (strcmp(cases[i].key, "warnings") == 0)
            snprintf(where, sizeof where, "warnings[1]");
        assert_rejected(r, where, NULL);
    }
}

static void rejects_end_before_start(void **state)
{
    (void)state;
    static const char *const objs[] = {
        "events.kernels[0]", "events.copies[2]", "events.apis[0]", "builtin.workloads[1].phases[3]",
        "builtin.tool_phases[0]",
    };
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        cJSON *r = sample_copy();
        cJSON *o = at(r, objs[i]);
        double start = cJSON_GetObjectItemCaseSensitive(o, "start_ns")->valuedouble;
        set_field(r, objs[i], "end_ns", cJSON_CreateNumber(start - 1));
        char where[160];
        snprintf(where, sizeof where, "%s.end_ns", objs[i]);
        assert_rejected(r, where, "before it starts");
    }
}

/* A relative time that would overflow when the epoch is added back is refused, not wrapped. */
static void rejects_times_past_the_clock(void **state)
{
    (void)state;
    cJSON *r = sample_copy();
    set_field(r, "", "epoch_ns", cJSON_CreateString("9223372036854775000"));
    assert_rejected(r, "builtin.tool_phases[0].start_ns", NULL);
}

/* The timeline run (a built-in one, so with a workload) as a tree to spoil. */
static cJSON *timeline_tree(void)
{
    run_model m;
    build_timeline(&m, SOURCE_BUILTIN);
    cJSON *t = model_to_json(&m);
    model_free(&m);
    assert_non_null(t);
    return t;
}

static void rejects_bad_timeline(void **state)
{
    (void)state;
    static const struct { const char *obj, *key, *json, *detail; } cases[] = {
        {"regions[2]", "parent", "2", "earlier region"},  /* itself */
        {"regions[1]", "parent", "3", "earlier region"},  /* forward */
        {"regions[0]", "parent", "0", "earlier region"},
        {"regions[1]", "parent", "-1", "earlier region"}, /* a second top: only the run is */
        {"regions[1]", "parent", "-2", NULL},
        {"regions[3]", "workload", "1", "the run has 1 workload"},
        {"regions[3]", "workload", "-2", NULL},
        {"regions[1]", "kind", "\"chapter\"", "chapter"},
        {"regions[1]", "kind", "\"run\"", "one run region"},
        {"regions[0]", "kind", "\"nvtx\"", "the first region is the run's"},
        {"regions[1]", "domain", "7", "string or null"},
        {"regions[1]", "tid", "4294967296", NULL},
        {"regions[1]", "end_ns", "0", "before it starts"},
        {"events.apis[0]", "kind", "\"hypervisor\"", "runtime or driver"},
        {"events.apis[2]", "region", "5", "the run has 5 regions"},
        {"events.kernels[0]", "pid", "4294967296", NULL},
        {"events.kernels[1]", "pid", "-1", NULL},
        {"processes[0]", "pid", "4294967296", NULL},
        {"threads[1]", "tid", "4294967296", NULL},
        {"events.copies[0]", "dir", "\"sideways\"", "PtoP"},
        {"events.memsets[0]", "mem", "\"cloud\"", "cloud"},
        {"events.syncs[1]", "kind", "\"nap\"", "stream-wait-event"},
        {"builtin.workloads[0]", "region", "1", "not a workload region"},
        {"", "source", "\"csv\"", "nsys-sqlite"},
        {"", "source", "\"kineto\"", "holds built-in workloads"},
        {"", "events", "[]", "object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_spoilt_rejected(timeline_tree(), cases[i].obj, cases[i].key, cases[i].json, cases[i].detail);
    cJSON *r = timeline_tree();
    set_field(r, "", "schema_version", cJSON_CreateNumber(4));
    assert_rejected(r, "schema_version", "written by a newer mmprof: schema_version 4; this mmprof reads 1 to 3");
}

/* What version 1 may lack, later versions must have. */
static void rejects_later_files_without_their_fields(void **state)
{
    (void)state;
    static const struct { const char *obj, *key; } cases[] = {
        {"", "source"},
        {"", "events"},
        {"", "regions"},
        {"", "threads"},
        {"collection", "outside_workloads"},
        {"events", "syncs"},
        {"events.kernels[1]", "pid"},
        {"events.apis[1]", "kind"},
        {"regions[1]", "domain"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_spoilt_rejected(timeline_tree(), cases[i].obj, cases[i].key, NULL, "missing");
}

/* A version 2 file (an earlier mmprof's built-in run) is read as it was written: its workloads'
 * events inside them, its settings at the top; and what it got wrong is refused with version 2's
 * paths. */
static void v2_file_reads_and_refuses(void **state)
{
    (void)state;
    run_model m, back;
    char err[512] = "";
    cJSON *t = v2_copy();
    int nk = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(t, "workloads"))
        nk += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(w, "kernels"));
    nk += cJSON_GetArraySize(at(t, "events.kernels"));
    if (!model_from_json(t, &m, err, sizeof err))
        fail_msg("%s", err);
    cJSON_Delete(t);
    assert_int_equal(m.schema_version, 2);
    assert_int_equal((int)m.events.nkernels, nk);
    assert_int_equal(m.builtin.n, 2048);
    assert_true(m.builtin.blas.core[0] != '\0'); /* from "host" */
    round_trip(&m, &back); /* written as version 3, the same model */
    model_free(&back);
    model_free(&m);
    static const struct { const char *obj, *key, *json; } cases[] = {
        {"workloads[1].kernels[0]", "pid", "-1"},
        {"workloads[1].api_calls[0]", "kind", "\"hypervisor\""},
        {"workloads[1].kernels[0]", "device", "2"},
        {"workloads[1].copies[0]", "device", "4294967295"},
        {"workloads[1]", "kernels", "{}"},
        {"config", "n", "0"},
        {"host", "blas_core", "7"},
        {"", "tool_phases", "{}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_spoilt_rejected(v2_copy(), cases[i].obj, cases[i].key, cases[i].json, NULL);
    assert_spoilt_rejected(v2_copy(), "workloads[1]", "api_calls", NULL, "missing");
}

/* A kernel's or copy's device beyond the run's devices is refused where it is read, naming the
 * field (the sample, recorded on a 2-GPU machine, has devices 0 and 1; 2147483648 once overflowed
 * the trace's process ids). */
static void rejects_devices_beyond_the_run(void **state)
{
    (void)state;
    static const struct { const char *obj; double device; } cases[] = {
        {"events.kernels[0]", 2147483648.0},
        {"events.kernels[0]", 2},
        {"events.copies[1]", 2},
        {"events.copies[0]", 4294967295.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *r = sample_copy();
        set_field(r, cases[i].obj, "device", cJSON_CreateNumber(cases[i].device));
        char where[160];
        snprintf(where, sizeof where, "%s.device", cases[i].obj);
        assert_rejected(r, where, "names no recorded device");
    }
}

/* ---------- files ---------- */

static char *tmp;

static int make_tmp(void **state)
{
    (void)state;
    tmp = make_temp_dir();
    return tmp ? 0 : -1;
}

static int remove_tmp(void **state)
{
    (void)state;
    rm_rf(tmp);
    free(tmp);
    return 0;
}

/* model_read_file refuses path; the message names the file and contains detail. */
static void assert_file_rejected(const char *path, const char *detail)
{
    run_model m;
    char err[512] = "";
    if (model_read_file(path, &m, err, sizeof err)) {
        model_free(&m);
        fail_msg("read '%s' as a run", path);
    }
    print_message("rejected: %s\n", err);
    char quoted[600];
    snprintf(quoted, sizeof quoted, "'%s'", path);
    if (!strstr(err, quoted))
        fail_msg("message '%s' does not name %s", err, quoted);
    if (detail && !strstr(err, detail))
        fail_msg("message '%s' does not say '%s'", err, detail);
    assert_int_equal(m.builtin.nworkloads, 0);
    assert_null(m.devices);
}

static void read_file_errors(void **state)
{
    (void)state;
    char path[512];

    snprintf(path, sizeof path, "%s/missing.json", tmp);
    assert_file_rejected(path, "No such file");

    snprintf(path, sizeof path, "%s/empty.json", tmp);
    assert_true(write_text(path, ""));
    assert_file_rejected(path, "not valid JSON");

    snprintf(path, sizeof path, "%s/words.json", tmp);
    assert_true(write_text(path, "mmprof 0.1.0  C = A x B, n = 2048\n"));
    assert_file_rejected(path, "not valid JSON");

    /* The sample cut in half: valid up to the cut, which the message places. */
    size_t len;
    char *text = read_file(sample_path(), &len);
    assert_non_null(text);
    text[len / 2] = '\0';
    snprintf(path, sizeof path, "%s/truncated.json", tmp);
    assert_true(write_text(path, text));
    free(text);
    assert_file_rejected(path, "not valid JSON");

    /* JSON followed by more: a second document glued on. */
    snprintf(path, sizeof path, "%s/trailing.json", tmp);
    assert_true(write_text(path, "{} {}"));
    assert_file_rejected(path, "not valid JSON");

    assert_file_rejected(tmp, NULL); /* a directory */

    snprintf(path, sizeof path, "%s/version.json", tmp);
    assert_true(write_text(path, "{\"schema\": \"mmprof-run\", \"schema_version\": 4}"));
    assert_file_rejected(path, "schema_version");
}

/* The place of a syntax error is given as a line, counted from 1. */
static void read_file_names_the_line(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/line3.json", tmp);
    assert_true(write_text(path, "{\n  \"schema\": \"mmprof-run\",\n  \"schema_version\": ,\n}\n"));
    assert_file_rejected(path, "line 3");
}

/* Reading a file leaves its "analysis" out (member_drop.h): the model is the one the whole text
 * gives, and a fault before or after that member is placed at the file's byte and line, as in the
 * whole text. */
static void read_file_leaves_the_analysis_out(void **state)
{
    (void)state;
    size_t len;
    char *text = read_file(sample_path(), &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "\n\"analysis\": {"));
    char path[512], err_file[512] = "", err_text[512] = "";
    snprintf(path, sizeof path, "%s/with-analysis.json", tmp);
    assert_true(write_text(path, text));
    run_model a, b;
    if (!model_read_file(path, &a, err_file, sizeof err_file))
        fail_msg("%s", err_file);
    if (!model_read_text(path, text, len, &b, err_text, sizeof err_text))
        fail_msg("%s", err_text);
    models_equal(&a, &b);
    model_free(&a);
    model_free(&b);
    /* A fault after the analysis (a member glued on after it), then one before it. */
    char *end = strrchr(text, '}');
    assert_non_null(end);
    char *after = malloc(len + 64);
    assert_non_null(after);
    size_t head = (size_t)(end - text);
    memcpy(after, text, head);
    strcpy(after + head, ",\n\"after\": tru}\n");
    char *before = strdup(text);
    assert_non_null(before);
    char *version = strstr(before, "\"schema_version\": 3");
    assert_non_null(version);
    memcpy(version + strlen("\"schema_version\": "), "?", 1);
    const char *const faulty[] = {after, before};
    for (size_t i = 0; i < 2; i++) {
        assert_true(write_text(path, faulty[i]));
        assert_false(model_read_file(path, &a, err_file, sizeof err_file));
        assert_false(model_read_text(path, faulty[i], strlen(faulty[i]), &b, err_text, sizeof err_text));
        print_message("%s\n", err_file);
        assert_string_equal(err_file, err_text);
    }
    free(after);
    free(before);
    free(text);
}

/* Valid JSON nested past cJSON's limit is reported as too deep, not as invalid; at the limit it
 * is read as JSON (and refused as no run file: an array). */
static void read_file_names_nesting_depth(void **state)
{
    (void)state;
    char path[512];
    size_t deep = 100000;
    char *text = malloc(2 * deep + 2);
    assert_non_null(text);
    memset(text, '[', deep);
    memset(text + deep, ']', deep);
    text[2 * deep] = '\n';
    text[2 * deep + 1] = '\0';
    snprintf(path, sizeof path, "%s/deep.json", tmp);
    assert_true(write_text(path, text));
    char limit[64];
    snprintf(limit, sizeof limit, "nested deeper than %d levels", CJSON_NESTING_LIMIT);
    assert_file_rejected(path, limit);
    /* A string full of brackets does not count as nesting. */
    snprintf(text, 2 * deep + 2, "{\"s\": \"[[[[[[[[[[\", \"t\": ");
    assert_true(write_text(path, text));
    assert_file_rejected(path, "not valid JSON");
    size_t ok = CJSON_NESTING_LIMIT;
    memset(text, '[', ok);
    memset(text + ok, ']', ok);
    text[2 * ok] = '\0';
    assert_true(write_text(path, text));
    assert_file_rejected(path, "not a JSON object");
    free(text);
}

static void read_file_reads_what_was_written(void **state)
{
    (void)state;
    run_model m, back;
    build_synthetic(&m);
    cJSON *tree = model_to_json(&m);
    char *text = cJSON_Print(tree);
    cJSON_Delete(tree);
    char path[512];
    snprintf(path, sizeof path, "%s/synthetic.json", tmp);
    assert_true(write_text(path, text));
    cJSON_free(text);
    char err[512] = "";
    if (!model_read_file(path, &back, err, sizeof err))
        fail_msg("%s", err);
    models_equal(&m, &back);
    model_free(&back);
    /* Compressed, as a run file may be kept or sent, it reads the same (told by content). */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s.z'", path, path);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s.z", path);
    if (!model_read_file(cmd, &back, err, sizeof err))
        fail_msg("%s", err);
    models_equal(&m, &back);
    model_free(&back);
    model_free(&m);
}


/* A long run's store in columns (event_columns.h): the same model back, through a tree and
 * through text (where the columns are read from the text, not from a cJSON tree). The threshold
 * is lowered so a short sample takes that form. */
static void columns_round_trip(void **state)
{
    (void)state;
    const char *paths[] = {"samples/h200-profile-train.json", NCU_SAMPLE};
    for (size_t p = 0; p < 2; p++) {
        run_model m, back;
        load_run(paths[p], &m);
        event_columns_min = 1;
        cJSON *tree = model_to_json(&m);
        assert_non_null(tree);
        const cJSON *form = at(tree, "events.form");
        assert_true(cJSON_IsString(form) && strcmp(form->valuestring, "columns") == 0);
        /* Each distinct name once: the sample's 8,412 API calls have 47 names. */
        assert_true(cJSON_GetArraySize(at(tree, "events.names")) < 100);
        cJSON_Delete(tree);
        round_trip(&m, &back);
        model_free(&back);
        char *text = model_to_text(&m);
        event_columns_min = EVENT_COLUMNS_MIN;
        assert_non_null(text);
        char err[512] = "";
        if (!model_read_text("columns.json", text, strlen(text), &back, err, sizeof err))
            fail_msg("%s", err);
        models_equal(&m, &back);
        /* Names shared, not copied per event. */
        if (back.events.napis > 1)
            for (size_t i = 1; i < back.events.napis; i++)
                if (strcmp(back.events.apis[i].name, back.events.apis[0].name) == 0)
                    assert_ptr_equal(back.events.apis[i].name, back.events.apis[0].name);
        free(text);
        model_free(&back);
        /* Below the threshold: one event per line, as before. */
        tree = model_to_json(&m);
        assert_true(cJSON_IsArray(at(tree, "events.kernels")));
        cJSON_Delete(tree);
        model_free(&m);
    }
}

/* Bad columns are refused with the column and the event named. */
static void rejects_bad_columns(void **state)
{
    (void)state;
    run_model m, back;
    load_run("samples/h200-profile-train.json", &m);
    event_columns_min = 1;
    char *text = model_to_text(&m);
    event_columns_min = EVENT_COLUMNS_MIN;
    assert_non_null(text);
    model_free(&m);
    struct {
        const char *from, *to, *says;
    } cases[] = {
        {"\"dur_ns\": [", "\"dur_ns\": [-9", "dur_ns[0]: out of range"}, /* the first negative */
        {"\"dur_ns\": [", "\"dur_ns\": [7,", "dur_ns: "},                   /* one value too many */
        {"\"region\": [", "\"region\": [99999", "region[0]: out of range"},
        {"\"dur_ns\": [", "\"dur_ns\": [1.5,", "expected an integer"},
        {"\"dur_ns\": [", "\"width\": [1], \"dur_ns\": [", "unknown column 'width'"},
        {"\"name\": [", "\"name\": [100000", "name[0]: out of range"},
        {"\"form\": \"columns\"", "\"form\": \"rows\"", "form"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *at_ = strstr(text, cases[i].from);
        assert_non_null(at_);
        size_t pre = (size_t)(at_ - text), flen = strlen(cases[i].from), tlen = strlen(cases[i].to);
        char *bad = malloc(strlen(text) + tlen + 1);
        assert_non_null(bad);
        memcpy(bad, text, pre);
        memcpy(bad + pre, cases[i].to, tlen);
        strcpy(bad + pre + tlen, at_ + flen);
        char err[512] = "";
        assert_false(model_read_text("bad.json", bad, strlen(bad), &back, err, sizeof err));
        if (!strstr(err, cases[i].says))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].says);
        free(bad);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest round_trips[] = {
        cmocka_unit_test(sample_round_trips),
        cmocka_unit_test(ncu_sample_round_trips),
        cmocka_unit_test(nsys_sample_round_trips),
        cmocka_unit_test(times_are_relative_to_the_epoch),
        cmocka_unit_test(synthetic_round_trips),
        cmocka_unit_test(sweep_fields_round_trip),
        cmocka_unit_test(sample_without_sweep_fields_takes_the_run_n),
        cmocka_unit_test(rejects_bad_sweep_fields),
        cmocka_unit_test(timeline_round_trips),
        cmocka_unit_test(host_activity_round_trips),
        cmocka_unit_test(inlined_frames_round_trip),
        cmocka_unit_test(columns_round_trip),
        cmocka_unit_test(rejects_bad_columns),
        cmocka_unit_test(v1_sample_gets_regions),
    };
    const struct CMUnitTest rejection[] = {
        cmocka_unit_test(rejects_wrong_schema),
        cmocka_unit_test(rejects_other_documents),
        cmocka_unit_test(rejects_other_schema_versions),
        cmocka_unit_test(rejects_missing_fields),
        cmocka_unit_test(rejects_wrong_types),
        cmocka_unit_test(rejects_end_before_start),
        cmocka_unit_test(rejects_times_past_the_clock),
        cmocka_unit_test(rejects_bad_timeline),
        cmocka_unit_test(rejects_later_files_without_their_fields),
        cmocka_unit_test(v2_file_reads_and_refuses),
        cmocka_unit_test(rejects_devices_beyond_the_run),
    };
    const struct CMUnitTest files[] = {
        cmocka_unit_test(read_file_errors),
        cmocka_unit_test(read_file_names_the_line),
        cmocka_unit_test(read_file_leaves_the_analysis_out),
        cmocka_unit_test(read_file_names_nesting_depth),
        cmocka_unit_test(read_file_reads_what_was_written),
    };
    int failed = cmocka_run_group_tests_name("model_json round trip", round_trips, NULL, NULL);
    failed += cmocka_run_group_tests_name("model_json rejection", rejection, load_tree, free_tree);
    failed += cmocka_run_group_tests_name("model_json files", files, make_tmp, remove_tmp);
    return failed;
}
