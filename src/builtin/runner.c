/* The built-in run, start to end. The order matters twice: the CUDA driver is initialised before CUPTI
 * is touched (so a profiler injected at driver start has claimed CUPTI already and mmprof sees
 * it), and CUPTI activity is enabled before the first context exists (it is not retroactive). */
#include "runner.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "cpu_workload.h"
#include "device_thread.h"
#include "gpu_counters.h"
#include "gpu_runner.h"
#include "gpu_workload.h"
#include "blas_info.h"
#include "hostinfo.h"
#include "inputs.h"
#include "progress.h"
#include "thread_wait.h"
#include "interrupt.h"
#include "multi_gpu.h"
#include "nvml.h"
#include "pcie_link.h"
#include "ranges.h"
#include "workloads.h"

/* NVML readings while a GPU workload runs: a few inside a short compute phase, on a thread of
 * its own, at a cost of a few driver calls per reading. */
#define NVML_PERIOD_MS 5

static const double GiB = 1024.0 * 1024.0 * 1024.0;

bool host_bytes_needed(int n, bool gpu, uint64_t *bytes)
{
    uint64_t count = (uint64_t)n * (uint64_t)n;
    /* A and B (float), the reference (double) with its double copies of A and B, the CPU's C,
     * and for the GPU a pageable result buffer and three pinned buffers. */
    uint64_t per = 2 * 4 + 3 * 8 + 4 + (gpu ? 4 + 3 * 4 : 0);
    if (count != 0 && per > UINT64_MAX / count)
        return false;
    *bytes = count * per;
    return true;
}

uint64_t device_bytes_needed(int n)
{
    return 3ull * (uint64_t)n * (uint64_t)n * sizeof(float);
}

static uint64_t host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                fclose(f);
                return kb * 1024ull;
            }
        fclose(f);
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

static char *join_args(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static void now_iso(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---------- the watchdog ----------
 * A product that never returns (a hung BLAS, a machine thrashing) must not hang the tool: the
 * CPU workload runs on its own thread, and when --timeout passes it is abandoned, reported as an
 * error, and the rest of the run goes on. Its thread cannot be cancelled inside OpenBLAS, so it
 * keeps its inputs (never freed) and the process ends with _exit (run_builtin_abandoned())
 * rather than running library destructors under it. */
static bool abandoned;

bool run_builtin_abandoned(void)
{
    return abandoned;
}

typedef struct {
    int n;
    const float *A, *B;
    const double *ref;
    sample_rule rule;
    workload_run w;
} cpu_job;

/* Waits for a workload's thread at most timeout_s seconds; past that the thread is detached and
 * the run is marked abandoned (run_builtin_abandoned). True when it finished in time. */
static bool joined_within(pthread_t t, int timeout_s)
{
    if (thread_join_within(t, timeout_s * 1000L))
        return true;
    abandoned = true;
    pthread_detach(t);
    return false;
}

static void *cpu_job_run(void *arg)
{
    cpu_job *j = arg;
    cpu_run(j->n, j->A, j->B, j->ref, &j->rule, &j->w);
    return NULL;
}

static void timed_out(workload_run *w, const char *name, int n, int timeout_s)
{
    memset(w, 0, sizeof *w);
    w->device = -1;
    w->n = n;
    copy_str(w->name, sizeof w->name, name);
    w->status = WL_ERROR;
    snprintf(w->status_reason, sizeof w->status_reason,
             "did not finish within --timeout %d s; abandoned (the run went on without it)", timeout_s);
}

/* cpu_run under the watchdog, into w (a workload of m). */
static void cpu_run_watched(const builtin_options *o, int n, const float *A, const float *B, const double *ref,
                            const sample_rule *rule, workload_run *w, FILE *err)
{
    cpu_job *j = calloc(1, sizeof *j);
    if (j) {
        *j = (cpu_job){.n = n, .A = A, .B = B, .ref = ref, .rule = *rule};
        j->w.device = -1;
    }
    pthread_t t;
    if (!j || o->timeout_s == 0 || pthread_create(&t, NULL, cpu_job_run, j) != 0) {
        free(j);
        cpu_run(n, A, B, ref, rule, w);
        return;
    }
    if (joined_within(t, o->timeout_s)) {
        *w = j->w; /* the arrays it allocated move with it */
        free(j);
        return;
    }
    /* j and its workload stay with the thread still writing them. */
    timed_out(w, "cpu-openblas", n, o->timeout_s);
    fprintf(err, "mmprof: cpu-openblas did not finish within --timeout %d s at n = %d; abandoned, going on\n",
            o->timeout_s, n);
}

/* ---------- the GPU calls of a single-device run, on the device thread ----------
 * (device_thread.h says why they cannot run on the main thread once the watchdog may abandon
 * one.) A --devices run drives its GPUs from threads of its own (multi_gpu.c). */
typedef enum { GPU_OPEN, GPU_PREPARE, GPU_CUBLAS, GPU_COUNTERS, GPU_RUN, GPU_PROFILER_START, GPU_PROFILER_STOP, GPU_SYNC, GPU_CLOSE, GPU_RESET } gpu_op;

typedef struct {
    gpu_op op;
    run_model *m;         /* GPU_OPEN, GPU_COUNTERS */
    int device;           /* GPU_OPEN */
    gpu_inputs in;        /* GPU_PREPARE, GPU_RUN (a copy: an abandoned run outlives the caller's) */
    const gpu_compute *c; /* GPU_RUN */
    mem_kind kind;        /* GPU_RUN */
    workload_run w;       /* GPU_RUN */
    bool ok;
    char why[256];
} gpu_call;

static void gpu_call_run(void *arg)
{
    gpu_call *c = arg;
    c->ok = true;
    switch (c->op) {
    case GPU_OPEN: c->ok = gpu_open(c->m, c->device, c->why, sizeof c->why); break;
    case GPU_PREPARE: c->ok = gpu_prepare(&c->in, c->why, sizeof c->why); break;
    case GPU_CUBLAS: c->ok = gpu_open_cublas(c->why, sizeof c->why); break;
    case GPU_COUNTERS: c->ok = gpu_counters_open(c->m, c->why, sizeof c->why); break;
    case GPU_RUN: gpu_workload_run(c->c, &c->in, c->kind, &c->w); break;
    case GPU_PROFILER_START: gpu_profiler_start(); break;
    case GPU_PROFILER_STOP: gpu_profiler_stop(); break;
    case GPU_SYNC: gpu_sync(); break;
    case GPU_CLOSE: gpu_counters_close(); gpu_close(); break;
    case GPU_RESET: gpu_counters_close(); gpu_reset(); break;
    }
}

/* A GPU call that is not a workload, waited for as long as it takes; c->ok and c->why after. */
static bool on_gpu(gpu_call *c)
{
    return device_thread_call(gpu_call_run, c, 0) && c->ok;
}

static void on_gpu_op(gpu_op op)
{
    gpu_call c = {.op = op};
    on_gpu(&c);
}

/* gpu_workload_run under the watchdog, into w: a GPU workload that hangs (a kernel that never
 * ends, a wait that never returns) must not hang the tool either. Past --timeout it is abandoned
 * like a CPU workload, and since the device is still busy with it, the caller skips every later
 * GPU workload and collects CUPTI's records with a bounded wait. True when it was abandoned. */
static bool gpu_run_watched(const builtin_options *o, const gpu_compute *c, const gpu_inputs *in, mem_kind kind,
                            workload_run *w, FILE *err)
{
    gpu_call *call = calloc(1, sizeof *call);
    if (!call) {
        w->status = WL_ERROR;
        copy_str(w->status_reason, sizeof w->status_reason, "out of host memory");
        return false;
    }
    *call = (gpu_call){.op = GPU_RUN, .in = *in, .c = c, .kind = kind, .w = *w};
    if (device_thread_call(gpu_call_run, call, o->timeout_s)) {
        *w = call->w; /* the arrays it allocated move with it */
        free(call);
        return false;
    }
    abandoned = true; /* call stays with the device thread */
    char label[64];
    workload_label(w, label, sizeof label);
    w->status = WL_ERROR;
    snprintf(w->status_reason, sizeof w->status_reason,
             "did not finish within --timeout %d s; abandoned with the GPU still running it (the later GPU "
             "workloads were skipped)", o->timeout_s);
    fprintf(err, "mmprof: %s did not finish within --timeout %d s at n = %d; abandoned, the later GPU workloads "
                 "are skipped\n", label, o->timeout_s, in->n);
    return true;
}

/* After a GPU workload was abandoned, CUPTI's final flush waits at most this long. */
#define HUNG_FLUSH_WAIT_S 5

/* SIGINT/SIGTERM while a GPU is ours (the handler only recorded it): release the device, then
 * end as the signal asks, with no output. Called between steps that take long. */
static void stop_if_interrupted(bool gpu)
{
    if (!interrupt_pending())
        return;
    if (gpu) {
        on_gpu_op(GPU_PROFILER_STOP);
        on_gpu_op(GPU_RESET);
    }
    interrupt_defer(false);
}

static builtin_status fail_run(run_model *m, builtin_status status)
{
    device_thread_stop();
    model_free(m);
    return status;
}

/* A GPU workload that could not run still appears in the report, marked skipped. */
static void add_skipped(run_model *m, const workload_def *d, mem_kind kind, int n, const char *why)
{
    workload_run *w = model_add_workload(m);
    if (!w)
        return;
    copy_str(w->name, sizeof w->name, d->name);
    w->n = n;
    w->needs_gpu = true;
    w->host_memory = kind;
    w->prec = d->gpu->prec;
    w->status = WL_SKIPPED;
    copy_str(w->status_reason, sizeof w->status_reason, why);
}

/* A tool phase named for its size in a sweep ("inputs n=512"), plainly otherwise. */
static phase *size_phase(run_model *m, const char *name, int n)
{
    char buf[PHASE_NAME_MAX];
    if (m->builtin.nsizes > 0)
        snprintf(buf, sizeof buf, "%s n=%d", name, n);
    else
        copy_str(buf, sizeof buf, name);
    return tool_phase_begin(m, buf);
}

/* What every size of a run shares: the selection, the memory kinds, the GPU's state, NVML's
 * watch and the progress line. */
typedef struct {
    const builtin_options *o;
    run_model *m;
    const workload_def *const *sel;
    int nsel;
    const mem_kind *kinds;
    int nkinds;
    bool opened;    /* the device's context is ours until the end (a signal must release it) */
    bool gpu;       /* cleared when the GPU cannot be set up for a size: its workloads are skipped */
    bool profiling; /* gpu_profiler_start was called */
    bool hung;      /* a GPU workload was abandoned with the device still running it */
    nvml_watch *nw;
    const char *nvml_why;
    const multi_gpu_work *multi; /* --devices: the GPU workloads go to every listed GPU (multi_gpu.h) */
    progress *pr;
    FILE *err;
} size_run;

/* One size: its inputs and FP64 reference, then every selected workload at that size, as a
 * single-size run does, with progress, interrupt checks, the CPU watchdog and NVML's watch.
 * BUILTIN_OK, or BUILTIN_BAD_REQUEST after a message when host memory ran out. */
static builtin_status run_size(size_run *r, int n)
{
    const builtin_options *o = r->o;
    run_model *m = r->m;
    FILE *err = r->err;
    char why[256];
    const char *size_opt = o->nsizes > 0 ? "--sizes: size" : "--size";
    r->pr->n = n;
    progress_step(r->pr, "inputs");
    size_t n2 = (size_t)n * (size_t)n;
    phase *tp = size_phase(m, "inputs", n);
    float *A = malloc(n2 * sizeof *A), *B = malloc(n2 * sizeof *B);
    double *ref = malloc(n2 * sizeof *ref);
    if (A && B) {
        fill_uniform(A, n2, m->builtin.seed, 0);
        fill_uniform(B, n2, m->builtin.seed, 1);
    }
    tool_phase_end(tp);
    builtin_status status = BUILTIN_OK;
    bool kept = false; /* the inputs stay with an abandoned CPU thread */
    if (!A || !B || !ref) {
        fprintf(err, "mmprof: %s %d: out of host memory for the inputs\n", size_opt, n);
        status = BUILTIN_BAD_REQUEST;
        goto out;
    }
    progress_step(r->pr, "FP64 reference product (OpenBLAS dgemm)");
    tp = size_phase(m, "reference", n);
    bool ref_ok = reference_product(n, A, B, ref);
    tool_phase_end(tp);
    if (!ref_ok) {
        fprintf(err, "mmprof: %s %d: out of host memory for the FP64 reference\n", size_opt, n);
        status = BUILTIN_BAD_REQUEST;
        goto out;
    }

    double max_time_ms = o->max_time_s * 1e3;
    stop_if_interrupted(r->opened);
    for (int i = 0; i < r->nsel; i++) {
        if (r->sel[i]->needs_gpu)
            continue;
        workload_run *w = model_add_workload(m);
        sample_rule rule = cpu_sample_rule(o->repeat, o->max_noise_pct, max_time_ms);
        progress_step(r->pr, r->sel[i]->name);
        if (w) {
            bool before = abandoned;
            cpu_run_watched(o, n, A, B, ref, &rule, w, err);
            kept |= abandoned && !before;
        }
        stop_if_interrupted(r->opened);
    }

    gpu_inputs in = {.n = n, .A = A, .B = B, .ref = ref,
                     .rule = gpu_sample_rule(o->repeat, o->max_noise_pct, max_time_ms),
                     .cold_l2 = o->cold_l2, .pinned = o->host_memory != HOSTMEM_PAGEABLE};
    if (r->multi) {
        progress_step(r->pr, "GPU workloads on every GPU, one GPU after another, then all at once");
        multi_gpu_run_size(m, r->multi, &in);
        stop_if_interrupted(false);
        goto out;
    }
    if (r->gpu) {
        tp = size_phase(m, "gpu-buffers", n);
        gpu_call prep = {.op = GPU_PREPARE, .in = in};
        bool ready = on_gpu(&prep);
        copy_str(why, sizeof why, prep.why);
        tool_phase_end(tp);
        if (!ready) { /* this size and the later ones are skipped; the device stays open until the
                       * end so that what earlier sizes recorded is still collected */
            model_add_warning(m, "GPU %d could not be set up for n = %d: %s", o->device, n, why);
            copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, why);
            r->gpu = false;
        }
    }
    if (r->gpu && !r->profiling) {
        on_gpu_op(GPU_PROFILER_START);
        r->profiling = true;
    }
    for (int i = 0; i < r->nsel; i++) {
        if (!r->sel[i]->needs_gpu)
            continue;
        for (int k = 0; k < r->nkinds; k++) {
            if (!r->gpu) {
                add_skipped(m, r->sel[i], r->kinds[k], n, m->builtin.gpu_skip_reason);
                continue;
            }
            stop_if_interrupted(true);
            workload_run *w = model_add_workload(m);
            if (!w)
                continue;
            copy_str(w->name, sizeof w->name, r->sel[i]->name);
            w->n = n;
            w->host_memory = r->kinds[k];
            w->needs_gpu = true;
            char label[64];
            workload_label(w, label, sizeof label);
            progress_step(r->pr, label);
            nvml_watch_begin(r->nw);
            /* One counter pass per workload and size: the kernel is the same whatever the host
             * memory, so the last kind run (pinned, when both are) has it. */
            in.counters = m->counters.asked && m->counters.why[0] == '\0' && k == r->nkinds - 1;
            bool hung = gpu_run_watched(o, r->sel[i]->gpu, &in, r->kinds[k], w, err);
            if (m->counters.asked && !hung && !w->counters_why[0] && w->ncounters == 0 && k == r->nkinds - 1)
                copy_str(w->counters_why, sizeof w->counters_why,
                         m->counters.why[0] ? m->counters.why : "the workload did not reach its counter pass");
            nvml_watch_end(r->nw, w, r->nvml_why);
            if (hung) {
                /* The device cannot be released while it runs the abandoned work: from here a
                 * signal ends the process at once, and nothing waits for the device again. */
                r->gpu = r->opened = false;
                r->hung = kept = true; /* the abandoned thread still reads the inputs */
                interrupt_defer(false);
                snprintf(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason,
                         "the GPU was still running %s, abandoned after --timeout %d s", label, o->timeout_s);
            }
        }
    }
out:
    if (!kept) {
        free(A);
        free(B);
        free(ref);
    }
    return status;
}

builtin_status run_builtin(const builtin_options *o, run_model *m, FILE *err)
{
    model_init(m);
    m->epoch_ns = collector_now();
    m->command_line = join_args(o->argc, o->argv);
    now_iso(m->started_at, sizeof m->started_at);
    m->builtin.n = o->n;
    /* The sizes to run: a sweep's list, or the one size. */
    int one = o->n, nsizes = o->nsizes > 0 ? o->nsizes : 1;
    const int *sizes = o->nsizes > 0 ? o->sizes : &one;
    memcpy(m->builtin.sizes, o->sizes, sizeof m->builtin.sizes);
    m->builtin.nsizes = o->nsizes;
    m->builtin.max_noise_pct = o->repeat > 0 ? 0 : o->max_noise_pct;
    m->builtin.max_time_s = o->repeat > 0 ? 0 : o->max_time_s;
    m->builtin.seed = o->seed_given ? o->seed : fresh_seed();
    m->builtin.repeat_requested = o->repeat;
    static const char *const hostmem_names[] = {"both", "pageable", "pinned"};
    copy_str(m->builtin.host_memory_requested, sizeof m->builtin.host_memory_requested, hostmem_names[o->host_memory]);
    host_info_read(&m->host);
    blas_info_read(&m->builtin.blas);

    int count;
    const workload_def *all = workload_list(&count);
    const workload_def *sel[MAX_SELECTED];
    int nsel = 0;
    for (int i = 0; i < count && nsel < MAX_SELECTED; i++) {
        bool chosen = o->nselected == 0;
        for (int j = 0; j < o->nselected; j++)
            chosen |= strcmp(o->selected[j], all[i].name) == 0;
        if (chosen)
            sel[nsel++] = &all[i];
    }
    bool want_gpu = false, want_cublas = false;
    for (int i = 0; i < nsel; i++) {
        want_gpu |= sel[i]->needs_gpu;
        want_cublas |= sel[i]->gpu && sel[i]->gpu->uses_cublas;
    }
    mem_kind kinds[2];
    int nkinds = 0;
    if (o->host_memory != HOSTMEM_PINNED)
        kinds[nkinds++] = MEM_PAGEABLE;
    if (o->host_memory != HOSTMEM_PAGEABLE)
        kinds[nkinds++] = MEM_PINNED;

    /* The GPU: found and its facts read, with no context yet. */
    char why[256] = "";
    phase *tp = tool_phase_begin(m, "cuda-init");
    bool gpu = false;
    if (want_gpu || o->require_gpu) {
        gpu = gpu_probe(m, why, sizeof why);
        for (int i = 0; i < m->ndevices; i++)
            pcie_link_read(&m->devices[i]);
        if (gpu && (o->all_devices || o->ndevices > 0) &&
            !multi_gpu_select(m, o->all_devices, o->devices, o->ndevices, err)) {
            tool_phase_end(tp);
            return fail_run(m, BUILTIN_BAD_REQUEST);
        }
        if (gpu && o->device >= m->ndevices) {
            tool_phase_end(tp);
            fprintf(err, "mmprof: --device %d: this machine has %d CUDA device%s\n", o->device,
                    m->ndevices, m->ndevices == 1 ? "" : "s");
            return fail_run(m, BUILTIN_BAD_REQUEST);
        }
    } else {
        copy_str(why, sizeof why, "no GPU workload was selected");
    }
    if (!gpu && o->require_gpu) {
        tool_phase_end(tp);
        fprintf(err, "mmprof: --require-gpu: %s\n", why);
        return fail_run(m, BUILTIN_NO_GPU);
    }
    if (gpu) {
        collector_options copt = {.disable_cupti = o->no_cupti};
        collector_start(&copt, &m->collection);
    } else {
        m->collection.source = TIMING_NONE;
        copy_str(m->collection.reason, sizeof m->collection.reason, why);
        if (want_gpu)
            copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, why);
    }

    /* Memory, checked for every size before anything large is allocated (a sweep's sizes run one
     * after another, so each alone must fit). */
    const char *size_opt = o->nsizes > 0 ? "--sizes: size" : "--size";
    uint64_t avail = host_available();
    for (int s = 0; s < nsizes; s++) {
        uint64_t need = 0;
        if (!host_bytes_needed(sizes[s], gpu, &need) || need > avail) {
            tool_phase_end(tp);
            fprintf(err, "mmprof: %s %d needs %.1f GiB of host memory for the inputs, the FP64 "
                         "reference and the results; %.1f GiB is available\n",
                    size_opt, sizes[s], (double)need / GiB, (double)avail / GiB);
            return fail_run(m, BUILTIN_BAD_REQUEST);
        }
    }
    bool multi = gpu && m->builtin.multi.ndevices > 0;
    if (gpu && !multi) {
        /* The context now: its free memory decides whether the size fits, before any work. */
        tool_phase_end(tp);
        tp = tool_phase_begin(m, "cuda-context");
        device_thread_start();
        gpu_call open = {.op = GPU_OPEN, .m = m, .device = o->device};
        bool opened = on_gpu(&open);
        copy_str(why, sizeof why, open.why);
        device_info *d = &m->devices[o->device];
        for (int s = 0; opened && s < nsizes; s++) {
            /* The L2 flush buffer (twice the L2) comes on top with --cold-l2. */
            uint64_t dneed = device_bytes_needed(sizes[s]) + (o->cold_l2 ? 2ull * (uint64_t)d->l2_bytes : 0);
            if (dneed > d->free_mem) {
                tool_phase_end(tp);
                fprintf(err, "mmprof: %s %d needs %.1f GiB of device memory for A, B and C; GPU %d "
                             "(%s) has %.1f GiB free of %.1f GiB\n", size_opt, sizes[s], (double)dneed / GiB,
                        o->device, d->name, (double)d->free_mem / GiB, (double)d->total_mem / GiB);
                on_gpu_op(GPU_CLOSE);
                interrupt_defer(false);
                return fail_run(m, BUILTIN_BAD_REQUEST);
            }
        }
        /* From here the device is ours: a signal waits for the runner to release it. */
        if (opened)
            interrupt_defer(true);
        if (!opened) {
            model_add_warning(m, "GPU %d could not be set up: %s", o->device, why);
            copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, why);
            gpu = false;
        }
    }
    tool_phase_end(tp);

    m->builtin.cold_l2 = gpu && o->cold_l2;
    if (gpu && !multi && want_cublas) {
        tp = tool_phase_begin(m, "cublas-init");
        gpu_call cublas = {.op = GPU_CUBLAS};
        bool ready = on_gpu(&cublas);
        copy_str(why, sizeof why, cublas.why);
        tool_phase_end(tp);
        if (!ready) {
            model_add_warning(m, "GPU %d could not be set up: %s", o->device, why);
            copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, why);
            on_gpu_op(GPU_CLOSE);
            interrupt_defer(false);
            gpu = false;
        }
    }
    /* Hardware counters: the range profiler on the run's context, or the reason they are n/a.
     * Under another profiler (Nsight Compute, Nsight Systems) CUPTI is theirs: no counters
     * (--no-cupti leaves CUPTI unused, and the counters may have it). */
    m->counters.asked = o->counters;
    if (o->counters && !gpu)
        copy_str(m->counters.why, sizeof m->counters.why, "no GPU workload ran");
    else if (o->counters && multi)
        copy_str(m->counters.why, sizeof m->counters.why, "not collected in a --devices run (one GPU at a time)");
    else if (o->counters && !collector_cupti_active() && !o->no_cupti)
        snprintf(m->counters.why, sizeof m->counters.why, "counters off: %.200s",
                 m->collection.reason[0] ? m->collection.reason : "CUPTI is not mmprof's in this run");
    else if (o->counters) {
        tp = tool_phase_begin(m, "counters-init");
        gpu_call ctr = {.op = GPU_COUNTERS, .m = m};
        if (!on_gpu(&ctr)) {
            copy_str(m->counters.why, sizeof m->counters.why, ctr.why);
            model_add_warning(m, "hardware counters n/a: %s", m->counters.why);
        }
        tool_phase_end(tp);
    }
    /* NVML watches the device around each GPU workload (clocks, power, other processes); where it
     * cannot, each workload's device state says why. */
    nvml_watch *nw = NULL;
    char nvml_why[256] = "";
    nvml_watch *watches[MAX_RUN_DEVICES] = {NULL};
    if (gpu) {
        tp = tool_phase_begin(m, "nvml-init");
        if (!multi)
            nw = nvml_watch_open(m->devices[o->device].pci_bus_id, NVML_PERIOD_MS, collector_now, nvml_why, sizeof nvml_why);
        for (int i = 0; multi && i < m->builtin.multi.ndevices; i++)
            watches[i] = nvml_watch_open(m->devices[m->builtin.multi.devices[i]].pci_bus_id, NVML_PERIOD_MS, collector_now,
                                         nvml_why, sizeof nvml_why);
        tool_phase_end(tp);
    }
    multi_gpu_work work = {.sel = sel, .nsel = nsel, .kinds = kinds, .nkinds = nkinds, .want_cublas = want_cublas,
                           .cold_l2 = o->cold_l2, .watch = watches, .nvml_why = nvml_why};
    /* Progress: at each size the inputs, the reference, the CPU workload and each GPU run are the
     * steps. */
    int steps = 2;
    for (int i = 0; i < nsel; i++)
        steps += sel[i]->needs_gpu ? (gpu && !multi ? nkinds : 0) : 1;
    steps += multi ? 1 : 0;
    progress pr;
    progress_init(&pr, err, o->progress, steps * nsizes, o->n);
    size_run r = {.o = o, .m = m, .sel = sel, .nsel = nsel, .kinds = kinds, .nkinds = nkinds, .opened = gpu && !multi,
                  .gpu = gpu, .nw = nw, .nvml_why = nvml_why, .multi = multi ? &work : NULL, .pr = &pr, .err = err};
    /* The device threads run with signals deferred; each stops at its next workload. */
    if (multi)
        interrupt_defer(true);
    builtin_status status = BUILTIN_OK;
    for (int s = 0; s < nsizes && status == BUILTIN_OK; s++)
        status = run_size(&r, sizes[s]);
    progress_done(&pr);
    if (status != BUILTIN_OK) {
        if (r.opened) {
            on_gpu_op(GPU_CLOSE);
            interrupt_defer(false);
        }
        nvml_watch_close(nw);
        for (int i = 0; i < m->builtin.multi.ndevices; i++)
            nvml_watch_close(watches[i]);
        if (multi)
            interrupt_defer(false);
        return fail_run(m, status);
    }
    if (multi) {
        multi_gpu_peer_matrix(m);
        stop_if_interrupted(false);
    } else if (o->all_devices || o->ndevices > 0) {
        snprintf(m->builtin.multi.why, sizeof m->builtin.multi.why, "no GPU ran: %.200s", m->builtin.gpu_skip_reason);
    }
    if (r.hung) {
        /* The device stays busy: no synchronize and no release (both would wait for it); the
         * process ends with _exit once the reports are written (run_builtin_abandoned). */
        tp = tool_phase_begin(m, "flush");
        collector_finish_within(m, &m->collection, HUNG_FLUSH_WAIT_S);
        tool_phase_end(tp);
    } else if (r.profiling)
        on_gpu_op(GPU_PROFILER_STOP);
    if (r.opened || multi) {
        on_gpu_op(GPU_SYNC);
        tp = tool_phase_begin(m, "flush");
        collector_finish(m, &m->collection);
        for (int i = 0; i < m->builtin.nworkloads; i++)
            gpu_counter_pass_records(m, &m->builtin.workloads[i]);
        tool_phase_end(tp);
        on_gpu_op(GPU_CLOSE);
        interrupt_defer(false);
    }
    device_thread_stop();
    nvml_watch_close(nw);
    for (int i = 0; i < m->builtin.multi.ndevices; i++)
        nvml_watch_close(watches[i]);
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (m->builtin.workloads[i].status == WL_FAILED || m->builtin.workloads[i].status == WL_ERROR)
            status = BUILTIN_WORKLOAD_FAILED;
    /* The whole run, each workload and each of its phases become regions of the timeline, and the
     * times the workloads took themselves (cudaEvent timing) join the store. */
    if (!model_finish_regions(m, "mmprof run"))
        model_add_warning(m, "out of memory while listing the run's regions");
    return status;
}
