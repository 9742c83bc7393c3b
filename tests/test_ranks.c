/* Several ranks in one report: the rank analysis (compute / NCCL / copy / idle shares, NCCL time
 * hidden under compute, collective-end skew, stragglers) on timelines built here, checked against
 * an independent count on a 1 us grid; the merge of rank files by `mmprof report a.json b.json`
 * (clocks by each file's epoch, pids that clash renumbered, devices kept apart); the rank line of
 * the record stream; and profile's %r and %h in output names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "analyze.h"
#include "model_json.h"
#include "stream_read.h"
#include "test_support.h"

#define US 1000LL
#define MS 1000000LL
#define T0 1732981234000000000LL

static const char *const NCCL = "_Z28ncclDevKernel_AllReduce_Sum_f32_RING_LLP24ncclDevKernelArgsStorageILm4096EE";

static void kernel(run_model *m, uint32_t pid, uint32_t dev, const char *name, int64_t s, int64_t e)
{
    kernel_event k = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = pid, .device = dev};
    assert_true(events_add_kernel(&m->events, &k));
}

static void copy(run_model *m, uint32_t pid, uint32_t dev, int64_t s, int64_t e)
{
    copy_event c = {.dir = COPY_H2D, .src = MEM_PINNED, .dst = MEM_DEVICE, .bytes = 1 << 20, .start_ns = T0 + s,
                    .end_ns = T0 + e, .pid = pid, .device = dev};
    assert_true(events_add_copy(&m->events, &c));
}

static void device(run_model *m, const char *bus)
{
    m->devices = realloc(m->devices, (size_t)(m->ndevices + 1) * sizeof *m->devices);
    assert_non_null(m->devices);
    device_info *d = &m->devices[m->ndevices];
    memset(d, 0, sizeof *d);
    d->index = m->ndevices++;
    snprintf(d->name, sizeof d->name, "NVIDIA H200");
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", bus);
}

static void rank_process(run_model *m, uint32_t pid, int rank, int world, const char *host)
{
    assert_true(model_add_process(m, pid, "python3 train.py"));
    model_set_process_rank(m, pid, rank, world, rank, host);
}

/* A profiled job of two ranks (pids 100, 200 on GPUs 0, 1): random kernels, NCCL kernels and
 * copies on a 1 us grid, so a count per microsecond is exact. */
static void random_job(run_model *m, unsigned seed)
{
    model_init(m);
    m->source = SOURCE_PROFILE;
    device(m, "00000000:18:00.0");
    device(m, "00000000:2A:00.0");
    rank_process(m, 100, 0, 2, "node-a");
    rank_process(m, 200, 1, 2, "node-a");
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 40; i++) {
            int64_t s = (int64_t)(rand_r(&seed) % 5000) * US, len = (int64_t)(1 + rand_r(&seed) % 300) * US;
            int what = rand_r(&seed) % 3;
            uint32_t pid = r ? 200 : 100;
            if (what == 2)
                copy(m, pid, (uint32_t)r, s, s + len);
            else
                kernel(m, pid, (uint32_t)r, what ? NCCL : "_Z4gemmPf", s, s + len);
        }
    assert_true(model_finish_regions(m, "job"));
}

/* The GPU window of pid's events (own), or of every event. */
static void grid_window(const run_model *m, uint32_t pid, bool own, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX, *hi = INT64_MIN;
    for (size_t i = 0; i < m->events.nkernels; i++) {
        if (own && m->events.kernels[i].pid != pid)
            continue;
        *lo = m->events.kernels[i].start_ns < *lo ? m->events.kernels[i].start_ns : *lo;
        *hi = m->events.kernels[i].end_ns > *hi ? m->events.kernels[i].end_ns : *hi;
    }
    for (size_t i = 0; i < m->events.ncopies; i++) {
        if (own && m->events.copies[i].pid != pid)
            continue;
        *lo = m->events.copies[i].start_ns < *lo ? m->events.copies[i].start_ns : *lo;
        *hi = m->events.copies[i].end_ns > *hi ? m->events.copies[i].end_ns : *hi;
    }
}

/* The independent count: for each microsecond of the job's window (or the rank's own span, with
 * own), what ran on the rank; *copy_us: microseconds with a copy running, whatever else ran. */
static void count_grid(const run_model *m, uint32_t pid, bool own, double *compute, double *comm, double *copy_,
                       double *idle, double *hidden, long *copy_us)
{
    int64_t lo, hi;
    grid_window(m, pid, own, &lo, &hi);
    *copy_us = 0;
    long n[4] = {0}, nccl = 0, both = 0, total = 0;
    for (int64_t t = lo; t < hi; t += US) {
        bool c = false, x = false, y = false;
        for (size_t i = 0; i < m->events.nkernels; i++) {
            const kernel_event *k = &m->events.kernels[i];
            if (k->pid == pid && k->start_ns <= t && t < k->end_ns) {
                if (strstr(k->name, "ncclDevKernel"))
                    x = true;
                else
                    c = true;
            }
        }
        for (size_t i = 0; i < m->events.ncopies; i++) {
            const copy_event *k = &m->events.copies[i];
            y |= k->pid == pid && k->start_ns <= t && t < k->end_ns;
        }
        n[c ? 0 : x ? 1 : y ? 2 : 3]++;
        *copy_us += y;
        nccl += x;
        both += x && c;
        total++;
    }
    *compute = 100.0 * (double)n[0] / (double)total;
    *comm = 100.0 * (double)n[1] / (double)total;
    *copy_ = 100.0 * (double)n[2] / (double)total;
    *idle = 100.0 * (double)n[3] / (double)total;
    *hidden = nccl ? 100.0 * (double)both / (double)nccl : -1;
}

/* Over the job's window, and over each rank's own span. */
static void shares_match_a_count_per_microsecond(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 5; seed++) {
        run_model m;
        random_job(&m, seed);
        analysis a;
        assert_true(analyze(&m, &a));
        assert_non_null(a.ranks);
        assert_true(a.ranks->by_rank);
        assert_int_equal(a.ranks->nrows, 2);
        assert_int_equal(a.ranks->ngpus, 2);
        for (int r = 0; r < 2; r++) {
            const rank_share *s = &a.ranks->rows[r];
            assert_int_equal(s->rank, r);
            assert_int_equal(s->device, r);
            double cp, cm, cy, id, hd;
            long copy_us;
            count_grid(&m, r ? 200 : 100, false, &cp, &cm, &cy, &id, &hd, &copy_us);
            assert_float_equal(s->compute_pct.v, cp, 1e-9);
            assert_float_equal(s->comm_pct.v, cm, 1e-9);
            assert_float_equal(s->copy_pct.v, cy, 1e-9);
            assert_float_equal(s->idle_pct.v, id, 1e-9);
            assert_float_equal(s->busy_pct.v, 100 - id, 1e-9);
            assert_true(hd >= 0 && s->overlap_pct.ok);
            assert_float_equal(s->overlap_pct.v, hd, 1e-9);
            /* one GPU a rank: the GPU row says the same */
            assert_float_equal(a.ranks->gpus[r].compute_pct.v, cp, 1e-9);
            assert_float_equal(s->memory_ms.v, (double)copy_us * US / MS, 1e-9);
            /* Over the rank's own span (Holistic Trace Analysis's temporal breakdown). */
            uint32_t pid = r ? 200 : 100;
            int64_t lo, hi;
            grid_window(&m, pid, true, &lo, &hi);
            count_grid(&m, pid, true, &cp, &cm, &cy, &id, &hd, &copy_us);
            assert_true(s->span_ms.ok && s->span_idle_pct.ok);
            assert_float_equal(s->span_ms.v, (double)(hi - lo) / MS, 1e-9);
            assert_float_equal(s->span_idle_pct.v, id, 1e-9);
            assert_float_equal(s->span_compute_pct.v, cp, 1e-9);
            assert_float_equal(s->span_non_compute_pct.v, cm + cy, 1e-9);
        }
        analysis_free(&a);
        model_free(&m);
    }
}

/* Three ranks open "step 0..3" and "forward"; rank 2 ends each step 3 ms + 1 ms x step after
 * rank 0, rank 1 0.5 ms after. Rank 1's NCCL kernels end 50 us after rank 0's. */
static void stragglers_and_collective_skew(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    for (int r = 0; r < 3; r++) {
        char bus[32];
        snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0x18 + r);
        device(&m, bus);
        uint32_t pid = 100 + (uint32_t)r;
        rank_process(&m, pid, r, 3, "node-a");
        for (int s = 0; s < 4; s++) {
            int64_t base = s * 20 * MS;
            int64_t late = r == 2 ? 3 * MS + s * MS : r == 1 ? MS / 2 : 0;
            char name[24];
            snprintf(name, sizeof name, "step %d", s);
            assert_true(model_add_region(&m, REGION_NVTX, name, NULL, T0 + base, T0 + base + 10 * MS + late, pid, pid,
                                         -1) >= 0);
            assert_true(model_add_region(&m, REGION_NVTX, "forward", NULL, T0 + base, T0 + base + 2 * MS, pid, pid,
                                         -1) >= 0);
            kernel(&m, pid, (uint32_t)r, "_Z4gemmPf", base, base + 2 * MS);
            kernel(&m, pid, (uint32_t)r, NCCL, base + 3 * MS, base + 4 * MS + (r == 1 ? 50 * US : 0));
        }
    }
    assert_true(model_finish_regions(&m, "job"));
    analysis a;
    assert_true(analyze(&m, &a));
    const rank_analysis *ra = a.ranks;
    assert_non_null(ra);
    assert_float_equal(ra->rows[0].coll_skew_us.v, 0, 1e-9);
    assert_float_equal(ra->rows[1].coll_skew_us.v, 50, 1e-9);
    assert_float_equal(ra->rows[2].coll_skew_us.v, 0, 1e-9);
    /* No kernel ran under NCCL: nothing hidden. */
    assert_float_equal(ra->rows[0].overlap_pct.v, 0, 1e-9);
    /* step k: rank 2 last by 3 + k ms; forward: all end together (lag 0). First by lag: step 3. */
    assert_true(ra->nstragglers >= 5);
    assert_string_equal(ra->stragglers[0].name, "step 3");
    assert_int_equal(ra->rows[ra->stragglers[0].straggler].rank, 2);
    assert_float_equal(ra->stragglers[0].max_lag_ms.v, 6.0, 1e-9);
    for (int i = 0; i < ra->nstragglers; i++)
        if (strcmp(ra->stragglers[i].name, "forward") == 0) {
            assert_int_equal(ra->stragglers[i].matched, 4);
            assert_int_equal(ra->stragglers[i].rows, 3);
            assert_float_equal(ra->stragglers[i].max_lag_ms.v, 0, 1e-9);
        }
    analysis_free(&a);
    model_free(&m);
}

static void one_process_has_no_rank_section(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    device(&m, "00000000:18:00.0");
    assert_true(model_add_process(&m, 7, "python3"));
    kernel(&m, 7, 0, "_Z4gemmPf", 0, MS);
    assert_true(model_finish_regions(&m, "one"));
    analysis a;
    assert_true(analyze(&m, &a));
    assert_null(a.ranks);
    analysis_free(&a);
    model_free(&m);
}

/* A rank file: pid 500 (both files), one GPU, a kernel from 1 to 3 ms after t0 (its own clock),
 * an NVTX "step" ending at end_ms, the epoch at t0. */
static char *rank_file(const char *name, int rank, int64_t t0, double end_ms, const char *host)
{
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    m.epoch_ns = t0;
    device(&m, "00000000:18:00.0");
    assert_true(model_add_process(&m, 500, "python3 train.py"));
    model_set_process_rank(&m, 500, rank, 2, 0, host);
    kernel_event k = {.name = "_Z4gemmPf", .start_ns = t0 + MS, .end_ns = t0 + 3 * MS, .pid = 500};
    assert_true(events_add_kernel(&m.events, &k));
    assert_true(model_add_region(&m, REGION_NVTX, "step", NULL, t0, t0 + (int64_t)(end_ms * MS), 500, 500, -1) >= 0);
    assert_true(model_finish_regions(&m, "python3"));
    cJSON *j = model_to_json(&m);
    char *text = cJSON_PrintUnformatted(j);
    char *path = path_in(test_tmp, name);
    assert_true(write_text(path, text));
    cJSON_Delete(j);
    free(text);
    model_free(&m);
    return path;
}

static cJSON *merged_ranks(cJSON *root)
{
    cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "ranks");
    assert_non_null(r);
    return r;
}

/* Rank 1 started 7 ms after rank 0 (its epoch), on another host with the same pid: the merge
 * keeps both processes apart, puts rank 1's kernel 7 ms later and says the step's straggler is
 * rank 1, by 7 + 4 - 4 = 7 ms (both steps last 4 ms on their own clocks). */
static void report_merges_rank_files_by_epoch(void **state)
{
    (void)state;
    char *a = rank_file("run.0.json", 0, T0, 4, "node-a");
    char *b = rank_file("run.1.json", 1, T0 + 7 * MS, 4, "node-b");
    char *out = path_in(test_tmp, "merged.json");
    const char *argv[] = {mmprof_bin(), "report", a, b, "--json", out, "--color", "never", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Ranks"));
    assert_non_null(strstr(r.out, "merged 2 run files from 2 hosts"));
    char *text = read_file(out, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "processes")), 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "devices")), 2); /* one per host */
    /* The run's epoch is the earlier file's; rank 1's kernel starts 7 + 1 ms after it. */
    cJSON *ks = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "kernels");
    assert_int_equal(cJSON_GetArraySize(ks), 2);
    double starts[2];
    for (int i = 0; i < 2; i++)
        starts[i] = cJSON_GetObjectItem(cJSON_GetArrayItem(ks, i), "start_ns")->valuedouble;
    assert_float_equal(starts[1] - starts[0], 7.0 * MS, 0.5);
    cJSON *rk = merged_ranks(root);
    assert_int_equal(cJSON_GetObjectItem(rk, "hosts")->valueint, 2);
    cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(rk, "stragglers"), 0);
    assert_string_equal(cJSON_GetObjectItem(st, "name")->valuestring, "step");
    assert_int_equal(cJSON_GetObjectItem(st, "last_rank")->valueint, 1);
    assert_float_equal(cJSON_GetObjectItem(st, "max_lag_ms")->valuedouble, 7.0, 1e-6);
    cJSON *rows = cJSON_GetObjectItem(rk, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    uint32_t p0 = (uint32_t)cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "pid")->valuedouble;
    uint32_t p1 = (uint32_t)cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "pid")->valuedouble;
    assert_int_equal(p0, 500);
    assert_true(p1 != 500); /* renumbered */
    /* window: 1 ms to 10 ms; each rank computes 2 ms of it */
    assert_float_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "compute_pct")->valuedouble, 100.0 * 2 / 9,
                       1e-6);
    cJSON_Delete(root);
    free(text);
    cmd_free(&r);
    free(a);
    free(b);
    free(out);
}

static void report_refuses_a_builtin_run_in_a_merge(void **state)
{
    (void)state;
    char *a = rank_file("run.0.json", 0, T0, 4, "node-a");
    char *out = path_in(test_tmp, "merged.json");
    const char *argv[] = {mmprof_bin(), "report", a, sample_path(), "--json", out, NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "built-in workloads"));
    assert_null(read_file(out, NULL)); /* no half-written output */
    cmd_free(&r);
    free(a);
    free(out);
}

static void stream_rank_line_names_the_process(void **state)
{
    (void)state;
    char *path = path_in(test_tmp, "300.stream");
    assert_true(write_text(path, "mmprof-stream\t1\nprocess\t300\t1\t1000\tpython3 train.py\n"
                                 "rank\t3\t8\t1\tRANK\tnode-b\nexit\t2000\n"));
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[256];
    assert_true(stream_read_file(path, &m, &s, err, sizeof err));
    assert_int_equal(m.nprocesses, 1);
    assert_int_equal(m.processes[0].rank, 3);
    assert_int_equal(m.processes[0].world_size, 8);
    assert_int_equal(m.processes[0].local_rank, 1);
    assert_string_equal(m.processes[0].host, "node-b");
    model_free(&m);
    free(path);
}

/* A rank that used GPU 1 alone: its stream names device 1, the model's only device; its kernel
 * must point at that device's place (0), or the run file it writes does not read back. */
static void a_rank_on_gpu_1_alone_reads_back(void **state)
{
    (void)state;
    char *path = path_in(test_tmp, "301.stream");
    assert_true(write_text(path, "mmprof-stream\t1\nprocess\t301\t1\t1000\tpython3 train.py\n"
                                 "rank\t1\t2\t1\tRANK\tnode-a\n"
                                 "device\t1\t9\t0\t132\t1980000\t3201000\t6016\t62914560\t1024\t2048\t32\t65536\t65536"
                                 "\t233472\t49152\t232448\t1024\t32\t150109880320\t13000\t0000:00:07.0\tNVIDIA H200\n"
                                 "kernel\t2000\t3000\t1\t7\t1\t1\t1\t1\t32\t1\t1\t16\t0\t0\t0\t0\t_Z1kv\nexit\t4000\n"));
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[256];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    m.source = SOURCE_PROFILE;
    assert_int_equal(m.ndevices, 1);
    assert_int_equal(m.devices[0].index, 1);
    assert_int_equal(m.events.nkernels, 1);
    assert_int_equal(m.events.kernels[0].device, 0);
    assert_true(model_finish_regions(&m, "python3"));
    cJSON *j = model_to_json(&m);
    assert_non_null(j);
    run_model back;
    bool read_back = model_from_json(j, &back, err, sizeof err);
    if (!read_back)
        fail_msg("%s", err);
    assert_int_equal(back.events.kernels[0].device, 0);
    cJSON_Delete(j);
    model_free(&back);
    model_free(&m);
    free(path);
}

static void profile_names_output_by_rank_and_host(void **state)
{
    (void)state;
    char *pat = path_in(test_tmp, "run.%r.json");
    const char *argv[] = {mmprof_bin(), "profile", "-q", "--json", pat, "--", "true", NULL};
    const char *env[] = {"RANK=5", NULL};
    cmd_result r = run_argv(argv, env);
    assert_int_equal(r.status, 0);
    char *made = path_in(test_tmp, "run.5.json");
    char *text = read_file(made, NULL);
    assert_non_null(text);
    free(text);
    cmd_free(&r);
    /* mpirun's variable when torchrun's is not set; %h is the host. */
    char *pat3 = path_in(test_tmp, "mpi.%r.%h.json");
    const char *argv3[] = {mmprof_bin(), "profile", "-q", "--json", pat3, "--", "true", NULL};
    const char *env3[] = {"RANK=", "OMPI_COMM_WORLD_RANK=7", NULL};
    r = run_argv(argv3, env3);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    char host[256], name3[320];
    assert_int_equal(gethostname(host, sizeof host), 0);
    host[sizeof host - 1] = '\0';
    snprintf(name3, sizeof name3, "mpi.7.%s.json", host);
    char *made3 = path_in(test_tmp, name3);
    text = read_file(made3, NULL);
    assert_non_null(text);
    free(text);
    free(made3);
    free(pat3);
    /* No launcher variable: %r cannot be named; nothing is written. */
    char *pat2 = path_in(test_tmp, "other.%r.json");
    const char *argv2[] = {mmprof_bin(), "profile", "-q", "--json", pat2, "--", "true", NULL};
    const char *env2[] = {"RANK=", "OMPI_COMM_WORLD_RANK=", "PMI_RANK=", "PMIX_RANK=", "SLURM_PROCID=", NULL};
    r = run_argv(argv2, env2);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "%r names the rank"));
    cmd_free(&r);
    free(pat);
    free(pat2);
    free(made);
}

/* The independent computation for the recorded sample: a sweep over every start and end of one
 * process's GPU events with a counter per class (not the union of sorted intervals ranks.c does):
 * the time with compute running, with NCCL and no compute, with copies alone, and NCCL under
 * compute. */
typedef struct {
    int64_t t;
    int cls, delta;
} edge;

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

static void sweep_shares(const run_model *m, uint32_t pid, int64_t lo, int64_t hi, double out[5])
{
    const event_list *e = &m->events;
    edge *ed = malloc(2 * (e->nkernels + e->ncopies + e->nmemsets + 1) * sizeof *ed);
    assert_non_null(ed);
    size_t n = 0;
    for (size_t i = 0; i < e->nkernels; i++)
        if (e->kernels[i].pid == pid) {
            int c = strstr(e->kernels[i].name, "ncclDevKernel") || strstr(e->kernels[i].name, "ncclKernel") ? 1 : 0;
            ed[n++] = (edge){e->kernels[i].start_ns, c, 1};
            ed[n++] = (edge){e->kernels[i].end_ns, c, -1};
        }
    for (size_t i = 0; i < e->ncopies; i++)
        if (e->copies[i].pid == pid) {
            ed[n++] = (edge){e->copies[i].start_ns, 2, 1};
            ed[n++] = (edge){e->copies[i].end_ns, 2, -1};
        }
    for (size_t i = 0; i < e->nmemsets; i++)
        if (e->memsets[i].pid == pid) {
            ed[n++] = (edge){e->memsets[i].start_ns, 2, 1};
            ed[n++] = (edge){e->memsets[i].end_ns, 2, -1};
        }
    qsort(ed, n, sizeof *ed, cmp_edge);
    int active[3] = {0};
    double t[5] = {0}; /* compute, comm alone, copy alone, nccl total, nccl under compute */
    for (size_t i = 0; i + 1 <= n; i++) {
        active[ed[i].cls] += ed[i].delta;
        int64_t a = ed[i].t, b = i + 1 < n ? ed[i + 1].t : ed[i].t;
        if (b <= a)
            continue;
        double d = (double)(b - a);
        if (active[0] > 0)
            t[0] += d;
        else if (active[1] > 0)
            t[1] += d;
        else if (active[2] > 0)
            t[2] += d;
        if (active[1] > 0)
            t[3] += d;
        if (active[1] > 0 && active[0] > 0)
            t[4] += d;
    }
    free(ed);
    double w = (double)(hi - lo);
    out[0] = 100 * t[0] / w, out[1] = 100 * t[1] / w, out[2] = 100 * t[2] / w;
    out[3] = 100 * (w - t[0] - t[1] - t[2]) / w;
    out[4] = 100 * t[4] / t[3];
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    assert_non_null(v);
    return v->valuedouble;
}

/* The recorded two-rank DDP step (tests/ddp_gpu.sh made it on two H200s, one file per rank):
 * merged by `mmprof report`, its ranks are the program's own (pid and rank as it wrote them), each
 * on its own GPU, the clocks line up (a kernel's absolute time is the same in its rank file and in
 * the merge), the shares and hidden NCCL time agree with the sweep above, and rank 1, made slow,
 * ends every backward pass last. */
static void ddp_sample_merges_and_agrees(void **state)
{
    (void)state;
    const char *r0 = "samples/h200-ddp-rank.0.json.xz", *r1 = "samples/h200-ddp-rank.1.json.xz";
    char *out = path_in(test_tmp, "merged.json");
    const char *argv[] = {mmprof_bin(), "report", r0, r1, "--json", out, "-q", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    run_model merged, one;
    char err[512];
    assert_true(model_read_file(out, &merged, err, sizeof err));
    assert_true(model_read_file(r1, &one, err, sizeof err));
    /* Clock: rank 1's first kernel, at the same absolute time in both. */
    assert_true(one.events.nkernels > 0);
    const kernel_event *k1 = &one.events.kernels[0];
    bool found = false;
    for (size_t i = 0; i < merged.events.nkernels && !found; i++) {
        const kernel_event *k = &merged.events.kernels[i];
        found = k->pid == k1->pid && k->start_ns == k1->start_ns && k->end_ns == k1->end_ns &&
                strcmp(k->name, k1->name) == 0;
    }
    assert_true(found);
    char *text = read_file(out, NULL);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *rk = merged_ranks(root), *rows = cJSON_GetObjectItem(rk, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    const event_list *e = &merged.events;
#define WIDEN(arr, n)                                            \
    for (size_t i = 0; i < (n); i++) {                           \
        lo = (arr)[i].start_ns < lo ? (arr)[i].start_ns : lo;    \
        hi = (arr)[i].end_ns > hi ? (arr)[i].end_ns : hi;        \
    }
    WIDEN(e->kernels, e->nkernels)
    WIDEN(e->copies, e->ncopies)
    WIDEN(e->memsets, e->nmemsets)
#undef WIDEN
    for (int i = 0; i < 2; i++) {
        cJSON *row = cJSON_GetArrayItem(rows, i);
        char own_path[64];
        snprintf(own_path, sizeof own_path, "samples/h200-ddp-own-rank.%d.json", i);
        char *own_text = read_file(own_path, NULL);
        cJSON *own = cJSON_Parse(own_text);
        assert_non_null(own);
        assert_int_equal((int)num(row, "rank"), (int)num(own, "rank"));
        assert_int_equal((uint32_t)num(row, "pid"), (uint32_t)num(own, "pid"));
        assert_int_equal((int)num(row, "device"), i);
        assert_true(num(row, "nccl_kernels") >= 5); /* one all-reduce a step at least */
        double x[5];
        sweep_shares(&merged, (uint32_t)num(row, "pid"), lo, hi, x);
        assert_float_equal(num(row, "compute_pct"), x[0], 1e-6);
        assert_float_equal(num(row, "comm_pct"), x[1], 1e-6);
        assert_float_equal(num(row, "copy_pct"), x[2], 1e-6);
        assert_float_equal(num(row, "idle_pct"), x[3], 1e-6);
        assert_float_equal(num(row, "overlap_pct"), x[4], 1e-6);
        cJSON_Delete(own);
        free(own_text);
    }
    const cJSON *s;
    bool saw_backward = false;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(rk, "stragglers")) {
        if (strcmp(cJSON_GetObjectItem(s, "name")->valuestring, "backward") != 0)
            continue;
        saw_backward = true;
        assert_int_equal((int)num(s, "matched"), 5);
        assert_int_equal((int)num(s, "last_rank"), 1);
        assert_int_equal((int)num(s, "last_times"), 5);
        assert_true(num(s, "median_lag_ms") > 1.0);
    }
    assert_true(saw_backward);
    cJSON_Delete(root);
    free(text);
    model_free(&merged);
    model_free(&one);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares_match_a_count_per_microsecond),
        cmocka_unit_test(stragglers_and_collective_skew),
        cmocka_unit_test(one_process_has_no_rank_section),
        cmocka_unit_test_setup_teardown(report_merges_rank_files_by_epoch, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(report_refuses_a_builtin_run_in_a_merge, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(stream_rank_line_names_the_process, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(ddp_sample_merges_and_agrees, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(a_rank_on_gpu_1_alone_reads_back, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(profile_names_output_by_rank_and_host, test_tmp_setup, test_tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
