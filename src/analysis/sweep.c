/* Sweep analysis: series over n and the GPU-versus-CPU crossovers. See sweep.h. */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "source.h"

const char *const cross_kind_names[] = {"unknown", "at", "below_range", "beyond_range"};

cross_kind crossover_of(const int *n, const double *gpu_ms, const double *cpu_ms, int count, double *at, int *k)
{
    if (count < 1)
        return CROSS_UNKNOWN;
    /* The last size at which the GPU was not faster: from the next one on it stays ahead. */
    int last = -1;
    for (int i = 0; i < count; i++)
        if (gpu_ms[i] >= cpu_ms[i])
            last = i;
    if (last < 0)
        return CROSS_BELOW_RANGE;
    if (last == count - 1)
        return CROSS_BEYOND_RANGE;
    *k = last;
    double r0 = gpu_ms[last] / cpu_ms[last], r1 = gpu_ms[last + 1] / cpu_ms[last + 1];
    if (r0 == 1.0) {
        *at = n[last];
        return CROSS_AT;
    }
    /* log r falls from >= 0 to < 0 between the two sizes: where the line through them crosses 0. */
    double y0 = log(r0), y1 = log(r1), x0 = log((double)n[last]), x1 = log((double)n[last + 1]);
    double t = y0 / (y0 - y1);
    *at = exp(x0 + t * (x1 - x0));
    return CROSS_AT;
}

static int mem_slot(mem_kind m)
{
    return m == MEM_PINNED ? 1 : 0;
}

static int size_index(const sweep_analysis *s, int n)
{
    for (int i = 0; i < s->nsizes; i++)
        if (s->sizes[i] == n)
            return i;
    return -1;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The series a workload run belongs to (same name and memory kind), made when new. */
static int series_of(sweep_analysis *s, const workload_run *w)
{
    mem_kind mem = w->needs_gpu ? w->host_memory : MEM_UNKNOWN;
    for (int i = 0; i < s->nseries; i++)
        if (strcmp(s->series[i].name, w->name) == 0 && s->series[i].mem == mem)
            return i;
    if (s->nseries == SWEEP_MAX_SERIES)
        return -1;
    sweep_series *r = &s->series[s->nseries];
    memset(r, 0, sizeof *r);
    r->name = w->name;
    r->mem = mem;
    r->prec = w->prec;
    r->gpu = w->needs_gpu;
    for (int k = 0; k < s->nsizes; k++) {
        r->pts[k].n = s->sizes[k];
        r->pts[k].wl = -1;
        const char *why = "did not run at this size";
        metric_na(&r->pts[k].kernel_ms, "%s", why);
        metric_na(&r->pts[k].e2e_ms, "%s", why);
        metric_na(&r->pts[k].tflops, "%s", why);
        metric_na(&r->pts[k].tflops_e2e, "%s", why);
        metric_na(&r->pts[k].noise_pct, "%s", why);
        metric_na(&r->pts[k].speedup_e2e, "%s", why);
    }
    return s->nseries++;
}

/* The fastest FP32 GPU series of a memory kind at size k by e2e or kernel time; -1 when none. */
static int best_at(const sweep_analysis *s, int slot, int k, bool e2e)
{
    int best = -1;
    for (int i = 0; i < s->nseries; i++) {
        const sweep_series *r = &s->series[i];
        const metric *t = e2e ? &r->pts[k].e2e_ms : &r->pts[k].kernel_ms;
        if (!r->gpu || r->prec != PREC_FP32 || mem_slot(r->mem) != slot || !t->ok || !(t->v > 0))
            continue;
        const metric *b = best < 0 ? NULL : (e2e ? &s->series[best].pts[k].e2e_ms : &s->series[best].pts[k].kernel_ms);
        if (!b || t->v < b->v)
            best = i;
    }
    return best;
}

static void find_crossover(const sweep_analysis *s, mem_kind mem, bool e2e, crossover *c)
{
    memset(c, 0, sizeof *c);
    c->mem = mem;
    c->e2e = e2e;
    int slot = mem_slot(mem);
    const int *best = e2e ? s->best_e2e[slot] : s->best_kernel[slot];
    int n[MAX_SWEEP_SIZES], idx[MAX_SWEEP_SIZES], count = 0;
    double g[MAX_SWEEP_SIZES], cpu[MAX_SWEEP_SIZES];
    for (int k = 0; k < s->nsizes && s->cpu >= 0; k++) {
        const metric *cm = &s->series[s->cpu].pts[k].kernel_ms;
        if (best[k] < 0 || !cm->ok || !(cm->v > 0))
            continue;
        const sweep_point *p = &s->series[best[k]].pts[k];
        n[count] = s->sizes[k];
        idx[count] = k;
        g[count] = e2e ? p->e2e_ms.v : p->kernel_ms.v;
        cpu[count++] = cm->v;
    }
    if (s->cpu < 0)
        snprintf(c->why, sizeof c->why, "cpu-openblas did not run");
    else if (count == 0)
        snprintf(c->why, sizeof c->why, "no size with both cpu-openblas and an FP32 GPU workload (%s)",
                 mem_kind_name(mem));
    double at = 0;
    int k = 0;
    c->kind = crossover_of(n, g, cpu, count, &at, &k);
    int from = -1; /* the first size where the GPU stays ahead */
    if (c->kind == CROSS_AT) {
        metric_set(&c->n, at);
        c->below = n[k];
        c->above = n[k + 1];
        from = idx[k + 1];
    } else if (c->kind == CROSS_BELOW_RANGE) {
        c->below = c->above = n[0];
        from = idx[0];
        metric_na(&c->n, "below the range: the GPU was ahead already at n = %d", n[0]);
    } else if (c->kind == CROSS_BEYOND_RANGE) {
        c->below = c->above = n[count - 1];
        from = idx[count - 1];
        metric_na(&c->n, "beyond the range: the GPU was still behind at n = %d", n[count - 1]);
    } else {
        metric_na(&c->n, "%s", c->why);
    }
    if (from >= 0)
        snprintf(c->workload, sizeof c->workload, "%s", s->series[best[from]].name);
}

bool sweep_analyze(analysis *a)
{
    const run_model *m = a->m;
    a->sweep = NULL;
    if (!source_has(m->source, HAS_WORKLOADS))
        return true;
    sweep_analysis *s = calloc(1, sizeof *s);
    if (!s)
        return false;
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        int n = m->builtin.workloads[i].n;
        if (n > 0 && size_index(s, n) < 0 && s->nsizes < MAX_SWEEP_SIZES)
            s->sizes[s->nsizes++] = n;
    }
    if (s->nsizes < 2) {
        free(s);
        return true;
    }
    qsort(s->sizes, (size_t)s->nsizes, sizeof s->sizes[0], cmp_int);
    s->series = calloc(SWEEP_MAX_SERIES, sizeof *s->series);
    if (!s->series) {
        free(s);
        return false;
    }
    s->cpu = -1;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        int k = size_index(s, w->n);
        if (k < 0 || w->status == WL_SKIPPED)
            continue;
        int si = series_of(s, w);
        if (si < 0)
            continue;
        if (!w->needs_gpu && s->cpu < 0)
            s->cpu = si;
        sweep_point *p = &s->series[si].pts[k];
        if (p->wl >= 0) /* a workload twice at one size: the first run counts */
            continue;
        p->wl = i;
        p->kernel_ms = r->kernel_ms;
        p->e2e_ms = r->e2e_ms;
        p->tflops = r->tflops;
        p->tflops_e2e = r->tflops_e2e;
        p->noise_pct = r->noise_pct;
        p->speedup_e2e = r->speedup_e2e;
        if (w->status != WL_OK) /* a wrong answer is no speed */
            metric_na(&p->kernel_ms, "%s", status_name(w->status)), metric_na(&p->e2e_ms, "%s", status_name(w->status));
    }
    for (int slot = 0; slot < 2; slot++)
        for (int k = 0; k < s->nsizes; k++) {
            s->best_e2e[slot][k] = best_at(s, slot, k, true);
            s->best_kernel[slot][k] = best_at(s, slot, k, false);
        }
    find_crossover(s, MEM_PINNED, true, &s->cross[0]);
    find_crossover(s, MEM_PAGEABLE, true, &s->cross[1]);
    find_crossover(s, MEM_PINNED, false, &s->cross[2]);
    find_crossover(s, MEM_PAGEABLE, false, &s->cross[3]);
    s->ncross = 4;
    s->detail_n = s->nsizes > 0 ? s->sizes[s->nsizes - 1] : 0;
    a->sweep = s;
    return true;
}

void sweep_free(sweep_analysis *s)
{
    if (!s)
        return;
    free(s->series);
    free(s);
}

void crossover_words(const crossover *c, char *buf, size_t len)
{
    switch (c->kind) {
    case CROSS_AT:
        if (c->below == c->above || c->n.v == c->below)
            snprintf(buf, len, "n = %d (%s)", c->below, c->workload);
        else
            snprintf(buf, len, "n = %.0f (between %d and %d; %s)", c->n.v, c->below, c->above, c->workload);
        break;
    case CROSS_BELOW_RANGE:
        snprintf(buf, len, "below the range (ahead already at n = %d; %s)", c->below, c->workload);
        break;
    case CROSS_BEYOND_RANGE:
        snprintf(buf, len, "beyond the range (still behind at n = %d; %s)", c->below, c->workload);
        break;
    default:
        snprintf(buf, len, "not known (%s)", c->why);
    }
}

/* "from n = 1234 (...)", "below the range (...)", "cannot be told (...)". */
static void pays_off(const crossover *c, char *buf, size_t len)
{
    char w[160];
    crossover_words(c, w, sizeof w);
    if (c->kind == CROSS_UNKNOWN)
        snprintf(buf, len, "cannot be told (%s)", c->why);
    else
        snprintf(buf, len, "%s%s", c->kind == CROSS_AT ? "from " : "", w);
}

void sweep_headline(const sweep_analysis *s, char *buf, size_t len)
{
    bool gpu = false;
    for (int i = 0; i < s->nseries; i++)
        gpu |= s->series[i].gpu && s->series[i].prec == PREC_FP32;
    if (!gpu) {
        snprintf(buf, len, "no FP32 GPU workload ran at these sizes: nothing to set against the CPU.");
        return;
    }
    char pin[200], page[200], kern[200];
    pays_off(&s->cross[0], pin, sizeof pin);
    pays_off(&s->cross[1], page, sizeof page);
    pays_off(&s->cross[2], kern, sizeof kern);
    snprintf(buf, len, "with pinned copies the GPU pays off %s; with pageable copies %s; counting the kernels "
                       "alone, %s. GPU = the fastest FP32 GPU workload at each size.", pin, page, kern);
}

bool workload_in_detail(const analysis *a, const workload_metrics *r)
{
    return !a->sweep || a->sweep->detail_n == 0 || r->w->n == a->sweep->detail_n;
}
