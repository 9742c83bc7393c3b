/* The terminal report of the recorded runs, rendered into memory: it fits TEXT_WIDTH columns,
 * uses escapes only when color is asked for (and then only around the same text), shows the
 * run's facts in the header, one row per workload with the analysis's figures, every n/a with its
 * reason, and every warning. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "sections.h"
#include "test_support.h"
#include "text.h"
#include "verify.h"

static char *render(const analysis *a, bool color)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    render_text(a, f, color);
    assert_int_equal(fclose(f), 0);
    assert_non_null(buf);
    return buf;
}

/* The text with every ANSI escape sequence (ESC [ ... letter) removed. */
static char *strip_escapes(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    while (*s) {
        if (s[0] == '\033' && s[1] == '[') {
            s += 2;
            while (*s && !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
                s++;
            if (*s)
                s++;
            continue;
        }
        *o++ = *s++;
    }
    *o = '\0';
    return out;
}

/* Every line within TEXT_WIDTH visible columns, and no tab that would make columns a guess. */
static void assert_fits(const char *text)
{
    char *plain = strip_escapes(text);
    int lineno = 1;
    for (const char *p = plain; *p; lineno++) {
        size_t n = strcspn(p, "\n");
        if (n > TEXT_WIDTH)
            fail_msg("line %d has %zu columns: %.*s", lineno, n, (int)n, p);
        if (memchr(p, '\t', n))
            fail_msg("line %d holds a tab", lineno);
        p += n + (p[n] == '\n');
    }
    free(plain);
}

/* Runs of spaces and newlines as one space: wrapped text compares with the unwrapped. */
static char *squeeze(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    bool space = false;
    for (; *s; s++) {
        if (*s == ' ' || *s == '\n') {
            space = true;
            continue;
        }
        if (space && o != out)
            *o++ = ' ';
        space = false;
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

static void assert_contains(const char *text, const char *part)
{
    char *t = squeeze(text), *p = squeeze(part);
    if (!strstr(t, p))
        fail_msg("the report does not contain '%s'", part);
    free(t);
    free(p);
}

/* The section that starts with a line beginning with title, up to the next blank line (a copy,
 * or NULL when there is none). */
static char *section(const char *text, const char *title)
{
    size_t tl = strlen(title);
    for (const char *p = text; *p;) {
        if (strncmp(p, title, tl) == 0) {
            const char *end = strstr(p, "\n\n");
            size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
            return strndup(p, n);
        }
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return NULL;
}

/* The line of sec that starts with prefix (a copy), or NULL. */
static char *line_starting(const char *sec, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (const char *p = sec; *p;) {
        size_t n = strcspn(p, "\n");
        if (n >= pl && strncmp(p, prefix, pl) == 0)
            return strndup(p, n);
        p += n + (p[n] == '\n');
    }
    return NULL;
}

static bool has_line_starting(const char *sec, const char *prefix)
{
    char *line = line_starting(sec, prefix);
    free(line);
    return line != NULL;
}

static int count_lines_starting(const char *sec, const char *prefix)
{
    int c = 0;
    size_t pl = strlen(prefix);
    for (const char *p = sec; *p;) {
        size_t n = strcspn(p, "\n");
        c += n >= pl && strncmp(p, prefix, pl) == 0;
        p += n + (p[n] == '\n');
    }
    return c;
}

/* Whitespace-separated field i of line (a static copy). */
static const char *field_of(const char *line, int i)
{
    static char buf[64];
    const char *p = line;
    for (int k = 0;; k++) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        if (n == 0)
            return "";
        if (k == i) {
            snprintf(buf, sizeof buf, "%.*s", (int)n, p);
            return buf;
        }
        p += n;
    }
}

/* ---------- the recorded runs ---------- */

typedef struct {
    run_model m;
    analysis a;
    char *plain, *color;
} rendered;

static void render_run(rendered *r, const char *path, void (*spoil)(run_model *))
{
    load_run(path, &r->m);
    if (spoil)
        spoil(&r->m);
    assert_true(analyze(&r->m, &r->a));
    r->plain = render(&r->a, false);
    r->color = render(&r->a, true);
}

static void free_rendered(rendered *r)
{
    free(r->plain);
    free(r->color);
    analysis_free(&r->a);
    model_free(&r->m);
}

static void fits_and_colors(const char *path, void (*spoil)(run_model *))
{
    rendered r;
    render_run(&r, path, spoil);
    assert_fits(r.plain);
    assert_fits(r.color);
    assert_null(strchr(r.plain, '\033'));
    assert_non_null(strstr(r.color, "\033["));
    /* Color only decorates: without its escapes the colored report is the plain one. */
    char *stripped = strip_escapes(r.color);
    assert_string_equal(stripped, r.plain);
    free(stripped);
    free_rendered(&r);
}

static void sample_fits_and_colors(void **state)
{
    (void)state;
    fits_and_colors(sample_path(), NULL);
}

static void ncu_sample_fits_and_colors(void **state)
{
    (void)state;
    fits_and_colors(NCU_SAMPLE, NULL);
}

static void nsys_sample_fits_and_colors(void **state)
{
    (void)state;
    fits_and_colors(NSYS_SAMPLE, NULL);
}

static void header_names_the_run(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), NULL);
    const run_model *m = &r.m;
    char want[256];
    snprintf(want, sizeof want, "mmprof %s", m->tool_version);
    assert_true(strncmp(r.plain, want, strlen(want)) == 0);
    snprintf(want, sizeof want, "n = %d,", m->builtin.n);
    assert_contains(r.plain, want);
    snprintf(want, sizeof want, "seed %llu", (unsigned long long)m->builtin.seed);
    assert_contains(r.plain, want);
    const device_info *d = &m->devices[0];
    char *gpu = line_starting(r.plain, "GPU 0");
    assert_non_null(gpu);
    assert_non_null(strstr(gpu, d->name));
    /* CUDA writes versions as 1000 x major + 10 x minor. */
    snprintf(want, sizeof want, "driver %d.%d", d->driver_version / 1000, d->driver_version % 1000 / 10);
    assert_non_null(strstr(gpu, want));
    snprintf(want, sizeof want, "%d SMs", d->sm_count);
    assert_non_null(strstr(gpu, want));
    free(gpu);
    const metric_def *fp32 = metric_find(&device_peaks_table, "fp32_tflops");
    char peak[32];
    metric_format(fp32, &r.a.peaks[0].fp32_tflops, true, peak, sizeof peak);
    snprintf(want, sizeof want, "peaks: FP32 %s,", peak);
    assert_contains(r.plain, want);
    char *blas = line_starting(r.plain, "BLAS");
    assert_non_null(blas);
    snprintf(want, sizeof want, "OpenBLAS %s, core %s, %d threads", m->builtin.blas.version, m->builtin.blas.core,
             m->builtin.blas.threads);
    assert_non_null(strstr(blas, want));
    free(blas);
    assert_contains(r.plain, m->builtin.blas.library);
    assert_contains(r.plain, m->host.cpu_model);
    assert_true(has_line_starting(r.plain, "Timing  GPU: CUPTI activity records"));
    free_rendered(&r);
}

/* Figure key of a workload as the registry formats it, without its unit (a static copy). */
static const char *registry_text(const workload_metrics *w, const char *key)
{
    static char buf[48];
    const metric_def *d;
    const metric *m = metric_get(&workload_metric_table, w, key, &d);
    assert_non_null(m);
    metric_format(d, m, false, buf, sizeof buf);
    return buf;
}

/* Each workload that ran has its row, and the row shows the analysis's figures as the registry
 * formats them. */
static void check_rows(const rendered *r)
{
    char *sec = section(r->plain, "Workloads");
    assert_non_null(sec);
    for (int i = 0; i < r->a.nwl; i++) {
        const workload_metrics *w = &r->a.wl[i];
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%-17s %-8s", w->w->name,
                 !w->w->needs_gpu ? "host" : w->w->host_memory == MEM_PINNED ? "pinned" : "pageable");
        char *row = line_starting(sec, prefix);
        if (!row)
            fail_msg("no row for '%s'", prefix);
        assert_int_equal(atoi(field_of(row, 2)), w->w->repeat);
        assert_string_equal(field_of(row, 3), registry_text(w, "kernel_ms"));
        assert_string_equal(field_of(row, 5), registry_text(w, "tflops"));
        /* The noise with its unit, then the mark of what ended sampling. */
        char noise[64];
        snprintf(noise, sizeof noise, "%s%%", registry_text(w, "noise_pct"));
        if (w->noise_pct.ok)
            assert_true(strncmp(field_of(row, 4), noise, strlen(noise)) == 0);
        /* %peak: n/a for TF32 (with its reason in the footer), "-" on the CPU. */
        if (!w->w->needs_gpu)
            assert_string_equal(field_of(row, 6), "-");
        else
            assert_string_equal(field_of(row, 6), registry_text(w, "peak_pct"));
        if (!w->peak_pct.ok)
            assert_string_equal(field_of(row, 6), w->w->needs_gpu ? "n/a" : "-");
        free(row);
    }
    free(sec);
}

static void rows_show_the_analysis(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), NULL);
    check_rows(&r);
    free_rendered(&r);
    render_run(&r, NCU_SAMPLE, NULL);
    check_rows(&r);
    free_rendered(&r);
}

/* Every "n/a" in the tables has a line under "Not available" that gives a reason, and the
 * reasons the analysis gave are those printed, under the figure's registry label. */
static void check_na(const rendered *r)
{
    char *na = section(r->plain, "Not available");
    int shown = 0;
    for (const char *p = r->plain; (p = strstr(p, "n/a")); p += 3)
        shown++;
    if (!na) {
        assert_int_equal(shown, 0);
        return;
    }
    int lines = count_lines_starting(na, "  n/a ");
    assert_true(lines > 0);
    for (const char *p = strstr(na, "  n/a "); p; p = strstr(p + 1, "\n  n/a ")) {
        const char *colon = strstr(p, ": ");
        assert_non_null(colon);
        assert_true(colon[2] != '\n' && colon[2] != '\0'); /* a reason follows */
    }
    for (int i = 0; i < r->a.nwl; i++) {
        const workload_metrics *w = &r->a.wl[i];
        char want[200];
        if (w->w->needs_gpu && !w->peak_pct.ok) {
            snprintf(want, sizeof want, "n/a %s: %s", metric_find(&workload_metric_table, "peak_pct")->label,
                     metric_why(&w->peak_pct));
            assert_contains(na, want);
        }
        if (!w->speedup.ok) {
            snprintf(want, sizeof want, "n/a %s: %s", metric_find(&workload_metric_table, "speedup_vs_cpu")->label,
                     metric_why(&w->speedup));
            assert_contains(na, want);
        }
    }
    free(na);
}

/* A run without the CPU baseline: speedups cannot be had. */
static void drop_cpu(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (strcmp(m->builtin.workloads[i].name, "cpu-openblas") == 0)
            m->builtin.workloads[i].status = WL_SKIPPED;
}

/* s without spaces and line ends (a copy). */
static char *unspaced(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    for (; *s; s++)
        if (*s != ' ' && *s != '\n')
            *o++ = *s;
    *o = '\0';
    return out;
}

/* A kernel name cut to its column is written whole under its row (wrapped, continuation lines
 * indented): every listed kernel of the training loop's profile can be found whole. */
static void kernel_names_whole(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, "samples/h200-profile-train.json", NULL);
    assert_fits(r.plain);
    /* Compared without white space: the wrap breaks at spaces or, in a long word, anywhere. */
    char *flat = unspaced(r.plain);
    const region_metrics *run = &r.a.rg[0];
    int cut = 0;
    for (int i = 0; i < run->nkstats && i < 15; i++) {
        char full[512];
        kernel_display_name(run->kernels[i].name, full, sizeof full);
        if (strlen(full) <= 30)
            continue;
        cut++;
        char want[600];
        snprintf(want, sizeof want, "= %s", full);
        char *w = unspaced(want);
        if (!strstr(flat, w))
            fail_msg("the kernel %s is not written whole", full);
        free(w);
    }
    assert_true(cut >= 3);
    /* Where the summary cuts a name it says so: the top kernel's 118-character name ends in "..."
     * at 100, never silently ("...aligna4_alignc4_ex" read as a name of its own). */
    char *launched = strstr(flat, "Thetopkernel");
    assert_non_null(launched);
    char *share = strstr(launched, "(36%ofkerneltime)");
    assert_non_null(share);
    assert_memory_equal(share - 3, "...", 3);
    free(flat);
    free_rendered(&r);
}

static void na_lines_carry_reasons(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), NULL);
    check_na(&r);
    assert_contains(r.plain, "%peak = of the FP32 lanes' peak; a tf32 workload's, of the TF32 tensor-core peak");
    free_rendered(&r);
    render_run(&r, NCU_SAMPLE, NULL);
    check_na(&r);
    /* Under ncu, cudaEvents time the GPU: the launch shape CUPTI would give is n/a, and says so. */
    assert_contains(r.plain, "n/a occupancy: registers and shared memory not recorded");
    free_rendered(&r);
    render_run(&r, sample_path(), drop_cpu);
    check_na(&r);
    assert_contains(r.plain, "n/a vs CPU: cpu-openblas did not run");
    free_rendered(&r);
}

static void check_warnings(const rendered *r)
{
    char *sec = section(r->plain, "Warnings");
    if (r->a.nwarnings == 0) {
        assert_null(sec);
        return;
    }
    assert_non_null(sec);
    assert_int_equal(count_lines_starting(sec, "  ! "), r->a.nwarnings);
    for (int i = 0; i < r->a.nwarnings; i++)
        assert_contains(sec, r->a.warnings[i]);
    free(sec);
}

static void warnings_shown(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), NULL);
    check_warnings(&r);
    free_rendered(&r);
    /* Under Nsight Compute: timed by cudaEvents, and the report says so twice. */
    render_run(&r, NCU_SAMPLE, NULL);
    assert_true(r.a.nwarnings > 0);
    check_warnings(&r);
    assert_contains(r.plain, "GPU times come from cudaEvents, not CUPTI: another tool holds CUPTI");
    assert_true(has_line_starting(r.plain, "Timing  GPU: cudaEvents around each copy and launch"));
    free_rendered(&r);
}

/* What a source may not record: a device without clock, memory size, compute capability (an AMD
 * GPU), driver or runtime version; no host; a BLAS whose version and threads were not read. */
static void facts_unknown(run_model *m)
{
    /* A second GPU that keeps every fact (the sample may come from a one-GPU machine); it did no
     * work, so the header counts it rather than listing it. */
    if (m->ndevices == 1) {
        device_info *grown = realloc(m->devices, 2 * sizeof *grown);
        assert_non_null(grown);
        m->devices = grown;
        m->devices[1] = m->devices[0];
        m->devices[1].index = 1;
        m->ndevices = 2;
    }
    device_info *d = &m->devices[0];
    d->clock_khz = 0;
    d->total_mem = 0;
    d->cc_major = d->cc_minor = 0;
    d->driver_version = d->runtime_version = 0;
    m->host.known = false;
    m->builtin.blas.version[0] = '\0';
    m->builtin.blas.threads = 0;
}

/* A fact the run does not hold is left out, never printed as 0 or "?"; the others stay. */
static void unknown_facts_left_out(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), facts_unknown);
    assert_fits(r.plain);
    char *gpu = line_starting(r.plain, "GPU 0");
    assert_non_null(gpu);
    char want[160];
    snprintf(want, sizeof want, "GPU 0   %s, %d SMs", r.m.devices[0].name, r.m.devices[0].sm_count);
    assert_string_equal(gpu, want);
    free(gpu);
    /* The first GPU's SM clock is the FP32 peak's: n/a, with its reason under the tables. */
    char *peaks = line_starting(r.plain, "        peaks: FP32 n/a, memory ");
    assert_non_null(peaks);
    free(peaks);
    snprintf(want, sizeof want, "n/a %s: %s", metric_find(&device_peaks_table, "fp32_tflops")->label,
             metric_why(&r.a.peaks[0].fp32_tflops));
    assert_contains(r.plain, want);
    /* The second GPU ran nothing (the sample's work is GPU 0's): counted, its facts in the JSON. */
    assert_false(has_line_starting(r.plain, "GPU 1"));
    assert_true(has_line_starting(r.plain, "        +1 GPU without work (GPU 1; the JSON report has its facts)"));
    assert_false(has_line_starting(r.plain, "Host"));
    char *blas = line_starting(r.plain, "BLAS");
    assert_non_null(blas);
    snprintf(want, sizeof want, "BLAS    OpenBLAS, core %s", r.m.builtin.blas.core);
    assert_string_equal(blas, want);
    free(blas);
    static const char *const placeholders[] = {"?", "unknown", " 0 MHz", "sm_00", " 0 threads", "driver 0.0",
                                               "runtime 0.0", " 0.0 GiB"};
    for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++)
        if (strstr(r.plain, placeholders[i]))
            fail_msg("the report shows '%s'", placeholders[i]);
    free_rendered(&r);
}

/* ---------- spoilt runs ---------- */

/* What a run on a machine without a GPU records: the GPU workloads skipped, with the reason. */
static void no_gpu(run_model *m)
{
    events_clear(&m->events); /* CUPTI recorded nothing: no GPU ran */
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        workload_run *w = &m->builtin.workloads[i];
        if (!w->needs_gpu)
            continue;
        char name[32];
        copy_str(name, sizeof name, w->name);
        mem_kind mem = w->host_memory;
        workload_clear(w);
        copy_str(w->name, sizeof w->name, name);
        w->needs_gpu = true;
        w->host_memory = mem;
        w->device = -1;
        w->status = WL_SKIPPED;
        copy_str(w->status_reason, sizeof w->status_reason, "no NVIDIA driver");
    }
    free(m->devices);
    m->devices = NULL;
    m->ndevices = 0;
    m->collection.source = TIMING_NONE;
    copy_str(m->collection.reason, sizeof m->collection.reason, "no NVIDIA driver");
    copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, "no NVIDIA driver");
}

static void skipped_gpu_workloads(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), no_gpu);
    assert_fits(r.plain);
    char *sec = section(r.plain, "Workloads");
    assert_non_null(sec);
    /* One line per skipped workload, not one per memory kind. */
    static const char *const gpu[] = {"cuda-naive ", "cuda-tiled ", "cublas-sgemm ", "cublas-tf32 "};
    for (size_t i = 0; i < sizeof gpu / sizeof gpu[0]; i++) {
        assert_int_equal(count_lines_starting(sec, gpu[i]), 1);
        char *row = line_starting(sec, gpu[i]);
        assert_non_null(strstr(row, "skipped"));
        free(row);
    }
    free(sec);
    assert_null(section(r.plain, "Copy versus compute"));
    assert_null(section(r.plain, "Kernels"));
    assert_contains(r.plain, "GPU workloads skipped: no NVIDIA driver");
    assert_false(has_line_starting(r.plain, "GPU 0"));
    check_warnings(&r);
    free_rendered(&r);
}

static void nan_result(run_model *m)
{
    workload_run *w = NULL;
    for (int i = 0; i < m->builtin.nworkloads && !w; i++)
        if (strcmp(m->builtin.workloads[i].name, "cuda-naive") == 0 && m->builtin.workloads[i].host_memory == MEM_PAGEABLE)
            w = &m->builtin.workloads[i];
    assert_non_null(w);
    float c[2] = {1, NAN};
    double ref[2] = {1, 2};
    verify_into(w, c, ref, 2);
}

static void failed_workload(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), nan_result);
    assert_fits(r.plain);
    char *sec = section(r.plain, "Verification and verdicts");
    assert_non_null(sec);
    char *row = line_starting(sec, "cuda-naive        pageable ");
    assert_non_null(row);
    assert_non_null(strstr(row, "failed"));
    free(row);
    for (int i = 0; i < r.m.builtin.nworkloads; i++)
        if (r.m.builtin.workloads[i].status == WL_FAILED)
            assert_contains(sec, r.m.builtin.workloads[i].status_reason);
    free(sec);
    check_warnings(&r);
    assert_contains(r.plain, "cuda-naive (pageable) failed verification");
    free_rendered(&r);
}

/* Real names at their longest, and reasons longer than a line: all wrapped within the width. */
static void long_texts(run_model *m)
{
    copy_str(m->devices[0].name, sizeof m->devices[0].name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
    m->devices[0].cc_major = 12;
    m->devices[0].sm_count = 188;
    m->devices[0].clock_khz = 2617000;
    copy_str(m->host.cpu_model, sizeof m->host.cpu_model,
             "Intel(R) Xeon(R) Platinum 8592+ with a model string that goes on well past what a terminal "
             "line can hold");
    copy_str(m->builtin.blas.library, sizeof m->builtin.blas.library,
             "/opt/some/very/deeply/nested/prefix/that/goes/on/and/on/lib/x86_64-linux-gnu/openblas-pthread/"
             "libopenblasp-r0.3.26-with-a-long-suffix.so");
    workload_run *w = &m->builtin.workloads[2];
    w->status = WL_ERROR;
    copy_str(w->status_reason, sizeof w->status_reason,
             "cudaMemcpy(hC, dC, 16777216, cudaMemcpyDeviceToHost): an illegal memory access was "
             "encountered (the kernel wrote outside C), and every CUDA call after it fails the same way");
    model_add_warning(m, "a warning long enough to need two lines of the report: %s", w->status_reason);
}

static void long_texts_wrap(void **state)
{
    (void)state;
    fits_and_colors(sample_path(), long_texts);
    rendered r;
    render_run(&r, sample_path(), long_texts);
    assert_contains(r.plain, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
    assert_contains(r.plain, r.m.builtin.workloads[2].status_reason);
    check_warnings(&r);
    free_rendered(&r);
}

/* The longest registered workload name, in every run of one workload. */
static void longest_name(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (strcmp(m->builtin.workloads[i].name, "cuda-tiled") == 0)
            copy_str(m->builtin.workloads[i].name, sizeof m->builtin.workloads[i].name, "cuda-blocktile-1d");
}

/* Names up to 17 characters show whole in every table, not cut to the column. */
static void long_names_whole(void **state)
{
    (void)state;
    rendered r;
    render_run(&r, sample_path(), longest_name);
    assert_fits(r.plain);
    static const char *const sections[] = {"Workloads", "Copy versus compute", "Verification and verdicts"};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        char *sec = section(r.plain, sections[i]);
        assert_non_null(sec);
        char *row = line_starting(sec, "cuda-blocktile-1d pinned ");
        if (!row)
            print_message("no cuda-blocktile-1d row in:\n%s\n", sec);
        assert_non_null(row);
        free(row);
        free(sec);
    }
    free_rendered(&r);
}

/* On a run built here: a kernel name longer than a line is cut with "...", never silently, and
 * the BLAS line does not end on a comma before the library's path. */
static void long_kernel_name_cut_with_a_mark(void **state)
{
    (void)state;
    rendered r;
    small_builtin_run(&r.m);
    char longname[200];
    memset(longname, 'k', 150);
    longname[150] = '\0';
    const workload_run *w = &r.m.builtin.workloads[1];
    /* The store owns event names: the long one goes in through it (a kernel added and taken off
     * again leaves its name in the store's pool). */
    kernel_event probe = r.m.events.kernels[0];
    probe.name = longname;
    assert_true(events_add_kernel(&r.m.events, &probe));
    char *pooled = r.m.events.kernels[--r.m.events.nkernels].name;
    for (size_t i = 0; i < r.m.events.nkernels; i++) {
        kernel_event *k = &r.m.events.kernels[i];
        if (k->region == w->region)
            k->name = pooled;
    }
    copy_str(r.m.builtin.blas.library, sizeof r.m.builtin.blas.library,
             "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.26.so");
    r.m.builtin.blas.threads = 16;
    assert_true(analyze(&r.m, &r.a));
    r.plain = render(&r.a, false);
    r.color = render(&r.a, true);
    assert_fits(r.plain);
    char want[128];
    snprintf(want, sizeof want, "  %.95s...\n", longname);
    assert_non_null(strstr(r.plain, want));
    char *blas = line_starting(r.plain, "BLAS    ");
    assert_non_null(blas);
    assert_true(blas[strlen(blas) - 1] != ',');
    free(blas);
    assert_contains(r.plain, r.m.builtin.blas.library);
    free_rendered(&r);
}

/* The run as nsys stats tables it, for a built-in run too: kernels by total time (mmprof_naive
 * 4 x 3 ms before cutlass_sgemm 4 x 0.5 ms), copies by direction and memory kind, API calls by
 * name without the version suffix (8 cudaLaunchKernel_v7000 of 5 us). */
static void nsys_tables_for_a_built_run(void **state)
{
    (void)state;
    rendered r;
    small_builtin_run(&r.m);
    add_device_memset(&r.m, 1 << 20);
    assert_true(analyze(&r.m, &r.a));
    r.plain = render(&r.a, false);
    r.color = render(&r.a, true);
    assert_fits(r.plain);
    char *k = section(r.plain, "Kernels by total time");
    assert_non_null(k);
    char *first = line_starting(k, "mmprof_naive ");
    assert_non_null(first);
    assert_string_equal(field_of(first, 1), "4");
    assert_string_equal(field_of(first, 2), "12.000");
    assert_true(strstr(k, "mmprof_naive") < strstr(k, "cutlass_sgemm"));
    free(first);
    free(k);
    char *c = section(r.plain, "Copies");
    assert_non_null(c);
    assert_int_equal(count_lines_starting(c, "HtoD   pageable"), 1);
    assert_int_equal(count_lines_starting(c, "DtoH   pinned"), 1);
    /* A memset is a row of its own, named as one (it has no direction). */
    assert_int_equal(count_lines_starting(c, "memset device "), 1);
    free(c);
    char *a = section(r.plain, "CUDA API calls by total time");
    assert_non_null(a);
    char *launch = line_starting(a, "cudaLaunchKernel ");
    assert_non_null(launch);
    assert_string_equal(field_of(launch, 1), "8");
    assert_string_equal(field_of(launch, 4), "5.0");
    free(launch);
    free(a);
    free_rendered(&r);
}

/* ---------- sections by their data ---------- */

/* The line each section's text opens with (after a blank line). */
static const struct {
    section_id id;
    const char *heading;
} headings[] = {
    {SEC_FINDINGS, "Summary\n"},          {SEC_SWEEP, "Sweep  "},
    {SEC_DEVICES, "GPUs  "},               {SEC_WORKLOADS, "Workloads  "},
    {SEC_COPIES, "Copy versus compute  "}, {SEC_KERNELS, "Kernels  "},
    {SEC_LADDER, "Ladder  "},              {SEC_COUNTERS, "Hardware counters  "},
    {SEC_REGIONS, "Timeline  "},           {SEC_TOOL_TIME, "mmprof's own time "},
    {SEC_WARNINGS, "Warnings\n"},         {SEC_CALL_SITES, "Launched from  "},
};

/* Every section the text has a heading for is printed exactly when sections.h says the run has
 * its data; the ranks' heading says ranks or processes. */
static void check_sections(const analysis *a, const char *text, const char *what)
{
    for (size_t i = 0; i < sizeof headings / sizeof headings[0]; i++) {
        char at[64];
        snprintf(at, sizeof at, "\n\n%s", headings[i].heading);
        bool shown = section_shown(a, headings[i].id), printed = strstr(text, at) != NULL;
        if (shown != printed)
            fail_msg("%s: the section headed '%.*s' (%s) is %s but %s", what, (int)strcspn(headings[i].heading, "\n"),
                     headings[i].heading, section_of(headings[i].id)->key, shown ? "shown" : "not shown",
                     printed ? "printed" : "not printed");
    }
    bool ranks = strstr(text, "\n\nRanks  ") || strstr(text, "\n\nProcesses  ");
    if (ranks != section_shown(a, SEC_RANKS))
        fail_msg("%s: the ranks section %s", what, ranks ? "is printed without ranks" : "is missing");
}

static void check_sections_of(const char *path)
{
    rendered r;
    render_run(&r, path, NULL);
    check_sections(&r.a, r.plain, path);
    free_rendered(&r);
}

/* Built-in runs (one size, a sweep, every GPU, with counters, under Nsight Compute and Nsight
 * Systems), profiled programs (with counters, a job of two ranks) and one made here. */
static void sections_shown_by_their_data(void **state)
{
    (void)state;
    static const char *const runs[] = {"samples/h200-2048.json", NCU_SAMPLE, NSYS_SAMPLE, "samples/h200-2048-counters.json",
                                       "samples/h200-profile-cuda.json", "samples/h200-profile-counters.json"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        check_sections_of(runs[i]);
    static const char *const packed[] = {"samples/h200-sweep-64-8192.json.xz", "samples/h200x2-devices-2048.json.xz",
                                         "samples/h200-ddp-torchrun.json.xz"};
    for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++)
        check_sections_of(packed[i]);
    rendered r;
    small_profiled_run(&r.m);
    assert_true(analyze(&r.m, &r.a));
    r.plain = render(&r.a, false);
    r.color = render(&r.a, true);
    check_sections(&r.a, r.plain, "a profiled program");
    assert_false(has_line_starting(r.plain, "BLAS"));
    free_rendered(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_fits_and_colors),
        cmocka_unit_test(ncu_sample_fits_and_colors),
        cmocka_unit_test(nsys_sample_fits_and_colors),
        cmocka_unit_test(header_names_the_run),
        cmocka_unit_test(rows_show_the_analysis),
        cmocka_unit_test(na_lines_carry_reasons),
        cmocka_unit_test(kernel_names_whole),
        cmocka_unit_test(warnings_shown),
        cmocka_unit_test(unknown_facts_left_out),
        cmocka_unit_test(skipped_gpu_workloads),
        cmocka_unit_test(failed_workload),
        cmocka_unit_test(long_texts_wrap),
        cmocka_unit_test(long_names_whole),
        cmocka_unit_test(long_kernel_name_cut_with_a_mark),
        cmocka_unit_test(nsys_tables_for_a_built_run),
        cmocka_unit_test(sections_shown_by_their_data),
    };
    return cmocka_run_group_tests_name("text report", tests, NULL, NULL);
}
