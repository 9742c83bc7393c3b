/* The text report's sweep section: where the GPU pays off, in one line, then per size the CPU
 * against the fastest FP32 GPU workload (kernel alone, and end to end with pinned and pageable
 * copies), then every workload's TFLOP/s per size. Fits TEXT_WIDTH. */
#include <string.h>

#include "text_parts.h"

/* Sizes per block of the TFLOP/s table: a 26-column label, then 9 columns a size. */
#define SIZES_PER_BLOCK 8

static void best_cells(ctx *x, const sweep_analysis *s, int best, int k, bool e2e, char *ms, char *vs, size_t len)
{
    if (best < 0) {
        snprintf(ms, len, "-");
        snprintf(vs, len, "-");
        return;
    }
    const sweep_point *p = &s->series[best].pts[k];
    fmt(x, ms, len, e2e ? &p->e2e_ms : &p->kernel_ms, "%.3f", e2e ? "sweep e2e ms" : "sweep kernel ms");
    const metric *cpu = s->cpu >= 0 ? &s->series[s->cpu].pts[k].kernel_ms : NULL;
    const metric *g = e2e ? &p->e2e_ms : &p->kernel_ms;
    if (cpu && cpu->ok && g->ok && g->v > 0)
        snprintf(vs, len, "%.2fx", cpu->v / g->v);
    else
        snprintf(vs, len, "-");
}

static void per_size(ctx *x, const sweep_analysis *s)
{
    fprintf(x->out, "%sCPU against the fastest FP32 GPU workload at each size%s  x = CPU time over GPU time\n",
            c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%6s %9s %6s %9s %7s %9s %7s %9s %7s  %s%s\n", c(x, DIM), "n", "CPU ms", "noise",
            "kernel ms", "x", "pinned", "x", "pageable", "x", "fastest (pinned)", c(x, RESET));
    for (int k = 0; k < s->nsizes; k++) {
        char cpu[24] = "-", noise[24] = "-", b[6][24];
        if (s->cpu >= 0) {
            fmt(x, cpu, sizeof cpu, &s->series[s->cpu].pts[k].kernel_ms, "%.3f", "cpu-openblas ms");
            const metric *nm = &s->series[s->cpu].pts[k].noise_pct;
            fmt(x, noise, sizeof noise, nm, noise_fmt(nm), "cpu-openblas noise");
        }
        best_cells(x, s, s->best_kernel[1][k] >= 0 ? s->best_kernel[1][k] : s->best_kernel[0][k], k, false,
                   b[0], b[1], 24);
        best_cells(x, s, s->best_e2e[1][k], k, true, b[2], b[3], 24);
        best_cells(x, s, s->best_e2e[0][k], k, true, b[4], b[5], 24);
        int who = s->best_e2e[1][k] >= 0 ? s->best_e2e[1][k] : s->best_e2e[0][k];
        fprintf(x->out, "%6d %9s %5s%% %9s %7s %9s %7s %9s %7s  %.17s\n", s->sizes[k], cpu, noise, b[0], b[1],
                b[2], b[3], b[4], b[5], who >= 0 ? s->series[who].name : "-");
    }
}

static void tflops_table(ctx *x, const sweep_analysis *s, double max_noise)
{
    fprintf(x->out, "\n%sTFLOP/s per size%s  by kernel time; * noise above --max-noise (time or the sample cap ended sampling)\n",
            c(x, BOLD), c(x, RESET));
    for (int k0 = 0; k0 < s->nsizes; k0 += SIZES_PER_BLOCK) {
        int k1 = k0 + SIZES_PER_BLOCK < s->nsizes ? k0 + SIZES_PER_BLOCK : s->nsizes;
        fprintf(x->out, "%s%-26s", c(x, DIM), "workload");
        for (int k = k0; k < k1; k++)
            fprintf(x->out, " %7d%s", s->sizes[k], k + 1 < k1 ? " " : "");
        fprintf(x->out, "%s\n", c(x, RESET));
        for (int i = 0; i < s->nseries; i++) {
            const sweep_series *r = &s->series[i];
            fprintf(x->out, "%-17.17s %-8s", r->name, !r->gpu ? "host" : (r->mem == MEM_PINNED ? "pinned" : "pageable"));
            for (int k = k0; k < k1; k++) {
                const sweep_point *p = &r->pts[k];
                char v[24] = "-";
                if (p->wl >= 0)
                    fmt(x, v, sizeof v, &p->tflops, p->tflops.ok && p->tflops.v < 10 ? "%.3f" : "%.1f", "sweep TFLOP/s");
                bool noisy = p->wl >= 0 && max_noise > 0 && p->noise_pct.ok && p->noise_pct.v > max_noise;
                fprintf(x->out, " %7s%s", v, noisy ? "*" : (k + 1 < k1 ? " " : ""));
            }
            fputc('\n', x->out);
        }
    }
}

void text_sweep(ctx *x, const analysis *a)
{
    const sweep_analysis *s = a->sweep;
    if (!s)
        return;
    char line[1024];
    sweep_headline(s, line, sizeof line);
    fprintf(x->out, "\n%sSweep%s  ", c(x, BOLD), c(x, RESET));
    wrapped(x, 7, line);
    fputc('\n', x->out);
    per_size(x, s);
    tflops_table(x, s, a->m->builtin.max_noise_pct);
}
