/* `mmprof import` through the real binary: each bad input gets a message on stderr naming the
 * file and what is wrong, exit status 2, and no output written (an output file that was there
 * stays as it was); good traces render every output; hostile names stay data; a trace on standard
 * input, through a pipe, a FIFO or /dev/stdin, gzip- or xz-compressed or not, imports as its file
 * does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "test_support.h"

#define KINETO_SAMPLE "samples/h200-matmul-copies.kineto.json"

static void exec_sql(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("sql: %s", err ? err : "?");
    sqlite3_close(h);
}

/* Imports input with --json and --html into dir; expects exit 2, a message naming the input
 * and containing want, and no output: a JSON file that was there before keeps its bytes. */
static void refused(const char *dir, const char *input, const char *want)
{
    char *json = path_in(dir, "out.json"), *html = path_in(dir, "out.html");
    assert_true(write_text(json, "previous contents\n"));
    unlink(html);
    const char *argv[] = {mmprof_bin(), "import", input, "--json", json, "--html", html, NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 2)
        fail_msg("import %s: exit %d, want 2 (stderr: %s)", input, r.status, r.err);
    if (!strstr(r.err, input))
        fail_msg("import %s: message does not name the file: %s", input, r.err);
    if (!strstr(r.err, want))
        fail_msg("import %s: message lacks '%s': %s", input, want, r.err);
    char *kept = read_file(json, NULL);
    assert_non_null(kept);
    assert_string_equal(kept, "previous contents\n");
    struct stat st;
    assert_int_not_equal(stat(html, &st), 0);
    free(kept);
    cmd_free(&r);
    free(json);
    free(html);
}

static void bad_json_traces(void **state)
{
    const char *dir = *state;
    char *sample = read_file(KINETO_SAMPLE, NULL);
    assert_non_null(sample);
    char *cut = path_in(dir, "cut.json");
    FILE *f = fopen(cut, "w");
    assert_non_null(f);
    fwrite(sample, 1, strlen(sample) / 2, f); /* truncated in the middle of the events */
    fclose(f);
    refused(dir, cut, "");

    char *text = path_in(dir, "notes.txt");
    assert_true(write_text(text, "not a trace at all\n"));
    refused(dir, text, "none of a PyTorch profiler trace (JSON), an Nsight Systems SQLite export or an Nsight "
                       "Compute CSV export");

    char *nogpu = path_in(dir, "cpu-only.json");
    assert_true(write_text(nogpu, "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", "
                                  "\"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 1.0, \"dur\": 2.0}]}"));
    refused(dir, nogpu, "no GPU activity");

    refused(dir, sample_path(), "mmprof run file");

    char *other = path_in(dir, "package.json");
    assert_true(write_text(other, "{\"name\": \"left-pad\", \"version\": \"1.3.0\"}"));
    refused(dir, other, "traceEvents");

    char *missing = path_in(dir, "no-such-file.json");
    refused(dir, missing, "No such file");
    free(sample), free(cut), free(text), free(nogpu), free(other), free(missing);
}

static void bad_sqlite_exports(void **state)
{
    const char *dir = *state;
    char *empty = path_in(dir, "empty.sqlite");
    exec_sql(empty, "CREATE TABLE unrelated(x INTEGER);");
    refused(dir, empty, "CUDA activity");

    char *typed = path_in(dir, "typed.sqlite");
    exec_sql(typed, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO StringIds VALUES (1, 'k');"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
                    " demangledName INTEGER, shortName INTEGER, registersPerThread INTEGER, gridX INTEGER,"
                    " gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
                    " staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, localMemoryPerThread INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('abc', 2, 0, 1, 7, 5, 1, 1, 1, 32, 1, 1, 1,"
                    " 128, 1, 1, 0, 0, 0);");
    refused(dir, typed, "start");

    /* A file that starts like SQLite and is cut short. */
    char *cut = path_in(dir, "cut.sqlite");
    assert_true(write_text(cut, "SQLite format 3"));
    FILE *f = fopen(cut, "ab");
    assert_non_null(f);
    fputc('\0', f);
    for (int i = 0; i < 90; i++)
        fputc('x', f);
    fclose(f);
    refused(dir, cut, "");
    free(empty), free(typed), free(cut);
}

/* The recorded trace renders to every output; the JSON reads back with `mmprof report`. */
static void good_trace_every_output(void **state)
{
    const char *dir = *state;
    char *json = path_in(dir, "t.json"), *html = path_in(dir, "t.html"), *trace = path_in(dir, "t.trace.json");
    const char *argv[] = {mmprof_bin(), "import", KINETO_SAMPLE, "--json", json, "--html", html, "--trace", trace, NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "copy-bound"));
    assert_non_null(strstr(r.out, "pin host memory"));
    cmd_free(&r);
    const char *again[] = {mmprof_bin(), "report", json, "--color", "never", NULL};
    r = run_argv(again, NULL);
    if (r.status != 0)
        fail_msg("report of the imported run: exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "PyTorch profiler trace"));
    assert_non_null(strstr(r.out, "pageable"));
    cmd_free(&r);
    char *page = read_file(html, NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "class=\"regions"));
    free(page), free(json), free(html), free(trace);
}

/* Two ranks' traces made from the recorded train step (distributedInfo put in, as torch.profiler
 * writes it under torch.distributed): imported together, one rank row each and ranks in the JSON. */
static void rank_traces_merge_by_rank(void **state)
{
    const char *dir = *state;
    char *sample = read_file("samples/h200-train-step.kineto.json", NULL);
    assert_non_null(sample);
    const char *open = sample + strspn(sample, " \t\r\n");
    assert_int_equal(*open, '{');
    char *paths[2];
    for (int rank = 0; rank < 2; rank++) {
        char name[32];
        snprintf(name, sizeof name, "rank%d.json", rank);
        paths[rank] = path_in(dir, name);
        FILE *f = fopen(paths[rank], "w");
        assert_non_null(f);
        fprintf(f, "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2, \"pg_count\": 1, "
                   "\"pg_config\": [], \"nccl_version\": \"2.27.5\"},%s", rank, open + 1);
        fclose(f);
    }
    free(sample);
    char *json = path_in(dir, "merged.json");
    const char *argv[] = {mmprof_bin(), "import", paths[0], paths[1], "--json", json, "--color", "never", NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    const char *ranks = strstr(r.out, "\nRanks  2 ranks");
    if (!ranks)
        fail_msg("no rank analysis of 2 ranks in:\n%s", r.out);
    const char *row0 = strstr(ranks, "\nrank 0 GPU 0"), *row1 = strstr(ranks, "\nrank 1 GPU 1");
    assert_non_null(row0);
    assert_non_null(row1);
    assert_true(row0 < row1);
    assert_non_null(strstr(r.out, "rank 1 of 2, backend nccl"));
    cmd_free(&r);

    char *text = read_file(json, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    int seen[2] = {0, 0};
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(root, "processes")) {
        const cJSON *rank = cJSON_GetObjectItem(p, "rank");
        assert_true(cJSON_IsNumber(rank));
        assert_in_range(rank->valueint, 0, 1);
        seen[rank->valueint]++;
        assert_int_equal(cJSON_GetObjectItem(p, "world_size")->valueint, 2);
    }
    assert_true(seen[0] > 0 && seen[1] > 0);
    cJSON_Delete(root);
    free(paths[0]), free(paths[1]), free(json);
}

/* The real thing: a two-rank DDP step recorded under torch.profiler on two H200s
 * (tests/h200/record_kineto_ddp.py, one trace per rank). Each trace's rank comes from its own
 * distributedInfo, both ranks ran NCCL kernels on GPUs of their own, and each rank's shares of the
 * job's GPU window add up to 100%. */
static void recorded_ddp_traces_give_ranks(void **state)
{
    const char *dir = *state;
    char *json = path_in(dir, "ddp.json");
    const char *argv[] = {mmprof_bin(), "import", "samples/h200-ddp-rank0.kineto.json",
                          "samples/h200-ddp-rank1.kineto.json", "--json", json, "-q", NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    cmd_free(&r);
    char *text = read_file(json, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    const cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "ranks"), "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    int device[2];
    for (int i = 0; i < 2; i++) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        assert_int_equal(cJSON_GetObjectItem(row, "rank")->valueint, i);
        device[i] = cJSON_GetObjectItem(row, "device")->valueint;
        assert_true(cJSON_GetObjectItem(row, "nccl_kernels")->valueint > 0);
        double sum = 0;
        static const char *const parts[] = {"compute_pct", "comm_pct", "copy_pct", "idle_pct"};
        for (int k = 0; k < 4; k++)
            sum += cJSON_GetObjectItem(row, parts[k])->valuedouble;
        assert_true(sum > 100 - 1e-6 && sum < 100 + 1e-6);
    }
    assert_true(device[0] != device[1]);
    cJSON_Delete(root);
    free(json);
}

/* The smallest Nsight Systems export: two kernels of one process. */
static void small_export(const char *db)
{
    exec_sql(db, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                 "INSERT INTO StringIds VALUES (1, 'k');"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                 " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, shortName INTEGER);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 5, 16777216, 1),"
                 " (3000, 5000, 0, 7, 6, 16777216, 1);");
}

/* Kernels in the JSON run file at path (-1 when it cannot be read). */
static int kernels_in(const char *path)
{
    char *text = read_file(path, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    int n = root ? cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "kernels")) : -1;
    cJSON_Delete(root);
    return n;
}

/* Traces as users hand them over: on standard input ("-", plain, gzip and xz), through a real FIFO
 * made here (written by another process) and /dev/stdin, each streamed once, and an Nsight
 * Systems export through a pipe (copied for SQLite); each gives the same run as the file does. */
static void standard_input_pipes_and_fifos(void **state)
{
    const char *dir = *state;
    char *want_json = path_in(dir, "want.json"), *got = path_in(dir, "got.json"), *fifo = path_in(dir, "trace.fifo");
    const char *argv[] = {mmprof_bin(), "import", KINETO_SAMPLE, "--json", want_json, "-q", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    int want = kernels_in(want_json);
    assert_true(want > 0);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *lines[] = {
        "cat " KINETO_SAMPLE " | \"$MMPROF\" import - --json %s -q",
        "gzip -c " KINETO_SAMPLE " | \"$MMPROF\" import - --json %s -q",
        "xz -c " KINETO_SAMPLE " | \"$MMPROF\" import - --json %s -q",
        "\"$MMPROF\" import /dev/stdin --json %s -q < " KINETO_SAMPLE,
        "cat " KINETO_SAMPLE " > %2$s & \"$MMPROF\" import %2$s --json %1$s -q",
        "gzip -c " KINETO_SAMPLE " > %2$s & \"$MMPROF\" import %2$s --json %1$s -q",
        "xz -c " KINETO_SAMPLE " > %2$s & \"$MMPROF\" import %2$s --json %1$s -q",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        unlink(got);
        r = run_shell(lines[i], got, fifo);
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", lines[i], r.status, r.err);
        assert_int_equal(kernels_in(got), want);
        cmd_free(&r);
    }
    /* The JSON itself to standard output, from standard input: '-' both ways is no clash. */
    r = run_shell("cat " KINETO_SAMPLE " | \"$MMPROF\" import - --json - -q > %s", got);
    if (r.status != 0)
        fail_msg("- to -: exit %d: %s", r.status, r.err);
    assert_int_equal(kernels_in(got), want);
    cmd_free(&r);

    char *db = path_in(dir, "export.sqlite");
    small_export(db);
    for (int k = 0; k < 2; k++) {
        r = run_shell("%s -c %s | \"$MMPROF\" import - --json %s -q", k ? "xz" : "gzip", db, got);
        if (r.status != 0)
            fail_msg("SQLite through a pipe (%s): exit %d: %s", k ? "xz" : "gzip", r.status, r.err);
        assert_int_equal(kernels_in(got), 2);
        cmd_free(&r);
    }
    /* Standard input named in messages as such. */
    r = run_shell("printf 'not a trace' | \"$MMPROF\" import - --json %s -q", got);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "standard input: none of a PyTorch profiler trace"));
    cmd_free(&r);
    r = run_shell("\"$MMPROF\" import - --json %s -q < /dev/null", got);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "standard input: empty file"));
    cmd_free(&r);
    free(want_json), free(got), free(fifo), free(db);
}

/* The source a file imports as, from its run file's "source" ("" when the import failed). */
static char *imported_source(const char *dir, const char *input)
{
    char *json = path_in(dir, "source.json");
    unlink(json);
    const char *argv[] = {mmprof_bin(), "import", input, "--json", json, "-q", NULL};
    cmd_result r = run_argv(argv, NULL);
    cmd_free(&r);
    cJSON *root = read_json(json);
    const cJSON *s = cJSON_GetObjectItem(root, "source");
    char *out = strdup(cJSON_IsString(s) ? s->valuestring : "");
    cJSON_Delete(root);
    free(json);
    return out;
}

/* Each format is told by its content whatever the name says: a PyTorch trace or an Nsight Systems
 * export named .csv is not taken for Nsight Compute's CSV, nor that CSV, named .json or .sqlite,
 * for them. */
static void content_not_name_tells_the_format(void **state)
{
    const char *dir = *state;
    char *kineto = path_in(dir, "kineto.csv"), *db = path_in(dir, "export.csv"), *ncu_json = path_in(dir, "ncu.json"),
         *ncu_db = path_in(dir, "ncu.sqlite");
    small_export(db);
    cmd_result r = run_shell("cp " KINETO_SAMPLE " %s && cp samples/ncu/counter_kernels.raw.csv %s && "
                             "cp samples/ncu/counter_kernels.details.csv %s", kineto, ncu_json, ncu_db);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    const char *want[][2] = {{kineto, "kineto"}, {db, "nsys-sqlite"}, {ncu_json, "ncu-csv"}, {ncu_db, "ncu-csv"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *got = imported_source(dir, want[i][0]);
        if (strcmp(got, want[i][1]) != 0)
            fail_msg("%s imported as '%s', want '%s'", want[i][0], got, want[i][1]);
        free(got);
    }
    free(kineto), free(db), free(ncu_json), free(ncu_db);
}

/* A gzip or xz file whose content is not a trace says so, and names what it was decompressed from. */
static void compressed_non_traces(void **state)
{
    const char *dir = *state;
    const char *tools[] = {"gzip", "xz"};
    for (int i = 0; i < 2; i++) {
        char *packed = path_in(dir, i ? "notes.xz" : "notes.gz"), want[64];
        cmd_result r = run_shell("echo 'hello' | %s -c > %s", tools[i], packed);
        assert_int_equal(r.status, 0);
        cmd_free(&r);
        snprintf(want, sizeof want, "(its content once decompressed from %s)", tools[i]);
        refused(dir, packed, want);
        free(packed);
    }
}

/* Runs mmprof import on the files (NULL-ended) with --json into dir: expects exit 2, every file
 * named in the message with want, and no JSON written. */
static void merge_refused(const char *dir, const char *const *files, const char *want)
{
    char *json = path_in(dir, "merged.json");
    unlink(json);
    const char *argv[16] = {mmprof_bin(), "import"};
    int n = 2;
    for (const char *const *f = files; *f; f++)
        argv[n++] = *f;
    argv[n++] = "--json";
    argv[n++] = json;
    argv[n] = NULL;
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 2)
        fail_msg("exit %d, want 2: %s", r.status, r.err);
    for (const char *const *f = files; *f; f++)
        if (!strstr(r.err, *f))
            fail_msg("message does not name %s: %s", *f, r.err);
    if (!strstr(r.err, want))
        fail_msg("message lacks '%s': %s", want, r.err);
    assert_int_not_equal(access(json, F_OK), 0);
    cmd_free(&r);
    free(json);
}

/* Traces that are not parts of one job are refused, naming both files, instead of becoming one
 * "run": two programs' traces recorded at different times, a trace and an Nsight Systems export,
 * one rank given twice, a rank's trace with one that names none. Ranks of one job still merge
 * (rank_traces_merge_by_rank) and so does one program's trace given twice (same time, no ranks). */
static void unrelated_traces_refused(void **state)
{
    const char *dir = *state;
    const char *two_programs[] = {"tests/data/kineto/train_step.json", "tests/data/kineto/matmul_copies.json", NULL};
    merge_refused(dir, two_programs, "did not run at the same time");
    char *db = path_in(dir, "export.sqlite");
    small_export(db);
    const char *mixed[] = {"tests/data/kineto/train_step.json", db, NULL};
    merge_refused(dir, mixed, "an Nsight Systems export");
    char *rank0 = path_in(dir, "rank0.json"), *rank0b = path_in(dir, "rank0b.json");
    char *sample = read_file("tests/data/kineto/train_step.json", NULL);
    assert_non_null(sample);
    const char *open = sample + strspn(sample, " \t\r\n");
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(i ? rank0b : rank0, "w");
        assert_non_null(f);
        fprintf(f, "{\"distributedInfo\": {\"rank\": 0}, %s", open + 1);
        fclose(f);
    }
    free(sample);
    const char *same_rank[] = {rank0, rank0b, NULL};
    merge_refused(dir, same_rank, "rank 0 is in");
    const char *half_ranked[] = {rank0, "tests/data/kineto/train_step.json", NULL};
    merge_refused(dir, half_ranked, "names none");
    const char *twice[] = {mmprof_bin(), "import", "tests/data/kineto/train_step.json",
                           "tests/data/kineto/train_step.json", "-q", NULL};
    cmd_result r = run_argv(twice, NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    free(db), free(rank0), free(rank0b);
}

/* A kernel named with markup and 100 kB long: imported, and shown as text in the page. */
static void hostile_names_stay_data(void **state)
{
    const char *dir = *state;
    size_t long_len = 100 * 1024;
    char *longname = malloc(long_len + 1);
    assert_non_null(longname);
    memset(longname, 'k', long_len);
    longname[long_len] = '\0';
    size_t cap = long_len + 4096;
    char *doc = malloc(cap);
    assert_non_null(doc);
    snprintf(doc, cap,
             "{\"schemaVersion\": 1, \"traceEvents\": ["
             "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 9, \"tid\": 9,"
             " \"ts\": 1.0, \"dur\": 5.0, \"args\": {\"correlation\": 1}},"
             "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"<script>alert(1)</script>\", \"pid\": 0, \"tid\": 7,"
             " \"ts\": 7.0, \"dur\": 3.0, \"args\": {\"correlation\": 1, \"device\": 0, \"stream\": 7}},"
             "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,"
             " \"ts\": 11.0, \"dur\": 3.0, \"args\": {\"correlation\": 2, \"device\": 0, \"stream\": 7}}]}",
             longname);
    char *in = path_in(dir, "hostile.json"), *html = path_in(dir, "h.html");
    assert_true(write_text(in, doc));
    const char *argv[] = {mmprof_bin(), "import", in, "--html", html, "-q", NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    char *page = read_file(html, NULL);
    assert_non_null(page);
    assert_null(strstr(page, "<script>alert"));
    assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    cmd_free(&r);
    free(page), free(in), free(html), free(doc), free(longname);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(bad_json_traces, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(bad_sqlite_exports, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(good_trace_every_output, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(rank_traces_merge_by_rank, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(recorded_ddp_traces_give_ranks, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(hostile_names_stay_data, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(standard_input_pipes_and_fifos, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(compressed_non_traces, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(content_not_name_tells_the_format, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(unrelated_traces_refused, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
