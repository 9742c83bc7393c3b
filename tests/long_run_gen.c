/* A long run made from a short real one, for the long-run benchmark (tests/long_run_bench.sh).
 *
 *   long_run_gen RUNFILE DIR [SECONDS] [SKIP]
 *
 * Reads a recorded `mmprof profile` run of a training loop (samples/h200-profile-train.json: 12
 * NVTX steps on the H200) and writes DIR/<pid>.stream, the record stream the injection library
 * would have written for the same program running SECONDS (default 60) of steps: everything up
 * to the first steady step (SKIP warm-up steps, default 2) once, then the steady steps' events
 * and their NVTX ranges again and again, each copy shifted in time and in correlation id, at the
 * step period of the loop measured on the H200 (60 s for 4369 steps: 13.7 ms a step, of which
 * the recorded steps fill ~2 ms), until SECONDS are filled. `mmprof profile -- cp DIR/... `
 * then reads it as it reads a real run's stream: the launcher's path from exit to report.
 *
 * C rather than a script: the stream lines are written by stream_format.c's own functions, so
 * the stream is what the injection library writes, line for line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_json.h"
#include "stream_format.h"

#define STEP_NS 13733000LL /* 60 s / 4369 steps, measured on the H200 (issue 23) */

static bool is_step(const region *g) { return g->kind == REGION_NVTX && strncmp(g->name, "step ", 5) == 0; }

/* The events of e whose start (or, for GPU work, whose launch's correlation) falls in one copy
 * of the steady block, shifted by dt and dc, appended as stream lines. */
typedef struct {
    int64_t from, to;        /* the block's wall: API calls and syncs by start time */
    uint32_t cfrom, cto;     /* the correlation ids of the block's API calls */
} block;

static bool in_corr(const block *b, uint32_t c) { return c >= b->cfrom && c <= b->cto; }

static void emit(strbuf *out, const event_list *src, const block *b, int64_t dt, uint32_t dc, bool prefix)
{
    event_list one = {0};
    for (size_t i = 0; i < src->napis; i++) {
        api_event a = src->apis[i];
        if (prefix ? a.start_ns >= b->from : (a.start_ns < b->from || a.start_ns >= b->to))
            continue;
        a.start_ns += dt, a.end_ns += dt, a.correlation += a.correlation ? dc : 0;
        one.apis = &a, one.napis = 1;
        stream_format_events(out, &one);
    }
    one.napis = 0;
#define GPU_EVENTS(arr, n)                                                                                        \
    for (size_t i = 0; i < src->n; i++) {                                                                        \
        __typeof__(src->arr[0]) x = src->arr[i];                                                                 \
        bool inside = x.correlation ? in_corr(b, x.correlation) : (x.start_ns >= b->from && x.start_ns < b->to); \
        bool before = x.correlation ? x.correlation < b->cfrom : x.start_ns < b->from;                           \
        if (prefix ? !before : !inside)                                                                          \
            continue;                                                                                            \
        x.start_ns += dt, x.end_ns += dt, x.correlation += x.correlation ? dc : 0;                               \
        event_list e1 = {0};                                                                                     \
        e1.arr = &x, e1.n = 1;                                                                                   \
        stream_format_events(out, &e1);                                                                          \
    }
    GPU_EVENTS(kernels, nkernels)
    GPU_EVENTS(copies, ncopies)
    GPU_EVENTS(memsets, nmemsets)
    GPU_EVENTS(syncs, nsyncs)
#undef GPU_EVENTS
}

static void range_lines(strbuf *out, const region *g, int64_t dt, const char *name)
{
    sb_printf(out, "push\t%" PRId64 "\t%u\t\t", g->start_ns + dt, g->tid);
    stream_escape(out, name);
    sb_printf(out, "\npop\t%" PRId64 "\t%u\t\n", g->end_ns + dt, g->tid);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: long_run_gen RUNFILE DIR [SECONDS] [SKIP]\n");
        return 2;
    }
    double seconds = argc > 3 ? atof(argv[3]) : 60;
    int skip = argc > 4 ? atoi(argv[4]) : 2;
    run_model m;
    char err[512];
    if (!model_read_file(argv[1], &m, err, sizeof err)) {
        fprintf(stderr, "long_run_gen: %s\n", err);
        return 1;
    }
    /* The steps, in order; the block is the steps after the warm-up ones. */
    int first = -1, last = -1, nsteps = 0;
    for (int i = 0; i < m.nregions; i++)
        if (is_step(&m.regions[i])) {
            if (nsteps == skip)
                first = i;
            last = i;
            nsteps++;
        }
    if (first < 0 || m.nprocesses < 1 || m.events.napis == 0) {
        fprintf(stderr, "long_run_gen: %s has no NVTX \"step N\" ranges after %d warm-up steps\n", argv[1], skip);
        return 1;
    }
    block b = {.from = m.regions[first].start_ns, .to = m.regions[last].end_ns + 1, .cfrom = UINT32_MAX};
    for (size_t i = 0; i < m.events.napis; i++) {
        const api_event *a = &m.events.apis[i];
        if (a->start_ns >= b.from && a->start_ns < b.to && a->correlation) {
            b.cfrom = a->correlation < b.cfrom ? a->correlation : b.cfrom;
            b.cto = a->correlation > b.cto ? a->correlation : b.cto;
        }
    }
    int block_steps = nsteps - skip;
    /* The loop's period, or the block's own span where its GPU work runs longer (copies must not
     * overlap themselves on a stream). */
    int64_t period = STEP_NS * block_steps, span_end = b.to;
#define SPAN(arr, n)                                                                    \
    for (size_t i = 0; i < m.events.n; i++)                                             \
        if (in_corr(&b, m.events.arr[i].correlation) && m.events.arr[i].end_ns > span_end) \
            span_end = m.events.arr[i].end_ns;
    SPAN(kernels, nkernels)
    SPAN(copies, ncopies)
    SPAN(memsets, nmemsets)
#undef SPAN
    if (span_end - b.from + 100000 > period)
        period = span_end - b.from + 100000;
    int64_t begin = m.regions[0].start_ns;
    long reps = (long)((seconds * 1e9 - (double)(b.from - begin)) / (double)period);
    if (reps < 1)
        reps = 1;
    uint32_t dc = b.cto - b.cfrom + 1;

    const process_info *p = &m.processes[0];
    strbuf out;
    sb_init(&out);
    char path[4096];
    snprintf(path, sizeof path, "%s/%u%s", argv[2], p->pid, STREAM_SUFFIX);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    sb_printf(&out, "%s\t%d\nprocess\t%u\t1\t%" PRId64 "\t", STREAM_MAGIC, STREAM_VERSION, p->pid, begin);
    stream_escape(&out, p->name);
    sb_printf(&out, "\n");
    for (int i = 0; i < m.nthreads; i++) {
        sb_printf(&out, "thread\t%u\t", m.threads[i].tid);
        stream_escape(&out, m.threads[i].name);
        sb_printf(&out, "\n");
    }
    sb_printf(&out, "cuda\t%" PRId64 "\n", begin);
    for (int i = 0; i < m.ndevices; i++)
        stream_format_device(&out, &m.devices[i]);
    /* The warm-up steps and everything before them, once. */
    for (int i = 0; i < m.nregions; i++)
        if (is_step(&m.regions[i]) && m.regions[i].start_ns < b.from)
            range_lines(&out, &m.regions[i], 0, m.regions[i].name);
    emit(&out, &m.events, &b, 0, 0, true);
    long step = skip;
    int64_t end = 0;
    for (long r = 0; r < reps; r++) {
        int64_t dt = period * r;
        for (int i = first; i <= last; i++)
            if (is_step(&m.regions[i])) {
                char name[32];
                snprintf(name, sizeof name, "step %ld", step++);
                range_lines(&out, &m.regions[i], dt, name);
            }
        emit(&out, &m.events, &b, dt, dc * (uint32_t)r, false);
        end = b.to + dt;
        if (out.len > (1 << 22)) {
            fwrite(out.s, 1, out.len, f);
            out.len = 0; out.s[0] = 0;
        }
    }
    sb_printf(&out, "exit\t%" PRId64 "\n", end + period - (b.to - b.from));
    fwrite(out.s, 1, out.len, f);
    if (fclose(f) != 0) {
        perror(path);
        return 1;
    }
    fprintf(stderr, "long_run_gen: %s: %ld steps (%d warm-up, %ld copies of %d), %.1f s\n", path, step, skip, reps,
            block_steps, (double)(end - begin) / 1e9);
    sb_free(&out);
    model_free(&m);
    return 0;
}
