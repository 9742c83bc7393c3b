/* The HTML report in a real browser: Debian's chromium, headless. The page rendered from the
 * recorded H200 run loads with no console message at all (errors, policy violations, anything),
 * its script runs to the end, every section is there, the timeline holds one mark per recorded
 * event, it reads with scripts off, it prints, and a screenshot 1280 px wide is kept as
 * build/artifacts/report-1280.png. The pages of a profiled program and of an imported trace have
 * no section that would have nothing to show, every navigation entry leads to a section with
 * content, and no placeholder stands in for a fact the source did not record
 * (tests/browser_checks.js); their timeline of events draws and names what the pointer is over.
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

#include "analysis.h"
#include "hostile_model.h"
#include "html.h"
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

/* The checks of tests/browser_checks.js on the page at src, w x h px: sections with content and
 * their navigation, no placeholder, navigation within reach, no text under 9 px. Chromium makes no
 * window narrower than 500 px, so a narrower page is laid out in an iframe of its width inside a
 * page that reports the checks' answer as its own (reading a file: frame's DOM needs
 * --allow-file-access-from-files). */
static void layout_ok_at(const char *src, int w, int h)
{
    const char *files[] = {"tests/browser_checks.js", NULL};
    const char *copy = page_with(src, "checks.html", files, NULL);
    char frame[600];
    if (w < 500) {
        snprintf(frame, sizeof frame, "%s/frame.html", tmp);
        FILE *f = fopen(frame, "w");
        assert_non_null(f);
        fprintf(f, "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"file://%s\" "
                   "style=\"border:0;width:%dpx;height:%dpx\"></iframe><script>document.getElementById('f').onload ="
                   " function () { var d = this.contentDocument; document.documentElement.setAttribute('data-check',"
                   " d ? d.documentElement.getAttribute('data-check') : 'the frame could not be read'); };"
                   "</script></body></html>\n",
                copy, w, h);
        assert_int_equal(fclose(f), 0);
    }
    char win[64];
    snprintf(win, sizeof win, "--window-size=%d,%d", w < 500 ? 500 : w, h);
    const char *extra[] = {win, "--allow-file-access-from-files", "--dump-dom", NULL};
    cmd_result r = browse(w < 500 ? frame : copy, extra);
    assert_int_equal(r.status, 0);
    char *check = root_attr(r.out, "data-check");
    if (!check || strcmp(check, "ok") != 0)
        fail_msg("%s at %d x %d: %s", src, w, h, check ? check : "the checks did not run");
    free(check);
    cmd_free(&r);
}

static void layout_at_1280(void **state)
{
    (void)state;
    need_chromium();
    layout_ok_at(page, 1280, 900);
}

/* A phone: the navigation scrolls sideways, charts keep a readable size in their own scroll box
 * (laid out 390 px wide in a frame: a window is never narrower than 500). */
static void layout_at_390(void **state)
{
    (void)state;
    need_chromium();
    layout_ok_at(page, 390, 844);
}

/* A profiled program's page and an imported trace's, on a screen and on a phone: only sections
 * with something to show, each reached from the navigation, and no placeholder for what the source
 * did not record (no host, BLAS or matrix settings of a built-in run, no 0 MHz clock, no "unknown"
 * version). */
static void timeline_pages_show_only_what_they_have(void **state)
{
    (void)state;
    need_chromium();
    const char *pages[] = {profile_page, import_page};
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        layout_ok_at(pages[i], 1280, 900);
        layout_ok_at(pages[i], 390, 844);
    }
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
    const char *pages[] = {profile_page, import_page};
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        const char *copy = page_with(pages[i], "hover.html", NULL, hover);
        const char *extra[] = {"--window-size=1280,900", "--dump-dom", NULL};
        cmd_result r = browse(copy, extra);
        assert_int_equal(r.status, 0);
        int console = console_lines(r.err); /* each printed */
        if (console != 0)
            fail_msg("%s: %d console messages", pages[i], console);
        char *check = root_attr(r.out, "data-tl-check");
        if (!check || strcmp(check, "ok") != 0)
            fail_msg("%s: %s", pages[i], check ? check : "the check did not run");
        free(check);
        cmd_free(&r);
    }
}

/* axe-core (npm, installed by make test-deps into tests/node_modules) finds no text below WCAG AA
 * contrast (4.5:1, 3:1 for large text). */
#define AXE "tests/node_modules/axe-core/axe.min.js"

static void contrast_by_axe(void **state)
{
    (void)state;
    need_chromium();
    if (access(AXE, R_OK) != 0) {
        print_message("no %s (make test-deps installs it): contrast test skipped\n", AXE);
        skip();
    }
    const char *files[] = {AXE, NULL};
    const char *run =
        "axe.run(document, {runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations']})"
        ".then(function (r) { var v = r.violations.map(function (x) { return x.nodes.length + ' x ' + x.id + ': ' + "
        "x.nodes.slice(0, 6).map(function (n) { return n.target.join(' '); }).join('; '); });"
        "document.documentElement.setAttribute('data-axe', v.length ? v.join(' | ') : 'none'); },"
        "function (e) { document.documentElement.setAttribute('data-axe', 'error ' + e); });";
    const char *copy = page_with(page, "axe.html", files, run);
    const char *extra[] = {"--window-size=1280,900", "--virtual-time-budget=120000", "--dump-dom", NULL};
    cmd_result r = browse(copy, extra);
    assert_int_equal(r.status, 0);
    char *axe = root_attr(r.out, "data-axe");
    if (!axe || strcmp(axe, "none") != 0)
        fail_msg("axe-core: %s", axe ? axe : "did not finish");
    free(axe);
    cmd_free(&r);
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

/* tests/sample_pages_check.js over every committed sample page (the .html files of samples/, made by
 * tests/render_samples.sh from the committed runs) in a frame w px wide, all in one browser (a
 * window is never narrower than 500 px: a frame can be); with overlaps, chart labels too. */
static void every_sample_at(int w, bool overlaps)
{
    char dir[600];
    assert_non_null(realpath("samples", dir));
    char wrapper[700], script[700], checks[700];
    snprintf(wrapper, sizeof wrapper, "%s/frames-%d.html", tmp, w);
    assert_non_null(realpath("tests/sample_pages_check.js", script));
    assert_non_null(realpath("tests/browser_checks.js", checks));
    FILE *f = fopen(wrapper, "w");
    assert_non_null(f);
    fprintf(f, "<!DOCTYPE html><html data-overlaps=\"%d\"><body style=\"margin:0\">\n", overlaps);
    cmd_result r = run_shell("ls '%s'/*.html", dir);
    assert_int_equal(r.status, 0);
    int pages = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), pages++)
        fprintf(f, "<iframe src=\"file://%s\" style=\"border:0;width:%dpx;height:900px\"></iframe>\n", line, w);
    cmd_free(&r);
    fprintf(f, "<script>window.mmprofChecksLibrary = true;</script><script src=\"file://%s\"></script>"
               "<script src=\"file://%s\"></script></body></html>\n",
            checks, script);
    assert_int_equal(fclose(f), 0);
    assert_true(pages >= 12);
    char win[64];
    snprintf(win, sizeof win, "--window-size=%d,900", w < 500 ? 500 : w);
    const char *extra[] = {win, "--allow-file-access-from-files", "--virtual-time-budget=30000", "--dump-dom", NULL};
    r = browse(wrapper, extra);
    assert_int_equal(r.status, 0);
    char *check = root_attr(r.out, "data-check");
    print_message("%d sample pages at %d px: %s\n", pages, w, check ? check : "the check did not run");
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

/* A screen: no page wider than 1280 px, and no chart with two labels over each other. */
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
        cmocka_unit_test(layout_at_1280),
        cmocka_unit_test(layout_at_390),
        cmocka_unit_test(timeline_pages_show_only_what_they_have),
        cmocka_unit_test(event_timeline_draws_and_hovers),
        cmocka_unit_test(contrast_by_axe),
        cmocka_unit_test(page_reads_with_scripts_off),
        cmocka_unit_test(screenshot_at_1280),
        cmocka_unit_test(page_prints),
        cmocka_unit_test(hostile_names_run_no_script),
        cmocka_unit_test(every_sample_fits_a_phone),
        cmocka_unit_test(every_sample_at_1280),
    };
    const char *part = getenv("MMPROF_BROWSER_PART");
    int status = 0;
    if (!part || strcmp(part, "pages") != 0)
        status |= cmocka_run_group_tests_name("browser: page timing", timed, group_setup, group_teardown);
    if (!part || strcmp(part, "timed") != 0)
        status |= cmocka_run_group_tests_name("browser: pages", pages, group_setup, group_teardown);
    return status;
}
