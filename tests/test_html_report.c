/* The HTML report, as a string: a section (and its navigation entry) exactly where sections.h says
 * its data exists, nothing loaded from elsewhere, every outside string escaped, "n/a" with its
 * reason, and the command line writing it (and refusing bad run files with a clear message). The
 * page in a real browser is test_browser's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "analyze.h"
#include "hostile_model.h"
#include "html.h"
#include "sections.h"
#include "test_support.h"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)); p += len)
        n++;
    return n;
}

/* Timeline marks stand for one event each, or for several: data-launches (kernels) and data-calls
 * (API calls) say how many. The events the marks of one class stand for. */
static size_t marked(const char *html, const char *cls, const char *attr)
{
    char open[64], key[48];
    snprintf(open, sizeof open, "<rect class=\"%s\"", cls);
    snprintf(key, sizeof key, "%s=\"", attr);
    size_t n = 0;
    for (const char *p = html; (p = strstr(p, open)); p += strlen(open)) {
        const char *end = strchr(p, '>');
        const char *a = strstr(p, key);
        n += (a && end && a < end) ? strtoul(a + strlen(key), NULL, 10) : 1;
    }
    return n;
}

/* Each section of sections.h is on the page, once, with its entry in the navigation, exactly when
 * html_section_shown says its data exists (section_shown, and the timeline of events where there
 * are events) (Where mmprof's own time went is the text report's alone),
 * and the navigation lists them in the page's order. */
static void sections_follow_their_data(const char *html, const analysis *a)
{
    const char *nav = strstr(html, "<nav class=\"toc\""), *nav_end = nav ? strstr(nav, "</nav>") : NULL;
    assert_non_null(nav_end);
    for (int s = 0; s < NSECTIONS; s++) {
        if (s == SEC_TOOL_TIME)
            continue;
        const section_def *d = section_of((section_id)s);
        char id[64], link[64];
        snprintf(id, sizeof id, "<section id=\"%s\">", d->key);
        snprintf(link, sizeof link, "<a href=\"#%s\">", d->key);
        size_t want = html_section_shown(a, (section_id)s) ? 1 : 0;
        if (count(html, id) != want)
            fail_msg("section %s: %zu times, %zu wanted", d->key, count(html, id), want);
        const char *l = strstr(nav, link);
        if ((l && l < nav_end) != (want == 1))
            fail_msg("navigation entry %s: %s", d->key, want ? "missing" : "for a section not on the page");
    }
    /* The navigation's entries lead to the sections in the page's order. */
    const char *sec = html;
    for (const char *l = strstr(nav, "<a href=\"#"); l && l < nav_end; l = strstr(l + 1, "<a href=\"#")) {
        char id[64];
        const char *key = l + 10;
        snprintf(id, sizeof id, "<section id=\"%.*s\">", (int)strcspn(key, "\""), key);
        const char *at = strstr(html, id);
        if (!at || at < sec)
            fail_msg("navigation entry %s: no section after the previous one's", id);
        sec = at;
    }
}

/* The page for a model: analysed and rendered, its sections checked against their data; the
 * caller frees it. */
static char *page_of(const run_model *m)
{
    analysis a;
    assert_true(analyze(m, &a));
    char *html = render_html(&a);
    assert_non_null(html);
    sections_follow_their_data(html, &a);
    analysis_free(&a);
    return html;
}

static char *sample_page(run_model *m)
{
    load_sample(m);
    return page_of(m);
}

/* The recorded 2048 run: the built-in sections (its data is all there); no Notes (every figure
 * of it was had), no Warnings (it has none) and no Counters (it was run without --counters). */
static void every_section_is_there(void **state)
{
    (void)state;
    run_model m;
    char *html = sample_page(&m);
    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(html, "<meta charset=\"utf-8\">"));
    const char *ids[] = {"run", "findings", "summary", "ladder", "timeline", "copies", "regions", "speedup",
                         "kernels"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char id[48];
        snprintf(id, sizeof id, "id=\"%s\"", ids[i]);
        if (count(html, id) != 1)
            fail_msg("section %s: %zu times", id, count(html, id));
    }
    assert_null(strstr(html, "id=\"warnings\""));
    assert_null(strstr(html, "id=\"roofline\""));
    assert_null(strstr(html, "id=\"notes\""));
    /* Every slot was filled, none left behind. */
    assert_null(strstr(html, "{{"));
    /* One summary card per workload; the timeline marks every kernel, copy and API call, runs of
     * them closer than a pixel as one mark that says how many it stands for. */
    assert_int_equal(count(html, "<article class=\"card"), m.builtin.nworkloads);
    size_t events = 0, kernels = 0, copies = 0, calls = 0;
    for (int i = 0; i < m.builtin.nworkloads; i++) {
        event_list ev = owned_events(&m, &m.builtin.workloads[i]);
        events += ev.nkernels + ev.ncopies + ev.napis;
        kernels += ev.nkernels;
        copies += ev.ncopies;
        calls += ev.napis;
        events_clear(&ev);
    }
    assert_int_equal(marked(html, "ev k", "data-launches"), kernels);
    assert_int_equal(marked(html, "ev h2d", "-") + marked(html, "ev d2h", "-") + marked(html, "ev oc", "-"), copies);
    assert_int_equal(marked(html, "ev api", "data-calls"), calls);
    /* Fewer marks than events: the page stays small (2.4 MB before API calls and launches were
     * joined; under 500 kB after). */
    assert_true(count(html, "<rect class=\"ev ") < events / 4);
    char attr[64];
    snprintf(attr, sizeof attr, "data-events=\"%zu\"", events);
    assert_non_null(strstr(html, attr));
    /* The header's facts. */
    /* The date as the page writes it: "2026-11-29T15:46:18Z" reads "2026-11-29 15:46:18 UTC". */
    char date[48];
    snprintf(date, sizeof date, "%.10s %.8s UTC", m.started_at, m.started_at + 11);
    const char *facts[] = {"NVIDIA H200", "driver 13.0", "CUDA runtime 13.0", "Intel(R) Xeon(R) Processor",
                           "OpenBLAS 0.3.26, core Cooperlake", "n = 2048", "build/mmprof --size 2048",
                           date, "mmprof 0.1.0"};
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
        if (!strstr(html, facts[i]))
            fail_msg("header lacks '%s'", facts[i]);
    /* Verdicts and the ladder's reference. */
    assert_non_null(strstr(html, "copy-bound"));
    assert_non_null(strstr(html, "compute-bound"));
    assert_non_null(strstr(html, "the library itself"));
    free(html);
    model_free(&m);
}

/* The ladder holds every GPU workload the run has, whatever its name: one bar or one n/a each. */
static void ladder_covers_every_gpu_workload(void **state)
{
    (void)state;
    run_model m;
    char *html = sample_page(&m);
    const char *start = strstr(html, "<section id=\"ladder\">");
    assert_non_null(start);
    const char *end = strstr(start, "</section>");
    assert_non_null(end);
    char *ladder = strndup(start, (size_t)(end - start));
    int gpu = 0;
    for (int i = 0; i < m.builtin.nworkloads; i++)
        gpu += m.builtin.workloads[i].needs_gpu && m.builtin.workloads[i].status == WL_OK;
    size_t rows = count(ladder, "class=\"bar rung\"") + count(ladder, "class=\"bar lib\"") +
                  count(ladder, "class=\"na\">n/a (");
    assert_int_equal(rows, gpu);
    /* Each kernel's occupancy and its limiter beside the bars. */
    assert_non_null(strstr(ladder, "registers"));
    assert_non_null(strstr(ladder, "mmprof_naive"));
    free(ladder);
    free(html);
    model_free(&m);
}

static void nothing_is_loaded_from_elsewhere(void **state)
{
    (void)state;
    run_model m;
    char *html = sample_page(&m);
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    assert_null(strstr(html, "src="));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "url("));
    /* Links go only to places on the page. */
    for (const char *p = html; (p = strstr(p, "href=\"")); p += 6)
        if (p[6] != '#')
            fail_msg("a link leaves the page: %.60s", p);
    /* And the page's policy forbids any load, should a later change add one. */
    assert_non_null(strstr(html, "default-src 'none'"));
    free(html);
    model_free(&m);
}

static void outside_strings_are_escaped(void **state)
{
    (void)state;
    run_model m;
    hostile_model(&m);
    char *html = page_of(&m);
    /* The page's own script is the only one; no injected element or attribute. */
    assert_int_equal(count(html, "<script"), 1);
    assert_null(strstr(html, "<img"));
    assert_null(strstr(html, "<svg onload"));
    assert_null(strstr(html, "<b>warned"));
    assert_null(strstr(html, "<b>bold"));
    assert_null(strstr(html, "<i>odd"));
    assert_null(strstr(html, "<i>Kernel"));
    assert_null(strstr(html, "onerror=alert(2)>"));
    /* They show as text. */
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(html, "mmprof --html &quot;a&amp;b.html&quot; &#39;x&quot;y&#39; &lt;b&gt;bold&lt;/b&gt; "
                                 "--trace t&amp;amp;.json"));
    assert_non_null(strstr(html, "&lt;img src=x onerror=alert(2)&gt;"));
    assert_non_null(strstr(html, "cuda-&quot;&gt;&lt;svg onload=alert(3)&gt;"));
    assert_non_null(strstr(html, "&lt;b&gt;warned&lt;/b&gt; &amp; &quot;quoted&quot;"));
    assert_non_null(strstr(html, "/opt/&lt;lib&gt;/libopenblas&amp;.so"));
    /* A control character cannot reach the page. */
    assert_null(strchr(html, '\x01'));
    free(html);
    model_free(&m);
}

/* A figure that could not be had shows as n/a with its reason, never as 0. */
static void not_available_shows_its_reason(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    m.devices[0].clock_khz = 0; /* as a source that did not record the SM clock */
    char *html = page_of(&m);
    assert_non_null(strstr(html, "n/a <span class=\"why\">(SM clock or count not reported)</span>"));
    assert_non_null(strstr(html, "<li id=\"na-1\">n/a "));
    free(html);
    model_free(&m);

    /* Without a CPU baseline there is nothing to measure a speedup against: no Speedup section
     * (page_of checks its navigation entry is gone with it). */
    hostile_model(&m);
    m.builtin.workloads[0].status = WL_SKIPPED;
    copy_str(m.builtin.workloads[0].status_reason, sizeof m.builtin.workloads[0].status_reason, "not selected");
    html = page_of(&m);
    assert_null(strstr(html, "id=\"speedup\""));
    free(html);
    model_free(&m);
}

/* A run with nothing in it (no GPU, no workload) still renders a whole page: its header, and no
 * section that would have nothing to show (page_of checks each against its data). */
static void empty_run_renders(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    copy_str(m.builtin.gpu_skip_reason, sizeof m.builtin.gpu_skip_reason, "no CUDA device");
    char *html = page_of(&m);
    assert_non_null(strstr(html, "id=\"run\""));
    assert_null(strstr(html, "id=\"summary\""));
    assert_null(strstr(html, "id=\"ladder\""));
    assert_non_null(strstr(html, "none (no CUDA device)"));
    assert_non_null(strstr(html, "</html>"));
    free(html);
    model_free(&m);
}

/* The section's markup, from its opening tag to the next section's (a copy). */
static char *section_html(const char *html, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "<section id=\"%s\"", id);
    const char *p = strstr(html, open);
    assert_non_null(p);
    const char *end = strstr(p + 1, "<section ");
    return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

/* A built-in run made here: the charts that make a wide spread readable. The overview labels
 * every workload (its key lists 5) and has a GPU busy lane; each GPU run has a one-product
 * timeline; the copy chart scales each row to its own end-to-end time (cuda-naive pageable:
 * H2D 4 of 8 ms fills half the 340-unit bar); cards show spread and %link; every API call is
 * counted once by the marks. */
static void charts_of_a_run_built_here(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    char *html = page_of(&m);
    char *tl = section_html(html, "timeline");
    assert_non_null(strstr(tl, "class=\"busy\""));
    assert_int_equal(count(tl, "<figure class=\"tl one\">"), 4);
    char *key = strstr(tl, "<ol class=\"spankey\">");
    assert_non_null(key);
    assert_int_equal(count(key, "<li>"), 5);
    size_t calls = 0;
    for (size_t i = 0; i < m.events.napis; i++)
        calls += m.events.apis[i].region != 0; /* the workloads' own */
    assert_int_equal(marked(tl, "ev api", "data-calls"), calls);
    assert_non_null(strstr(tl, "CUPTI recorded them"));
    free(tl);
    char *cc = section_html(html, "copies");
    assert_non_null(strstr(cc, "<rect class=\"bar h2d\" x=\"200.00\" y=\"37.0\" width=\"170.00\""));
    free(cc);
    /* The run's tables as nsys stats gives them, for a built-in run too. */
    char *rg = section_html(html, "regions");
    assert_non_null(strstr(rg, "<h3>Kernels by total time</h3>"));
    assert_non_null(strstr(rg, "<h3>Copies by direction and host memory, then memsets by the memory they set</h3>"));
    assert_non_null(strstr(rg, "<h3>CUDA API calls by total time</h3>"));
    free(rg);
    char *cards = section_html(html, "summary");
    assert_non_null(strstr(cards, "spread</span>"));
    assert_non_null(strstr(cards, "of the PCIe ceiling"));
    free(cards);
    free(html);
    model_free(&m);
}

/* A profiled program: named as such, Regions right after the summary, its timeline of events
 * (event_timeline_tracks checks it), none of the built-in workloads' sections (nor their navigation entries, page_of checks), the API calls table, region
 * verdicts on a badge of their own; none of the built-in run's facts in its header. */
static void timeline_page(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    char *html = page_of(&m);
    assert_non_null(strstr(html, "<title>mmprof: profiled program ./train</title>"));
    assert_non_null(strstr(html, "<body class=\"timeline\">"));
    assert_null(strstr(html, "C = A &times; B"));
    const char *ids[] = {"ladder", "copies", "summary", "speedup", "kernels"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char id[48];
        snprintf(id, sizeof id, "id=\"%s\"", ids[i]);
        assert_null(strstr(html, id));
    }
    assert_null(strstr(html, "has none"));
    assert_true(strstr(html, "<section id=\"findings\">") < strstr(html, "<section id=\"regions\">"));
    const char *placeholders[] = {"OpenBLAS", "seed", "n = 0", "0 threads", "0 logical cores", "unknown", "?"};
    const char *from = strstr(html, "<header id=\"run\""), *to = from ? strstr(from, "<script>") : NULL;
    assert_non_null(to);
    char *shown = strndup(from, (size_t)(to - from)); /* the page's markup, without its script */
    for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++)
        if (strstr(shown, placeholders[i]))
            fail_msg("the profiled program's page shows '%s'", placeholders[i]);
    free(shown);
    char *rg = section_html(html, "regions");
    assert_non_null(strstr(rg, "<h3>CUDA API calls by total time</h3>"));
    assert_non_null(strstr(rg, "<code>cudaLaunchKernel</code></td><td class=\"r\" data-v=\"11\">11</td>"));
    assert_non_null(strstr(rg, "<span class=\"verdict copy-bound\">copy-bound</span>"));
    free(rg);
    free(html);
    model_free(&m);
}

/* Without a GPU: the skipped runs share one line (not a card each with the same driver error),
 * the summary says no GPU workload ran and why, the timeline's words do not claim CUPTI. */
static void no_gpu_page(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    for (int i = 0; i < m.builtin.nworkloads; i++) {
        workload_run *w = &m.builtin.workloads[i];
        if (!w->needs_gpu)
            continue;
        w->status = WL_SKIPPED;
        copy_str(w->status_reason, sizeof w->status_reason, "no NVIDIA driver (cudaErrorInsufficientDriver)");
    }
    copy_str(m.builtin.gpu_skip_reason, sizeof m.builtin.gpu_skip_reason, "no NVIDIA driver (cudaErrorInsufficientDriver)");
    m.collection.source = TIMING_NONE;
    char *html = page_of(&m);
    char *cards = section_html(html, "summary");
    assert_int_equal(count(cards, "<article class=\"card"), 1); /* the CPU's */
    assert_int_equal(count(cards, "cudaErrorInsufficientDriver"), 1);
    assert_non_null(strstr(cards, "4 workload runs skipped: cuda-naive, cublas-sgemm."));
    free(cards);
    char *f = section_html(html, "findings");
    assert_non_null(strstr(f, "No GPU workload ran (4 skipped): no NVIDIA driver"));
    free(f);
    char *tl = section_html(html, "timeline");
    assert_null(strstr(tl, "CUPTI"));
    free(tl);
    free(html);
    model_free(&m);
}

/* ---------- through the command line ---------- */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void report_writes_html_and_trace(void **state)
{
    (void)state;
    char html[512], trace[512];
    snprintf(html, sizeof html, "%s/report.html", test_tmp);
    snprintf(trace, sizeof trace, "%s/trace.json", test_tmp);
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "--quiet", "--html", html, "--trace", trace, NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof report exited %d: %s", r.status, r.err);
    cmd_free(&r);
    char *page = read_file(html, NULL);
    assert_non_null(page);
    assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(page, "</html>"));
    free(page);
    char *t = read_file(trace, NULL);
    assert_non_null(t);
    assert_non_null(strstr(t, "\"traceEvents\""));
    free(t);
}

/* Each bad file gets one clear message naming what is wrong, and no report is written. */
static void bad_run_files_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *content, *message;
    } cases[] = {
        {"{\"schema\": \"mmprof-run\", \"schema_", "not valid JSON"},
        {"[1, 2, 3]", "not a JSON object"},
        {"{\"schema\": \"chrome-trace\", \"schema_version\": 1}", "not an mmprof run file"},
        {"{\"schema\": \"mmprof-run\", \"schema_version\": 99}", "schema_version"},
        {"", "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char run[512], html[512];
        snprintf(run, sizeof run, "%s/bad-%zu.json", test_tmp, i);
        snprintf(html, sizeof html, "%s/bad-%zu.html", test_tmp, i);
        assert_true(write_text(run, cases[i].content));
        const char *argv[] = {mmprof_bin(), "report", run, "--html", html, NULL};
        cmd_result r = run_argv(argv, NULL);
        print_message("%s", r.err);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, cases[i].message))
            fail_msg("case %zu: '%s' not in: %s", i, cases[i].message, r.err);
        assert_non_null(strstr(r.err, run)); /* names the file */
        assert_false(exists(html));
        cmd_free(&r);
    }
}

/* The timeline of events' tracks, as the page lists them: kind and event count of each, in order. */
typedef struct {
    char kind[16];
    size_t events;
} listed_track;

static int listed_tracks(const char *html, listed_track *out, int max)
{
    int n = 0;
    for (const char *p = html; (p = strstr(p, "<li data-track=\"")) && n < max; p++) {
        const char *k = strstr(p, "data-kind=\""), *e = strstr(p, "data-events=\"");
        assert_non_null(k);
        assert_non_null(e);
        snprintf(out[n].kind, sizeof out[n].kind, "%.*s", (int)strcspn(k + 11, "\""), k + 11);
        out[n].events = strtoul(e + 13, NULL, 10);
        n++;
    }
    return n;
}

/* The data the page's script draws: the JSON in <script id="tl-data">, parsed. */
static cJSON *timeline_data(const char *html)
{
    const char *open = "<script type=\"application/json\" id=\"tl-data\">";
    const char *p = strstr(html, open);
    assert_non_null(p);
    p += strlen(open);
    const char *end = strstr(p, "</script>");
    assert_non_null(end);
    char *text = strndup(p, (size_t)(end - p));
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static bool has_name(const cJSON *names, const char *want)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, names)
        if (cJSON_IsString(n) && strcmp(n->valuestring, want) == 0)
            return true;
    return false;
}

/* small_profiled_run on the page's timeline: where process 42's time went (the analysis' bands,
 * each coloured by its state's group, its state and evidence on hover, the groups in the key), its
 * GPU's busy time (the copy, then each of the 11 kernels: 0.05 ms apart, never joined), stream 7
 * with the copy and the kernels, thread 1's NVTX range and its 12 API calls; the data holds as
 * many of each as the list says, starts counted from the run's start, the names, the launch shape
 * and the copy's bytes; the script comes with it. */
static void event_timeline_tracks(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(a.nbands > 1);
    size_t nbands = (size_t)a.nbands;
    const account_band first_band = a.bands[0];
    analysis_free(&a);
    char *html = page_of(&m);
    char *tl = section_html(html, "timeline");
    assert_non_null(strstr(tl, "data-events=\"25\""));
    assert_non_null(strstr(tl, "class=\"tl-nojs\"")); /* what it needs, without a script */
    assert_non_null(strstr(tl, "<button type=\"button\" data-tl=\"in\">Zoom in</button>"));
    assert_null(strstr(tl, "Windowed"));
    listed_track t[8];
    int nt = listed_tracks(tl, t, 8);
    const listed_track want[] = {{"bands", nbands}, {"busy", 12}, {"stream", 12}, {"ranges", 1}, {"api", 12}};
    assert_int_equal(nt, 5);
    for (int i = 0; i < nt; i++) {
        assert_string_equal(t[i].kind, want[i].kind);
        if (t[i].events != want[i].events)
            fail_msg("track %d (%s): %zu events, %zu wanted", i, t[i].kind, t[i].events, want[i].events);
    }
    cJSON *j = timeline_data(html);
    const cJSON *tracks = cJSON_GetObjectItem(j, "tracks"), *names = cJSON_GetObjectItem(j, "names");
    assert_int_equal(cJSON_GetArraySize(tracks), nt);
    for (int i = 0; i < nt; i++) {
        const cJSON *tr = cJSON_GetArrayItem(tracks, i);
        const char *cols[] = {"s", "d", "n"};
        for (size_t c = 0; c < 3; c++)
            assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(tr, cols[c])), (int)want[i].events);
    }
    /* The bands: a category per band from group0 on, its group's place in the groups' keys. */
    const cJSON *bands = cJSON_GetArrayItem(tracks, 0), *groups = cJSON_GetObjectItem(j, "groups");
    wall_group g = wall_states[first_band.row.state].group;
    assert_string_equal(cJSON_GetObjectItem(bands, "l")->valuestring, "where the time went (process 42)");
    assert_int_equal(cJSON_GetArraySize(groups), WG_COUNT);
    assert_string_equal(cJSON_GetArrayItem(groups, (int)g)->valuestring, wall_groups[g].key);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(bands, "c"), 0)->valueint,
                     cJSON_GetObjectItem(j, "group0")->valueint + (int)g);
    int name = cJSON_GetArrayItem(cJSON_GetObjectItem(bands, "n"), 0)->valueint;
    int info = cJSON_GetArrayItem(cJSON_GetObjectItem(bands, "i"), 0)->valueint;
    assert_string_equal(cJSON_GetArrayItem(names, name)->valuestring, wall_states[first_band.row.state].label);
    assert_non_null(strstr(cJSON_GetArrayItem(names, info)->valuestring, "% of this stretch"));
    char key[96];
    snprintf(key, sizeof key, "<span class=\"tl-k\"><span class=\"sw g-%s\"></span>", wall_groups[g].key);
    assert_non_null(strstr(strstr(tl, "<span>Where the time went:</span>"), key));
    const cJSON *stream = cJSON_GetArrayItem(tracks, 2);
    assert_string_equal(cJSON_GetObjectItem(stream, "l")->valuestring, "GPU 0, stream 7");
    const cJSON *s = cJSON_GetObjectItem(stream, "s"), *b = cJSON_GetObjectItem(stream, "b");
    assert_int_equal(cJSON_GetArrayItem(s, 0)->valuedouble, 0);                /* the copy, at the start */
    assert_int_equal(cJSON_GetArrayItem(s, 1)->valuedouble, 31020000);         /* the first kernel */
    assert_int_equal(cJSON_GetArrayItem(b, 0)->valuedouble, (double)(64 << 20)); /* the copy's bytes */
    assert_true(has_name(names, "gemm_kernel"));
    assert_true(has_name(names, "relu"));
    assert_true(has_name(names, "train"));
    assert_true(has_name(names, "cudaLaunchKernel"));
    assert_true(has_name(names, "grid 128\xc3\x97" "1\xc3\x97" "1, block 256\xc3\x97" "1\xc3\x97" "1"));
    cJSON_Delete(j);
    assert_non_null(strstr(html, "fig.tlHover")); /* timeline.js, on this page only */
    free(tl);
    free(html);
    model_free(&m);

    /* A built-in run's page keeps its own timelines and neither the data, the script nor their styles. */
    load_sample(&m);
    html = page_of(&m);
    assert_null(strstr(html, "tl-data"));
    assert_null(strstr(html, "fig.tlHover"));
    assert_null(strstr(html, ".tl-canvas")); /* nor its styles: timeline.css is the other pages' */
    free(html);
    model_free(&m);
}

/* Ranges nest on their thread's track: one inside another a row lower, one after it back on top;
 * an API call inside another (a runtime call and its driver call) the same. */
static void event_timeline_nests_ranges(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m); /* "train" holds everything, on thread 1 */
    int64_t t0 = m.regions[0].start_ns;
    /* "load" starts with "train", and is inside it: the enclosing one keeps the top row. */
    assert_true(model_add_region(&m, REGION_NVTX, "load", NULL, t0, t0 + 5000000, 42, 1, -1) >= 0);
    assert_true(model_add_region(&m, REGION_NVTX, "step", NULL, t0 + 31000000, t0 + 40000000, 42, 1, -1) >= 0);
    assert_true(model_add_region(&m, REGION_NVTX, "forward", NULL, t0 + 32000000, t0 + 33000000, 42, 1, -1) >= 0);
    assert_true(model_add_region(&m, REGION_NVTX, "step", NULL, t0 + 41000000, t0 + 50000000, 42, 1, -1) >= 0);
    api_event inner = {.name = (char *)"cuLaunchKernel", .start_ns = t0 + 31001000, .end_ns = t0 + 31009000,
                       .kind = API_DRIVER, .pid = 42, .thread = 1, .correlation = 999};
    assert_true(events_add_api(&m.events, &inner));
    char *html = page_of(&m);
    cJSON *j = timeline_data(html);
    const cJSON *tracks = cJSON_GetObjectItem(j, "tracks");
    /* after where the time went, GPU busy and the stream */
    const cJSON *ranges = cJSON_GetArrayItem(tracks, 3), *apis = cJSON_GetArrayItem(tracks, 4);
    assert_string_equal(cJSON_GetObjectItem(ranges, "k")->valuestring, "ranges");
    const cJSON *z = cJSON_GetObjectItem(ranges, "z");
    assert_non_null(z); /* train, load, step, forward, step: by start */
    const int want[] = {0, 1, 1, 2, 1};
    assert_int_equal(cJSON_GetArraySize(z), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(cJSON_GetArrayItem(z, i)->valueint, want[i]);
    z = cJSON_GetObjectItem(apis, "z");
    assert_non_null(z);
    int nested = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, z)
        nested += v->valueint == 1;
    assert_int_equal(nested, 1); /* the driver call inside the first launch */
    cJSON_Delete(j);
    free(html);
    model_free(&m);
}

/* A track of the timeline's data by its kind (the first), and a column of it as integers. */
static const cJSON *track_of_kind(const cJSON *j, const char *kind)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tracks"))
        if (strcmp(cJSON_GetObjectItem(t, "k")->valuestring, kind) == 0)
            return t;
    fail_msg("no %s track", kind);
    return NULL;
}

static int column_at(const cJSON *t, const char *col, int i)
{
    const cJSON *c = cJSON_GetObjectItem(t, col);
    assert_non_null(c);
    return cJSON_GetArrayItem(c, i)->valueint;
}

/* Absolute starts of a track's events on the page's axis (its "s" are differences). */
static void starts_of(const cJSON *t, double *out, int n)
{
    double acc = 0;
    for (int i = 0; i < n; i++)
        out[i] = acc += cJSON_GetArrayItem(cJSON_GetObjectItem(t, "s"), i)->valuedouble;
}

/* Launch links in the page's data (html_events.c's link_ids): each GPU event's "r" is the number
 * of the API call that launched it, the calls that launched something flagged in the page's order;
 * of a runtime call and the driver call it made (one correlation id), the runtime call; a call
 * that launched nothing (a sync) and a kernel of a process with no calls recorded have none. */
static void event_timeline_links(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m); /* the copy's call, then 11 launches, correlation ids 1 to 12 */
    int64_t t0 = m.regions[0].start_ns;
    api_event driver = {.name = (char *)"cuLaunchKernel", .start_ns = t0 + 31001000, .end_ns = t0 + 31005000,
                        .kind = API_DRIVER, .pid = 42, .thread = 1, .correlation = 2};
    api_event sync = {.name = (char *)"cudaDeviceSynchronize", .start_ns = t0 + 60000000, .end_ns = t0 + 61000000,
                      .pid = 42, .thread = 1, .correlation = 500};
    kernel_event other = {.name = (char *)"elsewhere", .start_ns = t0 + 62000000, .end_ns = t0 + 62100000, .pid = 43,
                          .stream = 7, .correlation = 2, .grid = {1, 1, 1}, .block = {32, 1, 1}};
    assert_true(events_add_api(&m.events, &driver));
    assert_true(events_add_api(&m.events, &sync));
    assert_true(events_add_kernel(&m.events, &other));
    char *html = page_of(&m);
    cJSON *j = timeline_data(html);
    const cJSON *stream = track_of_kind(j, "stream"), *api = track_of_kind(j, "api");
    int ngpu = cJSON_GetArraySize(cJSON_GetObjectItem(stream, "s")), ncall = cJSON_GetArraySize(cJSON_GetObjectItem(api, "s"));
    assert_int_equal(ngpu, 13);
    assert_int_equal(ncall, 14);
    double gs[13], cs[14];
    starts_of(stream, gs, ngpu);
    starts_of(api, cs, ncall);
    /* The calls by their number: the flagged ones, in order. */
    int call_of[16] = {0}, flagged = 0;
    const char *flags = cJSON_GetObjectItem(api, "r")->valuestring; /* a "0" or "1" a call */
    assert_int_equal(strlen(flags), ncall);
    for (int i = 0; i < ncall; i++)
        if (flags[i] == '1')
            call_of[++flagged] = i;
    assert_int_equal(flagged, 12);
    for (int i = 0; i < ngpu; i++) {
        int id = column_at(stream, "r", i);
        if (i == ngpu - 1) { /* the other process's kernel, last by start */
            assert_int_equal(id, 0);
            continue;
        }
        assert_int_equal(id, i + 1);
        int c = call_of[id];
        /* The copy starts with its call, each kernel 0.02 ms after its launch. */
        assert_int_equal(gs[i] - cs[c], i == 0 ? 0 : 20000);
        const char *name = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "names"), column_at(api, "n", c))->valuestring;
        assert_string_equal(name, i == 0 ? "cudaMemcpy" : "cudaLaunchKernel");
    }
    cJSON_Delete(j);
    free(html);
    model_free(&m);
}

/* A host sample's whole stack in the page's data: the frame table holds each frame once (two
 * samples share their callers), callers before their callees, and flags the user's own frames
 * (host_user_frame): a 20-frame stack reads back whole, its outermost frame, the program's line,
 * flagged and none of the library's. */
static void event_timeline_stacks(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    host_activity *h = &m.host_activity;
    int f = host_add_frame(h, &(host_frame){.pid = 42, .parent = -1, .kind = HOST_FRAME_PY, .function = (char *)"main",
                                            .file = (char *)"/home/u/prog.py", .line = 7});
    int mid = -1;
    for (int k = 1; k < 20; k++) {
        char fn[16];
        snprintf(fn, sizeof fn, "layer%d", k);
        f = host_add_frame(h, &(host_frame){.pid = 42, .parent = f, .kind = HOST_FRAME_PY, .function = fn,
                                            .file = (char *)"/usr/lib/python3/dist-packages/torch/nn/mod.py",
                                            .line = k});
        assert_true(f >= 0);
        if (k == 10)
            mid = f;
    }
    int64_t t0 = m.regions[0].start_ns;
    assert_true(host_add_sample(h, &(host_sample){.ts_ns = t0 + 10000000, .pid = 42, .tid = 1, .frame = f,
                                                  .source = HOST_SAMPLE_PY, .state = 'R'}));
    assert_true(host_add_sample(h, &(host_sample){.ts_ns = t0 + 20000000, .pid = 42, .tid = 1, .frame = mid,
                                                  .source = HOST_SAMPLE_PY, .state = 'R'}));
    char *html = page_of(&m);
    cJSON *j = timeline_data(html);
    const cJSON *frames = cJSON_GetObjectItem(j, "frames"), *names = cJSON_GetObjectItem(j, "names");
    const cJSON *p = cJSON_GetObjectItem(frames, "p"), *n = cJSON_GetObjectItem(frames, "n"), *u = cJSON_GetObjectItem(frames, "u");
    assert_int_equal(cJSON_GetArraySize(p), 20); /* the second sample's stack is the first's callers */
    const cJSON *host = track_of_kind(j, "host");
    int depth[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        int at = column_at(host, "f", i), last = -1;
        for (; at >= 0; at = cJSON_GetArrayItem(p, at)->valueint ? at - cJSON_GetArrayItem(p, at)->valueint : -1) {
            depth[i]++;
            last = at;
        }
        const char *outer = cJSON_GetArrayItem(names, cJSON_GetArrayItem(n, last)->valueint)->valuestring;
        assert_string_equal(outer, "prog.py:7 (main)");
        assert_int_equal(cJSON_GetArraySize(u), 1);
        assert_int_equal(cJSON_GetArrayItem(u, 0)->valueint, last);
    }
    assert_int_equal(depth[0], 20);
    assert_int_equal(depth[1], 11);
    cJSON_Delete(j);
    free(html);
    model_free(&m);
}

/* A profiled program that recorded no event has no timeline section, nor its script; one with
 * more events than a page holds keeps the earliest 200,000 and says the page is a window. */
static void event_timeline_only_with_events(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    copy_str(m.source_file, sizeof m.source_file, "./idle");
    assert_true(model_finish_regions(&m, "./idle"));
    char *html = page_of(&m);
    assert_null(strstr(html, "<section id=\"timeline\">"));
    assert_null(strstr(html, "tl-data"));
    assert_null(strstr(html, "fig.tlHover"));
    free(html);
    model_free(&m);

    model_init(&m);
    m.source = SOURCE_PROFILE;
    copy_str(m.source_file, sizeof m.source_file, "./many");
    for (int i = 0; i < 200050; i++) {
        kernel_event k = {.name = (char *)"tiny", .start_ns = 1000000000LL + 2000LL * i,
                          .end_ns = 1000000000LL + 2000LL * i + 1000, .stream = 7, .grid = {1, 1, 1},
                          .block = {32, 1, 1}};
        assert_true(events_add_kernel(&m.events, &k));
    }
    assert_true(model_finish_regions(&m, "./many"));
    html = page_of(&m);
    char *tl = section_html(html, "timeline");
    assert_non_null(strstr(tl, "data-events=\"200000\""));
    assert_non_null(strstr(tl, "<b>Windowed:</b> the page holds the first 200000 of the run's 200050 events"));
    listed_track t[4];
    assert_int_equal(listed_tracks(tl, t, 4), 3); /* where the time went, GPU busy, the stream */
    assert_string_equal(t[0].kind, "bands");
    assert_int_equal(t[2].events, 200000);
    free(tl);
    free(html);
    model_free(&m);
}

/* A name that closes the data's script element is written so it cannot: the page keeps its two
 * scripts (the data, and its own). */
static void event_timeline_names_stay_data(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    kernel_event k = {.name = (char *)"</script><script>alert(1)</script>", .start_ns = m.epoch_ns + 1000,
                      .end_ns = m.epoch_ns + 2000, .stream = 7};
    assert_true(events_add_kernel(&m.events, &k));
    char *html = page_of(&m);
    assert_int_equal(count(html, "<script"), 2);
    cJSON *j = timeline_data(html);
    assert_true(has_name(cJSON_GetObjectItem(j, "names"), "</script><script>alert(1)</script>"));
    cJSON_Delete(j);
    free(html);
    model_free(&m);
}

/* The command line's pages of a profiled program and of an imported PyTorch trace have the
 * timeline of their events. */
static void event_timeline_from_the_command_line(void **state)
{
    (void)state;
    char html[512];
    snprintf(html, sizeof html, "%s/tl.html", test_tmp);
    const char *runs[][4] = {{"report", "samples/h200-profile-cuda.json", NULL, NULL},
                             {"import", "samples/h200-train-step.kineto.json", NULL, NULL}};
    for (size_t i = 0; i < 2; i++) {
        const char *argv[] = {mmprof_bin(), runs[i][0], runs[i][1], "--html", html, NULL};
        cmd_result r = run_argv(argv, NULL);
        if (r.status != 0)
            fail_msg("mmprof %s exited %d: %s", runs[i][0], r.status, r.err);
        cmd_free(&r);
        char *page = read_file(html, NULL);
        assert_non_null(page);
        assert_int_equal(count(page, "<section id=\"timeline\">"), 1);
        assert_int_equal(count(page, "<a href=\"#timeline\">"), 1);
        cJSON *j = timeline_data(page);
        assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(j, "tracks")) >= 2);
        cJSON_Delete(j);
        free(page);
    }
}

/* Bytes on the page read as the text has them ("269 MB"), never as a raw count ("268500992"):
 * the copies table of the training sample, whose first flow moved 268,500,992 bytes. */
static void bytes_read_with_their_prefix(void **state)
{
    (void)state;
    char html[512];
    snprintf(html, sizeof html, "%s/bytes.html", test_tmp);
    const char *argv[] = {mmprof_bin(), "report", "samples/h200-profile-train.json", "--html", html, NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof report exited %d: %s", r.status, r.err);
    cmd_free(&r);
    char *page = read_file(html, NULL);
    assert_non_null(page);
    const char *cell = strstr(page, "data-fig=\"analysis.regions[0].copy_flows[0].bytes\"");
    assert_non_null(cell);
    const char *text = strchr(cell, '>');
    assert_non_null(text);
    assert_memory_equal(text, ">269 MB<", 8);
    assert_int_equal(count(page, ">268500992<"), 0);
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_section_is_there),
        cmocka_unit_test(bytes_read_with_their_prefix),
        cmocka_unit_test(ladder_covers_every_gpu_workload),
        cmocka_unit_test(nothing_is_loaded_from_elsewhere),
        cmocka_unit_test(outside_strings_are_escaped),
        cmocka_unit_test(not_available_shows_its_reason),
        cmocka_unit_test(empty_run_renders),
        cmocka_unit_test(charts_of_a_run_built_here),
        cmocka_unit_test(timeline_page),
        cmocka_unit_test(event_timeline_tracks),
        cmocka_unit_test(event_timeline_nests_ranges),
        cmocka_unit_test(event_timeline_links),
        cmocka_unit_test(event_timeline_stacks),
        cmocka_unit_test(event_timeline_only_with_events),
        cmocka_unit_test(event_timeline_names_stay_data),
        cmocka_unit_test(event_timeline_from_the_command_line),
        cmocka_unit_test(no_gpu_page),
        cmocka_unit_test(report_writes_html_and_trace),
        cmocka_unit_test(bad_run_files_are_refused),
    };
    return cmocka_run_group_tests_name("html_report", tests, test_tmp_setup, test_tmp_teardown);
}
