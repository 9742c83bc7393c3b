/* The text report's sweep section: where the GPU pays off, in one line, then per size the CPU
 * against the fastest FP32 GPU workload (kernel alone, and end to end with pinned and pageable
 * copies), then every workload's TFLOP/s per size. Fits TEXT_WIDTH. */
#include <string.h>

#include "text_parts.h"

/* Sizes per block of the TFLOP/s table: a 26-column label, then 9 columns a size. */
#define SIZES_PER_BLOCK 8

/* The best GPU workload's time at size k (kernel or end to end) and its speedup over the CPU:
 * its own workload's figures; "-" where no GPU workload ran. */
static void best_cells(ctx *x, const analysis *a, int best, int k, bool e2e, char *ms, char *vs, size_t len)
{
    const sweep_analysis *s = a->sweep;
    if (best < 0) {
        snprintf(ms, len, "-");
        snprintf(vs, len, "-");
        return;
    }
    const sweep_point *p = &s->series[best].pts[k];
    fig(x, ms, len, &sweep_point_table, p, e2e ? "e2e_ms" : "kernel_ms", false);
    fig(x, vs, len, &workload_metric_table, &a->wl[p->wl], e2e ? "speedup_vs_cpu_e2e" : "speedup_vs_cpu", true);
}

static void per_size(ctx *x, const analysis *a)
{
    const sweep_analysis *s = a->sweep;
    fprintf(x->out, "%sCPU against the fastest FP32 GPU workload at each size%s  x = CPU time over GPU time\n",
            c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%6s %9s %6s %9s %7s %9s %7s %9s %7s  %s%s\n", c(x, DIM), "n", "CPU ms", "noise",
            "kernel ms", "x", "pinned", "x", "pageable", "x", "fastest (pinned)", c(x, RESET));
    for (int k = 0; k < s->nsizes; k++) {
        char cpu[24] = "-", noise[24] = "-", b[6][24];
        if (s->cpu >= 0) {
            fig(x, cpu, sizeof cpu, &sweep_point_table, &s->series[s->cpu].pts[k], "kernel_ms", false);
            fig(x, noise, sizeof noise, &sweep_point_table, &s->series[s->cpu].pts[k], "noise_pct", true);
        }
        best_cells(x, a, s->best_kernel[1][k] >= 0 ? s->best_kernel[1][k] : s->best_kernel[0][k], k, false,
                   b[0], b[1], 24);
        best_cells(x, a, s->best_e2e[1][k], k, true, b[2], b[3], 24);
        best_cells(x, a, s->best_e2e[0][k], k, true, b[4], b[5], 24);
        int who = s->best_e2e[1][k] >= 0 ? s->best_e2e[1][k] : s->best_e2e[0][k];
        fprintf(x->out, "%6d %9s %6s %9s %7s %9s %7s %9s %7s  %.17s\n", s->sizes[k], cpu, noise, b[0], b[1],
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
                    fig(x, v, sizeof v, &sweep_point_table, p, "tflops", false);
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
    char line[1024];
    sweep_headline(s, line, sizeof line);
    fprintf(x->out, "\n%sSweep%s  ", c(x, BOLD), c(x, RESET));
    wrapped(x, 7, line);
    fputc('\n', x->out);
    per_size(x, a);
    tflops_table(x, s, a->m->builtin.max_noise_pct);
}
