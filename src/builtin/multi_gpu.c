/* See multi_gpu.h for the design: one host thread per GPU, in both passes. */
#include "multi_gpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_workload.h"
#include "interrupt.h"
#include "ranges.h"
#include "runner.h"

/* The peer matrix's copies: 256 MiB (well past where an NVLink's bandwidth levels off), timed 10
 * times; latency from 100 back-to-back copies of 4 bytes. */
#define PEER_COPY_BYTES (256ull << 20)
#define PEER_COPY_REPS 10
#define PEER_LATENCY_BYTES 4
#define PEER_LATENCY_REPS 100

static const double GiB = 1024.0 * 1024.0 * 1024.0;

bool multi_gpu_select(run_model *m, bool all, const int *devices, int ndevices, FILE *err)
{
    multi_gpu_info *g = &m->builtin.multi;
    g->ndevices = 0;
    if (all) {
        for (int i = 0; i < m->ndevices && i < MAX_RUN_DEVICES; i++)
            g->devices[g->ndevices++] = i;
        return true;
    }
    for (int i = 0; i < ndevices; i++) {
        if (devices[i] >= m->ndevices) {
            fprintf(err, "mmprof: --devices: device %d is out of range: this machine has %d CUDA device%s (0 to %d)\n",
                    devices[i], m->ndevices, m->ndevices == 1 ? "" : "s", m->ndevices - 1);
            return false;
        }
        g->devices[g->ndevices++] = devices[i];
    }
    return true;
}

typedef struct {
    const run_model *m;
    run_model *m_devices;   /* the same model: only devices[device].free_mem is written */
    const multi_gpu_work *work;
    const gpu_inputs *in;
    int device;
    nvml_watch *watch;
    device_pass pass;
    workload_run *out;      /* this thread's workloads */
    int nout;
} device_job;

static void job_workload(device_job *j, const workload_def *d, mem_kind kind, workload_run *w)
{
    memset(w, 0, sizeof *w);
    w->noise_pct = -1;
    w->device = j->device;
    w->n = j->in->n;
    w->pass = j->pass;
    w->needs_gpu = true;
    w->host_memory = kind;
    w->prec = d->gpu->prec;
    copy_str(w->name, sizeof w->name, d->name);
}

/* Whether n fits the GPU's free memory (with --cold-l2's flush buffer). */
static bool fits(device_job *j, char *why, size_t len)
{
    const device_info *d = &j->m->devices[j->device];
    uint64_t need = device_bytes_needed(j->in->n) + (j->work->cold_l2 ? 2ull * (uint64_t)d->l2_bytes : 0);
    if (need <= d->free_mem)
        return true;
    snprintf(why, len, "n = %d needs %.1f GiB of device memory; GPU %d (%s) has %.1f GiB free", j->in->n,
             (double)need / GiB, j->device, d->name, (double)d->free_mem / GiB);
    return false;
}

static void *device_thread(void *arg)
{
    device_job *j = arg;
    const multi_gpu_work *wk = j->work;
    char why[256] = "";
    bool ready = gpu_open(j->m_devices, j->device, why, sizeof why) && fits(j, why, sizeof why) &&
                 gpu_prepare(j->in, why, sizeof why) && (!wk->want_cublas || gpu_open_cublas(why, sizeof why));
    for (int i = 0; i < wk->nsel; i++) {
        if (!wk->sel[i]->needs_gpu)
            continue;
        for (int k = 0; k < wk->nkinds; k++) {
            workload_run *w = &j->out[j->nout++];
            job_workload(j, wk->sel[i], wk->kinds[k], w);
            if (!ready || interrupt_pending()) {
                w->status = ready ? WL_SKIPPED : WL_ERROR;
                snprintf(w->status_reason, sizeof w->status_reason, "%s",
                         ready ? "not run: the run was interrupted" : why);
                continue;
            }
            nvml_watch_begin(j->watch);
            gpu_workload_run(wk->sel[i]->gpu, j->in, wk->kinds[k], w);
            nvml_watch_end(j->watch, w, wk->nvml_why);
        }
    }
    gpu_close();
    return NULL;
}

/* Runs the jobs' threads: one at a time, or all at once. A thread that cannot be started runs on
 * this one, in turn. */
static void run_jobs(device_job *jobs, int n, bool together)
{
    pthread_t t[MAX_RUN_DEVICES];
    bool started[MAX_RUN_DEVICES] = {false};
    for (int i = 0; i < n; i++) {
        started[i] = pthread_create(&t[i], NULL, device_thread, &jobs[i]) == 0;
        if (!started[i])
            device_thread(&jobs[i]);
        else if (!together)
            pthread_join(t[i], NULL), started[i] = false;
    }
    for (int i = 0; i < n; i++)
        if (started[i])
            pthread_join(t[i], NULL);
}

void multi_gpu_run_size(run_model *m, const multi_gpu_work *work, const gpu_inputs *in)
{
    int per = 0;
    for (int i = 0; i < work->nsel; i++)
        per += work->sel[i]->needs_gpu ? work->nkinds : 0;
    int n = m->builtin.multi.ndevices;
    if (per == 0 || n == 0)
        return;
    static const device_pass passes[] = {PASS_SEQUENTIAL, PASS_CONCURRENT};
    for (int p = 0; p < 2; p++) {
        device_job jobs[MAX_RUN_DEVICES];
        bool ok = true;
        for (int i = 0; i < n; i++) {
            jobs[i] = (device_job){.m = m, .m_devices = m, .work = work, .in = in, .device = m->builtin.multi.devices[i],
                                   .watch = work->watch ? work->watch[i] : NULL, .pass = passes[p]};
            jobs[i].out = calloc((size_t)per, sizeof *jobs[i].out);
            ok &= jobs[i].out != NULL;
        }
        if (ok) {
            phase *tp = tool_phase_begin(m, passes[p] == PASS_SEQUENTIAL ? "gpus-one-by-one" : "gpus-all-at-once");
            run_jobs(jobs, n, passes[p] == PASS_CONCURRENT);
            tool_phase_end(tp);
        } else {
            model_add_warning(m, "out of memory for the %s pass over the GPUs", device_pass_name(passes[p]));
        }
        /* Into the model in device order; the workloads' arrays move with them. */
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < jobs[i].nout; k++) {
                workload_run *w = model_add_workload(m);
                if (w)
                    *w = jobs[i].out[k];
                else
                    workload_clear(&jobs[i].out[k]);
            }
            free(jobs[i].out);
        }
    }
}

void multi_gpu_peer_matrix(run_model *m)
{
    multi_gpu_info *g = &m->builtin.multi;
    g->copy_bytes = PEER_COPY_BYTES;
    g->copy_reps = PEER_COPY_REPS;
    g->latency_bytes = PEER_LATENCY_BYTES;
    g->latency_reps = PEER_LATENCY_REPS;
    if (g->ndevices < 2) {
        snprintf(g->why, sizeof g->why, "one GPU in the run (%s): no pair to copy between",
                 m->ndevices < 2 ? "this machine has one CUDA device" : "--devices named one");
        return;
    }
    g->pairs = calloc((size_t)(g->ndevices * (g->ndevices - 1)), sizeof *g->pairs);
    if (!g->pairs) {
        snprintf(g->why, sizeof g->why, "out of memory for the peer matrix");
        return;
    }
    phase *tp = tool_phase_begin(m, "peer-matrix");
    for (int a = 0; a < g->ndevices; a++)
        for (int b = 0; b < g->ndevices; b++) {
            if (a == b || interrupt_pending())
                continue;
            peer_pair *p = &g->pairs[g->npairs++];
            int s = g->devices[a], d = g->devices[b];
            nvml_link(m->devices[s].pci_bus_id, m->devices[d].pci_bus_id, p->link, sizeof p->link, p->link_detail,
                      sizeof p->link_detail);
            char why[256] = "";
            if (!gpu_peer_pair(g, s, d, p, why, sizeof why))
                for (int k = 0; k < PEER_MODES; k++)
                    if (!p->copy[k].measured && !p->copy[k].why[0])
                        snprintf(p->copy[k].why, sizeof p->copy[k].why, "%s", why);
        }
    tool_phase_end(tp);
}
