/* The Kineto importer on a large trace: wall time and peak memory.
 *
 *   bench_import [SOURCE [MB]]   builds a trace of about MB megabytes (default 100) in a temporary
 *                                directory by repeating SOURCE's trace events, each copy shifted
 *                                in time and in correlation id, then imports it three times, each
 *                                in a fresh process, and prints the median and spread of the wall
 *                                time and of the peak RSS, and RSS over the file's size
 *   bench_import --import FILE   one import in this process: prints "seconds rss_kb events"
 *
 * The copies are written without indentation, so a megabyte holds more events than Kineto's own
 * indented output: memory per byte of file is higher than for a real trace of the same size. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import.h"
#include "test_support.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int import_once(const char *path)
{
    run_model m;
    model_init(&m);
    char err[512];
    double t0 = now_s();
    bool ok = import_kineto(path, &m, err, sizeof err);
    double dt = now_s() - t0;
    if (!ok) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const event_list *e = &m.events;
    printf("%.3f %ld %zu\n", dt, ru.ru_maxrss, e->nkernels + e->ncopies + e->nmemsets + e->napis + e->nsyncs);
    model_free(&m);
    return 0;
}

/* Adds by to the number item key of obj, where there is one. */
static void shift(cJSON *obj, const char *key, double by)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(v))
        cJSON_SetNumberValue(v, v->valuedouble + by);
}

/* Writes SOURCE's top-level fields and its events repeated until the file reaches bytes. */
static bool build_trace(const char *source, const char *out, long bytes)
{
    char *text = read_file(source, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON *events = cJSON_DetachItemFromObject(root, "traceEvents");
    if (!cJSON_IsArray(events)) {
        fprintf(stderr, "%s: not a trace with traceEvents\n", source);
        cJSON_Delete(root);
        cJSON_Delete(events);
        return false;
    }
    /* One copy's length in time and in correlation ids: each copy starts after the last ended. */
    double lo = 1e300, hi = -1e300, corr = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events) {
        const cJSON *ts = cJSON_GetObjectItem(ev, "ts"), *dur = cJSON_GetObjectItem(ev, "dur");
        const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "args"), "correlation");
        if (cJSON_IsNumber(ts) && ts->valuedouble < lo)
            lo = ts->valuedouble;
        if (cJSON_IsNumber(ts) && ts->valuedouble + (cJSON_IsNumber(dur) ? dur->valuedouble : 0) > hi)
            hi = ts->valuedouble + (cJSON_IsNumber(dur) ? dur->valuedouble : 0);
        if (cJSON_IsNumber(c) && c->valuedouble > corr)
            corr = c->valuedouble;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return false;
    }
    fputs("{", f);
    const cJSON *field;
    cJSON_ArrayForEach(field, root) {
        char *v = cJSON_PrintUnformatted(field);
        fprintf(f, "\"%s\": %s,\n", field->string, v);
        free(v);
    }
    fputs("\"traceEvents\": [\n", f);
    bool first = true;
    for (long rep = 0; ftell(f) < bytes; rep++) {
        cJSON_ArrayForEach(ev, events) {
            cJSON *copy = cJSON_Duplicate(ev, true);
            shift(copy, "ts", (double)rep * (hi - lo + 1.0));
            shift(copy, "id", (double)rep * corr);
            shift(cJSON_GetObjectItem(copy, "args"), "correlation", (double)rep * corr);
            char *v = cJSON_PrintUnformatted(copy);
            fprintf(f, "%s%s", first ? "" : ",\n", v);
            first = false;
            free(v);
            cJSON_Delete(copy);
        }
    }
    fputs("\n]}\n", f);
    cJSON_Delete(root);
    cJSON_Delete(events);
    return fclose(f) == 0;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--import") == 0)
        return import_once(argv[2]);
    const char *source = argc > 1 ? argv[1] : "tests/data/kineto/matmul_copies.json";
    long mb = argc > 2 ? atol(argv[2]) : 100;
    char *dir = make_temp_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/big.kineto.json", dir ? dir : "/tmp");
    if (!dir || !build_trace(source, path, mb << 20)) {
        rm_rf(dir);
        return 1;
    }
    struct stat st;
    stat(path, &st);
    printf("trace: %.1f MB from %s\n", (double)st.st_size / 1e6, source);
    enum { RUNS = 3 };
    double secs[RUNS], rss[RUNS];
    size_t events = 0;
    for (int i = 0; i < RUNS; i++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "/proc/%d/exe --import '%s'", (int)getpid(), path);
        FILE *p = popen(cmd, "r");
        long kb = 0;
        if (!p || fscanf(p, "%lf %ld %zu", &secs[i], &kb, &events) != 3 || pclose(p) != 0) {
            fprintf(stderr, "import run %d failed\n", i + 1);
            rm_rf(dir);
            return 1;
        }
        rss[i] = (double)kb * 1024.0;
        printf("run %d: %.3f s, peak RSS %.1f MB, %zu events\n", i + 1, secs[i], rss[i] / 1e6, events);
    }
    qsort(secs, RUNS, sizeof secs[0], by_double);
    qsort(rss, RUNS, sizeof rss[0], by_double);
    printf("wall time: median %.3f s (spread %.3f-%.3f s)\n", secs[1], secs[0], secs[2]);
    printf("peak RSS: median %.1f MB (spread %.1f-%.1f MB), %.2fx the file's size\n", rss[1] / 1e6, rss[0] / 1e6,
           rss[2] / 1e6, rss[1] / (double)st.st_size);
    rm_rf(dir);
    free(dir);
    return 0;
}
