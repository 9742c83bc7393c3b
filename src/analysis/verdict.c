/* One verdict for any span of GPU work. See verdict.h. */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "thresholds.h"

const char *verdict_name(verdict_kind v)
{
    static const char *const names[] = {"none", "no-gpu", "copy-bound", "launch-bound", "sync-bound", "idle",
                                        "compute-bound"};
    return (v >= 0 && (size_t)v < sizeof names / sizeof names[0]) ? names[v] : "none";
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

static void copy_bound(const verdict_input *in, verdict *out)
{
    double kern = in->kernel_ms.ok ? in->kernel_ms.v : 0, copy = in->copy_ms.v;
    char p[32];
    out->kind = VERDICT_COPY_BOUND;
    if (kern > 0)
        snprintf(out->text, sizeof out->text, "copy-bound: copies take %.3f ms against %.3f ms of kernels%s "
                                              "(memcpy:compute %.2f)", copy, kern, per(in, p, sizeof p), copy / kern);
    else
        snprintf(out->text, sizeof out->text, "copy-bound: copies take %.3f ms%s and no kernel ran "
                                              "(memcpy:compute n/a: no kernel time)", copy, per(in, p, sizeof p));
    double pageable_ms = 0, small = 0;
    int copies = 0;
    const copy_flow *slowest = NULL; /* the pageable flow that took longest */
    for (int i = 0; i < in->nflows; i++) {
        const copy_flow *f = &in->flows[i];
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
    for (int i = 0; slowest && i < in->nflows; i++)
        if (!in->flows[i].memset && in->flows[i].host == MEM_PINNED && in->flows[i].dir == slowest->dir && in->flows[i].gbps.ok)
            pinned = &in->flows[i];
    double flow_ms = 0;
    for (int i = 0; i < in->nflows; i++)
        if (!in->flows[i].memset)
            flow_ms += in->flows[i].ms.v;
    bool pageable = flow_ms > 0 && pageable_ms > PAGEABLE_COPY_SHARE * flow_ms;
    if (slowest && pageable && pinned && slowest->gbps.ok)
        snprintf(out->advice, sizeof out->advice, "pin host memory: pageable %s copies ran at %.1f GB/s, pinned ones at %.1f GB/s",
                 copy_dir_name(slowest->dir), slowest->gbps.v, pinned->gbps.v);
    else if (pageable)
        snprintf(out->advice, sizeof out->advice,
                 "pin host memory (cudaHostAlloc, pin_memory=True): %.0f%% of copy time is from pageable memory",
                 100.0 * pageable_ms / flow_ms);
    else if (copies > 0 && small > 0.5 * copies)
        snprintf(out->advice, sizeof out->advice, "batch small copies: %.0f of %d copies move less than 64 KB each",
                 small, copies);
    else if (in->copy_hidden_pct.ok && in->copy_hidden_pct.v >= HIDDEN_COPY_PCT)
        snprintf(out->advice, sizeof out->advice,
                 "move fewer bytes or keep the data on the GPU: %.0f%% of copy time already runs under kernels",
                 in->copy_hidden_pct.v);
    else
        snprintf(out->advice, sizeof out->advice,
                 "overlap copies with compute on separate streams, or keep the data on the GPU");
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
        snprintf(out->text, sizeof out->text, "launch-bound: GPU busy %.1f%%; %.0f%% of %d kernels run under 10 us",
                 busy, in->short_kernel_pct.v, in->nkernels);
        if (in->launch_us.ok && in->kernel_us.ok)
            snprintf(out->advice, sizeof out->advice,
                     "capture the launches in a CUDA graph or fuse kernels: a launch call takes %.1f us, a "
                     "kernel runs %.1f us (medians)", in->launch_us.v, in->kernel_us.v);
        else
            snprintf(out->advice, sizeof out->advice, "capture the launches in a CUDA graph or fuse kernels");
    } else if (in->sync_ms.ok && wall > 0 && in->sync_ms.v > SYNC_WALL_SHARE * wall) {
        out->kind = VERDICT_SYNC_BOUND;
        snprintf(out->text, sizeof out->text,
                 "sync-bound: the host waits %.3f ms of %.3f ms in synchronization; GPU busy %.1f%%", in->sync_ms.v,
                 wall, busy);
        snprintf(out->advice, sizeof out->advice,
                 "synchronize less often (per batch, not per step); queue more work before waiting");
    } else {
        out->kind = VERDICT_IDLE;
        if (in->lead_idle_ms.ok && (!in->largest_gap_ms.ok || in->lead_idle_ms.v > in->largest_gap_ms.v))
            snprintf(out->text, sizeof out->text, "GPU idle: busy %.1f%% of %.3f ms; %.3f ms pass before its first GPU "
                                                  "work", busy, wall, in->lead_idle_ms.v);
        else if (in->largest_gap_ms.ok)
            snprintf(out->text, sizeof out->text, "GPU idle: busy %.1f%% of %.3f ms; largest gap %.3f ms%s%s", busy,
                     wall, in->largest_gap_ms.v, in->gap_where ? " in " : "", in->gap_where ? in->gap_where : "");
        else
            snprintf(out->text, sizeof out->text, "GPU idle: busy %.1f%% of %.3f ms", busy, wall);
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
    char p[32], b[24];
    /* an unknown busy share is judged as busy (not idle), but never printed as a figure */
    snprintf(b, sizeof b, in->busy_pct.ok ? "%.1f%%" : "n/a", busy);
    out->kind = VERDICT_COMPUTE_BOUND;
    double copy = in->copy_ms.ok ? in->copy_ms.v : 0;
    if (in->tflops.ok && in->peak_pct.ok)
        snprintf(out->text, sizeof out->text, "compute-bound: GPU busy %s, kernels %.3f ms against %.3f ms of "
                                              "copies%s; %.1f TFLOP/s = %.1f%% of the %s peak",
                 b, in->kernel_ms.v, copy, per(in, p, sizeof p), in->tflops.v, in->peak_pct.v,
                 in->peak_name ? in->peak_name : "FP32");
    else
        snprintf(out->text, sizeof out->text, "compute-bound: GPU busy %s, kernels %.3f ms against %.3f ms of copies%s",
                 b, in->kernel_ms.v, copy, per(in, p, sizeof p));
    if (in->top_kernel_share_pct.ok)
        snprintf(out->advice, sizeof out->advice, "the top kernel takes %.0f%% of kernel time: start there",
                 in->top_kernel_share_pct.v);
}
