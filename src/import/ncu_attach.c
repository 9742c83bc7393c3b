/* `mmprof report RUN --ncu FILE.csv` (and import, and profile): Nsight Compute's counters given
 * to the kernels of a run recorded apart from them (mmprof profile, or an imported trace of the
 * same program), as launch_counters, the entries profile --counters fills, so the report shows
 * them as its own. counter_info.from names the CSV: the wall-time account then knows the run's
 * launches were not replayed (wall_account.c).
 *
 * A launch of the CSV goes to a kernel record by name and launch order: the n-th launch of a
 * name in the CSV (by ncu's ID) to the n-th kernel record of that name in the run (by start time,
 * then process and correlation id). The names are compared as ncu_kernel_key makes them: ncu
 * demangles with its own demangler ("scale(const float *, float *, int)"), CUPTI records the
 * mangled name, which libstdc++ demangles as "scale(float const*, float*, int)"; a CSV of
 * function names alone (ncu --print-kernel-base function) is compared with the names without
 * their parameters. A pair whose grid or block differ is no match. Nothing else is guessed: a
 * launch with no kernel record to go to is left out and said. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display_names.h"
#include "model.h"
#include "array_grow.h"
#include "ncu_csv.h"

/* libstdc++'s demangler (linked for display_names.c's kernel names). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ---------- names ---------- */

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
           c == '$' || c == '~' || c == '.';
}

/* The builtin type names that make one type together ("unsigned long long"). */
static bool builtin_word(const char *s, size_t n)
{
    static const char *const words[] = {"unsigned", "signed", "short", "long", "int", "char", "float", "double",
                                        "bool", "void", "wchar_t", "char8_t", "char16_t", "char32_t", "__int128"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && memcmp(s, words[i], n) == 0)
            return true;
    return false;
}

typedef struct {
    const char *s;
    size_t n;
} token;

static bool is_word(const token *t) { return word_char(t->s[0]); }
static bool is(const token *t, const char *w) { return strlen(w) == t->n && memcmp(t->s, w, t->n) == 0; }

/* The end (exclusive) of the type that starts at token i: builtin words together, or one name
 * with its template arguments and what follows after "::". */
static size_t type_end(const token *t, size_t n, size_t i)
{
    if (i >= n || !is_word(&t[i]))
        return i;
    if (builtin_word(t[i].s, t[i].n)) {
        while (i < n && is_word(&t[i]) && builtin_word(t[i].s, t[i].n))
            i++;
        return i;
    }
    for (i++; i < n;) {
        if (is(&t[i], "<")) {
            int depth = 0;
            for (; i < n; i++) {
                depth += is(&t[i], "<") - is(&t[i], ">");
                if (depth == 0)
                    break;
            }
            i += i < n;
        } else if (is_word(&t[i]) && t[i].n > 2 && t[i].s[0] == ':' && t[i].s[1] == ':') {
            i++;
        } else {
            break;
        }
    }
    return i;
}

/* Appends token t to buf (at *o), a space first between two words. */
static void put(char *buf, size_t len, size_t *o, const token *t, bool *last_word)
{
    bool w = is_word(t);
    if (w && *last_word && *o + 1 < len)
        buf[(*o)++] = ' ';
    for (size_t k = 0; k < t->n && *o + 1 < len; k++)
        buf[(*o)++] = t->s[k];
    *last_word = w;
}

char *ncu_kernel_key(const char *name)
{
    int status = -1;
    char *dem = name[0] == '_' && name[1] == 'Z' ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
    const char *s = dem && status == 0 ? dem : name;
    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    /* the key is no longer than s: a space is kept only where s had one, and const moves */
    size_t n = 0, len = strlen(s) + 1;
    token *t = malloc(len * sizeof *t);
    char *buf = malloc(len);
    if (!t || !buf) {
        free(t), free(buf), free(dem);
        return NULL;
    }
    for (const char *p = s; *p;) {
        if (*p == ' ' || *p == '\t') {
            p++;
            continue;
        }
        const char *q = p + 1;
        if (word_char(*p))
            while (*q && word_char(*q))
                q++;
        t[n++] = (token){p, (size_t)(q - p)};
        p = q;
    }
    size_t o = 0;
    bool last_word = false;
    for (size_t i = 0; i < n; i++) {
        /* "const T" where a parameter or template argument starts: written "T const" */
        bool starts = o == 0 || strchr("(,<", buf[o - 1]);
        if ((is(&t[i], "const") || is(&t[i], "volatile")) && starts) {
            size_t end = type_end(t, n, i + 1);
            if (end > i + 1) {
                for (size_t k = i + 1; k < end; k++)
                    put(buf, len, &o, &t[k], &last_word);
                put(buf, len, &o, &t[i], &last_word);
                i = end - 1;
                continue;
            }
        }
        put(buf, len, &o, &t[i], &last_word);
    }
    buf[o] = '\0';
    free(t);
    free(dem);
    return buf;
}

/* ---------- matching ---------- */

/* A kernel record of the run that a CSV name may take: the CSV key it answers to, and its order. */
typedef struct {
    size_t key;       /* index into the CSV's distinct keys */
    int64_t start_ns;
    uint32_t pid, correlation;
    size_t kernel;    /* index into m->events.kernels */
} candidate;

static int by_key_then_time(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->correlation > y->correlation) - (x->correlation < y->correlation);
}

/* What the CSV calls its kernels: each distinct key once, and whether it is a whole signature. */
typedef struct {
    char **keys;
    bool *whole;
    size_t n;
    size_t *of_launch; /* each launch's key */
} csv_keys;

static bool csv_keys_make(const ncu_csv *c, csv_keys *k)
{
    memset(k, 0, sizeof *k);
    k->of_launch = malloc(c->nlaunches * sizeof *k->of_launch);
    if (!k->of_launch)
        return false;
    for (size_t i = 0; i < c->nlaunches; i++) {
        const char *name = c->launches[i].k.name;
        size_t len = strlen(name), j = 0;
        char *key = ncu_kernel_key(name);
        if (!key)
            return false;
        while (j < k->n && strcmp(k->keys[j], key) != 0)
            j++;
        if (j < k->n) {
            free(key);
        } else {
            char **keys = array_grow(k->keys, k->n, sizeof *keys);
            bool *whole = keys ? array_grow(k->whole, k->n, sizeof *whole) : NULL;
            if (keys)
                k->keys = keys;
            if (!whole) {
                free(key);
                return false;
            }
            k->whole = whole;
            k->keys[k->n] = key;
            k->whole[k->n++] = len > 0 && name[len - 1] == ')';
        }
        k->of_launch[i] = j;
    }
    return true;
}

static void csv_keys_free(csv_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    free(k->whole);
    free(k->of_launch);
}

/* Each distinct kernel name of the run, as the CSV key it answers to (SIZE_MAX: none). */
static size_t *name_keys(const event_list *e, const csv_keys *k)
{
    size_t nnames;
    const char *const *names = events_names(e, &nnames);
    size_t *out = malloc((nnames ? nnames : 1) * sizeof *out);
    if (!out)
        return NULL;
    char display[4096];
    for (size_t i = 0; i < nnames; i++) {
        kernel_display_name(names[i], display, sizeof display);
        char *whole = ncu_kernel_key(names[i]), *brief = ncu_kernel_key(display);
        out[i] = SIZE_MAX;
        for (size_t j = 0; whole && brief && j < k->n && out[i] == SIZE_MAX; j++)
            if (strcmp(k->keys[j], k->whole[j] ? whole : brief) == 0)
                out[i] = j;
        bool oom = !whole || !brief;
        free(whole), free(brief);
        if (oom) {
            free(out);
            return NULL;
        }
    }
    return out;
}

static bool same_shape(const int a[3], const int b[3])
{
    return a[0] == 0 || (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
}

/* What did not match, said on msg (the first few of each kind) and counted. */
typedef struct {
    FILE *msg;
    const char *path;
    int said;
} telling;

#define MAX_SAID 12

static void say(telling *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(telling *t, const char *fmt, ...)
{
    if (!t->msg || t->said++ >= MAX_SAID)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(t->msg, "mmprof: --ncu %s: ", t->path);
    vfprintf(t->msg, fmt, ap);
    fputc('\n', t->msg);
    va_end(ap);
}

/* The pairs: which kernel record each launch goes to (SIZE_MAX: none), and what was said. */
static size_t pair_launches(const run_model *m, const ncu_csv *c, const csv_keys *k, const candidate *cand, size_t nc,
                            size_t *kernel_of, telling *t)
{
    size_t *first = calloc(k->n + 1, sizeof *first), *runs = calloc(k->n + 1, sizeof *runs);
    size_t *csvs = calloc(k->n + 1, sizeof *csvs);
    if (!first || !runs || !csvs) {
        free(first), free(runs), free(csvs);
        return SIZE_MAX;
    }
    for (size_t i = nc; i-- > 0;)
        first[cand[i].key] = i, runs[cand[i].key]++;
    size_t matched = 0;
    for (size_t i = 0; i < c->nlaunches; i++) {
        const ncu_launch *l = &c->launches[i];
        size_t key = k->of_launch[i], n = csvs[key]++;
        kernel_of[i] = SIZE_MAX;
        if (n >= runs[key])
            continue;
        const kernel_event *e = &m->events.kernels[cand[first[key] + n].kernel];
        if (!same_shape(l->grid, e->grid) || !same_shape(l->block, e->block)) {
            say(t, "launch ID %ld (%.80s, grid %dx%dx%d, block %dx%dx%d) is not the run's launch %zu of it (grid "
                   "%dx%dx%d, block %dx%dx%d): not matched", l->id, l->k.name, l->grid[0], l->grid[1], l->grid[2],
                l->block[0], l->block[1], l->block[2], n + 1, e->grid[0], e->grid[1], e->grid[2], e->block[0],
                e->block[1], e->block[2]);
            continue;
        }
        kernel_of[i] = cand[first[key] + n].kernel;
        matched++;
    }
    for (size_t j = 0; j < k->n; j++) {
        const char *name = NULL;
        for (size_t i = 0; i < c->nlaunches && !name; i++)
            if (k->of_launch[i] == j)
                name = c->launches[i].k.name;
        if (runs[j] == 0)
            say(t, "%zu launch%s of %.120s: no kernel of that name in the run", csvs[j], csvs[j] == 1 ? "" : "es", name);
        else if (csvs[j] > runs[j])
            say(t, "%.120s: %zu launches in the CSV, %zu in the run: the CSV's last %zu not matched", name, csvs[j],
                runs[j], csvs[j] - runs[j]);
        else if (csvs[j] < runs[j])
            say(t, "%.120s: %zu launches in the run, %zu in the CSV (ncu profiled a subset: --launch-count, "
                   "--kernel-name): matched to the run's first %zu, the same launches unless ncu skipped some "
                   "(--launch-skip)", name, runs[j], csvs[j], csvs[j]);
    }
    free(first), free(runs), free(csvs);
    return matched;
}

/* The run's kernel records the CSV's names answer to, in key and launch order. */
static candidate *candidates(const run_model *m, const csv_keys *k, size_t *nc)
{
    const event_list *e = &m->events;
    size_t *keys = name_keys(e, k);
    candidate *cand = malloc((e->nkernels ? e->nkernels : 1) * sizeof *cand);
    if (!keys || !cand) {
        free(keys), free(cand);
        return NULL;
    }
    *nc = 0;
    for (size_t i = 0; i < e->nkernels; i++) {
        const kernel_event *ke = &e->kernels[i];
        size_t name = events_name_index(e, ke->name);
        if (name != SIZE_MAX && keys[name] != SIZE_MAX)
            cand[(*nc)++] = (candidate){keys[name], ke->start_ns, ke->pid, ke->correlation, i};
    }
    free(keys);
    qsort(cand, *nc, sizeof *cand, by_key_then_time);
    return cand;
}

/* The matched launches into m as launch_counters, in the CSV's order; false (m as it was) when
 * memory ran out. */
static bool add_matched(run_model *m, const ncu_csv *c, const size_t *kernel_of, const char *path, size_t matched)
{
    for (size_t i = 0; i < c->nlaunches; i++) {
        if (kernel_of[i] == SIZE_MAX)
            continue;
        const kernel_event *e = &m->events.kernels[kernel_of[i]];
        kernel_counters k = c->launches[i].k;
        k.pid = e->pid, k.device = e->device, k.correlation = e->correlation;
        if (!model_add_launch_counters(m, &k)) {
            for (int j = 0; j < m->nlaunch_counters; j++)
                free(m->launch_counters[j].name);
            free(m->launch_counters);
            m->launch_counters = NULL, m->nlaunch_counters = 0;
            return false;
        }
    }
    m->counters.asked = true;
    m->counters.passes = c->passes;
    copy_str(m->counters.from, sizeof m->counters.from, path);
    ncu_csv_warnings(c, path, m);
    model_add_warning(m, "hardware counters: %zu of the %zu launches of Nsight Compute's CSV export %s (%s page), "
                         "matched to this run's kernels by name and launch order; ncu ran the program apart from "
                         "this run, so its durations are its own", matched, c->nlaunches, path,
                      c->details ? "details" : "raw");
    return true;
}

bool ncu_attach_file(run_model *m, const char *path, FILE *msg, char *err, size_t errlen)
{
    if (m->source == SOURCE_BUILTIN) {
        snprintf(err, errlen, "%s: the run is of mmprof's built-in workloads, whose counters are its own "
                              "(mmprof --counters): --ncu is for a profiled program or an imported trace", path);
        return false;
    }
    if (m->nlaunch_counters > 0) {
        snprintf(err, errlen, "%s: the run has hardware counters already (%s): --ncu gives counters to a run "
                              "without them", path, m->counters.from[0] ? m->counters.from : "profile --counters");
        return false;
    }
    trace_input in;
    if (!ti_open(&in, path, err, errlen))
        return false;
    ncu_csv c;
    bool ok = ncu_csv_read(&in, &c, err, errlen);
    ti_close(&in);
    if (!ok)
        return false;
    csv_keys k = {0};
    size_t nc = 0, matched = SIZE_MAX;
    candidate *cand = NULL;
    size_t *kernel_of = malloc(c.nlaunches * sizeof *kernel_of);
    telling t = {msg, path, 0};
    if (kernel_of && csv_keys_make(&c, &k) && (cand = candidates(m, &k, &nc)))
        matched = pair_launches(m, &c, &k, cand, nc, kernel_of, &t);
    if (matched == SIZE_MAX) {
        snprintf(err, errlen, "%s: out of memory", path);
        ok = false;
    } else if (matched == 0) {
        char run_name[96] = "none: the run has no kernel records";
        if (m->events.nkernels > 0)
            kernel_display_name(m->events.kernels[0].name, run_name, sizeof run_name);
        snprintf(err, errlen, "%s: none of its %zu launches matched a kernel of the run by name and launch order "
                              "(its first kernel: %.100s; the run's: %s)", path, c.nlaunches, c.launches[0].k.name,
                 run_name);
        ok = false;
    } else if (!add_matched(m, &c, kernel_of, path, matched)) {
        snprintf(err, errlen, "%s: out of memory", path);
        ok = false;
    }
    if (ok && msg) {
        if (t.said > MAX_SAID)
            fprintf(msg, "mmprof: --ncu %s: and %d more like those\n", path, t.said - MAX_SAID);
        fprintf(msg, "mmprof: --ncu %s: %zu of its %zu launches matched to the run's kernels by name and launch order",
                path, matched, c.nlaunches);
        if (m->events.nkernels > matched)
            fprintf(msg, "; the run's other %zu kernel launches have no counters", m->events.nkernels - matched);
        fputc('\n', msg);
    }
    free(cand);
    free(kernel_of);
    csv_keys_free(&k);
    ncu_csv_free(&c);
    return ok;
}
