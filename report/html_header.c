/* The HTML report's header: the run's title line, then its facts folded under "Run details".
 * A fact is shown only where its source knows it: the host only when the run recorded it, BLAS
 * and the matrix settings only for a built-in run, a device's clock, memory and versions only
 * when they were read (an import's trace may name none of them). Never "unknown" or a 0 standing
 * in for what was not recorded. The device's peaks are figures (the registry's, with their n/a
 * reasons). */
#include <stdio.h>
#include <string.h>

#include "html_parts.h"
#include "source.h"

/* "13.0" from CUDA's 13000. */
static void version_str(int v, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* One fact of the header: a term and its already-built HTML. */
static void fact_open(html_ctx *x, const char *term, const char *cls)
{
    sb_printf(x->b, "<div%s%s%s><dt>%s</dt><dd>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", term);
}

static void fact_close(html_ctx *x)
{
    sb_add(x->b, "</dd></div>\n");
}

/* "2026-11-29T15:46:18Z" reads as "2026-11-29 15:46:18 UTC". */
void html_readable_date(const char *iso, char *buf, size_t len)
{
    snprintf(buf, len, "%s", iso);
    char *t = strchr(buf, 'T');
    if (t)
        *t = ' ';
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == 'Z') {
        buf[n - 1] = '\0';
        strncat(buf, " UTC", len - strlen(buf) - 1);
    }
}

/* Writes sep before every part but the first; *first says whether one was written yet. */
static void part(html_ctx *x, bool *first, const char *sep)
{
    if (!*first)
        sb_add(x->b, sep);
    *first = false;
}

/* "NVIDIA H200, sm_90, 132 SMs at 1980 MHz, 139.8 GiB, PCIe 5 x16": each part that was read. */
static void device_fact(html_ctx *x, const device_info *d)
{
    char term[24];
    snprintf(term, sizeof term, "GPU %d", d->index);
    fact_open(x, term, NULL);
    sb_html(x->b, d->name);
    if (d->cc_major > 0)
        sb_printf(x->b, ", sm_%d%d", d->cc_major, d->cc_minor);
    if (d->sm_count > 0) {
        sb_printf(x->b, ", %d SMs", d->sm_count);
        if (d->clock_khz > 0)
            sb_printf(x->b, " at %d MHz", d->clock_khz / 1000);
    }
    if (d->total_mem > 0) /* the device's own fact, not a figure of the analysis */
        sb_printf(x->b, ", %s", value_text(&report_value_table, "device_memory_gib",
                                           (double)d->total_mem / (1024.0 * 1024 * 1024), true).s);
    if (d->pcie_gen > 0)
        sb_printf(x->b, ", PCIe %d x%d", d->pcie_gen, d->pcie_width);
    fact_close(x);
    if (d->driver_version > 0 || d->runtime_version > 0) {
        char v[16];
        bool first = true;
        fact_open(x, "Driver / CUDA", NULL);
        if (d->driver_version > 0) {
            version_str(d->driver_version, v, sizeof v);
            part(x, &first, ", ");
            sb_printf(x->b, "driver %s", v);
        }
        if (d->runtime_version > 0) {
            version_str(d->runtime_version, v, sizeof v);
            part(x, &first, ", ");
            sb_printf(x->b, "CUDA runtime %s", v);
        }
        fact_close(x);
    }
}

static void peaks_fact(html_ctx *x, int i)
{
    char path[FIG_PATH];
    path_device_peaks(path, i);
    const device_peaks *p = &x->a->peaks[i];
    fact_open(x, "Peaks", NULL);
    sb_add(x->b, "FP32 ");
    html_fig(x, &device_peaks_table, p, "fp32_tflops", path, true);
    sb_add(x->b, " &middot; memory ");
    html_fig(x, &device_peaks_table, p, "memory_gbps", path, true);
    sb_add(x->b, " &middot; link ");
    html_fig(x, &device_peaks_table, p, "link_gbps", path, true);
    sb_add(x->b, " per direction");
    fact_close(x);
}

/* Whether the run recorded anything of the machine (the built-in run and mmprof profile do where
 * they can read it; an import never does). */
static bool host_recorded(const host_info *h)
{
    return h->known && (h->cpu_model[0] || h->logical_cores > 0 || h->os[0]);
}

static void host_fact(html_ctx *x, const host_info *h)
{
    if (!host_recorded(h))
        return;
    bool first = true;
    fact_open(x, "Host CPU", NULL);
    if (h->cpu_model[0]) {
        part(x, &first, ", ");
        sb_html(x->b, h->cpu_model);
    }
    if (h->logical_cores > 0) {
        part(x, &first, ", ");
        sb_printf(x->b, "%d logical cores", h->logical_cores);
    }
    if (h->has_avx512f || h->has_avx2) {
        part(x, &first, ", ");
        sb_add(x->b, h->has_avx512f ? "AVX-512" : "AVX2");
    }
    if (h->os[0]) {
        part(x, &first, " &middot; ");
        sb_html(x->b, h->os);
    }
    fact_close(x);
}

/* What only the built-in run has: the BLAS it multiplied with and the matrix settings. */
static void builtin_facts(html_ctx *x, const run_model *m)
{
    const blas_info *l = &m->builtin.blas;
    if (l->version[0] || l->core[0] || l->threads > 0 || l->library[0]) {
        bool first = true;
        fact_open(x, "BLAS", NULL);
        if (l->version[0] || l->core[0] || l->threads > 0) {
            part(x, &first, ", ");
            sb_add(x->b, "OpenBLAS");
            if (l->version[0])
                sb_html_printf(x->b, " %s", l->version);
        }
        if (l->core[0]) {
            part(x, &first, ", ");
            sb_html_printf(x->b, "core %s", l->core);
        }
        if (l->threads > 0) {
            part(x, &first, ", ");
            sb_printf(x->b, "%d threads", l->threads);
        }
        if (l->library[0]) {
            sb_add(x->b, " <code class=\"path\">");
            sb_html(x->b, l->library);
            sb_add(x->b, "</code>");
        }
        fact_close(x);
    }
    fact_open(x, "Matrix", NULL);
    html_run_sizes(x->b, m);
    sb_printf(x->b, ", FP32 row-major, seed %llu; repeats ", (unsigned long long)m->builtin.seed);
    if (m->builtin.repeat_requested > 0)
        sb_printf(x->b, "%d", m->builtin.repeat_requested);
    else if (m->builtin.max_noise_pct > 0) /* the run's settings, as the command line gave them */
        sb_printf(x->b, "sampled until the noise is at most %s or %s passed",
                  value_text(&report_value_table, "max_noise_pct", m->builtin.max_noise_pct, true).s,
                  value_text(&report_value_table, "max_time_s", m->builtin.max_time_s, true).s);
    else
        sb_add(x->b, "chosen per workload");
    if (m->builtin.cold_l2)
        sb_add(x->b, "; L2 flushed before each timed launch");
    if (m->builtin.host_memory_requested[0]) {
        sb_add(x->b, "; host memory ");
        sb_html(x->b, m->builtin.host_memory_requested);
    }
    fact_close(x);
}

/* What timed the GPU figures. Drops and the final flush are mmprof's own collection's (the
 * built-in run, mmprof profile); a trace's importer knows neither. */
static void timing_fact(html_ctx *x, const run_model *m)
{
    const collection_info *ci = &m->collection;
    bool ours = source_has(m->source, HAS_COLLECTION);
    fact_open(x, "Timing", NULL);
    if (ci->source == TIMING_CUPTI) {
        sb_add(x->b, "CUPTI activity records");
        if (ci->cupti_version > 0)
            sb_printf(x->b, " (API %d)", ci->cupti_version);
        sb_printf(x->b, ": %llu records", (unsigned long long)ci->records);
        if (ours)
            sb_printf(x->b, ", %llu dropped", (unsigned long long)ci->dropped);
        if (ours && ci->flush_ms > 0) /* the collector's own clock reading, as recorded */
            sb_printf(x->b, ", flush %s", value_text(&report_value_table, "flush_ms", ci->flush_ms, true).s);
    } else if (ci->source == TIMING_CUDA_EVENT) {
        sb_html_printf(x->b, "cudaEvents around each copy and launch (%s)", ci->reason);
    } else {
        sb_add(x->b, "host clock only");
        if (ci->reason[0] || source_has(m->source, HAS_WORKLOADS)) /* workloads ran no GPU work */
            sb_html_printf(x->b, " (%s)", ci->reason[0] ? ci->reason : "no GPU work");
    }
    fact_close(x);
}

/* The title line: what ran (or which trace), on which GPU, when, by which mmprof. */
static void title(html_ctx *x, const run_model *m, const char *date)
{
    sb_add(x->b, "<div class=\"title\"><h1>mmprof <span class=\"what\">");
    if (source_has(m->source, HAS_WORKLOADS)) {
        sb_add(x->b, "C = A &times; B, ");
        html_run_sizes(x->b, m);
        sb_add(x->b, ", FP32</span></h1><p class=\"sub\">");
    } else {
        sb_printf(x->b, "%s ", source_of(m->source)->name);
        sb_html(x->b, m->source_file);
        sb_add(x->b, "</span></h1><p class=\"sub\">");
    }
    if (m->ndevices > 0)
        sb_html(x->b, m->devices[0].name);
    else
        sb_add(x->b, "no GPU");
    if (date[0]) {
        sb_add(x->b, " &middot; ");
        sb_html(x->b, date);
    }
    sb_add(x->b, " &middot; mmprof ");
    sb_html(x->b, m->tool_version);
    sb_add(x->b, "</p></div>\n");
}

void html_header(html_ctx *x)
{
    const run_model *m = x->a->m;
    char date[48];
    html_readable_date(m->started_at, date, sizeof date);
    title(x, m, date);
    if (x->a->nwarnings > 0)
        sb_printf(x->b, "<p class=\"alert\">%d warning%s about this run: <a href=\"#warnings\">see Warnings</a></p>\n",
                  x->a->nwarnings, x->a->nwarnings == 1 ? "" : "s");
    /* The run's facts matter less than its findings: folded, one click away (open in print). */
    bool command = m->command_line && m->command_line[0];
    sb_printf(x->b, "<details class=\"runfacts\"><summary>Run details: GPU, %s%stiming%s</summary>\n"
                    "<dl class=\"facts\">\n",
              host_recorded(&m->host) ? "host, " : "", source_has(m->source, HAS_WORKLOADS) ? "BLAS, " : "",
              command ? ", command" : "");
    for (int i = 0; i < m->ndevices; i++) {
        device_fact(x, &m->devices[i]);
        peaks_fact(x, i);
    }
    if (m->ndevices == 0) {
        fact_open(x, "GPU", NULL);
        sb_add(x->b, "none");
        if (m->builtin.gpu_skip_reason[0]) {
            sb_add(x->b, " (");
            sb_html(x->b, m->builtin.gpu_skip_reason);
            sb_add(x->b, ")");
        }
        fact_close(x);
    }
    host_fact(x, &m->host);
    if (source_has(m->source, HAS_WORKLOADS))
        builtin_facts(x, m);
    timing_fact(x, m);
    if (date[0]) {
        fact_open(x, "Date", NULL);
        sb_html(x->b, date);
        fact_close(x);
    }
    fact_open(x, "Tool", NULL);
    sb_add(x->b, "mmprof ");
    sb_html(x->b, m->tool_version);
    sb_printf(x->b, ", run file schema %d", m->schema_version);
    fact_close(x);
    if (command) {
        fact_open(x, "Command", "wide");
        sb_add(x->b, "<code>");
        sb_html(x->b, m->command_line);
        sb_add(x->b, "</code>");
        fact_close(x);
    }
    sb_add(x->b, "</dl></details>\n");
}
