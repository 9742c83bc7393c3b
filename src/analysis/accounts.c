/* The wall-time accounts a report shows, and the regions' verdicts from theirs: see accounts.h. */
#include "accounts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "incomplete.h"
#include "thresholds.h"
#include "wall_account.h"

#define ACCOUNT_GROUPS 8 /* range groups accounted (instances summed, median, worst), most time first */

const char *account_scope_name(account_scope s)
{
    static const char *const names[] = {"run", "process", "before_steps", "group", "group_median", "group_worst",
                                        "region"};
    return s >= 0 && (size_t)s < sizeof names / sizeof names[0] ? names[s] : "run";
}

const char *host_cause_state_key(const host_cause_row *h)
{
    return h->rule >= 0 ? wall_states[cause_rules[h->rule].state].key : "not_known";
}

/* A frame's words, "" for none. */
static void frame_words(const host_activity *h, int node, bool line, char *buf, size_t len)
{
    buf[0] = '\0';
    if (node >= 0 && node < h->nframes)
        host_frame_name(&h->frames[node], line, buf, len);
}

/* The words of an evidence: its cause's ("importing sympy", "in launch calls (cudaLaunchKernel)"). */
static void evidence_words(const run_model *m, const wall_evidence *e, char *buf, size_t len)
{
    buf[0] = '\0';
    if (e->rule < 0)
        return;
    const cause_rule *r = &cause_rules[e->rule];
    if (r->detail == DETAIL_PACKAGE && e->detail >= 0) {
        char pkg[96];
        host_module_name(m->host_activity.frames[e->detail].file, pkg, sizeof pkg);
        snprintf(buf, len, "%s %s", r->label, pkg);
    } else if (e->call) {
        char call[64];
        api_display_name(e->call, call, sizeof call);
        snprintf(buf, len, "%s: %s", r->label, call);
    } else {
        snprintf(buf, len, "%s", r->label);
    }
}

/* Why an instant is not known: no CUDA call then, and no host sample or span (sampling off, with
 * its reason, or none there), in words. */
static void unknown_words(const analysis *a, char *buf, size_t len)
{
    char none[240];
    host_none_words(&a->m->host_activity, none, sizeof none);
    if (none[0])
        snprintf(buf, len, "no CUDA call, and %.100s", none); /* "no host samples: sampling off (...)" */
    else
        snprintf(buf, len, "no CUDA call, and the host was not sampled");
}

/* The rows of summed states, largest first (of equal ones the earlier state). */
static int make_rows(const analysis *a, const wall_timeline *t, const wall_sums *s, bool sampled, account_row *rows)
{
    int n = 0;
    for (int k = 0; k < WS_COUNT; k++) {
        if (s->ns[k] <= 0)
            continue;
        account_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->state = (wall_state)k;
        r->rule = -1;
        metric_set(&r->ms, (double)s->ns[k] / 1e6);
        metric_set(&r->share_pct, 100.0 * (double)s->ns[k] / (double)s->wall_ns);
        if (wall_state_gpu(r->state))
            metric_set(&r->host_wait_pct, 100.0 * (double)s->wait_ns[k] / (double)s->ns[k]);
        else
            metric_na(&r->host_wait_pct, "an idle state: the GPU ran nothing to wait for");
        if (sampled)
            metric_set(&r->samples, s->samples[k]);
        else
            metric_na(&r->samples, "no host samples of the accounted thread");
        /* The evidence quoted: for a GPU state the host mostly waited on, the wait's; else the top. */
        bool waited = wall_state_gpu(r->state) && r->host_wait_pct.v >= ACCOUNT_WAIT_PCT;
        uint32_t top = waited ? s->top_wait[k] : s->top[k];
        int64_t top_ns = waited ? s->top_wait_ns[k] : s->top_ns[k];
        const wall_evidence *e = top != UINT32_MAX ? wall_evidence_of(t, top) : NULL;
        if (!e || (e->rule < 0 && e->user < 0)) {
            metric_na(&r->cause_pct, "%s", wall_state_gpu(r->state) ? "the GPU's own state: no host cause"
                                                                     : "nothing named the time");
            if (r->state == WS_UNKNOWN) /* why nothing is known: no samples, and why not */
                unknown_words(a, r->why, sizeof r->why);
            continue;
        }
        const host_activity *h = &a->m->host_activity;
        r->rule = e->rule;
        if (e->rule >= 0)
            snprintf(r->cause, sizeof r->cause, "%s", cause_rules[e->rule].id);
        evidence_words(a->m, e, r->why, sizeof r->why);
        /* A gap between kernels (launch latency) while the host did something other than launch:
         * the gap's own words, then the host's */
        if (e->from == EV_GPU && !wall_state_gpu(r->state) && e->rule >= 0 && cause_rules[e->rule].state != r->state) {
            char host[64];
            snprintf(host, sizeof host, "%.63s", r->why);
            snprintf(r->why, sizeof r->why, "%.40s; the host meanwhile: %.63s",
                     r->state == WS_LAUNCH ? "between kernels (launch latency)" : wall_states[r->state].brief, host);
        }
        frame_words(h, e->user, true, r->at, sizeof r->at);
        frame_words(h, e->via, false, r->via, sizeof r->via);
        metric_set(&r->cause_pct, 100.0 * (double)top_ns / (double)s->ns[k]);
        r->few_samples = !wall_state_gpu(r->state) && e->from == EV_SAMPLE && sampled &&
                         s->samples[k] < ACCOUNT_FEW_SAMPLES;
    }
    for (int i = 1; i < n; i++) /* by time, stably */
        for (int j = i; j > 0 && rows[j - 1].ms.v < rows[j].ms.v; j--) {
            account_row x = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = x;
        }
    return n;
}

/* The host's view of the sums: a row per cause with time, largest first (of equal ones the earlier
 * row); the instants nothing named last, as "not known". */
static int make_causes(const analysis *a, const wall_timeline *t, const wall_sums *s, host_cause_row *rows)
{
    int n = 0;
    for (int k = 0; k < WALL_HOST_CAUSES; k++) {
        if (s->host_ns[k] <= 0)
            continue;
        host_cause_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->rule = k - 1;
        metric_set(&r->ms, (double)s->host_ns[k] / 1e6);
        metric_set(&r->share_pct, 100.0 * (double)s->host_ns[k] / (double)s->wall_ns);
        const wall_evidence *e = s->host_top[k] != UINT32_MAX ? wall_evidence_of(t, s->host_top[k]) : NULL;
        if (k == 0 || !e) {
            snprintf(r->why, sizeof r->why, "%s", k == 0 ? "not known: no call, sample or span" : "");
            metric_na(&r->cause_pct, "nothing named the time");
            continue;
        }
        snprintf(r->cause, sizeof r->cause, "%s", cause_rules[r->rule].id);
        evidence_words(a->m, e, r->why, sizeof r->why);
        frame_words(&a->m->host_activity, e->user, true, r->at, sizeof r->at);
        frame_words(&a->m->host_activity, e->via, false, r->via, sizeof r->via);
        metric_set(&r->cause_pct, 100.0 * (double)s->host_top_ns[k] / (double)s->host_ns[k]);
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && rows[j - 1].ms.v < rows[j].ms.v; j--) {
            host_cause_row x = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = x;
        }
    return n;
}

/* A span of one process to sum. */
typedef struct {
    int proc;
    int64_t start, end;
} span;

/* The figures an account's verdict advises from: a region's top kernel and copies. */
static void advice_input(const analysis *a, const region_metrics *fig, account_input *in, char *kernel, size_t len)
{
    in->top_kernel = NULL;
    metric_na(&in->top_kernel_share_pct, "no kernels");
    metric_na(&in->copy_hidden_pct, "no copies");
    in->flows = NULL;
    in->nflows = 0;
    (void)a;
    if (!fig)
        return;
    if (fig->nkstats > 0) {
        kernel_display_name(fig->kernels[0].name, kernel, len);
        in->top_kernel = kernel;
        in->top_kernel_share_pct = fig->kernels[0].share_pct;
    }
    in->flows = fig->flows;
    in->nflows = fig->nflows;
    in->copy_hidden_pct = fig->copy_hidden_pct;
}

/* Sums spans into an account with its rows and verdict; false when memory ran out. */
static bool account_of(const analysis *a, const wall_timeline *t, wall_scratch *x, const span *spans, int n,
                       const char *of, const region_metrics *fig, wall_account *acc)
{
    wall_sums s;
    memset(&s, 0, sizeof s);
    bool sampled = false;
    for (int i = 0; i < n; i++) {
        wall_sum(t, spans[i].proc, spans[i].start, spans[i].end, &s, x);
        sampled |= spans[i].proc >= 0 && wall_process_sampled(t, spans[i].proc);
    }
    wall_sums_finish(t, x, &s);
    acc->rows = calloc(WS_COUNT, sizeof *acc->rows);
    acc->causes = calloc(WALL_HOST_CAUSES, sizeof *acc->causes);
    if (!acc->rows || !acc->causes)
        return false;
    metric_set(&acc->wall_ms, (double)s.wall_ns / 1e6);
    if (s.wall_ns <= 0) {
        metric_na(&acc->gpu_pct, "the span has no length");
        metric_na(&acc->idle_pct, "the span has no length");
        metric_na(&acc->verdict_pct, "the span has no length");
        verdict v;
        not_judged(&v, "the span has no length");
        acc->verdict = v.kind;
        snprintf(acc->verdict_text, sizeof acc->verdict_text, "%s", v.text);
        return true;
    }
    acc->nrows = make_rows(a, t, &s, sampled, acc->rows);
    acc->ncauses = make_causes(a, t, &s, acc->causes);
    int64_t gpu = 0;
    for (int k = 0; k < WS_COUNT; k++)
        gpu += wall_state_gpu((wall_state)k) ? s.ns[k] : 0;
    metric_set(&acc->gpu_pct, 100.0 * (double)gpu / (double)s.wall_ns);
    metric_set(&acc->idle_pct, 100.0 - acc->gpu_pct.v);
    char kernel[128];
    account_input in = {.rows = acc->rows, .nrows = acc->nrows, .causes = acc->causes, .ncauses = acc->ncauses,
                        .wall_ms = acc->wall_ms, .of = of};
    advice_input(a, fig, &in, kernel, sizeof kernel);
    verdict v;
    judge_account(&in, &v, &acc->verdict_pct);
    acc->verdict = v.kind;
    snprintf(acc->verdict_text, sizeof acc->verdict_text, "%s", v.text);
    snprintf(acc->advice, sizeof acc->advice, "%s", v.advice);
    return true;
}

/* The process a region's time is accounted in: its own, else the run's only one; -1 none. */
static int region_proc(const analysis *a, const wall_timeline *t, int ri)
{
    const region *r = &a->m->regions[ri];
    if (r->kind == REGION_RUN)
        return -1;
    int p = wall_process_of(t, r->pid);
    return p >= 0 ? p : wall_processes(t) == 1 && r->pid == 0 ? 0 : -1;
}

/* The run's spans: each accounted process over its span. */
static int run_spans(const wall_timeline *t, span *out)
{
    int n = wall_processes(t);
    for (int i = 0; i < n; i++) {
        out[i].proc = i;
        wall_process_span(t, i, &out[i].start, &out[i].end);
    }
    return n;
}

bool account_regions(analysis *a, const wall_timeline *t)
{
    wall_scratch *x = wall_scratch_new(t);
    span *all = malloc((size_t)(wall_processes(t) > 0 ? wall_processes(t) : 1) * sizeof *all);
    if (!x || !all) {
        wall_scratch_free(x);
        free(all);
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < a->nrg; i++) {
        region_metrics *r = &a->rg[i];
        const region *g = &a->m->regions[r->region];
        span one = {region_proc(a, t, r->region), g->start_ns, g->end_ns};
        const span *sp = &one;
        int n = 1;
        if (g->kind == REGION_RUN) {
            n = run_spans(t, all);
            sp = all;
        } else if (one.proc < 0) {
            continue; /* a process without GPU work (a loader's worker): not accounted */
        }
        wall_account acc;
        memset(&acc, 0, sizeof acc);
        ok = account_of(a, t, x, sp, n, g->kind == REGION_RUN ? "the run" : "the range", r, &acc);
        if (ok && acc.verdict != VERDICT_NONE) {
            r->verdict = acc.verdict;
            snprintf(r->verdict_text, sizeof r->verdict_text, "%s", acc.verdict_text);
            /* The account is the process's: its GPU states hold all of the process's GPU work during
             * the range (another thread's, another device's), busy the range's own work alone. Where
             * they differ by half a point or more the verdict says both, so that its share does not
             * read against busy (an allocate phase "GPU computing 81.7%" beside busy 0.3%: another
             * GPU computing). */
            if (g->kind != REGION_RUN && r->busy_pct.ok && acc.gpu_pct.ok &&
                fabs(acc.gpu_pct.v - r->busy_pct.v) >= 0.5) {
                size_t used = strlen(r->verdict_text);
                snprintf(r->verdict_text + used, sizeof r->verdict_text - used,
                         " (all of the process's GPU work: the GPU working %.1f%% of the range; the range's own work "
                         "alone: busy %.1f%%)",
                         acc.gpu_pct.v, r->busy_pct.v);
            }
            snprintf(r->advice, sizeof r->advice, "%s", acc.advice);
        }
        free(acc.rows);
        free(acc.causes);
    }
    wall_scratch_free(x);
    free(all);
    return ok;
}

/* ---- the accounts shown ---- */

typedef struct {
    analysis *a;
    const wall_timeline *t;
    wall_scratch *x;
    bool oom;
} builder;

static wall_account *push(builder *b, account_scope scope, const char *name, int region, int group, uint32_t pid)
{
    if (b->oom)
        return NULL;
    wall_account *g = realloc(b->a->accounts, (size_t)(b->a->naccounts + 1) * sizeof *g);
    if (!g) {
        b->oom = true;
        return NULL;
    }
    b->a->accounts = g;
    wall_account *acc = &g[b->a->naccounts++];
    memset(acc, 0, sizeof *acc);
    acc->scope = scope;
    snprintf(acc->name, sizeof acc->name, "%s", name);
    acc->region = region;
    acc->group = group;
    acc->pid = pid;
    acc->processes = 1;
    acc->instances = 1;
    return acc;
}

static void start_at(const analysis *a, wall_account *acc, int64_t start)
{
    metric_set(&acc->start_ms, (double)(start - a->m->regions[0].start_ns) / 1e6);
}

/* A cut process's account says why its verdict is withheld (incomplete.h). */
static void withhold(const analysis *a, uint32_t pid, wall_account *acc)
{
    char why[VERDICT_TEXT];
    if (a->nincomplete == 0 || !incomplete_reason(a->incomplete, a->nincomplete, pid, why, sizeof why))
        return;
    verdict v;
    not_judged(&v, why);
    acc->verdict = v.kind;
    snprintf(acc->verdict_text, sizeof acc->verdict_text, "%s", v.text);
    acc->advice[0] = '\0';
}

static void run_accounts(builder *b)
{
    const analysis *a = b->a;
    const wall_timeline *t = b->t;
    int np = wall_processes(t);
    span *all = malloc((size_t)(np > 0 ? np : 1) * sizeof *all);
    if (!all) {
        b->oom = true;
        return;
    }
    int n = run_spans(t, all);
    wall_account *acc = push(b, ACC_RUN, a->m->regions[0].name, 0, -1, 0);
    if (acc) {
        acc->processes = n;
        start_at(a, acc, a->m->regions[0].start_ns);
        b->oom = !account_of(a, t, b->x, all, n, "the run", a->nrg > 0 ? &a->rg[0] : NULL, acc);
        withhold(a, 0, acc);
    }
    for (int i = 0; np > 1 && i < np && !b->oom; i++) {
        uint32_t pid = wall_process_pid(t, i);
        char name[160];
        const process_info *pi = NULL;
        for (int k = 0; k < a->m->nprocesses; k++)
            if (a->m->processes[k].pid == pid)
                pi = &a->m->processes[k];
        if (pi && pi->rank >= 0)
            snprintf(name, sizeof name, "rank %d (%s, pid %u)", pi->rank, pi->name, pid);
        else
            snprintf(name, sizeof name, "%s (pid %u)", pi ? pi->name : "process", pid);
        acc = push(b, ACC_PROCESS, name, -1, -1, pid);
        if (acc) {
            start_at(a, acc, all[i].start);
            b->oom = !account_of(a, t, b->x, &all[i], 1, "the process", NULL, acc);
            withhold(a, pid, acc);
        }
    }
    free(all);
}

/* The instances of a range group, by wall time (of equal ones the earlier). */
/* Regions by length, shortest first; of equal lengths the first recorded first (a stable order
 * for the median and the worst instance). */
static int by_length(const void *pa, const void *pb, void *ctx)
{
    const run_model *m = ctx;
    int i = *(const int *)pa, j = *(const int *)pb;
    int64_t x = m->regions[i].end_ns - m->regions[i].start_ns, y = m->regions[j].end_ns - m->regions[j].start_ns;
    return x != y ? (x < y ? -1 : 1) : (i > j) - (i < j);
}

static int group_instances(const analysis *a, const range_group *g, int *out)
{
    const run_model *m = a->m;
    int n = 0;
    for (int i = 1; i < m->nregions; i++) {
        const region *r = &m->regions[i];
        if (r->kind != g->kind || (r->domain == NULL) != (g->domain == NULL) ||
            (r->domain && strcmp(r->domain, g->domain) != 0))
            continue;
        char folded[RANGE_GROUP_NAME];
        range_group_name(r->name, folded, sizeof folded);
        if (strcmp(folded, g->name) == 0)
            out[n++] = i;
    }
    qsort_r(out, (size_t)n, sizeof *out, by_length, (void *)m);
    return n;
}

/* The region's figures where it has them (rg is one per region, in order). */
static const region_metrics *figures(const analysis *a, int region)
{
    return region >= 0 && region < a->nrg ? &a->rg[region] : NULL;
}

static void one_region(builder *b, account_scope scope, const char *name, int ri, int group, const char *of)
{
    const analysis *a = b->a;
    const region *r = &a->m->regions[ri];
    span one = {region_proc(a, b->t, ri), r->start_ns, r->end_ns};
    if (one.proc < 0)
        return;
    wall_account *acc = push(b, scope, name, ri, group, r->pid);
    if (!acc)
        return;
    start_at(a, acc, r->start_ns);
    b->oom = !account_of(a, b->t, b->x, &one, 1, of, figures(a, ri), acc);
    withhold(a, r->pid, acc);
}

/* Whether group gi is the run's steps: the group of at least ACCOUNT_MIN_STEPS instances with the
 * most time (of equal ones the first listed). */
static int principal_group(const analysis *a)
{
    int best = -1;
    for (int i = 0; i < a->ngroups; i++)
        if (a->groups[i].count >= ACCOUNT_MIN_STEPS &&
            (best < 0 || a->groups[i].total_ms.v > a->groups[best].total_ms.v))
            best = i;
    return best;
}

static void group_accounts(builder *b)
{
    const analysis *a = b->a;
    int principal = principal_group(a);
    int *inst = malloc((size_t)(a->m->nregions > 0 ? a->m->nregions : 1) * sizeof *inst);
    span *spans = malloc((size_t)(a->m->nregions > 0 ? a->m->nregions : 1) * sizeof *spans);
    if (!inst || !spans) {
        free(inst);
        free(spans);
        b->oom = true;
        return;
    }
    int shown = 0;
    for (int gi = 0; gi < a->ngroups && shown < ACCOUNT_GROUPS && !b->oom; gi++) {
        const range_group *g = &a->groups[gi];
        if (g->count < 2 && gi != principal)
            continue;
        int n = group_instances(a, g, inst), ns = 0;
        for (int i = 0; i < n; i++) {
            const region *r = &a->m->regions[inst[i]];
            span s = {region_proc(a, b->t, inst[i]), r->start_ns, r->end_ns};
            if (s.proc >= 0)
                spans[ns++] = s;
        }
        if (ns == 0)
            continue;
        shown++;
        if (gi == principal) { /* the time before its first instance: start-up, imports, compiling */
            int first = inst[0];
            for (int i = 1; i < n; i++)
                if (a->m->regions[inst[i]].start_ns < a->m->regions[first].start_ns)
                    first = inst[i];
            int p = region_proc(a, b->t, first);
            int64_t lo = 0, hi = 0;
            if (p >= 0)
                wall_process_span(b->t, p, &lo, &hi);
            span before = {p, lo, a->m->regions[first].start_ns};
            wall_account *acc = p >= 0 && before.end > before.start
                                    ? push(b, ACC_BEFORE_STEPS, "before the first step", -1, gi, wall_process_pid(b->t, p))
                                    : NULL;
            if (acc) {
                start_at(a, acc, lo);
                b->oom = !account_of(a, b->t, b->x, &before, 1, "the time before the first step", NULL, acc);
                withhold(a, acc->pid, acc);
            }
        }
        char of[200];
        snprintf(of, sizeof of, "its %d instances' wall", ns);
        wall_account *acc = push(b, ACC_GROUP, g->name, -1, gi, 0);
        if (acc) {
            acc->instances = ns;
            start_at(a, acc, a->m->regions[inst[0]].start_ns);
            b->oom = !account_of(a, b->t, b->x, spans, ns, of, figures(a, g->first), acc);
        }
        if (ns >= 2 && !b->oom) {
            int median = g->median, worst = g->longest; /* range_groups.c chose them, by the same order */
            one_region(b, ACC_GROUP_MEDIAN, a->m->regions[median].name, median, gi, "the median instance");
            one_region(b, ACC_GROUP_WORST, a->m->regions[worst].name, worst, gi, "the longest instance");
        }
    }
    free(inst);
    free(spans);
}

static void listed_accounts(builder *b)
{
    const analysis *a = b->a;
    for (int li = 0; li < a->nlisted && !b->oom; li++) {
        int ri = a->rg[a->listed[li]].region;
        if (a->m->regions[ri].kind == REGION_RUN)
            continue; /* the run's own account is first */
        one_region(b, ACC_REGION, a->m->regions[ri].name, ri, -1, "the range");
    }
}

bool account_spans(analysis *a, const wall_timeline *t)
{
    if (a->m->nregions == 0)
        return true; /* no run region: no span to account */
    builder b = {a, t, wall_scratch_new(t), false};
    if (!b.x)
        return false;
    run_accounts(&b);
    if (!b.oom)
        group_accounts(&b);
    if (!b.oom)
        listed_accounts(&b);
    wall_scratch_free(b.x);
    return !b.oom;
}

void account_row_words(const account_row *r, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s", r->why);
    if (r->at[0] && n < len)
        n += (size_t)snprintf(buf + n, len - n, " at %s", r->at);
    if (r->via[0] && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", calling %s", r->via);
    if (r->few_samples && n < len)
        snprintf(buf + n, len - n, " (few samples)");
}

/* ---- idle stretches and bands ---- */

/* The largest state of [start, end) of process p, with its evidence, into row (state WS_COUNT
 * where the process has no time there); idle_only: of the idle states alone. */
static bool largest_state(const analysis *a, const wall_timeline *t, wall_scratch *x, int p, int64_t start, int64_t end,
                          bool idle_only, account_row *row)
{
    wall_sums s;
    memset(&s, 0, sizeof s);
    wall_sum(t, p, start, end, &s, x);
    wall_sums_finish(t, x, &s);
    account_row *rows = malloc(WS_COUNT * sizeof *rows);
    if (!rows)
        return false;
    int n = make_rows(a, t, &s, wall_process_sampled(t, p), rows);
    memset(row, 0, sizeof *row);
    row->state = WS_COUNT;
    for (int i = 0; i < n; i++)
        if (!idle_only || !wall_state_gpu(rows[i].state)) {
            *row = rows[i];
            break;
        }
    free(rows);
    return true;
}

/* The largest state of [start, end) of process p, WS_COUNT where the process has no time there:
 * largest_state's without the rows' words, which a band's bucket does not show (a band's own are
 * made once it is joined). */
static wall_state bucket_state(const wall_timeline *t, wall_scratch *x, int p, int64_t start, int64_t end)
{
    wall_sums s;
    memset(&s, 0, sizeof s);
    wall_sum(t, p, start, end, &s, x);
    wall_sums_finish(t, x, &s);
    int best = WS_COUNT;
    for (int k = 0; k < WS_COUNT; k++) /* make_rows's order: by time, of equal ones the earlier state */
        if (s.ns[k] > 0 && (best == WS_COUNT || s.ns[k] > s.ns[best]))
            best = k;
    return (wall_state)best;
}

/* The accounted process an idle stretch of a GPU belongs to: the one whose own GPU work ended it
 * or came before it; else the only one. */
static int stretch_proc(const analysis *a, const wall_timeline *t, const idle_stretch *g)
{
    if (wall_processes(t) == 1)
        return 0; /* whichever process's kernel is nearest (each stretch walked every kernel) */
    const event_list *e = &a->m->events;
    uint32_t pid = 0;
    int64_t best = INT64_MAX;
    for (size_t i = 0; i < e->nkernels; i++) { /* the kernel nearest either end on its device */
        const kernel_event *k = &e->kernels[i];
        if (k->device != g->device)
            continue;
        int64_t d = k->start_ns >= g->end_ns ? k->start_ns - g->end_ns : k->end_ns <= g->start_ns ? g->start_ns - k->end_ns : 0;
        if (d < best) {
            best = d;
            pid = k->pid;
        }
    }
    int p = best < INT64_MAX ? wall_process_of(t, pid) : -1;
    return p >= 0 ? p : wall_processes(t) == 1 ? 0 : -1;
}

bool account_stretches(analysis *a, const wall_timeline *t)
{
    wall_scratch *x = wall_scratch_new(t);
    if (!x)
        return false;
    bool ok = true;
    if (a->nidle_gaps > 0) {
        a->idle_accounts = calloc((size_t)a->nidle_gaps, sizeof *a->idle_accounts);
        ok = a->idle_accounts != NULL;
    }
    for (int i = 0; ok && i < a->nidle_gaps; i++) {
        const idle_stretch *g = &a->idle_gaps[i];
        int p = stretch_proc(a, t, g);
        a->idle_accounts[i].state = WS_COUNT;
        if (p >= 0)
            ok = largest_state(a, t, x, p, g->start_ns, g->end_ns, true, &a->idle_accounts[i]);
    }
    /* the bands: buckets' largest states joined, each band's evidence summed again over it */
    int nproc = wall_processes(t);
    size_t cap = (size_t)nproc * ACCOUNT_BAND_BUCKETS;
    a->bands = ok && cap ? malloc(cap * sizeof *a->bands) : NULL;
    ok = ok && (cap == 0 || a->bands);
    for (int p = 0; ok && p < nproc; p++) {
        int64_t lo, hi;
        wall_process_span(t, p, &lo, &hi);
        if (hi <= lo)
            continue;
        int first = a->nbands;
        for (int k = 0; ok && k < ACCOUNT_BAND_BUCKETS; k++) {
            int64_t s = lo + (hi - lo) * k / ACCOUNT_BAND_BUCKETS, e = lo + (hi - lo) * (k + 1) / ACCOUNT_BAND_BUCKETS;
            if (e <= s)
                continue;
            account_row r;
            memset(&r, 0, sizeof r);
            r.state = bucket_state(t, x, p, s, e);
            account_band *last = a->nbands > first ? &a->bands[a->nbands - 1] : NULL;
            if (last && last->row.state == r.state)
                last->end_ns = e;
            else
                a->bands[a->nbands++] = (account_band){wall_process_pid(t, p), s, e, r};
        }
        for (int k = first; ok && k < a->nbands; k++) {
            account_band *b = &a->bands[k];
            wall_sums sums;
            memset(&sums, 0, sizeof sums);
            wall_sum(t, p, b->start_ns, b->end_ns, &sums, x);
            wall_sums_finish(t, x, &sums);
            account_row *rows = malloc(WS_COUNT * sizeof *rows);
            ok = rows != NULL;
            int n = ok ? make_rows(a, t, &sums, wall_process_sampled(t, p), rows) : 0;
            for (int j = 0; j < n; j++)
                if (rows[j].state == b->row.state)
                    b->row = rows[j];
            free(rows);
        }
    }
    wall_scratch_free(x);
    return ok;
}

void accounts_free(wall_account *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].rows);
        free(v[i].causes);
    }
    free(v);
}

const wall_account *run_account(const analysis *a)
{
    for (int i = 0; i < a->naccounts; i++)
        if (a->accounts[i].scope == ACC_RUN)
            return &a->accounts[i];
    return NULL;
}

const wall_account *steps_account(const analysis *a, account_scope s)
{
    int principal = principal_group(a);
    for (int i = 0; principal >= 0 && i < a->naccounts; i++)
        if (a->accounts[i].scope == s && a->accounts[i].group == principal)
            return &a->accounts[i];
    return NULL;
}
