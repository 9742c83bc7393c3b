/* The text report's "GPU memory" (memory.h): an out-of-memory error first, with the request and
 * what was live; then per process and device the peak and who held it, reserved and device-wide
 * memory, the time in allocation calls; what was never freed by call site with its growth per
 * step; each range's and group's peak and growth. Shown where the run has memory data. */
#include <string.h>

#include "memory.h"
#include "text_parts.h"

#define TEXT_MEMORY_ROWS 12 /* rows of a list; the JSON has every one */

static void holders(ctx *x, const memory_analysis *m, int first, int n)
{
    static const text_col cols[] = {{"bytes", 9, true}, {"count", 7, false}, {"share_pct", 6, true}};
    for (int i = first; i < first + n; i++) {
        char at[64];
        clipped(m->holders[i].at, 60, at, sizeof at);
        fprintf(x->out, "    %-60s", at);
        fig_cells(x, &memory_holder_table, &m->holders[i], cols, 3);
        fputc('\n', x->out);
    }
}

static void failures(ctx *x, const memory_analysis *m)
{
    char req[32], t[32], live[32], count[32], used[32], total[32], line[640];
    for (int i = 0; i < m->nfailures && i < TEXT_MEMORY_ROWS; i++) {
        const mem_failure_row *f = &m->failures[i];
        const char *label = f->out_of_memory ? "Out of memory" : "Failed allocation";
        fprintf(x->out, "%s%s%s: ", c(x, RED), label, c(x, RESET));
        snprintf(line, sizeof line, "process %u thread %u, GPU %u, %s (%s) asked %s at %s ms%s%s%s%s", f->pid, f->tid,
                 f->device, f->api, f->error, fig(x, req, sizeof req, &memory_failure_table, f, "requested_bytes", true),
                 fig(x, t, sizeof t, &memory_failure_table, f, "t_ms", false), f->at[0] ? " from " : "", f->at,
                 f->in[0] ? " in " : "", f->in);
        wrapped(x, (int)strlen(label) + 2, line);
        snprintf(line, sizeof line, "live then: %s in %s allocations%s; the device: %s of %s in use",
                 fig(x, live, sizeof live, &memory_failure_table, f, "live_bytes", true),
                 fig(x, count, sizeof count, &memory_failure_table, f, "live_count", false),
                 f->untracked.ok && f->untracked.v > 0 ? " (and more the library's table could not hold)" : "",
                 fig(x, used, sizeof used, &memory_failure_table, f, "device_used_bytes", true),
                 fig(x, total, sizeof total, &memory_failure_table, f, "device_total_bytes", true));
        fprintf(x->out, "  ");
        wrapped(x, 2, line);
        holders(x, m, f->first_holder, f->nholders);
    }
}

static void series(ctx *x, const memory_analysis *m)
{
    static const text_col cols[] = {{"peak_bytes", 9, true},         {"peak_ms", 10, false},
                                    {"reserved_peak_bytes", 9, true}, {"device_used_peak_bytes", 9, true},
                                    {"pinned_peak_bytes", 9, true},  {"never_freed_bytes", 9, true},
                                    {"alloc_calls", 7, false},       {"alloc_call_ms", 9, false}};
    if (!m->nseries)
        return;
    fprintf(x->out, "%s%-14s %9s %10s %9s %9s %9s %9s %7s %9s%s\n", c(x, DIM), "process/GPU", "peak", "at ms",
            "reserved", "dev used", "pinned", "not freed", "allocs", "alloc ms", c(x, RESET));
    for (int i = 0; i < m->nseries; i++) {
        const mem_series *s = &m->series[i];
        char who[32];
        if (s->device_only)
            snprintf(who, sizeof who, "GPU %u", s->device);
        else
            snprintf(who, sizeof who, "%u/GPU %u", s->pid, s->device);
        fprintf(x->out, "%-14s", who);
        fig_cells(x, &memory_series_table, s, cols, 8);
        fputc('\n', x->out);
    }
    for (int i = 0; i < m->nseries; i++) {
        const mem_series *s = &m->series[i];
        if (!s->nholders)
            continue;
        char peak[32];
        mem_bytes_words(s->peak_bytes.v, peak, sizeof peak);
        fprintf(x->out, "  live at the peak of %u/GPU %u (%s%s%s), by call site:\n", s->pid, s->device, peak,
                s->peak_in[0] ? " in " : "", s->peak_in);
        holders(x, m, s->first_holder, s->nholders);
        if (s->nlibs > 1) {
            fprintf(x->out, "  by the library that asked:\n");
            holders(x, m, s->first_lib, s->nlibs);
        }
    }
}

static void leaks(ctx *x, const memory_analysis *m)
{
    if (!m->nleaks)
        return;
    static const text_col cols[] = {{"bytes", 9, true}, {"count", 7, false}, {"per_step_bytes", 9, true}, {"steps_pct", 6, true}};
    fprintf(x->out, "\n%sNever freed%s  (live at the record's end; per step: of its repeated range)\n", c(x, BOLD),
            c(x, RESET));
    fprintf(x->out, "%s%-52s %9s %7s %9s %6s  %s%s\n", c(x, DIM), "call site", "bytes", "allocs", "per step", "steps",
            "range", c(x, RESET));
    for (int i = 0; i < m->nleaks && i < TEXT_MEMORY_ROWS; i++) {
        const mem_leak *l = &m->leaks[i];
        char at[56];
        clipped(l->at, 52, at, sizeof at);
        fprintf(x->out, "%-52s", at);
        fig_cells(x, &memory_leak_table, l, cols, 4);
        fprintf(x->out, "  %s%s\n", l->step, l->per_step ? "  leak per step" : "");
    }
    if (m->nleaks > TEXT_MEMORY_ROWS)
        fprintf(x->out, "  (%d more in the JSON report)\n", m->nleaks - TEXT_MEMORY_ROWS);
}

static void ranges(ctx *x, const memory_analysis *m)
{
    if (!m->nranges)
        return;
    static const text_col cols[] = {{"instances", 9, false}, {"peak_bytes", 9, true}, {"growth_bytes", 10, true},
                                    {"growth_total_bytes", 10, true}, {"growing_pct", 6, true}};
    fprintf(x->out, "\n%sMemory per range%s  (its process's live bytes; a group's growth: its median instance)\n",
            c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%-36s %9s %9s %10s %10s %6s%s\n", c(x, DIM), "range", "instances", "peak", "growth", "in all",
            "grew", c(x, RESET));
    for (int i = 0; i < m->nranges && i < 2 * TEXT_MEMORY_ROWS; i++) {
        const mem_range *r = &m->ranges[i];
        char name[40];
        clipped(r->name, 36, name, sizeof name);
        fprintf(x->out, "%-36s", name);
        fig_cells(x, &memory_range_table, r, cols, 5);
        fputc('\n', x->out);
    }
    if (m->nranges > 2 * TEXT_MEMORY_ROWS)
        fprintf(x->out, "  (%d more in the JSON report)\n", m->nranges - 2 * TEXT_MEMORY_ROWS);
}

void text_memory(ctx *x, const analysis *a)
{
    const memory_analysis *m = a->memory;
    fprintf(x->out, "\n%sGPU memory%s  (live: allocated, not freed; reserved: the allocators'; dev used: NVML's)\n",
            c(x, BOLD), c(x, RESET));
    failures(x, m);
    series(x, m);
    leaks(x, m);
    ranges(x, m);
}
