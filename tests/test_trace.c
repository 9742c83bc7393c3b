/* The Chrome trace, checked structurally: valid JSON; every complete ('X') event has a name, ts,
 * dur, pid and tid; one 'X' per kernel, copy and call, each the model's event once; every process
 * and thread named; ranges on one thread nest, so Perfetto needs no overflow track; hostile names
 * survive as data. */
#include <cjson/cJSON.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "hostile_model.h"
#include "test_support.h"
#include "trace.h"

/* The trace of a model, parsed; fails the test when it is not JSON. */
static cJSON *trace_of(const run_model *m)
{
    analysis a;
    assert_true(analyze(m, &a));
    char *text = render_trace(&a);
    analysis_free(&a);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    if (!doc)
        fail_msg("the trace is not valid JSON near: %.80s", cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "?");
    free(text);
    cJSON *events = cJSON_GetObjectItemCaseSensitive(doc, "traceEvents");
    assert_true(cJSON_IsArray(events));
    return doc;
}

static cJSON *events_of(cJSON *doc)
{
    return cJSON_GetObjectItemCaseSensitive(doc, "traceEvents");
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return false;
    *out = v->valuedouble;
    return true;
}

static bool is_x(const cJSON *e)
{
    const char *ph = str(e, "ph");
    return ph && strcmp(ph, "X") == 0;
}

static void complete_events_have_their_fields(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    cJSON *doc = trace_of(&m);
    int x = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        const char *ph = str(e, "ph");
        assert_non_null(ph);
        /* Complete events and metadata; flow ends ('s', 'f') and the busy counter ('C'). */
        assert_true(strcmp(ph, "X") == 0 || strcmp(ph, "M") == 0 || strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0 ||
                    strcmp(ph, "C") == 0);
        double v;
        assert_true(num(e, "pid", &v));
        assert_true(strcmp(ph, "C") == 0 || num(e, "tid", &v)); /* a counter belongs to its process */
        assert_non_null(str(e, "name"));
        if (!is_x(e))
            continue;
        x++;
        assert_true(num(e, "ts", &v));
        assert_true(num(e, "dur", &v));
        assert_true(v >= 0);
        assert_non_null(str(e, "cat"));
        assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(e, "args")));
    }
    assert_true(x > 0);
    cJSON_Delete(doc);
    model_free(&m);
}

static int count_cat(cJSON *doc, const char *cat)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc))
        n += is_x(e) && str(e, "cat") && strcmp(str(e, "cat"), cat) == 0;
    return n;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The slices of category cat are the model's events of that kind, each once: their start and
 * correlation id (in args) sorted, against those of the n events given (start_ns and correlation
 * at those offsets in records of size bytes). */
static void slices_are_events_once(cJSON *doc, const char *cat, const void *events, size_t n, size_t size,
                                   size_t start_at, size_t corr_at, int64_t epoch)
{
    long long *want = malloc((n ? n : 1) * 2 * sizeof *want), *got = malloc((n ? n : 1) * 2 * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++) {
        const char *r = (const char *)events + i * size;
        int64_t start;
        uint32_t corr;
        memcpy(&start, r + start_at, sizeof start);
        memcpy(&corr, r + corr_at, sizeof corr);
        want[i] = (long long)(start - epoch) * 4096 + corr % 4096; /* start in ns, then the id */
    }
    size_t k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        if (!is_x(e) || !str(e, "cat") || strcmp(str(e, "cat"), cat) != 0)
            continue;
        double ts, corr;
        assert_true(num(e, "ts", &ts));
        assert_true(num(cJSON_GetObjectItemCaseSensitive(e, "args"), "correlation", &corr));
        assert_true(k < n);
        got[k++] = llround(ts * 1000) * 4096 + (long long)corr % 4096;
    }
    assert_int_equal(k, n);
    qsort(want, n, sizeof *want, cmp_ll);
    qsort(got, n, sizeof *got, cmp_ll);
    for (size_t i = 0; i < n; i++)
        assert_true(want[i] == got[i]);
    free(want);
    free(got);
}

static void one_event_per_kernel_copy_and_call(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    cJSON *doc = trace_of(&m);
    /* Every event of the store, the run's own (outside every workload) too. */
    size_t kernels = m.events.nkernels, copies = m.events.ncopies, apis = m.events.napis, phases = 0;
    for (int i = 0; i < m.builtin.nworkloads; i++)
        phases += (size_t)m.builtin.workloads[i].nphases;
    assert_true(kernels > 0 && copies > 0);
    assert_int_equal(count_cat(doc, "kernel"), kernels);
    assert_int_equal(count_cat(doc, "memcpy"), copies);
    assert_int_equal(count_cat(doc, "cuda_api"), apis);
    assert_int_equal(count_cat(doc, "nvtx"), phases + (size_t)m.builtin.ntool_phases);
    assert_int_equal(count_cat(doc, "workload"), m.builtin.nworkloads);
    /* Each of them once, none twice in another's place (the slices are sorted in place). */
    slices_are_events_once(doc, "kernel", m.events.kernels, kernels, sizeof *m.events.kernels,
                           offsetof(kernel_event, start_ns), offsetof(kernel_event, correlation), m.epoch_ns);
    slices_are_events_once(doc, "memcpy", m.events.copies, copies, sizeof *m.events.copies,
                           offsetof(copy_event, start_ns), offsetof(copy_event, correlation), m.epoch_ns);
    slices_are_events_once(doc, "cuda_api", m.events.apis, apis, sizeof *m.events.apis,
                           offsetof(api_event, start_ns), offsetof(api_event, correlation), m.epoch_ns);
    cJSON_Delete(doc);
    model_free(&m);
}

typedef struct {
    int pid, tid;
    long long ts, end; /* nanoseconds, exact: the trace writes microseconds to three decimals */
    const char *name;
} span;

static int cmp_span(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid - b->pid;
    if (a->tid != b->tid)
        return a->tid - b->tid;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->end < b->end) - (a->end > b->end);
}

/* On every thread, each range either starts after the enclosing one has ended or ends inside it. */
static void assert_nested(cJSON *doc)
{
    size_t n = (size_t)cJSON_GetArraySize(events_of(doc)), k = 0;
    span *s = calloc(n, sizeof *s);
    long long *stack = calloc(n, sizeof *stack);
    const char **names = calloc(n, sizeof *names);
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        if (!is_x(e))
            continue;
        double pid, tid, ts, dur;
        assert_true(num(e, "pid", &pid) && num(e, "tid", &tid) && num(e, "ts", &ts) && num(e, "dur", &dur));
        s[k++] = (span){(int)pid, (int)tid, llround(ts * 1000), llround(ts * 1000) + llround(dur * 1000), str(e, "name")};
    }
    qsort(s, k, sizeof *s, cmp_span);
    size_t depth = 0;
    for (size_t i = 0; i < k; i++) {
        if (i > 0 && (s[i].pid != s[i - 1].pid || s[i].tid != s[i - 1].tid))
            depth = 0;
        while (depth > 0 && stack[depth - 1] <= s[i].ts)
            depth--;
        if (depth > 0 && s[i].end > stack[depth - 1])
            fail_msg("pid %d tid %d: '%s' [%lld, %lld] overlaps '%s' ending %lld without nesting", s[i].pid, s[i].tid,
                     s[i].name, s[i].ts, s[i].end, names[depth - 1], stack[depth - 1]);
        names[depth] = s[i].name;
        stack[depth++] = s[i].end;
    }
    free(s);
    free(stack);
    free(names);
}

static void ranges_nest_on_every_thread(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    cJSON *doc = trace_of(&m);
    assert_nested(doc);
    cJSON_Delete(doc);
    model_free(&m);
}

/* The name an 'M' event gives (pid, tid), or NULL. */
static const char *meta_name(cJSON *doc, const char *what, int pid, int tid)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        double p, t;
        const char *ph = str(e, "ph"), *name = str(e, "name");
        if (ph && strcmp(ph, "M") == 0 && name && strcmp(name, what) == 0 && num(e, "pid", &p) && num(e, "tid", &t) &&
            (int)p == pid && (int)t == tid)
            return str(cJSON_GetObjectItemCaseSensitive(e, "args"), "name");
    }
    return NULL;
}

static void processes_and_threads_are_named(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    cJSON *doc = trace_of(&m);
    const cJSON *e;
    bool host = false, gpu = false;
    cJSON_ArrayForEach(e, events_of(doc)) {
        if (!is_x(e))
            continue;
        double pid, tid;
        assert_true(num(e, "pid", &pid) && num(e, "tid", &tid));
        const char *pname = meta_name(doc, "process_name", (int)pid, 0);
        const char *tname = meta_name(doc, "thread_name", (int)pid, (int)tid);
        if (!pname || !tname)
            fail_msg("pid %d tid %d has no %s name", (int)pid, (int)tid, pname ? "thread" : "process");
        const char *cat = str(e, "cat");
        if (strcmp(cat, "kernel") == 0) {
            assert_non_null(strstr(pname, "NVIDIA H200"));
            assert_true(strncmp(tname, "stream ", 7) == 0);
            gpu = true;
        } else if (strcmp(cat, "memcpy") == 0) {
            assert_true(strstr(tname, "H2D copies") || strstr(tname, "D2H copies"));
        } else {
            assert_non_null(strstr(pname, "host"));
            host = true;
        }
    }
    assert_true(host && gpu);
    cJSON_Delete(doc);
    model_free(&m);
}

/* The first kernel and the first copy of cuda-naive carry their figures, at the right time. */
static void events_carry_their_figures(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    cJSON *doc = trace_of(&m);
    const workload_run *w = NULL;
    for (int i = 0; i < m.builtin.nworkloads && !w; i++)
        if (strcmp(m.builtin.workloads[i].name, "cuda-naive") == 0 && m.builtin.workloads[i].host_memory == MEM_PAGEABLE)
            w = &m.builtin.workloads[i];
    assert_non_null(w);
    event_list ev = owned_events(&m, w);
    const kernel_event *k = &ev.kernels[0];
    const copy_event *c = &ev.copies[0];
    bool saw_kernel = false, saw_copy = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        if (!is_x(e))
            continue;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        double ts, dur, v;
        assert_true(num(e, "ts", &ts) && num(e, "dur", &dur));
        long long ts_ns = llround(ts * 1000), dur_ns = llround(dur * 1000);
        if (!saw_kernel && strcmp(str(e, "cat"), "kernel") == 0 && ts_ns == k->start_ns - m.epoch_ns) {
            saw_kernel = true;
            assert_int_equal(dur_ns, k->end_ns - k->start_ns);
            assert_string_equal(str(e, "name"), "mmprof_naive");
            assert_string_equal(str(args, "grid"), "128x128x1");
            assert_string_equal(str(args, "block"), "16x16x1");
            assert_true(num(args, "registers", &v) && v == 32);
            assert_true(num(args, "occupancy_pct", &v) && v == 100);
            assert_string_equal(str(args, "occupancy_limiter"), "none");
            assert_string_equal(str(args, "workload"), "cuda-naive (pageable)");
        }
        if (!saw_copy && strcmp(str(e, "cat"), "memcpy") == 0 && ts_ns == c->start_ns - m.epoch_ns) {
            saw_copy = true;
            assert_int_equal(dur_ns, c->end_ns - c->start_ns);
            assert_true(num(args, "bytes", &v) && v == (double)c->bytes);
            /* The copy's bytes over its duration, as the registry formats a copy's GB/s. */
            assert_true(num(args, "GB/s", &v));
            metric gbps;
            metric_set(&gbps, (double)c->bytes / (double)(c->end_ns - c->start_ns));
            char want[32];
            metric_format(metric_find(&copy_flow_table, "gbps"), &gbps, false, want, sizeof want);
            assert_true(v == strtod(want, NULL));
            assert_string_equal(str(args, "src"), "pageable");
        }
    }
    assert_true(saw_kernel && saw_copy);
    /* The run's matrix size, which only a built-in run has. */
    double n;
    assert_true(num(cJSON_GetObjectItemCaseSensitive(doc, "otherData"), "n", &n) && n == m.builtin.n);
    events_clear(&ev);
    cJSON_Delete(doc);
    model_free(&m);
}

/* Two kernels on one stream that overlap without nesting (as cudaEvent timing of concurrent
 * work can record) go to two threads of that stream's name, and everything still nests. */
static void overlapping_ranges_get_a_second_thread(void **state)
{
    (void)state;
    run_model m;
    hostile_model(&m);
    /* the second workload's first two kernels */
    kernel_event *k[2] = {NULL, NULL};
    for (size_t i = 0; i < m.events.nkernels && !k[1]; i++)
        if (m.events.kernels[i].region == m.builtin.workloads[1].region)
            k[k[0] ? 1 : 0] = &m.events.kernels[i];
    assert_non_null(k[1]);
    k[1]->start_ns = k[0]->start_ns + 50000;
    k[1]->end_ns = k[0]->end_ns + 50000;
    cJSON *doc = trace_of(&m);
    assert_nested(doc);
    bool first = false, second = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        const char *name = str(e, "name"), *tn = str(cJSON_GetObjectItemCaseSensitive(e, "args"), "name");
        if (name && strcmp(name, "thread_name") == 0 && tn) {
            first |= strcmp(tn, "stream 7") == 0;
            second |= strcmp(tn, "stream 7 (2)") == 0;
        }
    }
    assert_true(first && second);
    assert_int_equal(count_cat(doc, "kernel"), 2);
    cJSON_Delete(doc);
    model_free(&m);
}

/* Names with quotes, backslashes, control characters, markup and bytes that are not UTF-8
 * still make valid JSON, and come back as written (the invalid byte as U+FFFD). */
static void hostile_names_stay_data(void **state)
{
    (void)state;
    run_model m;
    hostile_model(&m);
    cJSON *doc = trace_of(&m);
    bool plain = false, odd = false, api = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, events_of(doc)) {
        const char *name = str(e, "name");
        if (!is_x(e) || !name)
            continue;
        plain |= strcmp(name, HOSTILE_KERNEL) == 0;
        odd |= strcmp(name, "k\"e\\y\x01\xef\xbf\xbd<script>") == 0;
        api |= strcmp(name, HOSTILE_API) == 0;
    }
    assert_true(plain && odd && api);
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(doc, "otherData");
    assert_string_equal(str(other, "command_line"), HOSTILE_COMMAND);
    assert_nested(doc);
    cJSON_Delete(doc);
    model_free(&m);
}

static int count_ph(cJSON *events, const char *ph)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const char *p = str(e, "ph");
        n += p && strcmp(p, ph) == 0;
    }
    return n;
}

/* A profiled program: its own events and its NVTX range are in the trace, API calls read without
 * their version suffix, each launch has a flow arrow to its kernel or copy (11 kernels and one
 * copy, all launched by recorded calls), the GPU has a busy counter, and no matrix size is
 * claimed. */
static void timeline_events_flows_and_counter(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    cJSON *doc = trace_of(&m);
    cJSON *events = events_of(doc);
    int kernels = 0, calls = 0, ranges = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const char *cat = str(e, "cat"), *name = str(e, "name");
        if (!is_x(e))
            continue;
        kernels += strcmp(cat, "kernel") == 0;
        if (strcmp(cat, "cuda_api") == 0) {
            calls++;
            assert_null(strstr(name, "_v"));
            assert_true(strcmp(name, "cudaLaunchKernel") == 0 || strcmp(name, "cudaMemcpy") == 0);
        }
        ranges += strcmp(cat, "nvtx") == 0 && strcmp(name, "train") == 0;
    }
    assert_int_equal(kernels, 11);
    assert_int_equal(calls, 12);
    assert_int_equal(ranges, 1);
    assert_int_equal(count_ph(events, "s"), 12);
    assert_int_equal(count_ph(events, "f"), 12);
    /* Each arrow starts where its call starts and ends where its kernel or copy starts. */
    cJSON_ArrayForEach(e, events)
    {
        const char *ph = str(e, "ph");
        if (!ph || strcmp(ph, "f") != 0)
            continue;
        assert_string_equal(str(e, "bp"), "e");
    }
    /* The counter: busy from the copy's start; 0 after the last kernel. */
    int counters = 0;
    double last = -1;
    cJSON_ArrayForEach(e, events)
    {
        const char *ph = str(e, "ph");
        if (!ph || strcmp(ph, "C") != 0)
            continue;
        counters++;
        assert_string_equal(str(e, "name"), "GPU busy");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        assert_true(num(args, "busy %", &last));
        assert_true(last >= 0 && last <= 100);
    }
    assert_true(counters >= 3);
    assert_close(last, 0, 0);
    /* A program has no matrix size: none is given, rather than 0. */
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "otherData"), "n"));
    cJSON_Delete(doc);
    model_free(&m);
}

static void api_names_lose_their_version(void **state)
{
    (void)state;
    char buf[64];
    api_display_name("cudaLaunchKernel_v7000", buf, sizeof buf);
    assert_string_equal(buf, "cudaLaunchKernel");
    api_display_name("cuLaunchKernel", buf, sizeof buf);
    assert_string_equal(buf, "cuLaunchKernel");
    api_display_name("cudaMemcpy_v3020", buf, sizeof buf);
    assert_string_equal(buf, "cudaMemcpy");
    api_display_name("my_var", buf, sizeof buf); /* not a version */
    assert_string_equal(buf, "my_var");
    api_display_name("cuda_v", buf, sizeof buf);
    assert_string_equal(buf, "cuda_v");
}

static const char *windowed_words(cJSON *doc)
{
    return str(cJSON_GetObjectItemCaseSensitive(doc, "otherData"), "windowed");
}

/* What trace_window_note says of m's trace. */
static char *note_of(const run_model *m)
{
    analysis a;
    assert_true(analyze(m, &a));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    trace_window_note(&a, "t.json", f);
    fclose(f);
    analysis_free(&a);
    return text;
}

/* Past the budget (lowered here from a million) the trace keeps the GPU work and the ranges whole
 * and the API calls that start before the cut, the earliest; says so in otherData and on stderr;
 * when the GPU work alone is over, that is cut at the same time as the rest. Under the budget
 * nothing is left out or said. */
static void long_run_is_windowed(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    cJSON *doc = trace_of(&m);
    int kernels = count_cat(doc, "kernel"), copies = count_cat(doc, "memcpy"),
        calls = count_cat(doc, "cuda_api"), ranges = count_cat(doc, "nvtx");
    assert_null(windowed_words(doc));
    cJSON_Delete(doc);
    char *note = note_of(&m);
    assert_true(note == NULL || note[0] == '\0');
    free(note);

    /* Room for the GPU work, the ranges and 5 calls: the 5 that start first (by the model). */
    trace_max_events = (size_t)(kernels + copies + ranges + 5);
    int64_t starts[64];
    int n = (int)m.events.napis;
    assert_true(n <= 64 && n > 6);
    for (int i = 0; i < n; i++)
        starts[i] = m.events.apis[i].start_ns;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && starts[j - 1] > starts[j]; j--) {
            int64_t x = starts[j];
            starts[j] = starts[j - 1], starts[j - 1] = x;
        }
    int kept = 5;
    while (kept > 0 && starts[kept - 1] == starts[5])
        kept--;
    doc = trace_of(&m);
    assert_int_equal(count_cat(doc, "kernel"), kernels);
    assert_int_equal(count_cat(doc, "memcpy"), copies);
    assert_int_equal(count_cat(doc, "nvtx"), ranges);
    assert_int_equal(count_cat(doc, "cuda_api"), kept);
    assert_true(kept < calls);
    const char *words = windowed_words(doc);
    assert_non_null(words);
    char keeps[64];
    snprintf(keeps, sizeof keeps, "this one keeps %d,", kernels + copies + ranges + kept);
    assert_non_null(strstr(words, keeps));
    assert_non_null(strstr(words, "its kernels, copies, NVTX ranges and capture windows whole"));
    note = note_of(&m);
    assert_non_null(strstr(note, "note: --trace 't.json': "));
    assert_non_null(strstr(note, words));
    free(note);
    cJSON_Delete(doc);

    /* Room for 3 slices past the ranges: the GPU work is cut too, at the same time. */
    trace_max_events = (size_t)(ranges + 3);
    doc = trace_of(&m);
    int gpu = count_cat(doc, "kernel") + count_cat(doc, "memcpy");
    assert_true(gpu + count_cat(doc, "cuda_api") <= 3);
    assert_true(gpu < kernels + copies);
    assert_int_equal(count_cat(doc, "nvtx"), ranges);
    assert_non_null(strstr(windowed_words(doc), "whole and the rest of its first"));
    cJSON_Delete(doc);
    trace_max_events = TRACE_MAX_EVENTS;
    model_free(&m);
}

/* A trace too large for chrome://tracing is said, with its size; one that fits is not. */
static void too_large_trace_is_warned(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    trace_size_warning(TRACE_VIEWER_MAX_BYTES, "fits.json", f);
    fflush(f);
    assert_int_equal(len, 0);
    trace_size_warning((size_t)300 << 20, "big.json", f);
    fclose(f);
    assert_non_null(strstr(text, "'big.json' is 315 MB"));
    assert_non_null(strstr(text, "at most 256 MB"));
    free(text);
}

/* The trace handed over as it is written is the trace rendered whole: the built-in sample's
 * 6 MB a MiB at a time, and a profile's (its launch flows joined to the events: the line before
 * each is already handed over) after every event. */
static void streamed_is_whole(const char *path, size_t spill_at, int least)
{
    run_model m;
    load_run(path, &m);
    analysis a;
    assert_true(analyze(&m, &a));
    kept_text k;
    text_sink sink = kept_sink(&k);
    char err[128];
    trace_spill_bytes = spill_at;
    assert_true(render_trace_to(&a, &sink, err, sizeof err));
    trace_spill_bytes = 1u << 20;
    assert_kept_whole(&k, render_trace(&a), least, path);
    analysis_free(&a);
    model_free(&m);
}

static void streamed_in_pieces_as_whole(void **state)
{
    (void)state;
    streamed_is_whole("samples/h200-2048.json", 1u << 20, 6);
    streamed_is_whole("samples/h200-profile-cuda.json", 1, 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(complete_events_have_their_fields),
        cmocka_unit_test(too_large_trace_is_warned),
        cmocka_unit_test(one_event_per_kernel_copy_and_call),
        cmocka_unit_test(ranges_nest_on_every_thread),
        cmocka_unit_test(processes_and_threads_are_named),
        cmocka_unit_test(events_carry_their_figures),
        cmocka_unit_test(overlapping_ranges_get_a_second_thread),
        cmocka_unit_test(hostile_names_stay_data),
        cmocka_unit_test(timeline_events_flows_and_counter),
        cmocka_unit_test(api_names_lose_their_version),
        cmocka_unit_test(long_run_is_windowed),
        cmocka_unit_test(streamed_in_pieces_as_whole),
    };
    return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
