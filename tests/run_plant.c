/* Run files made from a recorded one, for mmprof diff's and history's tests and benchmark: a
 * known change planted in a copy of a real run, so a test can check that diff names it, with its
 * size, and nothing else.
 *
 *   run_plant IN OUT range NAME MS     every instance of range NAME (its folded name, "step *")
 *                                      MS longer: the run stretched at each instance's middle
 *   run_plant IN OUT span NAME MS      the first host span named NAME ("time.sleep": a cause of
 *                                      idle time) MS longer, stretched at its middle
 *   run_plant IN OUT kernel NAME MS N  a new kernel NAME: N launches of MS each, on a stream of
 *                                      their own after the first kernel's
 *   run_plant IN OUT scale F ISO       every time from the run's start scaled by F, and the run's
 *                                      start set to ISO (a synthetic run of history's benchmark)
 *   run_plant IN PREFIX series N FIRST STRIDE  N synthetic runs PREFIX-<k>.json, k = FIRST,
 *                                      FIRST + STRIDE, ..., of history's
 *                                      benchmark: run k's times scaled by 1 + 3% x sin(k) (and by
 *                                      1.1 from k = 500 on: a step history must flag), started k
 *                                      minutes after 2026-01-01, one read for all N
 *
 * "Stretched at t": every time after t moves MS later, and whatever spans t (an event, a range,
 * a host span) grows by MS, so the planted time is in the state the run was in at t. C rather
 * than a script: the run is read and written by model_json.c, as mmprof reads and writes it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_json.h"
#include "range_groups.h"

/* A time after `at` moves by `by`; an interval holding `at` grows by `by`. */
static void move(int64_t *t, int64_t at, int64_t by)
{
    if (*t > at)
        *t += by;
}

static void stretch(run_model *m, int64_t at, int64_t by)
{
#define EACH(arr, n)                            \
    for (size_t i = 0; i < (size_t)(n); i++) { \
        move(&(arr)[i].start_ns, at, by);       \
        move(&(arr)[i].end_ns, at, by);         \
    }
    EACH(m->events.kernels, m->events.nkernels);
    EACH(m->events.copies, m->events.ncopies);
    EACH(m->events.memsets, m->events.nmemsets);
    EACH(m->events.apis, m->events.napis);
    EACH(m->events.syncs, m->events.nsyncs);
    EACH(m->regions, m->nregions);
    EACH(m->host_activity.spans, m->host_activity.nspans);
#undef EACH
    for (size_t i = 0; i < m->host_activity.nsamples; i++)
        move(&m->host_activity.samples[i].ts_ns, at, by);
    for (size_t i = 0; i < m->memory.nevents; i++)
        move(&m->memory.events[i].ts_ns, at, by);
    for (size_t i = 0; i < m->memory.nsamples; i++)
        move(&m->memory.samples[i].ts_ns, at, by);
}

static int plant_range(run_model *m, const char *name, int64_t by)
{
    /* the middles first, then stretched latest first, so an earlier middle does not move */
    int64_t *mid = malloc((size_t)m->nregions * sizeof *mid);
    int n = 0;
    char folded[RANGE_GROUP_NAME];
    for (int i = 1; mid && i < m->nregions; i++) {
        range_group_name(m->regions[i].name, folded, sizeof folded);
        if (strcmp(folded, name) == 0)
            mid[n++] = m->regions[i].start_ns + (m->regions[i].end_ns - m->regions[i].start_ns) / 2;
    }
    for (int i = n - 1; i >= 0; i--)
        for (int j = 0; j < i; j++)
            if (mid[j] > mid[j + 1]) {
                int64_t t = mid[j];
                mid[j] = mid[j + 1], mid[j + 1] = t;
            }
    for (int i = n - 1; i >= 0; i--)
        stretch(m, mid[i], by);
    free(mid);
    return n;
}

static int plant_span(run_model *m, const char *name, int64_t by)
{
    host_activity *h = &m->host_activity;
    for (size_t i = 0; i < h->nspans; i++) {
        int f = h->spans[i].frame;
        if (f >= 0 && f < h->nframes && h->frames[f].function && strcmp(h->frames[f].function, name) == 0) {
            stretch(m, h->spans[i].start_ns + (h->spans[i].end_ns - h->spans[i].start_ns) / 2, by);
            return 1;
        }
    }
    return 0;
}

static int plant_kernel(run_model *m, const char *name, int64_t ms_ns, int n)
{
    if (m->events.nkernels == 0)
        return 0;
    kernel_event k = m->events.kernels[0];
    k.name = (char *)name;
    k.stream += 1000;
    k.correlation = 0;
    for (int i = 0; i < n; i++) {
        k.start_ns = m->events.kernels[0].end_ns + i * (ms_ns + 1000);
        k.end_ns = k.start_ns + ms_ns;
        if (!events_add_kernel(&m->events, &k))
            return 0;
    }
    return n;
}

static void scale_run(run_model *m, double f, const char *iso)
{
    int64_t t0 = m->regions[0].start_ns;
#define SC(x) ((x) = t0 + (int64_t)llround((double)((x) - t0) * f))
#define EACH(arr, n)                            \
    for (size_t i = 0; i < (size_t)(n); i++) { \
        SC((arr)[i].start_ns);                  \
        SC((arr)[i].end_ns);                    \
    }
    EACH(m->events.kernels, m->events.nkernels);
    EACH(m->events.copies, m->events.ncopies);
    EACH(m->events.memsets, m->events.nmemsets);
    EACH(m->events.apis, m->events.napis);
    EACH(m->events.syncs, m->events.nsyncs);
    EACH(m->regions, m->nregions);
    EACH(m->host_activity.spans, m->host_activity.nspans);
    for (size_t i = 0; i < m->host_activity.nsamples; i++)
        SC(m->host_activity.samples[i].ts_ns);
    for (size_t i = 0; i < m->memory.nevents; i++)
        SC(m->memory.events[i].ts_ns);
    for (size_t i = 0; i < m->memory.nsamples; i++)
        SC(m->memory.samples[i].ts_ns);
#undef EACH
#undef SC
    snprintf(m->started_at, sizeof m->started_at, "%s", iso);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: run_plant IN OUT range NAME MS | span NAME MS | kernel NAME MS N | scale F ISO | "
                        "IN PREFIX series N FIRST STRIDE\n");
        return 2;
    }
    run_model m;
    char err[512];
    if (!model_read_file(argv[1], &m, err, sizeof err)) {
        fprintf(stderr, "run_plant: %s\n", err);
        return 2;
    }
    const char *what = argv[3];
    int done = 0;
    if (strcmp(what, "range") == 0 && argc == 6)
        done = plant_range(&m, argv[4], (int64_t)(atof(argv[5]) * 1e6));
    else if (strcmp(what, "span") == 0 && argc == 6)
        done = plant_span(&m, argv[4], (int64_t)(atof(argv[5]) * 1e6));
    else if (strcmp(what, "kernel") == 0 && argc == 7)
        done = plant_kernel(&m, argv[4], (int64_t)(atof(argv[5]) * 1e6), atoi(argv[6]));
    else if (strcmp(what, "scale") == 0 && argc == 6 && atof(argv[4]) > 0) {
        scale_run(&m, atof(argv[4]), argv[5]);
        done = 1;
    }
    else if (strcmp(what, "series") == 0 && argc == 7 && atoi(argv[6]) > 0) {
        int n = atoi(argv[4]), first = atoi(argv[5]), stride = atoi(argv[6]);
        double prev = 1;
        for (int k = first; k < first + n * stride; k += stride) {
            double f = (1 + 0.03 * sin(k)) * (k >= 500 ? 1.1 : 1.0);
            char iso[32], path[4096];
            snprintf(iso, sizeof iso, "2026-01-%02dT%02d:%02d:00Z", 1 + k / 1440, k / 60 % 24, k % 60);
            scale_run(&m, f / prev, iso); /* relative to the last copy: one read serves them all */
            prev = f;
            snprintf(path, sizeof path, "%s-%04d.json", argv[2], k);
            char *text = model_to_text(&m);
            FILE *out = fopen(path, "w");
            bool ok = text && out && fputs(text, out) >= 0;
            ok = (out && fclose(out) == 0) && ok;
            free(text);
            if (!ok) {
                fprintf(stderr, "run_plant: cannot write %s\n", path);
                model_free(&m);
                return 1;
            }
        }
        model_free(&m);
        return 0;
    }
    if (!done) {
        fprintf(stderr, "run_plant: nothing planted: '%s' with these arguments found nothing in %s\n", what, argv[1]);
        model_free(&m);
        return 2;
    }
    char *text = model_to_text(&m);
    FILE *f = fopen(argv[2], "w");
    bool ok = text && f && fputs(text, f) >= 0;
    ok = (f && fclose(f) == 0) && ok;
    free(text);
    model_free(&m);
    if (!ok) {
        fprintf(stderr, "run_plant: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
