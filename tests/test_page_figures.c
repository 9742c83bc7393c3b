/* Every figure a page shows is the figure its JSON holds: each committed sample (every run file in
 * samples/, found by its schema and read as committed, the xz-compressed ones by mmprof itself;
 * rank merges; PyTorch traces) rendered by mmprof to HTML, JSON and text in one command (exit 0,
 * a text report), every figure the page marks (data-fig: its place in the JSON, data-t: its
 * registry table, data-u="0" where its unit is in a heading; html_fig), table cell or chart label,
 * looked up in that JSON and formatted as the registry says, and compared with what the page
 * shows, character for character. Also: every number the page shows as a figure (class "num", and
 * a chart's value label, SVG text of class "val") is marked, so none escapes the comparison; no
 * percentage of a whole is outside 0-100; and the timeline of events draws the JSON's wall-time
 * bands of each process, each in its state's group, and each host sample by its thread's state. */
#include <glob.h>
#include <lzma.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "metric.h"
#include "test_support.h"

/* A JSON path as figure_path.h writes them: "analysis.regions[3].busy_pct". */
static const cJSON *at_path(const cJSON *root, const char *path)
{
    const cJSON *cur = root;
    const char *p = path;
    while (cur && *p) {
        char key[96];
        size_t n = strcspn(p, ".[");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        p += n;
        if (n > 0)
            cur = cJSON_GetObjectItemCaseSensitive(cur, key);
        while (cur && *p == '[') {
            cur = cJSON_GetArrayItem(cur, atoi(p + 1));
            p = strchr(p, ']');
            if (!p)
                return NULL;
            p++;
        }
        if (*p == '.')
            p++;
    }
    return cur;
}

/* An attribute's value inside tag [tag, end): a copy, or "" when absent. */
static void attr(const char *tag, const char *end, const char *name, char *buf, size_t len)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=\"", name);
    buf[0] = '\0';
    const char *a = strstr(tag, pat);
    if (!a || a >= end)
        return;
    a += strlen(pat);
    const char *z = strchr(a, '"');
    if (!z || z > end)
        return;
    snprintf(buf, len, "%.*s", (int)(z - a), a);
}

/* The text of an element from its '>' to its closing tag, tags dropped and &amp; &lt; &gt;
 * &#39; &quot; undone. */
static void inner_text(const char *from, char *buf, size_t len)
{
    size_t o = 0;
    int depth = 0;
    for (const char *p = from; *p && o + 1 < len; p++) {
        if (*p == '<') {
            if (p[1] == '/' && depth == 0)
                break;
            depth += p[1] == '/' ? -1 : 1;
            p = strchr(p, '>');
            if (!p)
                break;
            continue;
        }
        static const struct { const char *ent; char c; } ents[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&#39;", '\''}, {"&quot;", '"'}};
        bool done = false;
        for (size_t e = 0; e < sizeof ents / sizeof ents[0] && !done; e++)
            if (strncmp(p, ents[e].ent, strlen(ents[e].ent)) == 0) {
                buf[o++] = ents[e].c;
                p += strlen(ents[e].ent) - 1;
                done = true;
            }
        if (!done)
            buf[o++] = *p;
    }
    buf[o] = '\0';
}

typedef struct {
    int checked, unmarked;
} tally;

/* The element whose attribute starts at p: its tag's start and the '>' that ends the tag. */
static const char *tag_start(const char *html, const char *p)
{
    while (p > html && *p != '<')
        p--;
    return p;
}

/* Whether the class list cls holds the class word. */
static bool has_class(const char *cls, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(cls, word); p; p = strstr(p + 1, word))
        if ((p == cls || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* Counts the figure at tag (its '>' at end) when it is not marked, naming the first few. */
static void must_be_marked(const char *name, const char *tag, const char *end, tally *t)
{
    char path[160];
    attr(tag, end, "data-fig", path, sizeof path);
    if (!path[0] && t->unmarked++ < 5) {
        char shown[64];
        inner_text(end + 1, shown, sizeof shown);
        print_message("%s: an unmarked figure '%s' (%.60s)\n", name, shown, tag);
    }
}

/* Checks every marked figure of html (any element with data-fig: a table cell's span, a chart's
 * label) against json; counts the figures (class "num", a chart's "val" label) left unmarked. */
static void check_page(const char *name, const char *html, const cJSON *json, tally *t)
{
    for (const char *p = strstr(html, "class=\"num\""); p; p = strstr(p + 1, "class=\"num\"")) {
        const char *tag = tag_start(html, p), *end = strchr(p, '>');
        assert_non_null(end);
        must_be_marked(name, tag, end, t);
    }
    for (const char *p = strstr(html, "<text "); p; p = strstr(p + 1, "<text ")) {
        const char *end = strchr(p, '>');
        assert_non_null(end);
        char cls[64];
        attr(p, end, "class", cls, sizeof cls);
        if (has_class(cls, "val"))
            must_be_marked(name, p, end, t);
    }
    for (const char *p = strstr(html, " data-fig=\""); p; p = strstr(p + 1, " data-fig=\"")) {
        const char *tag = tag_start(html, p), *end = strchr(p, '>');
        assert_non_null(end);
        char path[160], table[40], unit[8];
        attr(tag, end, "data-fig", path, sizeof path);
        attr(tag, end, "data-t", table, sizeof table);
        attr(tag, end, "data-u", unit, sizeof unit);
        const metric_table *mt = metric_table_named(table);
        if (!mt)
            fail_msg("%s: data-t '%s' names no registry table", name, table);
        const char *key = strrchr(path, '.');
        assert_non_null(key);
        const metric_def *d = metric_find(mt, key + 1);
        if (!d)
            fail_msg("%s: table %s has no key '%s'", name, table, key + 1);
        const cJSON *v = at_path(json, path);
        if (!cJSON_IsNumber(v))
            fail_msg("%s: %s is not a number in the JSON", name, path);
        metric m;
        metric_set(&m, v->valuedouble);
        char want[80], shown[80];
        metric_format(d, &m, strcmp(unit, "0") != 0, want, sizeof want);
        inner_text(end + 1, shown, sizeof shown);
        if (strcmp(want, shown) != 0) {
            /* cJSON writes 15 significant digits when they read back within an ulp, so a value
             * on a rounding edge (5.05 computed as 5.0500000000000007) may format either way. */
            char up[80], down[80];
            metric_set(&m, nextafter(v->valuedouble, INFINITY));
            metric_format(d, &m, strcmp(unit, "0") != 0, up, sizeof up);
            metric_set(&m, nextafter(v->valuedouble, -INFINITY));
            metric_format(d, &m, strcmp(unit, "0") != 0, down, sizeof down);
            if (strcmp(up, shown) != 0 && strcmp(down, shown) != 0)
                fail_msg("%s: %s shows '%s', its JSON value %.17g formats as '%s'", name, path, shown, v->valuedouble,
                         want);
        }
        if (strcmp(d->unit, "%") == 0 && strstr(d->what, "over") && (v->valuedouble < 0 || v->valuedouble > 100 + 1e-9))
            fail_msg("%s: %s is %g%%, outside 0-100", name, path, v->valuedouble);
        t->checked++;
    }
}

/* A number member of o (0 where it is null or missing). */
static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The wall-time accounts (analysis.wall_accounts) hold: each account's states sum to its wall; a
 * launch-bound verdict where launch overhead holds at least half of the idle time, a copy-bound one
 * where copies hold at least a quarter of the wall; a listed region's verdict is its account's. */
static void check_accounts(const char *name, const cJSON *root)
{
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(root, "analysis");
    const cJSON *accs = cJSON_GetObjectItemCaseSensitive(an, "wall_accounts");
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(an, "regions");
    if (!cJSON_IsArray(accs) || cJSON_GetArraySize(accs) == 0)
        fail_msg("%s: no wall-time account", name);
    const cJSON *acc;
    cJSON_ArrayForEach(acc, accs)
    {
        double wall = num(acc, "wall_ms"), sum = 0, idle = 0, launch = 0, copies = 0;
        const cJSON *st;
        cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(acc, "states"))
        {
            double ms = num(st, "ms");
            const char *group = cJSON_GetObjectItemCaseSensitive(st, "group")->valuestring;
            sum += ms;
            idle += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "gpu")) ? 0 : ms;
            launch += strcmp(group, "launch") == 0 ? ms : 0;
            copies += strcmp(group, "copies") == 0 ? ms : 0;
        }
        const char *acc_name = cJSON_GetObjectItemCaseSensitive(acc, "name")->valuestring;
        if (wall > 0 && fabs(sum - wall) > 1e-6 * wall + 1e-6)
            fail_msg("%s: account %s: its states sum to %.6f ms of its %.6f ms", name, acc_name, sum, wall);
        const char *verdict = cJSON_GetObjectItemCaseSensitive(acc, "verdict")->valuestring;
        if (strcmp(verdict, "launch-bound") == 0 && launch < 0.5 * idle)
            fail_msg("%s: account %s is launch-bound with launches %.3f of %.3f ms idle", name, acc_name, launch, idle);
        if (strcmp(verdict, "copy-bound") == 0 && copies < 0.25 * wall)
            fail_msg("%s: account %s is copy-bound with copies %.3f of %.3f ms", name, acc_name, copies, wall);
        const cJSON *ri = cJSON_GetObjectItemCaseSensitive(acc, "region");
        const char *scope = cJSON_GetObjectItemCaseSensitive(acc, "scope")->valuestring;
        if (strcmp(scope, "region") == 0 && cJSON_IsNumber(ri)) {
            const cJSON *r;
            cJSON_ArrayForEach(r, regions)
            {
                if (num(r, "index") != ri->valuedouble)
                    continue;
                const char *rv = cJSON_GetObjectItemCaseSensitive(r, "verdict")->valuestring;
                if (strcmp(rv, "none") != 0 && strcmp(rv, verdict) != 0)
                    fail_msg("%s: region %s is %s, its account %s", name, acc_name, rv, verdict);
            }
        }
    }
}

/* The data of the page's timeline of events (html_events.c's <script id="tl-data">), parsed; NULL
 * where the page has none (a built-in run's). */
static cJSON *timeline_data(const char *page)
{
    const char *open = "<script type=\"application/json\" id=\"tl-data\">";
    const char *p = strstr(page, open);
    if (!p)
        return NULL;
    p += strlen(open);
    const char *end = strstr(p, "</script>");
    assert_non_null(end);
    cJSON *j = cJSON_ParseWithLength(p, (size_t)(end - p));
    assert_non_null(j);
    return j;
}

/* The timeline's categories of host samples (html_events.c's CAT_HOST, CAT_HOST_RUN,
 * CAT_HOST_WAIT), and a sample's by its record: running where its thread's state is R, or where
 * a CPU-time timer fired without one; waiting in any other state; else not recorded. */
enum { TL_HOST = 9, TL_HOST_RUN, TL_HOST_WAIT };
static int sample_category(const cJSON *rec)
{
    const cJSON *source = cJSON_GetArrayItem(rec, 4), *state = cJSON_GetArrayItem(rec, 5);
    const char *st = cJSON_IsString(state) ? state->valuestring : "";
    if (strcmp(st, "R") == 0 || (!st[0] && cJSON_IsString(source) && strcmp(source->valuestring, "cpu") == 0))
        return TL_HOST_RUN;
    return st[0] && strcmp(st, "-") != 0 ? TL_HOST_WAIT : TL_HOST;
}

/* A member of o (NULL where o is NULL or has none). */
static const cJSON *mem(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The timeline of events against the JSON (pages that have one): each process's track "where the
 * time went (process PID)" holds that process's analysis.wall_bands in order, each mark's category
 * its band's group (data.group0 + the group's place in data.groups); and the host samples' tracks
 * hold as many samples of each state as host_activity.samples. A page that is a window of its run
 * holds the bands and samples before its end only: there, that each is drawn. */
static void check_timeline(const char *name, const char *page, const cJSON *root)
{
    cJSON *tl = timeline_data(page);
    if (!tl)
        return;
    bool windowed = strstr(page, "<b>Windowed:</b>") != NULL;
    const cJSON *groups = mem(tl, "groups"), *tracks = mem(tl, "tracks");
    const cJSON *bands = mem(mem(root, "analysis"), "wall_bands");
    const cJSON *band, *tr;
    int drawn = 0, want = 0;
    cJSON_ArrayForEach(band, bands)
    {
        char label[64];
        snprintf(label, sizeof label, "where the time went (process %.0f)", num(band, "pid"));
        const cJSON *track = NULL;
        cJSON_ArrayForEach(tr, tracks) if (strcmp(mem(tr, "l")->valuestring, label) == 0) track = tr;
        if (!track)
            fail_msg("%s: the JSON has bands of process %.0f, the timeline no track '%s'", name, num(band, "pid"),
                     label);
        int k = 0; /* the band's place among its process's */
        for (const cJSON *b = bands->child; b != band; b = b->next)
            k += num(b, "pid") == num(band, "pid");
        const cJSON *cat = cJSON_GetArrayItem(mem(track, "c"), k);
        const char *group = mem(mem(band, "state"), "group")->valuestring;
        want++;
        if (!cat) {
            if (!windowed)
                fail_msg("%s: '%s' holds %d bands, the JSON more", name, label, k);
            continue;
        }
        const cJSON *key = cJSON_GetArrayItem(groups, cat->valueint - (int)num(tl, "group0"));
        if (!cJSON_IsString(key) || strcmp(key->valuestring, group) != 0)
            fail_msg("%s: '%s' band %d is drawn as %s, the JSON's group %s", name, label, k,
                     cJSON_IsString(key) ? key->valuestring : "no group", group);
        drawn++;
    }
    int page_cat[3] = {0, 0, 0}, json_cat[3] = {0, 0, 0}, page_bands = 0;
    cJSON_ArrayForEach(tr, tracks)
    {
        const char *kind = mem(tr, "k")->valuestring;
        const cJSON *c = mem(tr, "c"), *v;
        page_bands += strcmp(kind, "bands") == 0 ? cJSON_GetArraySize(c) : 0;
        if (strcmp(kind, "host") != 0)
            continue;
        if (!c) /* no state on the track: every tick the track's own category */
            page_cat[0] += cJSON_GetArraySize(mem(tr, "s"));
        cJSON_ArrayForEach(v, c) if (v->valueint >= TL_HOST && v->valueint <= TL_HOST_WAIT)
            page_cat[v->valueint - TL_HOST]++;
    }
    const cJSON *rec;
    cJSON_ArrayForEach(rec, mem(mem(root, "host_activity"), "samples"))
        json_cat[sample_category(rec) - TL_HOST]++;
    static const char *const words[] = {"with no state", "running", "waiting"};
    for (int i = 0; i < 3; i++)
        if (windowed ? page_cat[i] > json_cat[i] || (json_cat[i] > 0 && page_cat[i] == 0) : page_cat[i] != json_cat[i])
            fail_msg("%s: the timeline draws %d host samples %s, the JSON has %d", name, page_cat[i], words[i],
                     json_cat[i]);
    if (page_bands != drawn || (!windowed && drawn != want) || (want > 0 && drawn == 0))
        fail_msg("%s: the timeline draws %d bands (%d checked), the JSON has %d", name, page_bands, drawn, want);
    print_message("%s: %d of %d wall-time bands, and %d/%d/%d host samples (no state, running, waiting) drawn\n", name,
                  drawn, want, page_cat[0], page_cat[1], page_cat[2]);
    cJSON_Delete(tl);
}

/* One mmprof command (verb and its files) rendered to HTML, JSON and text, then checked. */
static void check_command(const char *dir, const char *verb, const char *const *files, int *checked)
{
    char *html = path_in(dir, "page.html"), *json = path_in(dir, "page.json"), *txt = path_in(dir, "page.txt");
    const char *argv[16] = {mmprof_bin(), verb};
    int n = 2;
    for (int i = 0; files[i]; i++)
        argv[n++] = files[i];
    const char *tail[] = {"--html", html, "--json", json, "--text", txt, "-q", NULL};
    for (int i = 0; tail[i]; i++)
        argv[n++] = tail[i];
    argv[n] = NULL;
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof %s %s: exit %d: %s", verb, files[0], r.status, r.err);
    cmd_free(&r);
    char *page = read_file(html, NULL), *text = read_file(json, NULL), *report = read_file(txt, NULL);
    assert_non_null(page);
    assert_non_null(text);
    if (!report || strncmp(report, "mmprof ", 7) != 0)
        fail_msg("mmprof %s %s: no text report", verb, files[0]);
    free(report);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    tally t = {0, 0};
    check_page(files[0], page, root, &t);
    check_accounts(files[0], root);
    check_timeline(files[0], page, root);
    print_message("%s: %d figures checked against the JSON\n", files[0], t.checked);
    if (t.unmarked)
        fail_msg("%s: %d figures shown without their place in the JSON (html_fig marks them)", files[0], t.unmarked);
    *checked += t.checked;
    cJSON_Delete(root);
    free(page);
    free(text);
    free(html);
    free(json);
    free(txt);
}

/* The first bytes (up to cap - 1) of a committed sample's text, NUL-ended in buf: the file's own,
 * or decompressed by liblzma here where it is xz, so that which samples are run files is not
 * decided by the reader under test. Other compressed content fails the test rather than passing
 * the file over. */
static void sample_head(const char *path, char *buf, size_t cap)
{
    size_t len = 0;
    char *bytes = read_file(path, &len);
    assert_non_null(bytes);
    static const unsigned char xz_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    size_t n = 0;
    if (len >= 6 && memcmp(bytes, xz_magic, 6) == 0) {
        lzma_stream xz = LZMA_STREAM_INIT;
        assert_int_equal(lzma_stream_decoder(&xz, UINT64_MAX, 0), LZMA_OK);
        xz.next_in = (const uint8_t *)bytes;
        xz.avail_in = len;
        xz.next_out = (uint8_t *)buf;
        xz.avail_out = cap - 1;
        lzma_ret r = lzma_code(&xz, LZMA_FINISH);
        if (r != LZMA_OK && r != LZMA_STREAM_END)
            fail_msg("%s: liblzma says %d", path, (int)r);
        n = cap - 1 - xz.avail_out;
        lzma_end(&xz);
    } else {
        if (len > 0 && !memchr("{[ \t\r\n", bytes[0], 6))
            fail_msg("%s: neither JSON nor xz: say here how to read its head", path);
        n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, bytes, n);
    }
    buf[n] = '\0';
    free(bytes);
}

/* Whether a text's head is an mmprof run file's: its "schema" member, which the writer puts near
 * the start (after the summary), says "mmprof-run". PyTorch traces (schemaVersion), Chrome traces
 * mmprof wrote and the DDP programs' own accounts (h200-ddp-own-*) have none. */
static bool names_run_schema(const char *head)
{
    const char *p = strstr(head, "\"schema\"");
    if (!p)
        return false;
    p += strlen("\"schema\"");
    p += strspn(p, " \t\r\n");
    if (*p++ != ':')
        return false;
    p += strspn(p, " \t\r\n");
    return strncmp(p, "\"mmprof-run\"", strlen("\"mmprof-run\"")) == 0;
}

static void every_sample_page_shows_its_json(void **state)
{
    const char *dir = *state;
    /* Every run file committed, each alone, the xz-compressed ones (a sweep, a --devices run, a DDP
     * job and its ranks) as they are. */
    glob_t g;
    assert_int_equal(glob("samples/*.json*", 0, NULL, &g), 0);
    enum { HEAD = 1 << 20 }; /* the schema member is in a run file's first few kB */
    char *head = malloc(HEAD);
    assert_non_null(head);
    int checked = 0, runs = 0, packed = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *f = g.gl_pathv[i];
        sample_head(f, head, HEAD);
        if (!names_run_schema(head))
            continue;
        check_command(dir, "report", (const char *const[]){f, NULL}, &checked);
        runs++;
        packed += strstr(f, ".xz") != NULL;
    }
    free(head);
    globfree(&g);
    print_message("%d run files in samples/ reported, %d of them xz-compressed\n", runs, packed);
    assert_true(runs > 0 && packed > 0);
    static const char *const traces[] = {
        "samples/h200-matmul-copies.kineto.json", "samples/h200-train-step.kineto.json",
        "samples/h200-ddp-rank0.kineto.json",
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++)
        check_command(dir, "import", (const char *const[]){traces[i], NULL}, &checked);
    check_command(dir, "import",
                  (const char *const[]){"samples/h200-ddp-rank0.kineto.json", "samples/h200-ddp-rank1.kineto.json", NULL},
                  &checked);
    /* A DDP job's rank files merged. */
    check_command(dir, "report",
                  (const char *const[]){"samples/h200-ddp-rank.0.json.xz", "samples/h200-ddp-rank.1.json.xz", NULL},
                  &checked);
    assert_true(checked > 0);
}

/* GPU memory's figures (the Memory section, html_memory.c) on the page of a trace with memory
 * events (tests/data/kineto/memory_steps.json: no committed sample has any). */
static void memory_page_shows_its_json(void **state)
{
    const char *dir = *state;
    int checked = 0;
    check_command(dir, "import", (const char *const[]){"tests/data/kineto/memory_steps.json", NULL}, &checked);
    char *html = path_in(dir, "page.html");
    char *page = read_file(html, NULL);
    assert_non_null(page);
    int memory_figs = 0;
    for (const char *p = page; (p = strstr(p, "data-fig=\"analysis.memory.")); p++)
        memory_figs++;
    assert_true(memory_figs >= 20);
    free(page);
    free(html);
}

/* The registry's table names mark figures on the page: each names one table, and each table's
 * keys are its own once. */
static void registry_names_are_unique(void **state)
{
    (void)state;
    for (int i = 0; i < metric_ntables; i++) {
        const metric_table *t = metric_tables[i];
        assert_ptr_equal(metric_table_named(t->name), t);
        assert_null(strchr(t->name, ' '));
        for (int k = 0; k < t->n; k++)
            assert_ptr_equal(metric_find(t, t->defs[k].key), &t->defs[k]);
    }
}

/* Whether fmt holds one printf conversion and it reads a double (flags, width and precision
 * aside): metric_format and value_text hand a row's format one double. */
static bool one_double_conversion(const char *fmt)
{
    int n = 0;
    bool is_double = false;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p += 1 + strspn(p + 1, "-+ #0123456789.");
        n++;
        is_double = *p && strchr("aAeEfFgG", *p) != NULL;
        if (!*p)
            break;
    }
    return n == 1 && is_double;
}

/* The value tables (value_figures.c) are registry rows as the row tables' are: each table's name
 * is its own among all of them, each key its own in its table, and every row's format, of either
 * kind, reads the one double it is given. value_text writes a value as its row says, with its
 * unit when asked, and a key its table lacks as "?key", never as a number. */
static void value_tables_are_registry_rows(void **state)
{
    (void)state;
    for (int i = 0; i < value_ntables; i++) {
        const metric_table *t = value_tables[i];
        assert_null(metric_table_named(t->name));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(value_tables[j]->name, t->name);
        for (int k = 0; k < t->n; k++) {
            assert_ptr_equal(metric_find(t, t->defs[k].key), &t->defs[k]);
            if (!one_double_conversion(t->defs[k].fmt))
                fail_msg("%s.%s: format \"%s\" is not one double's", t->name, t->defs[k].key, t->defs[k].fmt);
        }
    }
    for (int i = 0; i < metric_ntables; i++)
        for (int k = 0; k < metric_tables[i]->n; k++)
            if (!one_double_conversion(metric_tables[i]->defs[k].fmt))
                fail_msg("%s.%s: format \"%s\" is not one double's", metric_tables[i]->name,
                         metric_tables[i]->defs[k].key, metric_tables[i]->defs[k].fmt);
    assert_string_equal(value_text(&verdict_figure_table, "busy_pct", 55.24, true).s, "55.2%");
    assert_string_equal(value_text(&verdict_figure_table, "copy_ms", 3.2714, true).s, "3.271 ms");
    assert_string_equal(value_text(&verdict_figure_table, "copy_ms", 3.2714, false).s, "3.271");
    assert_string_equal(value_text(&account_row_table, "ms", 1.5, true).s, "1.500 ms");
    assert_string_equal(value_text(&verdict_figure_table, "no_such_key", 1, true).s, "?no_such_key");
    assert_false(one_double_conversion("%d ms"));
    assert_false(one_double_conversion("%.1f of %.1f"));
    assert_true(one_double_conversion("%+.1f%%"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_names_are_unique),
        cmocka_unit_test(value_tables_are_registry_rows),
        cmocka_unit_test_setup_teardown(every_sample_page_shows_its_json, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(memory_page_shows_its_json, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests_name("page figures", tests, NULL, NULL);
}
