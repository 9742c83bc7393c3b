/* The Markdown output (--md FILE): the report as GitHub-flavoured Markdown, for a pull-request
 * comment or a terminal. Reads only the analysis (and through it the model).
 *
 * Layout, top to bottom: what was run; the run's verdict and what to try; the summary's findings;
 * where the wall-clock time went (each account the text report shows, its largest states as a
 * table); the run's kernels by total time, its copies, and its ranges grouped by name (the top
 * rows of each; every row is in the JSON); the warnings. Sections appear as sections.h says the
 * run has their data. Every figure is the registry's, formatted by metric_format, under a heading
 * made of its label and unit, so it reads as in the text report, and the JSON holds it whole. */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "outputs.h"
#include "sections.h"
#include "strbuf.h"

output_render_fn render_markdown;

#define MD_ACCOUNT_ROWS 6 /* states shown per account, as the text report */
#define MD_TOP 10         /* rows of each top table */

typedef struct {
    strbuf b;
    bool na; /* a figure read "n/a": the closing line says where its reason is */
} md;

/* Text outside code: what would start markup is escaped, a line end is a space (a table row and
 * a list item are one line each). */
static void md_text(md *x, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n' || *s == '\r') {
            sb_add(&x->b, " ");
            continue;
        }
        if (strchr("\\`*_[]<>|#", *s))
            sb_add(&x->b, "\\");
        sb_addn(&x->b, s, 1);
    }
}

/* A name (a kernel's, a range's, a file's) as code, where nothing is markup: a backtick in it
 * becomes ' (it would end the code), a pipe is escaped (it would end a table's cell). */
static void md_code(md *x, const char *s)
{
    if (!s[0])
        return;
    sb_add(&x->b, "`");
    for (; *s; s++) {
        if (*s == '`')
            sb_add(&x->b, "'");
        else if (*s == '|')
            sb_add(&x->b, "\\|");
        else if (*s == '\n' || *s == '\r')
            sb_add(&x->b, " ");
        else
            sb_addn(&x->b, s, 1);
    }
    sb_add(&x->b, "`");
}

/* A byte count carries its prefix in its cell ("403 MB"); every other figure's unit is its
 * column's heading. */
static bool unit_in_cell(const metric_def *d)
{
    return strcmp(d->unit, "B") == 0;
}

/* Figure key of row as the registry formats it. */
static void fig(md *x, const metric_table *t, const void *row, const char *key)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    char v[64];
    if (!m)
        snprintf(v, sizeof v, "?%s", key); /* a key the table lacks: the tests find it */
    else
        metric_format(d, m, unit_in_cell(d), v, sizeof v);
    x->na |= m && !m->ok;
    md_text(x, v);
}

/* A table's heading and alignment rows: the leading columns named by hand (left-aligned), then
 * each registry column as "label (unit)" (right-aligned), then the trailing ones. */
static void table_head(md *x, const char *const *lead, int nlead, const metric_table *t, const char *const *keys,
                       int nkeys, const char *const *tail, int ntail)
{
    sb_add(&x->b, "\n|");
    for (int i = 0; i < nlead; i++)
        sb_printf(&x->b, " %s |", lead[i]);
    for (int i = 0; i < nkeys; i++) {
        const metric_def *d = metric_find(t, keys[i]);
        sb_add(&x->b, " ");
        md_text(x, d ? d->label : keys[i]);
        if (d && d->unit[0] && !unit_in_cell(d) && strcmp(d->unit, d->label) != 0) {
            sb_add(&x->b, " (");
            md_text(x, d->unit);
            sb_add(&x->b, ")");
        }
        sb_add(&x->b, " |");
    }
    for (int i = 0; i < ntail; i++)
        sb_printf(&x->b, " %s |", tail[i]);
    sb_add(&x->b, "\n|");
    for (int i = 0; i < nlead + nkeys + ntail; i++)
        sb_add(&x->b, i >= nlead && i < nlead + nkeys ? "---:|" : "---|");
    sb_add(&x->b, "\n");
}

/* Each registry column's cell of row, each closed by its pipe. */
static void fig_cells(md *x, const metric_table *t, const void *row, const char *const *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++) {
        sb_add(&x->b, " ");
        fig(x, t, row, keys[i]);
        sb_add(&x->b, " |");
    }
}

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

/* What was run, and where. */
static void header(md *x, const analysis *a)
{
    const run_model *m = a->m;
    sb_add(&x->b, "## mmprof report\n\n");
    if (m->source_file[0]) {
        md_code(x, m->source_file);
        sb_add(&x->b, m->started_at[0] ? ", recorded " : "");
    } else if (m->started_at[0]) {
        sb_add(&x->b, "Run ");
    }
    md_text(x, m->started_at);
    sb_add(&x->b, m->source_file[0] || m->started_at[0] ? "; " : "");
    sb_add(&x->b, "mmprof ");
    md_text(x, m->tool_version);
    for (int i = 0; i < m->ndevices; i++) {
        sb_printf(&x->b, "; GPU %d ", m->devices[i].index);
        md_text(x, m->devices[i].name);
    }
    sb_add(&x->b, "\n");
}

/* The run's verdict: its wall-time account's where it has one, else the run region's. */
static void run_verdict(md *x, const analysis *a)
{
    const wall_account *run = run_account(a);
    const region_metrics *r = a->nlisted > 0 ? &a->rg[a->listed[0]] : NULL;
    if (!run && !r)
        return;
    /* its text opens with the verdict's name ("import-bound: importing torch 75.7% ...") */
    sb_add(&x->b, "\n**Verdict**: ");
    md_text(x, run ? run->verdict_text : r->verdict_text);
    const char *advice = run ? run->advice : r->advice;
    if (advice[0]) {
        sb_add(&x->b, "\n\n**Try**: ");
        md_text(x, advice);
    }
    sb_add(&x->b, "\n");
}

/* The findings, heaviest first. */
static void summary(md *x, const analysis *a)
{
    sb_add(&x->b, "\n### Summary\n\n");
    for (int i = 0; i < a->nsummary; i++) {
        sb_printf(&x->b, "%d. ", i + 1);
        md_text(x, a->summary[i].text);
        sb_add(&x->b, "\n");
    }
}

/* Whether the account's thread was sampled: its states then say how many samples each rests on. */
static bool sampled(const wall_account *acc)
{
    for (int i = 0; i < acc->nrows; i++)
        if (acc->rows[i].samples.ok)
            return true;
    return false;
}

/* "the run", "12 instances summed", ...: which span an account is; NULL for the listed regions'
 * accounts, which are the JSON's. */
static bool scope_words(const wall_account *acc, char *buf, size_t len)
{
    static const char *const words[] = {
        [ACC_RUN] = "the run",
        [ACC_PROCESS] = "one process",
        [ACC_BEFORE_STEPS] = "from the process's start",
        [ACC_GROUP] = "instances summed",
        [ACC_GROUP_MEDIAN] = "the median instance",
        [ACC_GROUP_WORST] = "the longest instance",
    };
    if ((int)acc->scope >= COUNT(words) || !words[acc->scope])
        return false;
    if (acc->scope == ACC_GROUP)
        snprintf(buf, len, "%d %s", acc->instances, words[acc->scope]);
    else if (acc->scope == ACC_RUN && acc->processes > 1)
        snprintf(buf, len, "the run, its %d GPU processes summed", acc->processes);
    else
        snprintf(buf, len, "%s", words[acc->scope]);
    return true;
}

static void account(md *x, const wall_account *acc, const char *what)
{
    sb_add(&x->b, "\n**");
    md_text(x, acc->name);
    sb_add(&x->b, "** (");
    md_text(x, what);
    sb_add(&x->b, ", ");
    const metric_def *d;
    char v[48];
    const metric *m = metric_get(&account_table, acc, "wall_ms", &d);
    metric_format(d, m, true, v, sizeof v);
    md_text(x, v);
    sb_add(&x->b, "; ");
    m = metric_get(&account_table, acc, "gpu_pct", &d);
    md_text(x, d->label);
    sb_add(&x->b, " ");
    metric_format(d, m, true, v, sizeof v);
    md_text(x, v);
    sb_printf(&x->b, "): **%s**\n", verdict_name(acc->verdict));

    static const char *const with_samples[] = {"ms", "share_pct", "samples", "host_wait_pct"};
    static const char *const without[] = {"ms", "share_pct", "host_wait_pct"};
    bool s = sampled(acc);
    const char *const *keys = s ? with_samples : without;
    int nkeys = s ? COUNT(with_samples) : COUNT(without);
    static const char *const lead[] = {"state"}, *const tail[] = {"why, where"};
    table_head(x, lead, 1, &account_row_table, keys, nkeys, tail, 1);
    for (int i = 0; i < acc->nrows && i < MD_ACCOUNT_ROWS; i++) {
        const account_row *r = &acc->rows[i];
        sb_add(&x->b, "| ");
        md_text(x, wall_states[r->state].brief);
        sb_add(&x->b, " |");
        fig_cells(x, &account_row_table, r, keys, nkeys);
        char why[640];
        account_row_words(r, why, sizeof why);
        sb_add(&x->b, " ");
        md_text(x, why);
        sb_add(&x->b, " |\n");
    }
    if (acc->nrows > MD_ACCOUNT_ROWS)
        sb_printf(&x->b, "\n%d more states: every one is in the JSON report.\n", acc->nrows - MD_ACCOUNT_ROWS);
}

static void accounts(md *x, const analysis *a)
{
    sb_add(&x->b, "\n### Where the time went\n\nEvery instant in one state: the GPU working, or idle with what the host "
                  "did.\n");
    for (int i = 0; i < a->naccounts; i++) {
        char what[96];
        if (scope_words(&a->accounts[i], what, sizeof what))
            account(x, &a->accounts[i], what);
    }
}

/* "(12 more in the JSON report)" under a table cut to MD_TOP rows. */
static void more(md *x, int n, const char *what)
{
    if (n > MD_TOP)
        sb_printf(&x->b, "\n%d more %s in the JSON report.\n", n - MD_TOP, what);
}

static void kernels(md *x, const region_metrics *r)
{
    if (r->nkstats == 0)
        return;
    sb_printf(&x->b, "\n### Kernels by total time\n\n%d names, %d launches; occupancy is theoretical.\n", r->nkstats,
              r->nkernels);
    static const char *const lead[] = {"kernel", "count"};
    static const char *const keys[] = {"total_ms", "share_pct", "median_ms", "max_ms", "occupancy_pct"};
    table_head(x, lead, COUNT(lead), &kernel_stat_table, keys, COUNT(keys), NULL, 0);
    for (int i = 0; i < r->nkstats && i < MD_TOP; i++) {
        const kernel_stat *k = &r->kernels[i];
        char name[512];
        kernel_display_name(k->name, name, sizeof name);
        sb_add(&x->b, "| ");
        md_code(x, name);
        sb_printf(&x->b, " | %d |", k->count);
        fig_cells(x, &kernel_stat_table, k, keys, COUNT(keys));
        sb_add(&x->b, "\n");
    }
    more(x, r->nkstats, "kernel names");
}

static void copies(md *x, const region_metrics *r)
{
    if (r->nflows == 0)
        return;
    sb_add(&x->b, "\n### Copies\n\nBy direction and host memory kind, then memsets by the memory they set.\n");
    static const char *const lead[] = {"direction", "memory", "count"};
    static const char *const keys[] = {"bytes", "ms", "gbps", "mean_bytes"};
    table_head(x, lead, COUNT(lead), &copy_flow_table, keys, COUNT(keys), NULL, 0);
    for (int i = 0; i < r->nflows; i++) {
        const copy_flow *f = &r->flows[i];
        sb_printf(&x->b, "| %s | %s | %d |", f->memset ? "memset" : copy_dir_name(f->dir), mem_kind_name(f->host),
                  f->count);
        fig_cells(x, &copy_flow_table, f, keys, COUNT(keys));
        sb_add(&x->b, "\n");
    }
}

/* NVTX ranges and annotations by name: the steps as one row. */
static void ranges(md *x, const analysis *a)
{
    if (a->ngroups == 0)
        return;
    sb_add(&x->b, "\n### Ranges by total time\n\nNVTX ranges and annotations grouped by name; the verdict most "
                  "instances got.\n");
    static const char *const lead[] = {"range", "instances"}, *const tail[] = {"verdict"};
    static const char *const keys[] = {"total_ms", "share_pct", "median_ms", "max_ms", "busy_pct"};
    table_head(x, lead, COUNT(lead), &range_group_table, keys, COUNT(keys), tail, 1);
    for (int i = 0; i < a->ngroups && i < MD_TOP; i++) {
        const range_group *g = &a->groups[i];
        char name[RANGE_GROUP_NAME + 160];
        snprintf(name, sizeof name, "%s%s%s", g->domain ? g->domain : "", g->domain ? "@" : "", g->name);
        sb_add(&x->b, "| ");
        md_code(x, name);
        sb_printf(&x->b, " | %d |", g->count);
        fig_cells(x, &range_group_table, g, keys, COUNT(keys));
        sb_printf(&x->b, " %s |\n", verdict_name(g->verdict));
    }
    more(x, a->ngroups, "range names");
}

static void warnings(md *x, const analysis *a)
{
    sb_add(&x->b, "\n### Warnings\n\n");
    for (int i = 0; i < a->nwarnings; i++) {
        sb_add(&x->b, "- ");
        md_text(x, a->warnings[i]);
        sb_add(&x->b, "\n");
    }
}

char *render_markdown(const analysis *a)
{
    md x = {.na = false};
    sb_init(&x.b);
    header(&x, a);
    if (section_shown(a, SEC_ACCOUNT) || section_shown(a, SEC_REGIONS)) /* a run without a timeline has none */
        run_verdict(&x, a);
    summary(&x, a);
    if (section_shown(a, SEC_ACCOUNT))
        accounts(&x, a);
    if (section_shown(a, SEC_REGIONS) && a->nlisted > 0) {
        /* the whole run's, as nsys stats tables them */
        kernels(&x, &a->rg[a->listed[0]]);
        copies(&x, &a->rg[a->listed[0]]);
        ranges(&x, a);
    }
    if (section_shown(a, SEC_WARNINGS))
        warnings(&x, a);
    if (x.na)
        sb_add(&x.b, "\nn/a: not measured; the JSON report (--json) says why for each.\n");
    return sb_finish(&x.b);
}
