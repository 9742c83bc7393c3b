/* host_activity.h's store: appends that grow by doubling (array_grow.h), as model.c's event store
 * does. */
#include "host_activity.h"

#include "array_grow.h"

#include <stdlib.h>
#include <string.h>

static bool dup_field(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = strdup(src);
    return *dst != NULL;
}

int host_add_frame(host_activity *h, const host_frame *f)
{
    host_frame c = *f;
    bool ok = dup_field(&c.function, f->function);
    ok = dup_field(&c.file, f->file) && ok;
    ok = dup_field(&c.module, f->module) && ok;
    size_t n = (size_t)h->nframes;
    void *grown = ok ? array_grow(h->frames, n, sizeof *h->frames) : NULL;
    if (!grown) {
        free(c.function);
        free(c.file);
        free(c.module);
        return -1;
    }
    h->frames = grown;
    h->frames[n] = c;
    h->nframes = (int)n + 1;
    return (int)n;
}

/* Samples, spans and sites come with the run's length (a sample a thread every 10 ms, a site a
 * sampled launch): spill.h's, as the events are. */
bool host_add_sample(host_activity *h, const host_sample *s) { SPILL_APPEND(h->samples, h->nsamples, *s); return true; }
bool host_add_span(host_activity *h, const host_span *s) { SPILL_APPEND(h->spans, h->nspans, *s); return true; }
bool host_add_site(host_activity *h, const host_site *s) { SPILL_APPEND(h->sites, h->nsites, *s); return true; }

struct host_naming {
    pthread_mutex_t lock;
    pthread_t thread;
    bool joined;
};

bool host_names_pending(host_activity *h, pthread_t thread)
{
    struct host_naming *n = calloc(1, sizeof *n);
    if (!n)
        return false;
    pthread_mutex_init(&n->lock, NULL);
    n->thread = thread;
    h->naming = n;
    return true;
}

void host_names_wait(const host_activity *h)
{
    struct host_naming *n = h->naming;
    if (!n)
        return;
    pthread_mutex_lock(&n->lock);
    if (!n->joined) {
        pthread_join(n->thread, NULL);
        n->joined = true;
    }
    pthread_mutex_unlock(&n->lock);
}

void host_activity_free(host_activity *h)
{
    host_names_wait(h);
    if (h->naming) {
        pthread_mutex_destroy(&h->naming->lock);
        free(h->naming);
    }
    for (int i = 0; i < h->nframes; i++) {
        free(h->frames[i].function);
        free(h->frames[i].file);
        free(h->frames[i].module);
    }
    free(h->frames);
    spill_free(h->samples);
    spill_free(h->spans);
    spill_free(h->sites);
    memset(h, 0, sizeof *h);
}

bool host_activity_move(host_activity *dst, host_activity *src)
{
    int base = dst->nframes;
    if (src->nframes > INT32_MAX - base)
        return false;
    for (int i = 0; i < src->nframes; i++) {
        if (src->frames[i].parent >= 0)
            src->frames[i].parent += base;
        if (src->frames[i].outer > 0)
            src->frames[i].outer += base;
    }
#define SHIFT(arr, n)                 \
    for (size_t i = 0; i < (n); i++) \
        if ((arr)[i].frame >= 0)     \
            (arr)[i].frame += base;
    SHIFT(src->samples, src->nsamples)
    SHIFT(src->spans, src->nspans)
    SHIFT(src->sites, src->nsites)
#undef SHIFT
    size_t nf = (size_t)dst->nframes;
    bool ok = array_append_n(&dst->frames, &nf, src->frames, (size_t)src->nframes, sizeof *src->frames);
    if (ok) {
        dst->nframes = (int)nf;
        src->nframes = 0; /* the strings are dst's now */
    }
    ok = ok && array_append_n_to(&dst->samples, &dst->nsamples, src->samples, src->nsamples, sizeof *src->samples, true) &&
         array_append_n_to(&dst->spans, &dst->nspans, src->spans, src->nspans, sizeof *src->spans, true) &&
         array_append_n_to(&dst->sites, &dst->nsites, src->sites, src->nsites, sizeof *src->sites, true);
    if (!dst->mechanism[0] && src->mechanism[0]) {
        memcpy(dst->mechanism, src->mechanism, sizeof dst->mechanism);
        dst->rate_hz = src->rate_hz;
    }
    if (!dst->why_not[0])
        memcpy(dst->why_not, src->why_not, sizeof dst->why_not);
    if (!dst->symbols_why[0])
        memcpy(dst->symbols_why, src->symbols_why, sizeof dst->symbols_why);
    host_stats_add(&dst->stats, &src->stats);
    host_activity_free(src);
    return ok;
}

void host_stats_add(host_collect_stats *dst, const host_collect_stats *src)
{
    if (src->has_sites) {
        dst->has_sites = true;
        dst->sites_taken += src->sites_taken;
        dst->sites_skipped += src->sites_skipped;
        dst->sites_off_ns += src->sites_off_ns;
    }
    if (src->has_looks) {
        dst->has_looks = true;
        dst->looks_nogil += src->looks_nogil;
        dst->looks_gil += src->looks_gil;
        dst->samples_left_out += src->samples_left_out;
        dst->samples_torn += src->samples_torn;
    }
}
