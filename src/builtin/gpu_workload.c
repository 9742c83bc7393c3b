/* One GPU workload through its phases. See gpu_workload.h; the GPU work is gpu_runner.h's. */
#include "gpu_workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "gpu_counters.h"
#include "ranges.h"
#include "verify.h"

#define MAX_SAMPLES 200 /* as the fixed-target count was capped before: a sweep of tiny kernels stays a few MB */
#define MIN_SAMPLES 10

sample_rule gpu_sample_rule(int repeat, double max_noise_pct, double max_time_ms)
{
    sample_rule r;
    memset(&r, 0, sizeof r);
    r.fixed = repeat;
    r.min_samples = MIN_SAMPLES;
    r.max_samples = MAX_SAMPLES;
    r.max_noise_pct = max_noise_pct;
    r.max_time_ms = max_time_ms;
    return r;
}

typedef struct {
    gpu_job g;
    const gpu_inputs *in;
    workload_run *w;
    int64_t host_ref; /* collector_now() when EV_REF completed */
    double *ms;       /* the compute phase's samples (room for the rule's cap) */
    sample_result got;
    char err[256];
} job;

static int allocate(job *j, char *err, size_t errlen)
{
    if (gpu_allocate(&j->g, err, errlen) != 0)
        return -1;
    if (j->g.c->setup && j->g.c->setup(err, errlen) != 0)
        return -1;
    return 0;
}

static int copy_in(job *j, char *err, size_t errlen)
{
    /* The reference event ties event times to the host clock for cudaEvent timing. */
    if (gpu_reference_event(err, errlen) != 0)
        return -1;
    j->host_ref = collector_now();
    return gpu_copy_in(&j->g, err, errlen);
}

/* One batch of samples for sampling.h: the launches back to back, one synchronization, then each
 * launch's time from its events. */
typedef struct {
    job *j;
    char *err;
    size_t errlen;
} batch_ctx;

static int take_launches(void *ctx, int first, int count, double *ms)
{
    batch_ctx *b = ctx;
    int base = EV_START(EV_COMPUTE, first);
    if (gpu_events_reserve(EV_START(EV_COMPUTE, first + count), b->err, b->errlen) != 0 ||
        gpu_launches(&b->j->g, base, count, b->err, b->errlen) != 0)
        return -1;
    for (int i = 0; i < count; i++)
        if (gpu_event_ms(EV_START(base, i), EV_END(base, i), &ms[i], b->err, b->errlen) != 0)
            return -1;
    return 0;
}

static double host_ms(void *ctx)
{
    (void)ctx;
    return (double)collector_now() / 1e6;
}

/* The warm-up's last launch: the expected time of one sample. */
static double warm_sample_ms(void)
{
    double ms = 0;
    if (gpu_event_ms(EV_START(EV_W0, WARMUP_LAUNCHES - 1), EV_END(EV_W0, WARMUP_LAUNCHES - 1), &ms, NULL, 0) != 0)
        return 0;
    return ms;
}

static int copy_out(job *j, char *err, size_t errlen)
{
    return gpu_copy_out(&j->g, err, errlen);
}

/* Event time on the host clock: the reference event's host time plus the elapsed time. */
static int64_t event_time(job *j, int ev)
{
    double ms = 0;
    if (gpu_event_ms(EV_REF, ev, &ms, NULL, 0) != 0)
        return j->host_ref;
    return j->host_ref + (int64_t)llround(ms * 1e6);
}

static void add_event_copy(job *j, copy_dir dir, int from, int to)
{
    bool pinned = j->w->host_memory == MEM_PINNED;
    mem_kind host = pinned ? MEM_PINNED : MEM_PAGEABLE;
    copy_event c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.src = dir == COPY_H2D ? host : MEM_DEVICE;
    c.dst = dir == COPY_H2D ? MEM_DEVICE : host;
    c.bytes = j->g.bytes;
    c.start_ns = event_time(j, from);
    c.end_ns = event_time(j, to);
    c.device = (uint32_t)j->g.device;
    workload_add_copy(j->w, &c);
}

static void add_event_kernel(job *j, int from, int to, const kernel_resources *attr)
{
    kernel_event k;
    memset(&k, 0, sizeof k);
    k.name = j->g.has_shape ? j->g.shape.name : (char *)"cuBLAS (kernel names need CUPTI)";
    k.start_ns = event_time(j, from);
    k.end_ns = event_time(j, to);
    k.device = (uint32_t)j->g.device;
    if (j->g.has_shape) {
        memcpy(k.grid, j->g.shape.grid, sizeof k.grid);
        memcpy(k.block, j->g.shape.block, sizeof k.block);
        k.has_resources = attr != NULL;
        if (attr) {
            k.registers = attr->registers;
            k.static_smem = attr->static_smem;
            k.dynamic_smem = j->g.shape.dynamic_smem;
            k.local_mem = attr->local_mem;
        }
    }
    workload_add_kernel(j->w, &k);
}

/* Under cudaEvent timing the events become the workload's copy and kernel records. */
static void events_as_records(job *j, int repeat, const kernel_resources *attr)
{
    add_event_copy(j, COPY_H2D, EV_A0, EV_A1);
    add_event_copy(j, COPY_H2D, EV_A1, EV_B1);
    for (int i = 0; i < WARMUP_LAUNCHES; i++)
        add_event_kernel(j, EV_START(EV_W0, i), EV_END(EV_W0, i), attr);
    for (int i = 0; i < repeat; i++)
        add_event_kernel(j, EV_START(EV_COMPUTE, i), EV_END(EV_COMPUTE, i), attr);
    add_event_copy(j, COPY_D2H, EV_C0, EV_C1);
}

/* The CUDA runtime's occupancy for our own kernels, for the calculator to be checked against. */
static int occupancy_check_of(job *j, kernel_resources *attr, char *err, size_t errlen)
{
    int blocks = 0;
    if (gpu_kernel_resources(&j->g, attr, &blocks, err, errlen) != 0)
        return -1;
    const kernel_shape *s = &j->g.shape;
    occupancy_check o;
    memset(&o, 0, sizeof o);
    snprintf(o.kernel, sizeof o.kernel, "%s", s->name);
    o.block_size = s->block[0] * s->block[1] * s->block[2];
    o.dynamic_smem = s->dynamic_smem;
    o.registers = attr->registers;
    o.static_smem = attr->static_smem;
    o.runtime_blocks_per_sm = blocks;
    workload_add_occ(j->w, &o);
    return 0;
}

static void mark_error(workload_run *w, const char *err)
{
    w->status = WL_ERROR;
    snprintf(w->status_reason, sizeof w->status_reason, "%s", err[0] ? err : "unknown error");
}

typedef int (*step_fn)(job *, char *, size_t);

/* Runs one step inside its phase; on failure records the error. True when the step succeeded. */
static bool step(job *j, const char *phase_name, step_fn fn)
{
    phase *p = phase_begin(j->w, phase_name, j->in->n);
    int rc = fn(j, j->err, sizeof j->err);
    phase_end(p);
    if (rc != 0)
        mark_error(j->w, j->err);
    return rc == 0;
}

/* Fault injection for the watchdog's test: with MMPROF_FAULT_GPU_HANG_MS set, one thread spins on
 * the GPU's nanosecond timer that long on the run's stream before the warm-up, so the workload's
 * next wait does not return in time (a stand-in for a kernel that hangs). Not for users; the
 * variable is documented in README.md with the watchdog. */
static int fault_hang(job *j, char *err, size_t errlen)
{
    (void)j;
    const char *s = getenv("MMPROF_FAULT_GPU_HANG_MS");
    long ms = s ? strtol(s, NULL, 10) : 0;
    if (ms <= 0)
        return 0;
    return gpu_fault_spin(ms, err, errlen);
}

static int warm_up(job *j, char *err, size_t errlen)
{
    if (fault_hang(j, err, errlen) != 0)
        return -1;
    return gpu_launches(&j->g, EV_W0, WARMUP_LAUNCHES, err, errlen);
}

/* The compute phase: samples by the rule into j->ms. */
static int compute(job *j, char *err, size_t errlen)
{
    batch_ctx b = {j, err, errlen};
    if (sample_until(&j->in->rule, warm_sample_ms(), take_launches, host_ms, &b, j->ms, &j->got) != 0)
        return -1;
    return 0;
}

void gpu_workload_run(const gpu_compute *c, const gpu_inputs *in, mem_kind kind, workload_run *w)
{
    job j;
    memset(&j, 0, sizeof j);
    gpu_job_init(&j.g, c, in->n, in->A, in->B, kind);
    j.in = in, j.w = w;
    w->needs_gpu = true;
    w->host_memory = kind;
    w->prec = c->prec;
    w->device = j.g.device;
    w->host_tid = (uint32_t)gettid();
    w->timing = collector_cupti_active() ? TIMING_CUPTI : TIMING_CUDA_EVENT;
    w->error_bound = error_bound(c->prec);
    j.g.has_shape = c->shape && c->shape(in->n, &j.g.shape);
    kernel_resources attr;
    bool have_attr = false;
    int repeat = 0;

    range_push_workload(w, in->n);
    w->n = in->n;
    int cap = in->rule.fixed > 0 ? in->rule.fixed : in->rule.max_samples;
    j.ms = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *j.ms);
    bool ok = j.ms != NULL;
    if (!ok)
        mark_error(w, "out of host memory for the samples");
    ok = ok && step(&j, "allocate", allocate) && step(&j, "copy-in", copy_in) && step(&j, "warm-up", warm_up);
    if (ok) {
        w->launched = WARMUP_LAUNCHES;
        ok = step(&j, "compute", compute);
        repeat = j.got.samples;
        w->repeat = w->samples = repeat;
        w->noise_pct = j.got.noise_pct;
        w->stopped_by = j.got.stopped_by;
        w->launched += repeat;
    }
    for (int i = 0; ok && i < repeat; i++)
        workload_add_product_ms(w, j.ms[i]);
    if (ok)
        ok = step(&j, "copy-out", copy_out);
    if (ok) {
        phase *p = phase_begin(w, "verify", in->n);
        verify_into(w, j.g.hC, in->ref, (size_t)in->n * (size_t)in->n);
        phase_end(p);
    }
    if (ok && j.g.has_shape) {
        if (occupancy_check_of(&j, &attr, j.err, sizeof j.err) == 0)
            have_attr = true;
        else
            mark_error(w, j.err);
    }
    if (w->timing == TIMING_CUDA_EVENT && w->nproduct_ms == repeat && repeat > 0)
        events_as_records(&j, repeat, have_attr ? &attr : NULL);
    if (ok && in->counters)
        gpu_counter_pass(&j.g, w);
    /* Free whatever was allocated, even after an error; errors here are reported too. */
    free(j.ms);
    if (!gpu_release(&j.g) && w->status != WL_ERROR)
        mark_error(w, "cudaFree failed after the run");
    range_pop();
}
