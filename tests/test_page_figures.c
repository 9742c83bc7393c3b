/* Every figure a page shows is the figure its JSON holds: each committed sample (run files, rank
 * merges, PyTorch traces) rendered by mmprof to HTML and JSON in one command, every figure the page
 * marks (data-fig: its place in the JSON, data-t: its registry table, data-u="0" where its unit is
 * in a heading; html_fig), table cell or chart label, looked up in that JSON and formatted as the
 * registry says, and compared with what the page shows, character for character. Also: every
 * number the page shows as a figure (class "num", and a chart's value label, SVG text of class
 * "val") is marked, so none escapes the comparison; and no percentage of a whole is outside 0-100. */
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

/* One mmprof command (verb and its files) rendered to HTML and JSON, then checked. */
static void check_command(const char *dir, const char *verb, const char *const *files, int *checked)
{
    char *html = path_in(dir, "page.html"), *json = path_in(dir, "page.json");
    const char *argv[16] = {mmprof_bin(), verb};
    int n = 2;
    for (int i = 0; files[i]; i++)
        argv[n++] = files[i];
    const char *tail[] = {"--html", html, "--json", json, "-q", NULL};
    for (int i = 0; tail[i]; i++)
        argv[n++] = tail[i];
    argv[n] = NULL;
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof %s %s: exit %d: %s", verb, files[0], r.status, r.err);
    cmd_free(&r);
    char *page = read_file(html, NULL), *text = read_file(json, NULL);
    assert_non_null(page);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    tally t = {0, 0};
    check_page(files[0], page, root, &t);
    print_message("%s: %d figures checked against the JSON\n", files[0], t.checked);
    if (t.unmarked)
        fail_msg("%s: %d figures shown without their place in the JSON (html_fig marks them)", files[0], t.unmarked);
    *checked += t.checked;
    cJSON_Delete(root);
    free(page);
    free(text);
    free(html);
    free(json);
}

static void every_sample_page_shows_its_json(void **state)
{
    const char *dir = *state;
    static const char *const runs[] = {
        "samples/h200-2048.json",         "samples/h200-2048-counters.json", "samples/h200-512-under-ncu.json",
        "samples/h200-512-under-nsys.json", "samples/h200-profile-counters.json", "samples/h200-profile-cuda.json",
        "samples/h200-profile-numba.json", "samples/h200-profile-torch.json",
    };
    static const char *const traces[] = {
        "samples/h200-matmul-copies.kineto.json", "samples/h200-train-step.kineto.json",
        "samples/h200-ddp-rank0.kineto.json",
    };
    int checked = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        check_command(dir, "report", (const char *const[]){runs[i], NULL}, &checked);
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++)
        check_command(dir, "import", (const char *const[]){traces[i], NULL}, &checked);
    check_command(dir, "import",
                  (const char *const[]){"samples/h200-ddp-rank0.kineto.json", "samples/h200-ddp-rank1.kineto.json", NULL},
                  &checked);
    /* The compressed ones: a sweep, a --devices run, a DDP job's ranks merged. */
    static const char *const xz[] = {"h200-sweep-64-8192", "h200x2-devices-2048", "h200-ddp-torchrun"};
    for (size_t i = 0; i < sizeof xz / sizeof xz[0]; i++) {
        char src[128], name[64];
        snprintf(src, sizeof src, "samples/%s.json.xz", xz[i]);
        snprintf(name, sizeof name, "%s.json", xz[i]);
        char *f = unxz_sample(src, dir, name);
        assert_non_null(f);
        check_command(dir, "report", (const char *const[]){f, NULL}, &checked);
        free(f);
    }
    char *r0 = unxz_sample("samples/h200-ddp-rank.0.json.xz", dir, "rank.0.json");
    char *r1 = unxz_sample("samples/h200-ddp-rank.1.json.xz", dir, "rank.1.json");
    assert_non_null(r0);
    assert_non_null(r1);
    check_command(dir, "report", (const char *const[]){r0, r1, NULL}, &checked);
    free(r0);
    free(r1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_names_are_unique),
        cmocka_unit_test_setup_teardown(every_sample_page_shows_its_json, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(memory_page_shows_its_json, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests_name("page figures", tests, NULL, NULL);
}
