/* One run, start to end. The order matters twice: the CUDA driver is initialised before CUPTI
 * is touched (so a profiler injected at driver start has claimed CUPTI already and mmprof sees
 * it), and CUPTI activity is enabled before the first context exists (it is not retroactive). */
#include "runner.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "cpu_workload.h"
#include "gpu_runner.h"
#include "hostinfo.h"
#include "inputs.h"
#include "progress.h"
#include "ranges.h"
#include "workloads.h"

/* How long each timed phase should last when --repeat is not given: long enough that the
 * median of its products is stable, short enough that a 2048 run of every workload stays well
 * inside a few seconds. */
#define GPU_TARGET_MS 25.0
#define CPU_TARGET_MS 100.0

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

static int fail_run(run_model *m, int status)
{
    model_free(m);
    return status;
}

/* A GPU workload that could not run still appears in the report, marked skipped. */
static void add_skipped(run_model *m, const workload_def *d, mem_kind kind, const char *why)
{
    workload_run *w = model_add_workload(m);
    if (!w)
        return;
    copy_str(w->name, sizeof w->name, d->name);
    w->needs_gpu = true;
    w->host_memory = kind;
    w->prec = d->gpu->prec;
    w->status = WL_SKIPPED;
    copy_str(w->status_reason, sizeof w->status_reason, why);
}

int run_profile(const cli_options *o, int argc, char **argv, run_model *m, FILE *err)
{
    model_init(m);
    m->epoch_ns = collector_now();
    m->command_line = join_args(argc, argv);
    now_iso(m->started_at, sizeof m->started_at);
    m->n = o->n;
    m->seed = o->seed_given ? o->seed : fresh_seed();
    m->repeat_requested = o->repeat;
    static const char *const hostmem_names[] = {"both", "pageable", "pinned"};
    copy_str(m->host_memory_requested, sizeof m->host_memory_requested, hostmem_names[o->host_memory]);
    host_info_read(&m->host);

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
    bool want_gpu = false, want_cpu = false, want_cublas = false;
    for (int i = 0; i < nsel; i++) {
        want_gpu |= sel[i]->needs_gpu;
        want_cpu |= !sel[i]->needs_gpu;
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
        if (gpu && o->device >= m->ndevices) {
            tool_phase_end(tp);
            fprintf(err, "mmprof: --device %d: this machine has %d CUDA device%s\n", o->device,
                    m->ndevices, m->ndevices == 1 ? "" : "s");
            return fail_run(m, EXIT_USAGE);
        }
    } else {
        copy_str(why, sizeof why, "no GPU workload was selected");
    }
    if (!gpu && o->require_gpu) {
        tool_phase_end(tp);
        fprintf(err, "mmprof: --require-gpu: %s\n", why);
        return fail_run(m, EXIT_NO_GPU);
    }
    if (gpu) {
        collector_options copt = {.disable_cupti = o->no_cupti};
        collector_start(&copt, &m->collection);
    } else {
        m->collection.source = TIMING_NONE;
        copy_str(m->collection.reason, sizeof m->collection.reason, why);
        if (want_gpu)
            copy_str(m->gpu_skip_reason, sizeof m->gpu_skip_reason, why);
    }

    /* Memory, checked before anything large is allocated. */
    uint64_t need = 0;
    uint64_t avail = host_available();
    if (!host_bytes_needed(o->n, gpu, &need) || need > avail) {
        tool_phase_end(tp);
        fprintf(err, "mmprof: --size %d needs %.1f GiB of host memory for the inputs, the FP64 "
                     "reference and the results; %.1f GiB is available\n",
                o->n, (double)need / GiB, (double)avail / GiB);
        return fail_run(m, EXIT_USAGE);
    }
    if (gpu) {
        /* The context now: its free memory decides whether the size fits, before any work. */
        tool_phase_end(tp);
        tp = tool_phase_begin(m, "cuda-context");
        bool opened = gpu_open(m, o->device, why, sizeof why);
        device_info *d = &m->devices[o->device];
        uint64_t dneed = device_bytes_needed(o->n);
        if (opened && dneed > d->free_mem) {
            tool_phase_end(tp);
            fprintf(err, "mmprof: --size %d needs %.1f GiB of device memory for A, B and C; GPU %d "
                         "(%s) has %.1f GiB free of %.1f GiB\n", o->n, (double)dneed / GiB, o->device, d->name,
                    (double)d->free_mem / GiB, (double)d->total_mem / GiB);
            gpu_close();
            return fail_run(m, EXIT_USAGE);
        }
        if (!opened) {
            model_add_warning(m, "GPU %d could not be set up: %s", o->device, why);
            copy_str(m->gpu_skip_reason, sizeof m->gpu_skip_reason, why);
            gpu = false;
        }
    }
    tool_phase_end(tp);

    /* Progress: inputs, the reference, the CPU workload and each GPU run are the steps. */
    int ngpu_runs = 0;
    for (int i = 0; i < nsel; i++)
        ngpu_runs += sel[i]->needs_gpu ? nkinds : 0;
    progress pr;
    progress_init(&pr, err, !o->quiet && isatty(fileno(err)), 2 + want_cpu + (gpu ? ngpu_runs : 0), o->n);
    progress_step(&pr, "inputs");

    /* Inputs and the reference, shared by every workload. */
    size_t n2 = (size_t)o->n * (size_t)o->n;
    tp = tool_phase_begin(m, "inputs");
    float *A = malloc(n2 * sizeof *A), *B = malloc(n2 * sizeof *B);
    double *ref = malloc(n2 * sizeof *ref);
    if (A && B) {
        fill_uniform(A, n2, m->seed, 0);
        fill_uniform(B, n2, m->seed, 1);
    }
    tool_phase_end(tp);
    int status = EXIT_OK;
    if (!A || !B || !ref) {
        fprintf(err, "mmprof: --size %d: out of host memory for the inputs\n", o->n);
        status = EXIT_USAGE;
        goto out;
    }
    progress_step(&pr, "FP64 reference product (OpenBLAS dgemm)");
    tp = tool_phase_begin(m, "reference");
    bool ref_ok = reference_product(o->n, A, B, ref);
    tool_phase_end(tp);
    if (!ref_ok) {
        fprintf(err, "mmprof: --size %d: out of host memory for the FP64 reference\n", o->n);
        status = EXIT_USAGE;
        goto out;
    }

    if (want_cpu) {
        workload_run *w = model_add_workload(m);
        progress_step(&pr, "cpu-openblas");
        if (w)
            cpu_run(o->n, A, B, ref, o->repeat, CPU_TARGET_MS, w);
    }

    gpu_inputs in = {.n = o->n, .A = A, .B = B, .ref = ref, .repeat = o->repeat,
                     .target_ms = GPU_TARGET_MS, .pinned = o->host_memory != HOSTMEM_PAGEABLE};
    if (gpu) {
        tp = tool_phase_begin(m, "gpu-buffers");
        bool ready = gpu_prepare(&in, why, sizeof why);
        tool_phase_end(tp);
        if (ready && want_cublas) {
            tp = tool_phase_begin(m, "cublas-init");
            ready = gpu_open_cublas(why, sizeof why);
            tool_phase_end(tp);
        }
        if (!ready) {
            model_add_warning(m, "GPU %d could not be set up: %s", o->device, why);
            copy_str(m->gpu_skip_reason, sizeof m->gpu_skip_reason, why);
            gpu_close();
            gpu = false;
        }
    }
    if (gpu)
        gpu_profiler_start();
    for (int i = 0; i < nsel; i++) {
        if (!sel[i]->needs_gpu)
            continue;
        for (int k = 0; k < nkinds; k++) {
            if (!gpu) {
                add_skipped(m, sel[i], kinds[k], m->gpu_skip_reason);
                continue;
            }
            workload_run *w = model_add_workload(m);
            if (!w)
                continue;
            copy_str(w->name, sizeof w->name, sel[i]->name);
            char label[64];
            w->host_memory = kinds[k];
            w->needs_gpu = true;
            workload_label(w, label, sizeof label);
            progress_step(&pr, label);
            gpu_run(sel[i]->gpu, &in, kinds[k], w);
        }
    }
    if (gpu) {
        gpu_profiler_stop();
        gpu_sync();
        tp = tool_phase_begin(m, "flush");
        collector_finish(m, &m->collection);
        tool_phase_end(tp);
        gpu_close();
    }
    for (int i = 0; i < m->nworkloads; i++)
        if (m->workloads[i].status == WL_FAILED || m->workloads[i].status == WL_ERROR)
            status = EXIT_WORKLOAD_FAILED;
    /* The whole run, each workload and each of its phases become regions of the timeline. */
    if (!model_finish_regions(m, "mmprof run"))
        model_add_warning(m, "out of memory while listing the run's regions");
out:
    progress_done(&pr);
    free(A);
    free(B);
    free(ref);
    if (status == EXIT_USAGE)
        model_free(m);
    return status;
}
