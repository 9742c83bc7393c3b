/* One verdict for any span of GPU work. See verdict.h. */
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "accounts.h"
#include "cause_table.h"
#include "thresholds.h"

/* A figure of a sentence as the registry's verdict table writes it ("3.271 ms", "55.2%"): each
 * figure's unit and format are its row's (value_figures.c), never a format written here. */
#define FIG(key, v) value_text(&verdict_figure_table, (key), (v), true).s

const char *verdict_name(verdict_kind v)
{
    static const char *const names[VERDICT_COUNT] = {
        "none", "no-gpu", "copy-bound", "launch-bound", "sync-bound", "idle", "compute-bound", "communication-bound",
        "memset-bound", "input-bound", "compile-bound", "import-bound", "start-up-bound", "allocation-bound",
        "io-bound", "sleeping", "lock-bound", "gc-bound", "host-bound", "mmprof", "cuda-call-bound", "unrecorded",
        "mixed"};
    return (v >= 0 && v < VERDICT_COUNT && names[v]) ? names[v] : "none";
}

void not_judged(verdict *out, const char *why)
{
    out->kind = VERDICT_NONE;
    snprintf(out->text, sizeof out->text, "not judged: %s", why);
    out->advice[0] = '\0';
}

/* " per product", or "" */
static const char *per(const verdict_input *in, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", in->per ? " " : "", in->per ? in->per : "");
    return buf;
}

/* What to try where copies hold the time: pin pageable memory (naming the pageable and pinned
 * rates where both ran), batch small copies, or overlap them with compute. */
static void copy_advice(const copy_flow *flows, int nflows, metric hidden, char *advice, size_t len)
{
    double pageable_ms = 0, small = 0;
    int copies = 0;
    const copy_flow *slowest = NULL; /* the pageable flow that took longest */
    for (int i = 0; i < nflows; i++) {
        const copy_flow *f = &flows[i];
        if (f->memset)
            continue;
        if (f->host == MEM_PAGEABLE) {
            pageable_ms += f->ms.v;
            if (!slowest || f->ms.v > slowest->ms.v)
                slowest = f;
        }
        copies += f->count;
        if (f->mean_bytes.v < SMALL_COPY_BYTES)
            small += f->count;
    }
    const copy_flow *pinned = NULL; /* the same direction from pinned memory, to compare with */
    for (int i = 0; slowest && i < nflows; i++)
        if (!flows[i].memset && flows[i].host == MEM_PINNED && flows[i].dir == slowest->dir && flows[i].gbps.ok)
            pinned = &flows[i];
    double flow_ms = 0;
    for (int i = 0; i < nflows; i++)
        if (!flows[i].memset)
            flow_ms += flows[i].ms.v;
    bool pageable = flow_ms > 0 && pageable_ms > PAGEABLE_COPY_SHARE * flow_ms;
    if (slowest && pageable && pinned && slowest->gbps.ok)
        snprintf(advice, len, "pin host memory: pageable %s copies ran at %s, pinned ones at %s",
                 copy_dir_name(slowest->dir), FIG("copy_gbps", slowest->gbps.v), FIG("copy_gbps", pinned->gbps.v));
    else if (pageable)
        snprintf(advice, len,
                 "pin host memory (cudaHostAlloc, pin_memory=True): %s of copy time is from pageable memory",
                 FIG("pageable_pct", 100.0 * pageable_ms / flow_ms));
    else if (copies > 0 && small > 0.5 * copies)
        snprintf(advice, len, "batch small copies: %s of %d copies move less than " SMALL_COPY_WORDS " each",
                 FIG("small_copies", small), copies);
    else if (hidden.ok && hidden.v >= HIDDEN_COPY_PCT)
        snprintf(advice, len,
                 "move fewer bytes or keep the data on the GPU: %s of copy time already runs under kernels",
                 FIG("copy_hidden_pct", hidden.v));
    else
        snprintf(advice, len,
                 "overlap copies with compute on separate streams, or keep the data on the GPU");
}

static void copy_bound(const verdict_input *in, verdict *out)
{
    double kern = in->kernel_ms.ok ? in->kernel_ms.v : 0, copy = in->copy_ms.v;
    char p[32];
    out->kind = VERDICT_COPY_BOUND;
    if (kern > 0)
        snprintf(out->text, sizeof out->text, "copy-bound: copies take %s against %s of kernels%s (memcpy:compute %s)",
                 FIG("copy_ms", copy), FIG("kernel_ms", kern), per(in, p, sizeof p),
                 FIG("copy_compute_ratio", copy / kern));
    else
        snprintf(out->text, sizeof out->text, "copy-bound: copies take %s%s and no kernel ran "
                                              "(memcpy:compute n/a: no kernel time)", FIG("copy_ms", copy),
                 per(in, p, sizeof p));
    copy_advice(in->flows, in->nflows, in->copy_hidden_pct, out->advice, sizeof out->advice);
}

/* A time in whole ms for a sentence (bounded, so the sentence's length is). */
static int whole_ms(double ms)
{
    return (int)lround(fmin(fmax(ms, 0), 1e9));
}

/* "918 ms before the first launch of matmul" / "a 12 ms gap before saxpy": the stretch, named. */
static void stretch_words(const idle_explained *w, char *buf, size_t len)
{
    if (w->where == STRETCH_LEAD && w->next[0])
        snprintf(buf, len, "%d ms before the first launch of %.48s", whole_ms(w->ms), w->next);
    else if (w->where == STRETCH_LEAD)
        snprintf(buf, len, "%d ms before the first GPU work", whole_ms(w->ms));
    else if (w->next[0])
        snprintf(buf, len, "a %d ms gap before %.48s", whole_ms(w->ms), w->next);
    else
        snprintf(buf, len, "a %d ms gap", whole_ms(w->ms));
}

/* The idle verdict's advice from what the host did during the stretch it names (idle_causes.h):
 * a cause that covers most of it is named with its call, since loading code, creating a context
 * or waiting on the GPU each want another remedy than overlapping host work. */
static void idle_advice(const idle_explained *w, verdict *out)
{
    static const char *const plain = "the host keeps the GPU waiting: overlap host work with GPU work, prefetch inputs";
    if (!w || !w->known || w->ms <= 0 || 100.0 * w->cause_ms / w->ms < IDLE_CAUSE_SHARE_PCT) {
        snprintf(out->advice, sizeof out->advice, "%s", plain);
        return;
    }
    char where[112], call[80] = "";
    stretch_words(w, where, sizeof where);
    if (w->call[0] && w->call_count > 1)
        snprintf(call, sizeof call, " (%.40s x%d %d ms)", w->call, w->call_count, whole_ms(w->call_ms));
    else if (w->call[0])
        snprintf(call, sizeof call, " (%.40s %d ms)", w->call, whole_ms(w->call_ms));
    switch (w->cause) {
    case IDLE_MODULE_LOAD:
        snprintf(out->advice, sizeof out->advice, "%s: module loading / JIT compilation%s; load or compile once "
                 "ahead (warm-up, cached or AOT-built kernels)", where, call);
        break;
    case IDLE_CONTEXT:
        snprintf(out->advice, sizeof out->advice, "%s: context creation%s, a one-off start-up cost; create the "
                 "context once, before timing", where, call);
        break;
    case IDLE_ALLOC:
        snprintf(out->advice, sizeof out->advice, "%s: memory allocation%s; allocate once and reuse (a caching "
                 "allocator, buffers made up front)", where, call);
        break;
    case IDLE_PAGEABLE_COPY:
        snprintf(out->advice, sizeof out->advice, "%s: copies from pageable memory%s staged on the host; pin the "
                 "host buffers", where, call);
        break;
    case IDLE_SYNC:
        snprintf(out->advice, sizeof out->advice, "%s: the host waited on the GPU%s with nothing queued behind; "
                 "queue the next work before waiting", where, call);
        break;
    case IDLE_HOST_BUSY:
        /* With host samples (or CPU spans) the advice names where the host was: a thread asleep
         * or waiting wants another remedy than one computing, and the function tells compiling
         * from loading data. */
        if (w->host_seen && w->host_waited)
            snprintf(out->advice, sizeof out->advice, "%s: the host %.200s; queue GPU work before the wait, or "
                     "shorten it", where, w->host);
        else if (w->host_seen)
            snprintf(out->advice, sizeof out->advice, "%s: host busy outside CUDA for %d ms, %.200s; do that work "
                     "once ahead, cache it, or overlap it with GPU work", where, whole_ms(w->cause_ms), w->host);
        else if (w->host[0])
            snprintf(out->advice, sizeof out->advice, "%s: host busy outside CUDA for %d ms (no CUDA call in "
                     "progress; %.200s); overlap host work with GPU work, prefetch inputs", where,
                     whole_ms(w->cause_ms), w->host);
        else
            snprintf(out->advice, sizeof out->advice, "%s: host busy outside CUDA for %d ms (no CUDA call in "
                     "progress); overlap host work with GPU work, prefetch inputs", where, whole_ms(w->cause_ms));
        break;
    default:
        snprintf(out->advice, sizeof out->advice, "%s", plain);
    }
}

/* The GPU was busy less than IDLE_BUSY_PCT of the span: launches, synchronization, or idle. */
static void mostly_idle(const verdict_input *in, double busy, verdict *out)
{
    double wall = in->wall_ms.ok ? in->wall_ms.v : 0;
    bool launches_outlast_kernels = in->launch_us.ok && in->kernel_us.ok && in->launch_us.v > in->kernel_us.v;
    if (in->nkernels >= MIN_LAUNCH_BOUND_KERNELS && in->short_kernel_pct.ok &&
        (in->short_kernel_pct.v >= SHORT_KERNEL_SHARE_PCT || launches_outlast_kernels)) {
        out->kind = VERDICT_LAUNCH_BOUND;
        snprintf(out->text, sizeof out->text, "launch-bound: GPU busy %s; %s of %d kernels run under " SHORT_KERNEL_WORDS,
                 FIG("busy_pct", busy), FIG("short_kernel_pct", in->short_kernel_pct.v), in->nkernels);
        if (in->launch_us.ok && in->kernel_us.ok)
            snprintf(out->advice, sizeof out->advice,
                     "capture the launches in a CUDA graph or fuse kernels: a launch call takes %s, a "
                     "kernel runs %s (medians)", FIG("launch_us", in->launch_us.v), FIG("kernel_us", in->kernel_us.v));
        else
            snprintf(out->advice, sizeof out->advice, "capture the launches in a CUDA graph or fuse kernels");
    } else if (in->sync_ms.ok && wall > 0 && in->sync_ms.v > SYNC_WALL_SHARE * wall) {
        out->kind = VERDICT_SYNC_BOUND;
        snprintf(out->text, sizeof out->text,
                 "sync-bound: the host waits %s of %s in synchronization; GPU busy %s", FIG("sync_ms", in->sync_ms.v),
                 FIG("wall_ms", wall), FIG("busy_pct", busy));
        snprintf(out->advice, sizeof out->advice,
                 "synchronize less often (per batch, not per step); queue more work before waiting");
    } else {
        out->kind = VERDICT_IDLE;
        if (in->lead_idle_ms.ok && (!in->largest_gap_ms.ok || in->lead_idle_ms.v > in->largest_gap_ms.v))
            snprintf(out->text, sizeof out->text, "GPU idle: busy %s of %s; %s pass before its first GPU work",
                     FIG("busy_pct", busy), FIG("wall_ms", wall), FIG("lead_idle_ms", in->lead_idle_ms.v));
        else if (in->largest_gap_ms.ok)
            snprintf(out->text, sizeof out->text, "GPU idle: busy %s of %s; largest gap %s%s%s", FIG("busy_pct", busy),
                     FIG("wall_ms", wall), FIG("largest_gap_ms", in->largest_gap_ms.v), in->gap_where ? " in " : "",
                     in->gap_where ? in->gap_where : "");
        else
            snprintf(out->text, sizeof out->text, "GPU idle: busy %s of %s", FIG("busy_pct", busy), FIG("wall_ms", wall));
        idle_advice(in->idle_why, out);
    }
}

void judge(const verdict_input *in, verdict *out)
{
    out->advice[0] = '\0';
    if (in->gpu_events == 0) {
        out->kind = VERDICT_NO_GPU;
        snprintf(out->text, sizeof out->text, "no GPU activity in this region");
        return;
    }
    if (in->copy_ms.ok && in->copy_ms.v > (in->kernel_ms.ok ? in->kernel_ms.v : 0)) {
        copy_bound(in, out);
        return;
    }
    double busy = in->busy_pct.ok ? in->busy_pct.v : 100;
    if (busy < IDLE_BUSY_PCT) {
        mostly_idle(in, busy, out);
        return;
    }
    char p[32], b[sizeof(num_text)];
    /* an unknown busy share is judged as busy (not idle), but never printed as a figure */
    snprintf(b, sizeof b, "%s", in->busy_pct.ok ? FIG("busy_pct", busy) : "n/a");
    out->kind = VERDICT_COMPUTE_BOUND;
    double copy = in->copy_ms.ok ? in->copy_ms.v : 0;
    if (in->tflops.ok && in->peak_pct.ok)
        snprintf(out->text, sizeof out->text, "compute-bound: GPU busy %s, kernels %s against %s of copies%s; %s = %s "
                                              "of the %s peak",
                 b, FIG("kernel_ms", in->kernel_ms.v), FIG("copy_ms", copy), per(in, p, sizeof p),
                 FIG("tflops", in->tflops.v), FIG("peak_pct", in->peak_pct.v), in->peak_name ? in->peak_name : "FP32");
    else
        snprintf(out->text, sizeof out->text, "compute-bound: GPU busy %s, kernels %s against %s of copies%s",
                 b, FIG("kernel_ms", in->kernel_ms.v), FIG("copy_ms", copy), per(in, p, sizeof p));
    if (in->top_kernel_share_pct.ok)
        snprintf(out->advice, sizeof out->advice, "the top kernel takes %s of kernel time: start there",
                 FIG("top_kernel_share_pct", in->top_kernel_share_pct.v));
}

/* ---- the verdict of a wall-time account ---- */

static const verdict_kind group_verdict[WG_COUNT] = {
    [WG_COMPUTE] = VERDICT_COMPUTE_BOUND, [WG_COLLECTIVE] = VERDICT_COMM_BOUND, [WG_COPIES] = VERDICT_COPY_BOUND,
    [WG_MEMSET] = VERDICT_MEMSET_BOUND,   [WG_INPUT] = VERDICT_INPUT_BOUND,     [WG_COMPILE] = VERDICT_COMPILE_BOUND,
    [WG_IMPORT] = VERDICT_IMPORT_BOUND,   [WG_CUDA_INIT] = VERDICT_START_UP,    [WG_ALLOC] = VERDICT_ALLOC_BOUND,
    [WG_SYNC] = VERDICT_SYNC_BOUND,       [WG_LAUNCH] = VERDICT_LAUNCH_BOUND,   [WG_IO] = VERDICT_IO_BOUND,
    [WG_SLEEP] = VERDICT_SLEEPING,        [WG_LOCK] = VERDICT_LOCK_BOUND,       [WG_GC] = VERDICT_GC_BOUND,
    [WG_EXIT] = VERDICT_MIXED, /* never named: the largest group below it, or mixed */
    [WG_CPU] = VERDICT_HOST_BOUND,        [WG_MMPROF] = VERDICT_MMPROF,         [WG_OTHER_API] = VERDICT_API_BOUND,
    [WG_UNKNOWN] = VERDICT_IDLE,          [WG_UNRECORDED] = VERDICT_UNRECORDED,
};

/* A row's figure as the registry writes it ("61.0%", "18.300 ms"). */
static void row_fig(const account_row *r, const char *key, char *buf, size_t len)
{
    const metric_def *d = NULL;
    const metric *m = metric_get(&account_row_table, r, key, &d);
    if (m)
        metric_format(d, m, true, buf, len);
    else
        snprintf(buf, len, "n/a");
}

static wall_group row_group(const account_row *r) { return wall_states[r->state].group; }

/* A row in a sentence: its cause's words where a cause named it, else its state's. */
/* A sentence into dst, cut with a mark ("...") where it is longer than dst holds: a verdict names
 * a cause, its line and what came next, and a long line or library name must not cut it silently. */
static void fit(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fit(char *dst, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst, len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n >= len && len > 4)
        memcpy(dst + len - 4, "...", 4);
}

static const char *row_brief(const account_row *r)
{
    /* a GPU state's words are its own; so are "not recorded"'s, whose evidence is the host's alone */
    return r->why[0] && !wall_state_gpu(r->state) && r->state != WS_UNRECORDED ? r->why : wall_states[r->state].brief;
}

/* " at train.py:38 (main), calling torch.utils.data.dataloader (__next__); 8 samples, few": where a
 * row's time was spent, as its evidence says. */
static void row_where(const account_row *r, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t n = 0;
    if (r->at[0])
        n += (size_t)snprintf(buf + n, len - n, " at %.120s", r->at);
    if (r->via[0] && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s %.120s", r->at[0] ? ", calling" : " in", r->via);
    if (r->few_samples && r->samples.ok && n < len) {
        char samples[24];
        row_fig(r, "samples", samples, sizeof samples);
        snprintf(buf + n, len - n, " (on %s host sample%s: few)", samples, r->samples.v == 1 ? "" : "s");
    }
}

/* What the host did while the GPU was in a state: "; the host waited on it 92% of that time,
 * synchronising with the GPU: cudaStreamSynchronize at train.py:40 (main)", or "; meanwhile the
 * host: in launch calls: cudaLaunchKernel 61% of that time at loop.py:20 (main)". */
static void row_wait(const account_row *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!wall_state_gpu(r->state))
        return;
    char w[24], where[320];
    row_where(r, where, sizeof where);
    if (r->host_wait_pct.ok && r->host_wait_pct.v >= ACCOUNT_WAIT_PCT) {
        row_fig(r, "host_wait_pct", w, sizeof w);
        snprintf(buf, len, "; the host waited on it %s of that time%s%.64s%s", w, r->why[0] ? ", " : "", r->why,
                 where);
    } else if (r->why[0] && r->cause_pct.ok) {
        row_fig(r, "cause_pct", w, sizeof w);
        snprintf(buf, len, "; meanwhile the host: %.64s %s of that time%s", r->why, w, where);
    }
}

void judge_account(const account_input *in, verdict *out, metric *decided)
{
    out->text[0] = out->advice[0] = '\0';
    out->kind = VERDICT_NONE;
    metric_na(decided, "no account");
    if (in->nrows == 0 || !in->wall_ms.ok || in->wall_ms.v <= 0) {
        not_judged(out, "the span has no length");
        return;
    }
    const account_row *rows = in->rows;
    double group_ms[WG_COUNT] = {0}, gpu = 0, idle = 0;
    for (int i = 0; i < in->nrows; i++) {
        group_ms[row_group(&rows[i])] += rows[i].ms.v;
        *(wall_state_gpu(rows[i].state) ? &gpu : &idle) += rows[i].ms.v;
    }
    /* What was not recorded (outside a capture window) or not known (no call, sample or span) is
     * shown, and judged only where nothing known holds enough of the wall; the process's exit is
     * shown and never the verdict (a short script's teardown can hold a quarter of its run, and
     * "exit-bound" says nothing to change in it): of the known groups,
     * the largest that may be named. Launch overhead may be named only where it holds most of the
     * idle time: the GPU waits on launches only when little else keeps it waiting. */
    double wall = in->wall_ms.v;
    wall_group g = WG_COUNT;
    for (int k = 0; k < WG_COUNT; k++) {
        bool may = k != WG_UNRECORDED && k != WG_UNKNOWN && k != WG_EXIT && 100.0 * group_ms[k] / wall >= ACCOUNT_VERDICT_PCT &&
                   (k != WG_LAUNCH || (idle > 0 && 100.0 * group_ms[k] / idle >= ACCOUNT_SIDE_PCT));
        if (may && (g == WG_COUNT || group_ms[k] > group_ms[g]))
            g = (wall_group)k;
    }
    bool named = g != WG_COUNT;
    if (!named) { /* nothing known may be named: the unknown, where it is the most, else mixed */
        g = group_ms[WG_UNKNOWN] >= group_ms[WG_UNRECORDED] ? WG_UNKNOWN : WG_UNRECORDED;
        for (int k = 0; k < WG_COUNT; k++)
            if (k != WG_UNKNOWN && k != WG_UNRECORDED && group_ms[k] > group_ms[g])
                g = (wall_group)k;
        named = (g == WG_UNKNOWN || g == WG_UNRECORDED) && 100.0 * group_ms[g] / wall >= ACCOUNT_VERDICT_PCT;
    }
    double share = 100.0 * group_ms[g] / wall;
    (void)gpu;
    const account_row *top = NULL; /* the group's largest row */
    int in_group = 0;
    for (int i = 0; i < in->nrows; i++)
        if (row_group(&rows[i]) == g) {
            in_group++;
            if (!top)
                top = &rows[i];
        }
    char next[320] = "", one[160];
    int listed = 0;
    for (int i = 0; i < in->nrows && listed < 2; i++) {
        if ((named && row_group(&rows[i]) == g) || !rows[i].share_pct.ok || rows[i].share_pct.v < ACCOUNT_THEN_PCT)
            continue;
        char pct[24];
        row_fig(&rows[i], "share_pct", pct, sizeof pct);
        snprintf(one, sizeof one, "%s%s %s", listed ? ", " : "", row_brief(&rows[i]), pct);
        strncat(next, one, sizeof next - strlen(next) - 1);
        listed++;
    }
    metric_set(decided, share);
    /* Mixed: the largest row speaks for the span, the exit excepted (it is never named, and its
     * advice, to skip the teardown, is not what to change in a span whose time is spread). */
    const account_row *largest = &rows[0];
    for (int i = 0; !named && i < in->nrows; i++)
        if (row_group(&rows[i]) != WG_EXIT) {
            largest = &rows[i];
            break;
        }
    if (!named) {
        out->kind = VERDICT_MIXED;
        metric_set(decided, rows[0].share_pct.ok ? rows[0].share_pct.v : 0);
        char where[320];
        row_where(largest, where, sizeof where);
        fit(out->text, sizeof out->text, "mixed: no one cause holds the time of %s: %s; the largest%s, %s, %s",
            in->of, next, largest != &rows[0] ? " but the exit" : "", row_brief(largest),
            where[0] ? where + 1 : "without a line to name");
    } else {
        out->kind = group_verdict[g];
        char pct[24], ms[32], wall_s[32], where[320] = "", wait[480] = "", subject[256];
        metric gm;
        metric_set(&gm, share);
        account_row sum = *top;
        sum.share_pct = gm;
        metric_set(&sum.ms, group_ms[g]);
        row_fig(&sum, "share_pct", pct, sizeof pct);
        row_fig(&sum, "ms", ms, sizeof ms);
        account_row w = *top;
        w.ms = in->wall_ms;
        row_fig(&w, "ms", wall_s, sizeof wall_s);
        if (in_group > 1) { /* copies of several kinds: the group, and its largest */
            char part[24];
            row_fig(top, "share_pct", part, sizeof part);
            snprintf(subject, sizeof subject, "%s (the most, %s, %s)", wall_groups[g].brief, row_brief(top), part);
        } else {
            snprintf(subject, sizeof subject, "%s", row_brief(top));
        }
        row_where(top, where, sizeof where);
        if (top->state == WS_UNRECORDED && top->why[0]) { /* the GPU not seen, the host seen */
            char host[320];
            fit(host, sizeof host, "; the host meanwhile: %s%s", top->why, where);
            snprintf(where, sizeof where, "%s", host);
        }
        row_wait(top, wait, sizeof wait);
        fit(out->text, sizeof out->text, "%s: %s %s of %s (%s of %s)%s%s%s%s", wall_groups[g].verdict, subject,
                 pct, in->of, ms, wall_s, wall_state_gpu(top->state) ? "" : where, wait, next[0] ? "; then " : "", next);
    }
    /* The advice of what holds the time: the top kernel, the copies' own, the cause's. */
    const account_row *lead = named ? top : largest;
    wall_group lg = row_group(lead);
    if (lg == WG_COMPUTE && in->top_kernel && in->top_kernel_share_pct.ok) {
        char k[72]; /* a long name cut with a mark, never silently */
        snprintf(k, sizeof k, strlen(in->top_kernel) > 64 ? "%.61s..." : "%s", in->top_kernel);
        snprintf(out->advice, sizeof out->advice, "the top kernel, %s, takes %s of kernel time: start there", k,
                 FIG("top_kernel_share_pct", in->top_kernel_share_pct.v));
    }
    else if (lg == WG_COPIES && in->nflows > 0)
        copy_advice(in->flows, in->nflows, in->copy_hidden_pct, out->advice, sizeof out->advice);
    else if (lg != WG_UNRECORDED && lead->rule >= 0 && cause_rules[lead->rule].advice) /* the host's cause
        * is not what hid the time there */
        snprintf(out->advice, sizeof out->advice, "%s", cause_rules[lead->rule].advice);
    else
        snprintf(out->advice, sizeof out->advice, "%s", wall_groups[lg].advice);
}
