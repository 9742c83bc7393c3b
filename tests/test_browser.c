/* The HTML report in a real browser: Debian's chromium, headless. The page rendered from the
 * recorded H200 run loads with no console message at all (errors, policy violations, anything),
 * its script runs to the end, every section is there, the timeline holds one mark per recorded
 * event, it reads with scripts off, it prints, and a screenshot 1280 px wide is kept as
 * build/artifacts/report-1280.png. The pages of a profiled program and of an imported trace have
 * no section that would have nothing to show, every navigation entry leads to a section with
 * content, and no placeholder stands in for a fact the source did not record
 * (tests/browser_checks.js); their timeline of events draws and names what the pointer is over,
 * and where each process's time went and its samples' thread states in the page's colours, and
 * its tools work: launch links, search by name, measuring, the whole host stack.
 * A page from hostile names runs no script but its own.
 *
 * Chromium is $MMPROF_CHROMIUM, else /usr/bin/chromium (make test installs it). Without it every
 * test reports itself skipped, never passed: MMPROF_CHROMIUM=/none shows that. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "analyze.h"
#include "hostile_model.h"
#include "html.h"
#include "metric.h"
#include "strbuf.h"
#include "test_support.h"

#define ARTIFACTS "build/artifacts"
#define SCREENSHOT ARTIFACTS "/report-1280.png"
#define PRINTED ARTIFACTS "/report.pdf"

static const char *chromium;
static char *tmp;
static char page[512], hostile_page[512];
/* A profiled program's page (samples/h200-profile-torch.json) and an imported trace's
 * (samples/h200-train-step.kineto.json). */
static char profile_page[512], import_page[512];
static char *dom; /* the sample page after its script ran, kept for the tests that read it */
static char uncommitted_dir[600]; /* where uncommitted_pages() put them, once a group */

/* $MMPROF_CHROMIUM when set (a path that is not there means "no browser": how the skip is
 * tested), else Debian's. */
static const char *find_chromium(void)
{
    const char *env = getenv("MMPROF_CHROMIUM");
    if (env && env[0])
        return access(env, X_OK) == 0 ? env : NULL;
    const char *candidates[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
    return NULL;
}

static void need_chromium(void)
{
    if (!chromium)
        skip();
}

/* Runs headless chromium on a file with the extra arguments (NULL-terminated), each run with a
 * fresh profile and no network of its own making. Console messages go to stderr. */
static cmd_result browse(const char *file, const char *const *extra)
{
    static int runs;
    char profile[600], url[600];
    snprintf(profile, sizeof profile, "--user-data-dir=%s/profile-%d", tmp, runs++);
    snprintf(url, sizeof url, "file://%s", file);
    const char *argv[40] = {"timeout", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-dev-shm-usage", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync", "--no-first-run",
                            "--no-default-browser-check", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                            profile};
    int n = 16;
    while (extra && *extra && n < 38)
        argv[n++] = *extra++;
    argv[n++] = url;
    argv[n] = NULL;
    return run_argv(argv, NULL);
}

/* Lines of chromium's log that are console messages from the page. */
static int console_lines(const char *log)
{
    int n = 0;
    for (const char *p = log; (p = strstr(p, ":CONSOLE")); p++) {
        const char *start = p;
        while (start > log && start[-1] != '\n')
            start--;
        const char *end = strchr(p, '\n');
        print_message("console: %.*s\n", (int)(end ? end - start : (long)strlen(start)), start);
        n++;
    }
    return n;
}

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

static int group_setup(void **state)
{
    (void)state;
    chromium = find_chromium();
    if (!chromium) {
        print_message("no chromium (set MMPROF_CHROMIUM, or apt-get install chromium): browser tests skipped\n");
        return 0;
    }
    tmp = make_temp_dir();
    if (!tmp)
        return -1;
    snprintf(page, sizeof page, "%s/report.html", tmp);
    snprintf(hostile_page, sizeof hostile_page, "%s/hostile.html", tmp);
    snprintf(profile_page, sizeof profile_page, "%s/profile.html", tmp);
    snprintf(import_page, sizeof import_page, "%s/import.html", tmp);
    const char *pages[][4] = {{"report", sample_path(), page},
                              {"report", "samples/h200-profile-torch.json", profile_page},
                              {"import", "samples/h200-train-step.kineto.json", import_page}};
    int status = 0;
    for (size_t i = 0; i < sizeof pages / sizeof pages[0] && status == 0; i++) {
        const char *argv[] = {mmprof_bin(), pages[i][0], pages[i][1], "--quiet", "--html", pages[i][2], NULL};
        cmd_result r = run_argv(argv, NULL);
        if (r.status != 0)
            print_message("mmprof %s %s exited %d: %s\n", pages[i][0], pages[i][1], r.status, r.err);
        status = r.status;
        cmd_free(&r);
    }

    run_model m;
    analysis a;
    hostile_model(&m);
    bool ok = analyze(&m, &a);
    char *html = ok ? render_html(&a) : NULL;
    if (ok)
        analysis_free(&a);
    ok = html && write_text(hostile_page, html);
    free(html);
    model_free(&m);
    return status == 0 && ok ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    free(dom);
    dom = NULL;
    uncommitted_dir[0] = '\0';
    rm_rf(tmp);
    free(tmp);
    return 0;
}

/* The sample page's DOM after load, at the screenshot's width; fails on any console message. */
static const char *sample_dom(void)
{
    if (dom)
        return dom;
    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(page, extra);
    if (r.status != 0)
        print_message("chromium exited %d:\n%s\n", r.status, r.err);
    assert_int_equal(r.status, 0);
    int console = console_lines(r.err);
    dom = r.out;
    r.out = NULL;
    cmd_free(&r);
    if (console)
        fail_msg("the page logged %d console message(s)", console);
    return dom;
}

static void page_loads_without_console_messages(void **state)
{
    (void)state;
    need_chromium();
    const char *d = sample_dom();
    /* The script ran to its last line. */
    assert_non_null(strstr(d, "data-js=\"ready\""));
}

static void every_section_is_rendered(void **state)
{
    (void)state;
    need_chromium();
    const char *d = sample_dom();
    /* No "notes": every figure of the 2048 run was had (test_html_report checks a page with n/a). */
    const char *ids[] = {"run", "findings", "summary", "ladder", "timeline", "copies", "regions", "speedup", "kernels",
                         "tip"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char id[32];
        snprintf(id, sizeof id, "id=\"%s\"", ids[i]);
        if (!strstr(d, id))
            fail_msg("no %s in the rendered page", id);
    }
    assert_non_null(strstr(d, "<table class=\"kernels sortable\">"));
}

static size_t recorded_events(void)
{
    run_model m;
    load_sample(&m);
    size_t n = 0; /* the workloads' own kernels, copies and API calls */
    for (size_t i = 0; i < m.events.nkernels; i++)
        n += m.events.kernels[i].region != 0;
    for (size_t i = 0; i < m.events.ncopies; i++)
        n += m.events.copies[i].region != 0;
    for (size_t i = 0; i < m.events.napis; i++)
        n += m.events.apis[i].region != 0;
    model_free(&m);
    return n;
}

static void timeline_has_one_mark_per_event(void **state)
{
    (void)state;
    need_chromium();
    const char *d = sample_dom();
    size_t events = recorded_events();
    assert_true(events > 0);
    size_t marks = marked(d, "ev k", "data-launches") + marked(d, "ev h2d", "-") + marked(d, "ev d2h", "-") +
                   marked(d, "ev oc", "-") + marked(d, "ev api", "data-calls");
    assert_int_equal(marks, events);
    events = count(d, "<rect class=\"ev "); /* each mark has its tip */
    /* The script moved every mark's title into its tooltip. */
    const char *tl = strstr(d, "id=\"timeline\"");
    assert_non_null(tl);
    assert_true(count(d, "data-tip=\"") >= events);
}

/* The 2048 sample's page stays under 500 kB (2.4 MB when every API call and launch had its own
 * mark) and its script runs in the page. */
static void page_is_small(void **state)
{
    (void)state;
    need_chromium();
    size_t len = 0;
    char *html = read_file(page, &len);
    assert_non_null(html);
    free(html);
    if (len > 500 * 1000)
        fail_msg("the page is %zu bytes", len);
    assert_non_null(strstr(sample_dom(), "data-js=\"ready\""));
}

/* Whether markup carries an event handler attribute: " on" + letters + "=". */
static bool has_handler(const char *html)
{
    for (const char *p = html; (p = strstr(p, " on")); p += 3) {
        const char *q = p + 3;
        while (*q >= 'a' && *q <= 'z')
            q++;
        if (q > p + 3 && *q == '=')
            return true;
    }
    return false;
}

/* With scripts off, the page is all there: the sections, the marks and their native titles.
 * Chromium's switch for that also stops --dump-dom, so the page is loaded without its script
 * element instead, which for this page (one script, no handlers in markup) is the same. */
static void page_reads_with_scripts_off(void **state)
{
    (void)state;
    need_chromium();
    char *html = read_file(page, NULL);
    assert_non_null(html);
    char *open = strstr(html, "<script>"), *close = open ? strstr(open, "</script>") : NULL;
    assert_non_null(close);
    memmove(open, close + 9, strlen(close + 9) + 1);
    assert_null(strstr(html, "<script"));
    assert_false(has_handler(html)); /* no inline handlers either */
    char plain[600];
    snprintf(plain, sizeof plain, "%s/noscript.html", tmp);
    assert_true(write_text(plain, html));
    free(html);

    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(plain, extra);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "data-js=\"ready\""));
    size_t marks = count(r.out, "<rect class=\"ev ");
    assert_true(marks > 0);
    assert_true(count(r.out, "<title>") >= marks); /* every mark keeps its native tooltip */
    assert_non_null(strstr(r.out, "id=\"kernels\""));
    assert_int_equal(console_lines(r.err), 0);
    cmd_free(&r);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The whole page at 1280 px, kept as a test artefact: the height is what the page's script
 * measured at that width. */
static void screenshot_at_1280(void **state)
{
    (void)state;
    need_chromium();
    const char *d = sample_dom();
    const char *h = strstr(d, "data-height=\"");
    assert_non_null(h);
    long height = strtol(h + 13, NULL, 10);
    assert_true(height > 1000);
    if (height > 16000)
        height = 16000;
    mkdir("build", 0755);
    mkdir(ARTIFACTS, 0755);
    unlink(SCREENSHOT);
    char shot[600], size[64];
    char *cwd = getcwd(NULL, 0);
    snprintf(shot, sizeof shot, "--screenshot=%s/%s", cwd, SCREENSHOT);
    free(cwd);
    snprintf(size, sizeof size, "--window-size=1280,%ld", height);
    const char *extra[] = {shot, size, NULL};
    cmd_result r = browse(page, extra);
    assert_int_equal(r.status, 0);
    assert_int_equal(console_lines(r.err), 0);
    cmd_free(&r);
    size_t len;
    unsigned char *png = (unsigned char *)read_file(SCREENSHOT, &len);
    assert_non_null(png);
    assert_true(len > 24 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(png + 12, "IHDR", 4) == 0);
    assert_int_equal(be32(png + 16), 1280);
    assert_int_equal(be32(png + 20), (uint32_t)height);
    print_message("screenshot: %s, 1280 x %ld\n", SCREENSHOT, height);
    free(png);
}

/* Printing gives a PDF (kept beside the screenshot); the print styles are the page's. */
static void page_prints(void **state)
{
    (void)state;
    need_chromium();
    char pdf[600];
    char *cwd = getcwd(NULL, 0);
    snprintf(pdf, sizeof pdf, "--print-to-pdf=%s/%s", cwd, PRINTED);
    free(cwd);
    mkdir("build", 0755);
    mkdir(ARTIFACTS, 0755);
    unlink(PRINTED);
    const char *extra[] = {pdf, "--no-pdf-header-footer", NULL};
    cmd_result r = browse(page, extra);
    assert_int_equal(r.status, 0);
    assert_int_equal(console_lines(r.err), 0);
    cmd_free(&r);
    size_t len;
    char *doc = read_file(PRINTED, &len);
    assert_non_null(doc);
    assert_true(len > 10000 && memcmp(doc, "%PDF-", 5) == 0);
    /* At most 8 A4 pages: the page tree's largest /Count is the document's page count. */
    long pages = 0;
    for (const char *p = doc; (p = memmem(p, len - (size_t)(p - doc), "/Count ", 7)); p += 7) {
        long n = strtol(p + 7, NULL, 10);
        pages = n > pages ? n : pages;
    }
    print_message("printed: %ld pages\n", pages);
    assert_true(pages >= 1 && pages <= 8);
    free(doc);
}

/* A copy of the page at src with scripts added before </body>: each file's text, then inline (may
 * be NULL). Returns the copy's path (static). */
static const char *page_with(const char *src, const char *name, const char *const *files, const char *inline_js)
{
    static char path[600];
    char *html = read_file(src, NULL);
    assert_non_null(html);
    char *end = strstr(html, "</body>");
    assert_non_null(end);
    *end = '\0';
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(html, f);
    for (; files && *files; files++) {
        char *js = read_file(*files, NULL);
        if (!js)
            fail_msg("cannot read %s", *files);
        fprintf(f, "<script>%s</script>\n", js);
        free(js);
    }
    if (inline_js)
        fprintf(f, "<script>%s</script>\n", inline_js);
    fputs("</body></html>\n", f);
    assert_int_equal(fclose(f), 0);
    free(html);
    return path;
}

/* The value of an attribute of the root element in a dumped DOM (a copy), or NULL. */
static char *root_attr(const char *dumped, const char *attr)
{
    const char *html = strstr(dumped, "<html");
    assert_non_null(html);
    char key[64];
    snprintf(key, sizeof key, " %s=\"", attr);
    /* The root's attributes come before <head>; a value may hold '>' but not '<'. */
    const char *head = strstr(html, "<head"), *v = strstr(html, key);
    if (!v || (head && v > head))
        return NULL;
    v += strlen(key);
    return strndup(v, strcspn(v, "\""));
}

/* A copy of the page at src with the scripts added (page_with), loaded at 1280 px: no console
 * message, and the root's attribute attr, which the scripts set, says "ok". */
static void checked_page(const char *src, const char *const *files, const char *inline_js, const char *attr)
{
    const char *copy = page_with(src, "checked.html", files, inline_js);
    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(copy, extra);
    assert_int_equal(r.status, 0);
    int console = console_lines(r.err); /* each printed */
    if (console != 0)
        fail_msg("%s: %d console messages", src, console);
    char *check = root_attr(r.out, attr);
    if (!check || strcmp(check, "ok") != 0)
        fail_msg("%s: %s", src, check ? check : "the check did not run");
    free(check);
    cmd_free(&r);
}

/* The timeline of events on a profiled program's page and an imported trace's: the canvas is
 * drawn with no console message, and a hover over the middle of a stream's longest event shows
 * that event's name in the tooltip (timeline.js's fig.tlHover puts the pointer there). */
static void event_timeline_draws_and_hovers(void **state)
{
    (void)state;
    need_chromium();
    const char *hover =
        "window.addEventListener('load', function () {"
        " var root = document.documentElement, fig = document.getElementById('tl-events');"
        " var d = JSON.parse(document.getElementById('tl-data').textContent);"
        " var tr = fig.tlTracks.filter(function (t) { return t.t.k === 'stream'; })[0] || fig.tlTracks[0], b = 0;"
        " for (var i = 0; i < tr.n; i++) if (tr.t.d[i] > tr.t.d[b]) b = i;"
        " var c = fig.querySelector('canvas'), w = c.getBoundingClientRect().width;"
        " var px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, inked = 0;"
        " for (var p = 3; p < px.length; p += 4) inked += px[p] > 0;"
        " var x = (tr.s[b] + tr.t.d[b] / 2) / d.span * w, y = tr.y + (tr.t.z ? tr.t.z[b] : 0) * 16 + 8;"
        " var got = fig.tlHover(x, y), want = d.names[tr.t.n[b]], tip = document.getElementById('tip');"
        " var shown = tip && !tip.hidden && tip.querySelector('b') ? tip.querySelector('b').textContent : '';"
        " root.setAttribute('data-tl-check', !root.getAttribute('data-tl-drawn') ? 'not drawn' :"
        "  inked < 1000 ? 'canvas nearly blank: ' + inked : got !== want || shown !== want ?"
        "  'hover showed ' + got + ' / ' + shown + ', wanted ' + want : 'ok');"
        "});";
    checked_page(profile_page, NULL, hover, "data-tl-check");
    checked_page(import_page, NULL, hover, "data-tl-check");
}

/* The answer on the first screen of a profiled program's page (html_answer.c): the verdict, a bar
 * of where the time went and the small timeline inside the first 900 px at 1280 px wide, and a
 * click on the small timeline's longest band shows that stretch on the full timeline (its view
 * then spans the band, with 5% around it, in the timeline's own time: the run's start at run0). */
static void answer_on_the_first_screen(void **state)
{
    (void)state;
    need_chromium();
    const char *click =
        "window.addEventListener('load', function () {"
        " var root = document.documentElement, ans = document.querySelector('.answer'), why = '';"
        " if (!ans) why = 'no answer';"
        " else if (ans.getBoundingClientRect().bottom > 900) why = 'the answer ends at ' + ans.getBoundingClientRect().bottom;"
        " else if (!ans.querySelector('.answer-verdict') || !ans.querySelector('.acct-bar:not(.acct-strip)') ||"
        "          !ans.querySelector('.acct-strip span[data-s]')) why = 'no verdict, bar or small timeline';"
        " if (!why) {"
        "  var bands = ans.querySelectorAll('.acct-strip span[data-s]'), b = bands[0];"
        "  for (var i = 0; i < bands.length; i++) if (bands[i].offsetWidth > b.offsetWidth) b = bands[i];"
        "  var fig = document.getElementById('tl-events'), d = JSON.parse(document.getElementById('tl-data').textContent);"
        "  var before = fig.tlView()[0] + ':' + fig.tlView()[1];"
        "  b.click();"
        "  var s = parseFloat(b.getAttribute('data-s')), e = parseFloat(b.getAttribute('data-e')), pad = (e - s) * 0.05;"
        "  var w = Math.min(d.span, (e - s + 2 * pad) * 1e6);" /* the timeline keeps the width, inside the run */
        "  var want0 = Math.max(0, Math.min(d.run0 + (s - pad) * 1e6, d.span - w)), want1 = want0 + w;"
        "  var v = fig.tlView();"
        "  if (before === v[0] + ':' + v[1]) why = 'the click did not move the timeline';"
        "  else if (Math.abs(v[0] - want0) > 1e4 || Math.abs(v[1] - want1) > 1e4)"
        "   why = 'the view is ' + v[0] + '..' + v[1] + ', wanted ' + want0 + '..' + want1;"
        " }"
        " root.setAttribute('data-answer-check', why || 'ok');"
        "});";
    const char *copy = page_with(profile_page, "answer.html", NULL, click);
    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(copy, extra);
    assert_int_equal(r.status, 0);
    char *check = root_attr(r.out, "data-answer-check");
    if (!check || strcmp(check, "ok") != 0)
        fail_msg("%s: %s", profile_page, check ? check : "the check did not run");
    free(check);
    cmd_free(&r);
}

/* A profiled program's page draws where each process's time went and its host samples by their
 * threads' state, in the colours of the page's style sheets (tests/timeline_states_check.js). */
static void event_timeline_draws_states(void **state)
{
    (void)state;
    need_chromium();
    const char *files[] = {"tests/timeline_states_check.js", NULL};
    const char *copy = page_with(profile_page, "states.html", files, NULL);
    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(copy, extra);
    assert_int_equal(r.status, 0);
    int console = console_lines(r.err);
    if (console != 0)
        fail_msg("%d console messages", console);
    char *check = root_attr(r.out, "data-states-check");
    if (!check || strcmp(check, "ok") != 0)
        fail_msg("%s", check ? check : "the check did not run");
    free(check);
    cmd_free(&r);
}

/* The timeline's tools on a profiled program's page and an imported trace's
 * (tests/timeline_tools_check.js): a kernel's launch link on hover both ways, search by name,
 * shift+drag to measure (and a plain drag still pans), and on the profiled program's page the
 * whole host stack in the tip with the user's frames marked. */
static void event_timeline_tools(void **state)
{
    (void)state;
    need_chromium();
    const char *files[] = {"tests/timeline_tools_check.js", NULL};
    checked_page(profile_page, files, "window.mmprofWantStack = true;", "data-tools-check");
    checked_page(import_page, files, "window.mmprofWantStack = false;", "data-tools-check");
}

/* A number of a JSON object (0 when absent). */
static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The earliest start among the events and ranges a page's timeline draws, and the run's own: the
 * page's zero (html_events.c: the run's start, or an event before it). */
static double timeline_zero(const cJSON *run)
{
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(run, "regions"), *r;
    double t0 = num(cJSON_GetArrayItem(regions, 0), "start_ns");
    cJSON_ArrayForEach(r, regions) if (!strcmp(str(r, "kind"), "nvtx") || !strcmp(str(r, "kind"), "annotation"))
        t0 = num(r, "start_ns") < t0 ? num(r, "start_ns") : t0;
    const char *lists[] = {"kernels", "copies", "memsets", "apis"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "events"), lists[i]))
            t0 = num(e, "start_ns") < t0 ? num(e, "start_ns") : t0;
    }
    /* Host samples and spans are events of the page's timeline too (host_json.c: each a record
     * whose first value is its time). */
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(run, "host_activity"), *rec;
    const char *timed[] = {"samples", "spans"};
    for (size_t i = 0; host && i < sizeof timed / sizeof timed[0]; i++)
        cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(host, timed[i])) {
            double ts = cJSON_GetArrayItem(rec, 0)->valuedouble;
            t0 = ts < t0 ? ts : t0;
        }
    return t0;
}

/* One GPU event as tests/timeline_check.js expects its hover to read. */
static void expect_event(cJSON *list, const cJSON *e, double t0, int cat, const char *name, const char *info,
                         bool rate)
{
    char label[64], bytes[96] = "";
    snprintf(label, sizeof label, "GPU %d, stream %d", (int)num(e, "device"), (int)num(e, "stream"));
    double s = num(e, "start_ns"), d = num(e, "end_ns") - s;
    d = d < 0 ? 0 : d;
    if (num(e, "bytes") > 0) { /* as the registry formats a copy row's bytes and GB/s */
        const metric_def *bd, *gd;
        metric m = {0};
        metric_get(&copy_flow_table, &m, "bytes", &bd);
        metric_get(&copy_flow_table, &m, "gbps", &gd);
        assert_non_null(bd);
        assert_non_null(gd);
        metric_set(&m, num(e, "bytes"));
        metric_format(bd, &m, true, bytes, sizeof bytes);
        if (rate && d > 0) {
            char gbps[32];
            metric_set(&m, num(e, "bytes") / d);
            metric_format(gd, &m, true, gbps, sizeof gbps);
            snprintf(bytes + strlen(bytes), sizeof bytes - strlen(bytes), " at %s", gbps);
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "l", label);
    cJSON_AddNumberToObject(o, "c", cat);
    cJSON_AddStringToObject(o, "n", name);
    cJSON_AddNumberToObject(o, "s", s - t0);
    cJSON_AddNumberToObject(o, "d", d);
    cJSON_AddStringToObject(o, "i", info);
    cJSON_AddStringToObject(o, "b", bytes);
    cJSON_AddItemToArray(list, o);
}

/* Every kernel, copy and memset of a run file, read from its JSON, as timeline_check.js takes
 * them: a script setting window.mmprofExpected (malloc'd). */
static char *expected_events(const char *run_path, size_t *n)
{
    char *text = read_file(run_path, NULL);
    assert_non_null(text);
    cJSON *run = cJSON_Parse(text);
    free(text);
    assert_non_null(run);
    double t0 = timeline_zero(run);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(run, "events"), *e;
    cJSON *list = cJSON_CreateArray();
    char name[512], info[160];
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(events, "kernels")) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "grid"), *b = cJSON_GetObjectItemCaseSensitive(e, "block");
        kernel_display_name(str(e, "name"), name, sizeof name);
        snprintf(info, sizeof info, "grid %d\xc3\x97%d\xc3\x97%d, block %d\xc3\x97%d\xc3\x97%d",
                 cJSON_GetArrayItem(g, 0)->valueint, cJSON_GetArrayItem(g, 1)->valueint,
                 cJSON_GetArrayItem(g, 2)->valueint, cJSON_GetArrayItem(b, 0)->valueint,
                 cJSON_GetArrayItem(b, 1)->valueint, cJSON_GetArrayItem(b, 2)->valueint);
        expect_event(list, e, t0, 0, name, info, false);
    }
    static const struct {
        const char *dir, *words;
        int cat;
    } dirs[] = {{"HtoD", "host to device", 1}, {"DtoH", "device to host", 2}, {"DtoD", "device to device", 3},
                {"HtoH", "host to host", 4},   {"PtoP", "peer to peer", 4}};
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(events, "copies")) {
        const char *words = "other";
        int cat = 4;
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
            if (!strcmp(str(e, "dir"), dirs[i].dir))
                words = dirs[i].words, cat = dirs[i].cat;
        snprintf(name, sizeof name, "%s copy", str(e, "dir"));
        snprintf(info, sizeof info, "%s, %s to %s", words, str(e, "src"), str(e, "dst"));
        expect_event(list, e, t0, cat, name, info, true);
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(events, "memsets")) {
        snprintf(info, sizeof info, "%s memory", str(e, "mem"));
        expect_event(list, e, t0, 5, "memset", info, false);
    }
    *n = (size_t)cJSON_GetArraySize(list);
    char *json = cJSON_PrintUnformatted(list);
    cJSON_Delete(list);
    cJSON_Delete(run);
    assert_non_null(json);
    /* In a script element: "</" would end it. */
    strbuf b;
    sb_init(&b);
    sb_add(&b, "window.mmprofExpected = ");
    for (const char *p = json; *p; p++)
        sb_add(&b, p[0] == '<' && p[1] == '/' ? "<\\" : (char[]){*p, 0});
    sb_add(&b, ";");
    free(json);
    char *script = sb_finish(&b);
    assert_non_null(script);
    return script;
}

/* The committed pages of profiled PyTorch programs hold every kernel, copy and memset of their run
 * file on the timeline, counted per stream and kind, and hovering each one shows the JSON's
 * figures for it (tests/timeline_check.js says how it drives the page). */
static void committed_timelines_hold_every_gpu_event(void **state)
{
    (void)state;
    need_chromium();
    const char *stems[] = {"h200-profile-torch", "h200-profile-train"};
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
        char run[128], html[128];
        snprintf(run, sizeof run, "samples/%s.json", stems[i]);
        snprintf(html, sizeof html, "samples/%s.html", stems[i]);
        size_t n;
        char *expected = expected_events(run, &n);
        assert_true(n > 0);
        const char *files[] = {"tests/timeline_check.js", NULL};
        const char *copy = page_with(html, "tl-check.html", files, expected);
        free(expected);
        const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
        cmd_result r = browse(copy, extra);
        assert_int_equal(r.status, 0);
        char *check = root_attr(r.out, "data-tl-check");
        char ok[32];
        snprintf(ok, sizeof ok, "ok %zu", n);
        print_message("%s: %zu GPU events: %s\n", html, n, check ? check : "the check did not run");
        if (!check || strcmp(check, ok) != 0)
            fail_msg("%s: %s", html, check ? check : "the check did not run");
        free(check);
        cmd_free(&r);
    }
}

/* The page is ready (its script ran to the end) within a second of navigation starting. */
static void loads_within_a_second(void **state)
{
    (void)state;
    need_chromium();
    char *ms = root_attr(sample_dom(), "data-ready-ms");
    assert_non_null(ms);
    long v = strtol(ms, NULL, 10);
    print_message("page ready after %ld ms\n", v);
    free(ms);
    assert_true(v > 0 && v < 1000);
}

/* The samples whose page is not committed (tests/render_samples.sh renders them with the rest):
 * their run file or traces, rendered here by the binary under test. */
static const struct {
    const char *page, *verb, *files[3];
} uncommitted[] = {
    {"h200-512-under-ncu", "report", {"samples/h200-512-under-ncu.json"}},
    {"h200-512-under-nsys", "report", {"samples/h200-512-under-nsys.json"}},
    {"h200-matmul-copies.kineto", "import", {"samples/h200-matmul-copies.kineto.json"}},
    {"h200-train-step.kineto", "import", {"samples/h200-train-step.kineto.json"}},
    {"h200-ddp-rank0.kineto", "import", {"samples/h200-ddp-rank0.kineto.json"}},
    {"h200-ddp-rank1.kineto", "import", {"samples/h200-ddp-rank1.kineto.json"}},
    {"h200-ddp-kineto-merged", "import", {"samples/h200-ddp-rank0.kineto.json", "samples/h200-ddp-rank1.kineto.json"}},
};
#define NUNCOMMITTED (sizeof uncommitted / sizeof uncommitted[0])

/* The pages of uncommitted[], rendered once a group into tmp/pages: the directory's path. */
static const char *uncommitted_pages(void)
{
    char *dir = uncommitted_dir;
    if (dir[0])
        return dir;
    char d[600];
    snprintf(d, sizeof d, "%s/pages", tmp);
    assert_int_equal(mkdir(d, 0755), 0);
    for (size_t i = 0; i < NUNCOMMITTED; i++) {
        char html[700];
        snprintf(html, sizeof html, "%s/%s.html", d, uncommitted[i].page);
        const char *argv[12] = {mmprof_bin(), uncommitted[i].verb};
        int n = 2;
        for (int k = 0; k < 3 && uncommitted[i].files[k]; k++)
            argv[n++] = uncommitted[i].files[k];
        argv[n++] = "--quiet";
        argv[n++] = "--html";
        argv[n++] = html;
        argv[n] = NULL;
        cmd_result r = run_argv(argv, NULL);
        if (r.status != 0)
            fail_msg("mmprof %s %s exited %d: %s", uncommitted[i].verb, uncommitted[i].files[0], r.status, r.err);
        cmd_free(&r);
        char committed[700];
        snprintf(committed, sizeof committed, "samples/%s.html", uncommitted[i].page);
        if (access(committed, F_OK) == 0) /* committed since: check that one, not two copies */
            fail_msg("%s is committed now: take it out of test_browser.c's uncommitted[]", committed);
    }
    snprintf(uncommitted_dir, sizeof uncommitted_dir, "%s", d);
    return dir;
}

/* axe-core's release file, vendored (tests/vendor/axe-core/README.md says which and whence). */
#define AXE "tests/vendor/axe-core/axe.min.js"

/* tests/sample_pages_check.js over every sample's page in a frame w px wide, all in one browser (a
 * window is never narrower than 500 px: a frame can be): the committed pages (the .html files of
 * samples/, made by tests/render_samples.sh from the committed runs), those of the samples with
 * none committed, rendered here, and the 2048 run's and the PyTorch profile's as rendered now (a
 * phone's layout: the navigation scrolls sideways, charts keep a readable size in their own scroll
 * box, no text under 9 px). On each: only sections
 * with something to show, each reached from the navigation, no placeholder for what the source did
 * not record (no host, BLAS or matrix settings of a built-in run on a profile's page, no 0 MHz
 * clock, no "unknown" version), no page wider than its frame. With all, chart labels must not
 * overlap and axe-core must find no violation in any page (once, at one width: it is the dearest
 * check). */
static void every_sample_at(int w, bool all)
{
    char dir[600];
    assert_non_null(realpath("samples", dir));
    char wrapper[700], script[700], checks[700], axe[700];
    snprintf(wrapper, sizeof wrapper, "%s/frames-%d.html", tmp, w);
    assert_non_null(realpath("tests/sample_pages_check.js", script));
    assert_non_null(realpath("tests/browser_checks.js", checks));
    if (!realpath(AXE, axe))
        fail_msg("no %s (it is committed: a checkout without it is incomplete)", AXE);
    FILE *f = fopen(wrapper, "w");
    assert_non_null(f);
    fprintf(f, "<!DOCTYPE html><html data-overlaps=\"%d\"", all);
    if (all)
        fprintf(f, " data-axe=\"file://%s\"", axe);
    fprintf(f, "><body style=\"margin:0\">\n");
    /* And the 2048 run's and the profiled program's pages as the code now renders them (their
     * committed ones may be older). */
    cmd_result r = run_shell("ls '%s'/*.html '%s'/*.html '%s' '%s'", dir, uncommitted_pages(), page, profile_page);
    assert_int_equal(r.status, 0);
    int pages = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), pages++)
        fprintf(f, "<iframe src=\"file://%s\" style=\"border:0;width:%dpx;height:900px\"></iframe>\n", line, w);
    cmd_free(&r);
    fprintf(f, "<script>window.mmprofChecksLibrary = true;</script><script src=\"file://%s\"></script>"
               "<script src=\"file://%s\"></script></body></html>\n",
            checks, script);
    assert_int_equal(fclose(f), 0);
    assert_true(pages >= 12 + (int)NUNCOMMITTED + 2);
    char win[64];
    snprintf(win, sizeof win, "--window-size=%d,900", w < 500 ? 500 : w);
    const char *extra[] = {win, "--allow-file-access-from-files", "--virtual-time-budget=120000", "--dump-dom", NULL};
    r = browse(wrapper, extra);
    assert_int_equal(r.status, 0);
    char *check = root_attr(r.out, "data-check");
    print_message("%d sample pages at %d px%s: %s\n", pages, w, all ? ", axe-core" : "",
                  check ? check : "the check did not run");
    if (!check || strcmp(check, "ok") != 0)
        fail_msg("at %d px: %s", w, check ? check : "the check did not run");
    free(check);
    cmd_free(&r);
}

/* A phone: no committed sample's page wider than 390 px laid out 390 px wide (the merged DDP
 * pages were 444 px: advice naming an unbreakable kernel name). */
static void every_sample_fits_a_phone(void **state)
{
    (void)state;
    need_chromium();
    every_sample_at(390, false);
}

/* A screen: no page wider than 1280 px, no chart with two labels over each other, and nothing
 * axe-core finds: contrast below WCAG AA (4.5:1, 3:1 for large text), an image, control or link
 * without a name, content outside the landmarks, and the rest of WCAG 2.x A and AA and its best
 * practices. */
static void every_sample_at_1280(void **state)
{
    (void)state;
    need_chromium();
    every_sample_at(1280, true);
}

/* Milliseconds from navigation to the end of the script of the page at path (its data-ready-ms),
 * in a 1280 px window. */
static long ready_ms(const char *path)
{
    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(path, extra);
    assert_int_equal(r.status, 0);
    char *ms = root_attr(r.out, "data-ready-ms");
    assert_non_null(ms);
    long v = strtol(ms, NULL, 10);
    free(ms);
    cmd_free(&r);
    return v;
}

/* The committed sweep's page (8 sizes, 24 workload runs each) is within 1 MB and ready within a
 * second more than an empty page with the same script line: its per-workload sections show its
 * largest size (6.8 MB when every size had its cards, timelines and kernel rows). */
static void sweep_page_is_small_and_quick(void **state)
{
    (void)state;
    need_chromium();
    size_t len = 0;
    char *html = read_file("samples/h200-sweep-64-8192.html", &len);
    assert_non_null(html);
    free(html);
    print_message("the sweep's page is %zu bytes\n", len);
    if (len > 1000 * 1000)
        fail_msg("the sweep's page is %zu bytes", len);
    char empty[600], sweep[700];
    snprintf(empty, sizeof empty, "%s/empty.html", tmp);
    assert_true(write_text(empty, "<!DOCTYPE html><html><body><script>document.documentElement.setAttribute("
                                  "'data-ready-ms', String(Math.round(performance.now())));</script></body></html>\n"));
    assert_non_null(realpath("samples/h200-sweep-64-8192.html", sweep));
    long base = ready_ms(empty), v = ready_ms(sweep);
    print_message("the sweep's page ready after %ld ms, an empty page after %ld ms\n", v, base);
    assert_true(v > 0 && v - base < 1000);
}

/* Hostile kernel, workload, device and command-line strings show as text: the browser's DOM has
 * the page's one script and no element the names tried to inject. */
static void hostile_names_run_no_script(void **state)
{
    (void)state;
    need_chromium();
    const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
    cmd_result r = browse(hostile_page, extra);
    assert_int_equal(r.status, 0);
    assert_int_equal(console_lines(r.err), 0);
    assert_non_null(strstr(r.out, "data-js=\"ready\""));
    assert_int_equal(count(r.out, "<script"), 1);
    assert_null(strstr(r.out, "<img"));
    assert_null(strstr(r.out, "<svg onload"));
    assert_null(strstr(r.out, "<b>bold"));
    assert_null(strstr(r.out, "<b>warned"));
    assert_non_null(strstr(r.out, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    cmd_free(&r);
}

/* Two parts: the page-timing tests run alone (make test runs test_browser before the others),
 * and with MMPROF_BROWSER_PART=pages (tests/test_browser_pages.sh) the rest, beside other tests,
 * which their results do not depend on. Unset: every test. */
int main(void)
{
    const struct CMUnitTest timed[] = {
        cmocka_unit_test(page_loads_without_console_messages),
        cmocka_unit_test(page_is_small),
        cmocka_unit_test(loads_within_a_second),
        cmocka_unit_test(sweep_page_is_small_and_quick),
    };
    const struct CMUnitTest pages[] = {
        cmocka_unit_test(every_section_is_rendered),
        cmocka_unit_test(timeline_has_one_mark_per_event),
        cmocka_unit_test(event_timeline_draws_and_hovers),
        cmocka_unit_test(answer_on_the_first_screen),
        cmocka_unit_test(event_timeline_draws_states),
        cmocka_unit_test(event_timeline_tools),
        cmocka_unit_test(committed_timelines_hold_every_gpu_event),
        cmocka_unit_test(page_reads_with_scripts_off),
        cmocka_unit_test(screenshot_at_1280),
        cmocka_unit_test(page_prints),
        cmocka_unit_test(hostile_names_run_no_script),
        cmocka_unit_test(every_sample_fits_a_phone),
        cmocka_unit_test(every_sample_at_1280),
    };
    const char *part = getenv("MMPROF_BROWSER_PART");
    if (getenv("MMPROF_TEST_FILTER")) /* one test by name (a glob), while working on it */
        cmocka_set_test_filter(getenv("MMPROF_TEST_FILTER"));
    int status = 0;
    if (!part || strcmp(part, "pages") != 0)
        status |= cmocka_run_group_tests_name("browser: page timing", timed, group_setup, group_teardown);
    if (!part || strcmp(part, "timed") != 0)
        status |= cmocka_run_group_tests_name("browser: pages", pages, group_setup, group_teardown);
    return status;
}
