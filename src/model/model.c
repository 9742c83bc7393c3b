/* Run model lifetime and the small helpers that grow its arrays. */
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void copy_str(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void model_init(run_model *m)
{
    memset(m, 0, sizeof *m);
    m->schema_version = MMPROF_SCHEMA_VERSION;
    copy_str(m->tool_version, sizeof m->tool_version, MMPROF_VERSION);
}

void workload_clear(workload_run *w)
{
    for (size_t i = 0; i < w->nkernels; i++)
        free(w->kernels[i].name);
    for (size_t i = 0; i < w->napis; i++)
        free(w->apis[i].name);
    free(w->kernels);
    free(w->copies);
    free(w->apis);
    free(w->product_ms);
    free(w->occ);
    memset(w, 0, sizeof *w);
}

void model_free(run_model *m)
{
    for (int i = 0; i < m->nworkloads; i++)
        workload_clear(&m->workloads[i]);
    free(m->workloads);
    for (int i = 0; i < m->nwarnings; i++)
        free(m->warnings[i]);
    free(m->warnings);
    free(m->devices);
    free(m->command_line);
    memset(m, 0, sizeof *m);
}

/* Capacity of an array holding count elements: the next power of two, at least 8. Derived from
 * the count, so no separate capacity field has to be kept in step. */
static size_t capacity_for(size_t count)
{
    size_t cap = 8;
    while (cap < count)
        cap *= 2;
    return cap;
}

/* Returns arr with room for one more element (count elements of size elem held now). */
static void *grow(void *arr, size_t count, size_t elem)
{
    if (arr && count + 1 <= capacity_for(count))
        return arr;
    return realloc(arr, capacity_for(count + 1) * elem);
}

#define APPEND(arr, count, value)                                                                 \
    do {                                                                                          \
        void *grown_ = grow((arr), (count), sizeof *(arr));                                       \
        if (!grown_)                                                                              \
            return false;                                                                         \
        (arr) = grown_;                                                                           \
        (arr)[(count)++] = (value);                                                               \
    } while (0)

workload_run *model_add_workload(run_model *m)
{
    workload_run *p = realloc(m->workloads, (size_t)(m->nworkloads + 1) * sizeof *p);
    if (!p)
        return NULL;
    m->workloads = p;
    workload_run *w = &p[m->nworkloads++];
    memset(w, 0, sizeof *w);
    w->device = -1;
    return w;
}

void model_add_warning(run_model *m, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **p = realloc(m->warnings, (size_t)(m->nwarnings + 1) * sizeof *p);
    if (!p)
        return;
    m->warnings = p;
    char *s = strdup(buf);
    if (s)
        m->warnings[m->nwarnings++] = s;
}

bool workload_add_kernel(workload_run *w, const kernel_event *k)
{
    kernel_event copy = *k;
    copy.name = strdup(k->name ? k->name : "");
    if (!copy.name)
        return false;
    void *grown = grow(w->kernels, w->nkernels, sizeof *w->kernels);
    if (!grown) {
        free(copy.name);
        return false;
    }
    w->kernels = grown;
    w->kernels[w->nkernels++] = copy;
    return true;
}

bool workload_add_api(workload_run *w, const api_event *a)
{
    api_event copy = *a;
    copy.name = strdup(a->name ? a->name : "");
    if (!copy.name)
        return false;
    void *grown = grow(w->apis, w->napis, sizeof *w->apis);
    if (!grown) {
        free(copy.name);
        return false;
    }
    w->apis = grown;
    w->apis[w->napis++] = copy;
    return true;
}

bool workload_add_copy(workload_run *w, const copy_event *c)
{
    APPEND(w->copies, w->ncopies, *c);
    return true;
}

bool workload_add_product_ms(workload_run *w, double ms)
{
    size_t n = (size_t)w->nproduct_ms;
    APPEND(w->product_ms, n, ms);
    w->nproduct_ms = (int)n;
    return true;
}

bool workload_add_occ(workload_run *w, const occupancy_check *o)
{
    size_t n = (size_t)w->nocc;
    APPEND(w->occ, n, *o);
    w->nocc = (int)n;
    return true;
}

phase *workload_add_phase(workload_run *w, const char *name)
{
    if (w->nphases >= MAX_PHASES)
        return NULL;
    phase *p = &w->phases[w->nphases++];
    memset(p, 0, sizeof *p);
    copy_str(p->name, sizeof p->name, name);
    return p;
}

const phase *workload_find_phase(const workload_run *w, const char *name)
{
    for (int i = 0; i < w->nphases; i++)
        if (strcmp(w->phases[i].name, name) == 0)
            return &w->phases[i];
    return NULL;
}

/* Name tables: one place for the strings the JSON form and the reports share. */
static const char *const timing_names[] = {"none", "cupti", "cudaEvent", "host-clock"};
static const char *const status_names[] = {"ok", "failed", "error", "skipped"};
static const char *const precision_names[] = {"fp32", "tf32"};

static bool parse_name(const char *s, const char *const *names, int count, int *out)
{
    for (int i = 0; i < count; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *timing_source_name(timing_source s)
{
    return (s >= 0 && (int)s < COUNT(timing_names)) ? timing_names[s] : "none";
}

bool timing_source_parse(const char *s, timing_source *out)
{
    int v;
    if (!parse_name(s, timing_names, COUNT(timing_names), &v))
        return false;
    *out = (timing_source)v;
    return true;
}

const char *status_name(workload_status s)
{
    return (s >= 0 && (int)s < COUNT(status_names)) ? status_names[s] : "error";
}

bool status_parse(const char *s, workload_status *out)
{
    int v;
    if (!parse_name(s, status_names, COUNT(status_names), &v))
        return false;
    *out = (workload_status)v;
    return true;
}

const char *precision_name(precision p)
{
    return (p >= 0 && (int)p < COUNT(precision_names)) ? precision_names[p] : "fp32";
}

bool precision_parse(const char *s, precision *out)
{
    int v;
    if (!parse_name(s, precision_names, COUNT(precision_names), &v))
        return false;
    *out = (precision)v;
    return true;
}

const char *mem_kind_name(mem_kind k)
{
    switch (k) {
    case MEM_PAGEABLE: return "pageable";
    case MEM_PINNED: return "pinned";
    case MEM_DEVICE: return "device";
    default: return "host";
    }
}

bool mem_kind_parse(const char *s, mem_kind *out)
{
    static const struct { const char *name; mem_kind kind; } kinds[] = {
        {"pageable", MEM_PAGEABLE}, {"pinned", MEM_PINNED}, {"device", MEM_DEVICE}, {"host", MEM_UNKNOWN},
    };
    for (int i = 0; i < COUNT(kinds); i++)
        if (s && strcmp(s, kinds[i].name) == 0) {
            *out = kinds[i].kind;
            return true;
        }
    return false;
}

void workload_label(const workload_run *w, char *buf, size_t len)
{
    if (w->needs_gpu && (w->host_memory == MEM_PAGEABLE || w->host_memory == MEM_PINNED))
        snprintf(buf, len, "%s (%s)", w->name, mem_kind_name(w->host_memory));
    else
        snprintf(buf, len, "%s", w->name);
}
