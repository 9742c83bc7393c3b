/* GPU memory over time: see memory.h. Here the whole: the series made and walked in order, the
 * failures, the findings. The parts: call sites (memory_sites.c), each series' walk, peak holders
 * and what was never freed (memory_series.c), the timelines, each process's line and the
 * allocation calls (memory_lines.c), the ranges' and steps' figures (memory_steps.c). */
#include "memory.h"
#include "mem_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"

void mem_bytes_words(double bytes, char *buf, size_t len)
{
    static const metric_def def = {"bytes", "bytes", "B", "%.0f", 0, "", BETTER_NONE};
    metric m;
    metric_set(&m, bytes);
    metric_format(&def, &m, true, buf, len);
}

static int series_index(builder *b, uint32_t pid, uint32_t device, bool device_only)
{
    memory_analysis *x = b->x;
    for (int i = 0; i < x->nseries; i++)
        if (x->series[i].pid == pid && x->series[i].device == device && x->series[i].device_only == device_only)
            return i;
    mem_series *g = array_grow(x->series, (size_t)x->nseries, sizeof *g);
    if (!g)
        return -2;
    x->series = g;
    mem_series *s = &g[x->nseries];
    memset(s, 0, sizeof *s);
    s->pid = pid;
    s->device = device;
    s->device_only = device_only;
    return x->nseries++;
}

/* Memory events by (series, time), the record's order within an instant. */
static int cmp_order(const void *a, const void *b, void *ctx)
{
    const builder *bd = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int si = bd->series_of[i], sj = bd->series_of[j];
    if (si != sj)
        return si < sj ? -1 : 1;
    int64_t ti = bd->m->memory.events[i].ts_ns, tj = bd->m->memory.events[j].ts_ns;
    if (ti != tj)
        return ti < tj ? -1 : 1;
    return (i > j) - (i < j); /* the record's order within an instant */
}

/* The innermost NVTX range or annotation of pid open at ts, on tid where it has one (tid 0: any
 * thread of the process). */
static void range_open(const run_model *m, uint32_t pid, uint32_t tid, int64_t ts, char *buf, size_t len)
{
    int best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < m->nregions; i++) {
            const region *r = &m->regions[i];
            if ((r->kind != REGION_NVTX && r->kind != REGION_ANNOTATION) || r->pid != pid || r->start_ns > ts ||
                r->end_ns < ts || (pass == 0 && tid && r->tid != tid))
                continue;
            if (best < 0 || r->start_ns >= m->regions[best].start_ns)
                best = i;
        }
    snprintf(buf, len, "%s", best >= 0 ? m->regions[best].name : "");
}

/* ---------- failures ---------- */

static bool failure_rows(builder *b)
{
    const run_model *m = b->m;
    const memory_activity *mem = &m->memory;
    memory_analysis *x = b->x;
    if (!mem->nfailures)
        return true;
    x->failures = calloc((size_t)mem->nfailures, sizeof *x->failures);
    if (!x->failures)
        return false;
    const host_activity *h = &m->host_activity;
    for (int i = 0; i < mem->nfailures; i++) {
        const mem_failure *f = &mem->failures[i];
        mem_failure_row *r = &x->failures[x->nfailures++];
        r->pid = f->pid, r->tid = f->tid, r->device = f->device;
        r->out_of_memory = f->error == 2; /* cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY alike */
        const char *api = memory_name_of(mem, f->api), *err = memory_name_of(mem, f->error_name);
        char shown[64];
        api_display_name(api ? api : "an allocation call", shown, sizeof shown);
        copy_str(r->api, sizeof r->api, shown);
        if (err)
            copy_str(r->error, sizeof r->error, err);
        else
            snprintf(r->error, sizeof r->error, "error %d", f->error);
        const host_site *site = host_site_find(b->sc.sites, h->nsites, f->pid, f->correlation);
        int user = site ? host_user_node(h, site->frame) : -1;
        if (user >= 0)
            host_frame_name(&h->frames[user], true, r->at, sizeof r->at);
        range_open(m, f->pid, f->tid, f->ts_ns, r->in, sizeof r->in);
        metric_set(&r->requested_bytes, (double)f->bytes);
        metric_set(&r->t_ms, mem_ms_from(f->ts_ns, b->run_start));
        if (f->has_live) {
            metric_set(&r->live_bytes, (double)f->live_bytes);
            metric_set(&r->live_count, (double)f->live_count);
            metric_set(&r->untracked, (double)f->untracked);
        } else {
            const char *why = "the library wrote no live set for it (past its first 16 failures, or none kept)";
            metric_na(&r->live_bytes, "%s", why);
            metric_na(&r->live_count, "%s", why);
            metric_na(&r->untracked, "%s", why);
        }
        /* NVML's last reading of the device before it */
        const mem_sample *last = NULL;
        for (size_t k = 0; k < mem->nsamples; k++) {
            const mem_sample *s = &mem->samples[k];
            if (s->device == f->device && s->ts_ns <= f->ts_ns && (!last || s->ts_ns > last->ts_ns))
                last = s;
        }
        if (last) {
            metric_set(&r->device_used_bytes, (double)last->used);
            metric_set(&r->device_total_bytes, (double)last->total);
        } else {
            const char *why = mem->nvml_why[0] ? mem->nvml_why : "no NVML reading of the device before it";
            metric_na(&r->device_used_bytes, "%s", why);
            metric_na(&r->device_total_bytes, "%s", why);
        }
        /* the live set by the user's line of each group's site */
        tally *t = calloc((size_t)f->nlive + 1, sizeof *t);
        if (!t)
            return false;
        int n = 0;
        for (int g = f->first_live; g < f->first_live + f->nlive; g++) {
            const mem_live_group *lg = &mem->live[g];
            int u = lg->frame >= 0 ? host_user_node(h, lg->frame) : -1;
            char at[HOST_NAME];
            if (u >= 0)
                host_frame_name(&h->frames[u], true, at, sizeof at);
            else
                snprintf(at, sizeof at, "no call site");
            int s = mem_add_site(&b->sc, at, "");
            if (s < 0)
                break;
            int k = 0;
            while (k < n && t[k].site != s)
                k++;
            if (k == n)
                t[n++] = (tally){.site = s};
            t[k].bytes += (int64_t)lg->bytes;
            t[k].count += (int64_t)lg->count;
        }
        bool ok = mem_add_holders(b, t, n, (int64_t)f->live_bytes, false, &r->first_holder, &r->nholders);
        free(t);
        if (!ok || b->sc.oom)
            return false;
    }
    return true;
}

/* ---------- findings ---------- */

static void add_finding(memory_analysis *x, finding_kind kind, double weight, double value, const char *text)
{
    if (x->nfindings == (int)(sizeof x->findings / sizeof x->findings[0]))
        return;
    mem_finding *f = &x->findings[x->nfindings++];
    f->kind = kind;
    f->weight = weight;
    f->value = value;
    copy_str(f->text, sizeof f->text, text);
}

/* "a (1.0 GB), b (512 MB)": the first n holders. */
static void holders_words(const memory_analysis *x, int first, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = first; i < first + n && i < first + 3; i++) {
        char bytes[32];
        mem_bytes_words(x->holders[i].bytes.v, bytes, sizeof bytes);
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s (%s)", i > first ? ", " : "", x->holders[i].at, bytes);
    }
}

static void findings(builder *b)
{
    memory_analysis *x = b->x;
    /* Room for every part whole; the finding keeps what fits (FINDING_TEXT). */
    char text[2 * FINDING_TEXT], req[32], live[32], holders[FINDING_TEXT / 2], where[HOST_NAME + MEM_NAME + 16];
    /* The failure that matters: the first out of memory, else the first of any kind. */
    const mem_failure_row *f = NULL;
    for (int i = 0; i < x->nfailures && !f; i++)
        f = x->failures[i].out_of_memory ? &x->failures[i] : NULL;
    if (!f && x->nfailures)
        f = &x->failures[0];
    if (f) {
        const char *what = f->out_of_memory ? "Out of memory" : "An allocation failed";
        mem_bytes_words(f->requested_bytes.v, req, sizeof req);
        snprintf(where, sizeof where, "%s%s%s%s", f->in[0] ? " in " : "", f->in, f->at[0] ? " at " : "", f->at);
        if (f->live_bytes.ok) {
            mem_bytes_words(f->live_bytes.v, live, sizeof live);
            holders_words(x, f->first_holder, f->nholders, holders, sizeof holders);
            snprintf(text, sizeof text, "%s%s: %s asked %s with %s live (%.0f allocations)%s%s", what, where, f->api,
                     req, live, f->live_count.v, holders[0] ? "; largest holders " : "", holders);
        } else {
            snprintf(text, sizeof text, "%s%s: %s asked %s; what was live then is n/a", what, where, f->api, req);
        }
        if (!f->out_of_memory) {
            size_t n = strlen(text);
            snprintf(text + n, sizeof text - n, " (%s)", f->error);
        }
        add_finding(x, FIND_OUT_OF_MEMORY, f->out_of_memory ? 100 : 90, f->requested_bytes.v, text);
    }
    for (int i = 0; i < x->nleaks; i++) {
        const mem_leak *l = &x->leaks[i];
        if (!l->per_step)
            continue;
        char per[32], all[32];
        mem_bytes_words(l->per_step_bytes.v, per, sizeof per);
        mem_bytes_words(l->bytes.v, all, sizeof all);
        snprintf(text, sizeof text,
                 "GPU memory grows every %s: %s leaves %s live in %.0f%% of them, never freed (%s in all, %.0f "
                 "allocations)",
                 l->step, l->at, per, l->steps_pct.v, all, l->count.v);
        add_finding(x, FIND_MEMORY_LEAK, 70, l->per_step_bytes.v, text);
        break;
    }
    const mem_series *top = NULL;
    for (int i = 0; i < x->nseries; i++)
        if (!x->series[i].device_only && x->series[i].peak_bytes.v > 0 &&
            (!top || x->series[i].peak_bytes.v > top->peak_bytes.v))
            top = &x->series[i];
    if (top) {
        char peak[32];
        mem_bytes_words(top->peak_bytes.v, peak, sizeof peak);
        snprintf(text, sizeof text, "GPU memory peaked at %s on GPU %u (process %u) at %.3f s%s%s", peak, top->device,
                 top->pid, top->peak_ms.v / 1000, top->peak_in[0] ? " in " : "", top->peak_in);
        for (int i = top->first_holder; i < top->first_holder + top->nholders && i < top->first_holder + 2; i++) {
            size_t n = strlen(text);
            snprintf(text + n, sizeof text - n, "%s%s %.0f%%", i == top->first_holder ? "; held by " : ", ",
                     x->holders[i].at, x->holders[i].share_pct.v);
        }
        add_finding(x, FIND_MEMORY_PEAK, 30, top->peak_bytes.v, text);
    }
}

/* ---------- the whole ---------- */

void memory_analysis_free(memory_analysis *x)
{
    if (!x)
        return;
    free(x->series);
    free(x->holders);
    free(x->points);
    free(x->leaks);
    free(x->ranges);
    free(x->failures);
    free(x);
}

static void timeline_free(struct mem_timeline *tl)
{
    free(tl->allocs);
    free(tl->sites);
    for (int i = 0; i < tl->npids; i++) {
        free(tl->pids[i].t);
        free(tl->pids[i].live);
        free(tl->pids[i].block_max);
    }
    free(tl->pids);
}

/* The series: one per (process, device) with allocations, one per device NVML read that has none. */
static bool make_series(builder *b)
{
    const memory_activity *mem = &b->m->memory;
    for (size_t i = 0; i < mem->nevents; i++) {
        int s = series_index(b, mem->events[i].pid, mem->events[i].device, false);
        if (s < -1)
            return false;
        b->series_of[i] = s;
    }
    for (size_t i = 0; i < mem->nsamples; i++) {
        bool has = false;
        for (int s = 0; s < b->x->nseries && !has; s++)
            has = b->x->series[s].device == mem->samples[i].device;
        if (!has && series_index(b, 0, mem->samples[i].device, true) < -1)
            return false;
    }
    return true;
}

bool analyze_memory(struct analysis *a)
{
    const run_model *m = a->m;
    const memory_activity *mem = &m->memory;
    a->memory = NULL;
    if (!memory_any(mem))
        return true;
    host_names_wait(&m->host_activity); /* a profile's frames may still be named */
    builder b = {.m = m};
    b.x = calloc(1, sizeof *b.x);
    b.run_start = m->nregions ? m->regions[0].start_ns : m->epoch_ns;
    b.run_end = m->nregions ? m->regions[0].end_ns : b.run_start;
    for (size_t i = 0; i < mem->nevents; i++)
        b.run_end = mem->events[i].ts_ns > b.run_end ? mem->events[i].ts_ns : b.run_end;
    bool sites = mem_sites_init(&b.sc, m, &b.tl);
    b.order = malloc((mem->nevents ? mem->nevents : 1) * sizeof *b.order);
    b.series_of = malloc((mem->nevents ? mem->nevents : 1) * sizeof *b.series_of);
    size_t *samples = mem_sorted_samples(mem);
    bool ok = b.x && sites && b.order && b.series_of && samples;
    if (ok) {
        copy_str(b.x->nvml_why, sizeof b.x->nvml_why, mem->nvml_why);
        ok = make_series(&b);
    }
    if (ok) {
        for (size_t i = 0; i < mem->nevents; i++)
            b.order[i] = i;
        qsort_r(b.order, mem->nevents, sizeof *b.order, cmp_order, &b);
        b.walk = calloc((size_t)b.x->nseries + 1, sizeof *b.walk);
        ok = b.walk != NULL;
    }
    for (size_t k = 0; ok && k < mem->nevents;) {
        size_t j = k;
        while (j < mem->nevents && b.series_of[b.order[j]] == b.series_of[b.order[k]])
            j++;
        ok = mem_walk_series(&b, b.series_of[b.order[k]], k, j) && !b.sc.oom;
        k = j;
    }
    for (int si = 0; ok && si < b.x->nseries; si++) {
        mem_series *s = &b.x->series[si];
        if (s->device_only) {
            const char *why = "no allocation of a profiled process was recorded on this device";
            metric *fields[] = {&s->peak_bytes, &s->peak_ms, &s->reserved_peak_bytes, &s->pinned_peak_bytes,
                                  &s->managed_peak_bytes, &s->end_bytes, &s->allocations, &s->frees,
                                  &s->allocated_bytes, &s->never_freed_bytes, &s->never_freed_count, &s->failed};
            for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
                metric_na(fields[f], "%s", why);
        } else {
            range_open(m, s->pid, 0, s->peak_ns, s->peak_in, sizeof s->peak_in);
            double failed = 0;
            for (int f = 0; f < mem->nfailures; f++)
                failed += mem->failures[f].pid == s->pid && mem->failures[f].device == s->device;
            metric_set(&s->failed, failed);
            ok = mem_peak_holders(&b, si);
        }
        ok = ok && mem_series_timeline(&b, si, samples);
    }
    ok = ok && mem_never_freed(&b) && mem_alloc_calls(&b) && mem_pid_lines(&b) && failure_rows(&b) && memory_steps(a, b.x, &b.tl);
    if (ok)
        findings(&b);
    for (int si = 0; b.walk && si < b.x->nseries; si++)
        mem_steps_free(&b.walk[si]);
    free(b.walk);
    free(b.order);
    free(b.series_of);
    free(samples);
    mem_sites_free(&b.sc);
    timeline_free(&b.tl);
    if (!ok) {
        memory_analysis_free(b.x);
        return false;
    }
    a->memory = b.x;
    return true;
}
