/* The registry's tables (tables.h) against the outputs, on runs recorded on the H200.
 *
 * The CSV is the tables' walk written out (csv.c enumerates nothing), so its rows per table are
 * the walk's; the JSON document is written by its own code (json_report.c). Each declaration says
 * where the JSON keeps its rows: for every sample here, every table's rows in the CSV must be
 * exactly as many as the JSON holds at that path. A table declared and not in the JSON (or rows
 * the one filters and the other does not) fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "tables.h"
#include "test_support.h"

/* Runs recorded on the H200 that, between them, have rows in nearly every table. */
static const char *const samples[] = {
    "samples/h200-profile-capture.json",   /* capture windows, streams, accounts, memory, groups */
    "samples/h200-profile-torch.json",     /* memory holders, leaks, ranges; host views and sites */
    "samples/h200-profile-host-gaps.json", /* idle stretches with host views */
    "samples/h200-profile-counters.json",  /* profile --counters: launches */
    "samples/h200-2048-counters.json",     /* built-in workloads and their kernels */
    "samples/h200-ddp-torchrun.json.xz",   /* ranks, GPUs, stragglers */
    "samples/h200-sweep-64-8192.json.xz",  /* a sweep's points and crossovers */
    "samples/h200x2-devices-2048.json.xz", /* a --devices run */
};
#define NSAMPLES ((int)(sizeof samples / sizeof samples[0]))

/* Tables no sample above has a row of, each with why; any other table must have rows in one. */
static const table_decl *const no_sample[] = {
    /* an out-of-memory death and what was live at it: recorded by the GPU tests
     * (tests/memory_gpu.sh), no committed sample has one */
    &table_failure, &table_holder_fail,
};

/* The document's analysis.listed_regions, for "[listed]". */
static const cJSON *listed_regions;

static bool is_listed(int index)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, listed_regions) if (cJSON_IsNumber(e) && e->valueint == index) return true;
    return false;
}

/* Elements at path under node: a dotted path whose "[]" steps into every element of an array
 * ("[listed]" into those listed_regions names); the last member counts its elements when an array,
 * 1 when an object or a value, 0 when absent or null. */
static int count_at(const cJSON *node, const char *path)
{
    if (!node)
        return 0;
    if (!*path)
        return cJSON_IsArray(node) ? cJSON_GetArraySize(node) : cJSON_IsNull(node) ? 0 : 1;
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    char name[64];
    assert_true(len < sizeof name);
    memcpy(name, path, len);
    name[len] = '\0';
    const char *rest = dot ? dot + 1 : "";
    bool each = len > 2 && strcmp(name + len - 2, "[]") == 0;
    bool listed = len > 8 && strcmp(name + len - 8, "[listed]") == 0;
    if (each || listed)
        name[len - (listed ? 8 : 2)] = '\0';
    const cJSON *child = cJSON_GetObjectItemCaseSensitive(node, name);
    if (!(each || listed) || cJSON_IsObject(child)) /* an object's "[]" is the object: a workload's metrics */
        return count_at(child, rest);
    int n = 0, index = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, child) n += !listed || is_listed(index++) ? count_at(e, rest) : 0;
    return n;
}

/* The declaration's full paths from the document ("a, b" alternatives each count): a table under
 * another is under every element of the parent's paths, unless the parent has none (a grouping:
 * then the path is the document's). */
static int full_paths(const table_decl *d, char paths[][256], int max)
{
    int n = 0;
    char own[256];
    snprintf(own, sizeof own, "%s", d->json);
    char parents[4][256];
    int np = d->parent && d->parent->json ? full_paths(d->parent, parents, 4) : 0;
    for (char *save = NULL, *p = strtok_r(own, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        while (*p == ' ')
            p++;
        if (np == 0) {
            assert_true(n < max);
            snprintf(paths[n++], 256, "%s", p);
        }
        for (int k = 0; k < np; k++) {
            assert_true(n < max);
            snprintf(paths[n++], 256, "%s[].%s", parents[k], p);
        }
    }
    return n;
}

/* CSV rows of a row kind (the first field of each line past the header: a kind, never quoted).
 * A plain loop: ASan's strstr measures the whole rest of the string on every call. */
static int csv_rows(const char *csv, const char *kind)
{
    int n = 0;
    size_t len = strlen(kind);
    bool header = true;
    for (const char *line = csv; *line;) {
        if (!header && strncmp(line, kind, len) == 0 && line[len] == ',')
            n++;
        header = false;
        while (*line && *line != '\n')
            line++;
        if (*line)
            line++;
    }
    return n;
}

/* The outputs come from build/mmprof (uninstrumented: the samples are large), the declarations
 * from the code linked here: the CSV is their walk, so its rows of a kind are the walk's, and the
 * JSON must hold as many at the paths the declarations of that name give. */
static void every_table_has_the_json_rows_it_declares(void **state)
{
    (void)state;
    bool seen[TABLES_MAX] = {false};
    char *dir = make_temp_dir();
    char json_path[512], csv_path[512];
    snprintf(json_path, sizeof json_path, "%s/run.json", dir);
    snprintf(csv_path, sizeof csv_path, "%s/run.csv", dir);
    for (int s = 0; s < NSAMPLES; s++) {
        const char *argv[] = {mmprof_bin(), "report", samples[s], "--quiet", "--json", json_path, "--csv", csv_path, NULL};
        cmd_result r = run_argv(argv, NULL);
        if (r.status != 0)
            fail_msg("mmprof report %s exited %d: %s", samples[s], r.status, r.err);
        cmd_free(&r);
        char *json = read_file(json_path, NULL);
        char *csv = read_file(csv_path, NULL);
        assert_non_null(json);
        assert_non_null(csv);
        cJSON *doc = cJSON_Parse(json);
        assert_non_null(doc);
        listed_regions = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "analysis"),
                                                          "listed_regions");
        for (int k = 0; k < report_ntables; k++) {
            const table_decl *d = report_tables[k];
            if (!d->figures || table_named(d->name) != d)
                continue;
            /* a table listed under two parents (a memory series' holders, a failure's): the
             * JSON's rows at every declaration's paths together */
            int in_json = 0;
            for (int j = 0; j < report_ntables; j++) {
                if (strcmp(report_tables[j]->name, d->name) != 0)
                    continue;
                char paths[8][256];
                int np = full_paths(report_tables[j], paths, 8), here = 0;
                for (int p = 0; p < np; p++)
                    here += count_at(doc, paths[p]);
                seen[j] |= here > 0;
                in_json += here;
            }
            int in_csv = csv_rows(csv, d->name);
            if (in_json != in_csv)
                fail_msg("%s: table %s (%s): %d rows in the CSV, %d in the JSON at %s", samples[s], d->name, d->what,
                         in_csv, in_json, d->json);
        }
        cJSON_Delete(doc);
        free(json);
        free(csv);
    }
    rm_rf(dir);
    free(dir);
    for (int k = 0; k < report_ntables; k++) {
        const table_decl *d = report_tables[k];
        bool listed = false;
        for (size_t j = 0; j < sizeof no_sample / sizeof no_sample[0]; j++)
            listed |= d == no_sample[j];
        if (d->figures && !seen[k] && !listed)
            fail_msg("table %s (%s) has no row in any sample here: add one that has", d->name, d->what);
        if (seen[k] && listed)
            fail_msg("table %s (%s) has rows now: take it off no_sample", d->name, d->what);
    }
}

/* Every declaration is whole: a name, a row source, a JSON path (a grouping aside), an order and
 * what a row is; figures that are a registry table; a parent declared before it; and no two
 * declarations of one name with other figures. */
static void every_declaration_is_whole(void **state)
{
    (void)state;
    assert_true(report_ntables <= TABLES_MAX);
    for (int k = 0; k < report_ntables; k++) {
        const table_decl *d = report_tables[k];
        assert_non_null(d->name);
        assert_null(strchr(d->name, ' '));
        assert_non_null(d->count);
        assert_non_null(d->row);
        assert_non_null(d->order);
        assert_non_null(d->what);
        if (d->figures) {
            assert_non_null(d->json);
            bool registered = false;
            for (int t = 0; t < metric_ntables; t++)
                registered |= metric_tables[t] == d->figures;
            if (!registered)
                fail_msg("table %s: its figures are not among metric_tables", d->name);
        }
        const table_decl *first = table_named(d->name);
        assert_ptr_equal(first->figures, d->figures);
        if (d->parent) {
            bool before = false;
            for (int j = 0; j < k; j++)
                before |= report_tables[j] == d->parent;
            if (!before)
                fail_msg("table %s: its parent %s is declared after it", d->name, d->parent->name);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_declaration_is_whole),
        cmocka_unit_test(every_table_has_the_json_rows_it_declares),
    };
    return cmocka_run_group_tests_name("tables", tests, NULL, NULL);
}
