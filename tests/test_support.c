/* Test helpers. See test_support.h. */
#include "test_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "analyze.h"
#include "event_columns.h"
#include "model_json.h"
#include "text.h"

extern char **environ;

const char *mmprof_bin(void)
{
    const char *b = getenv("MMPROF_BIN");
    return b && b[0] ? b : "build/mmprof";
}

const char *sample_path(void)
{
    const char *s = getenv("MMPROF_SAMPLE");
    return s && s[0] ? s : "samples/h200-2048.json";
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

const char *beside_bin(const char *rel)
{
    static char path[1024];
    const char *bin = mmprof_bin();
    const char *slash = strrchr(bin, '/');
    snprintf(path, sizeof path, "%.*s/%s", slash ? (int)(slash - bin) : 1, slash ? bin : ".", rel);
    return path;
}

bool gpu_usable(void)
{
    const char *argv[] = {mmprof_bin(), "--require-gpu", "--quiet", "--size", "16", "--workloads", "cuda-naive", NULL};
    cmd_result r = run_argv(argv, NULL);
    bool ok = r.status == 0;
    if (!ok)
        print_message("no usable GPU (mmprof --require-gpu exited %d: %s)\n", r.status, r.err);
    cmd_free(&r);
    return ok;
}

int gpu_workload_count(void)
{
    const char *argv[] = {mmprof_bin(), "--list-workloads", NULL};
    cmd_result r = run_argv(argv, NULL);
    int n = 0;
    for (char *p = r.out; p && (p = strstr(p, " GPU ")); p++)
        n++;
    cmd_free(&r);
    return n;
}

char *path_in(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *make_temp_dir(void)
{
    char tmpl[] = "/tmp/mmprof-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

void rm_rf(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/mmprof-test-", 17) != 0)
        return; /* never anything but our own temporary directories */
    const char *argv[] = {"rm", "-rf", dir, NULL};
    cmd_result r = run_argv(argv, NULL);
    cmd_free(&r);
}

int temp_dir_setup(void **state)
{
    *state = make_temp_dir();
    return *state ? 0 : -1;
}

int temp_dir_teardown(void **state)
{
    rm_rf(*state);
    free(*state);
    return 0;
}

char *test_tmp;

int test_tmp_setup(void **state)
{
    (void)state;
    test_tmp = make_temp_dir();
    return test_tmp ? 0 : -1;
}

int test_tmp_teardown(void **state)
{
    (void)state;
    rm_rf(test_tmp);
    free(test_tmp);
    test_tmp = NULL;
    return 0;
}

cmd_result run_argv(const char *const *argv, const char *const *env)
{
    cmd_result r = {.status = -1};
    char outp[] = "/tmp/mmprof-out-XXXXXX", errp[] = "/tmp/mmprof-err-XXXXXX";
    int ofd = mkstemp(outp), efd = mkstemp(errp);
    if (ofd < 0 || efd < 0)
        return r;
    /* The child's environment: ours plus env. */
    size_t n = 0, extra = 0;
    while (environ[n])
        n++;
    while (env && env[extra])
        extra++;
    char **envp = calloc(n + extra + 1, sizeof *envp);
    for (size_t i = 0; i < n; i++)
        envp[i] = environ[i];
    for (size_t i = 0; i < extra; i++)
        envp[n + i] = (char *)env[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ofd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, efd, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (rc == 0) {
        int st;
        waitpid(pid, &st, 0);
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    close(ofd);
    close(efd);
    r.out = read_file(outp, NULL);
    r.err = read_file(errp, NULL);
    unlink(outp);
    unlink(errp);
    if (!r.out)
        r.out = strdup("");
    if (!r.err)
        r.err = strdup("");
    return r;
}

void cmd_free(cmd_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

cmd_result run_shell(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char env[600];
    snprintf(env, sizeof env, "MMPROF=%s", mmprof_bin());
    const char *argv[] = {"sh", "-c", line, NULL};
    const char *envp[] = {env, NULL};
    return run_argv(argv, envp);
}

/* Loading the 2048 sample reads 29,000 events a row at a time, each parsed through cJSON: 0.7 s
 * under ASan, and the sanitized tests load it about 90 times (a minute of make test's CPU). So a
 * path's first load in a process reads the file, and later loads of it, unchanged (same inode, size
 * and modification time), read back the run file of the model that gave, written in columns (event_columns_min 0), which reads without a cJSON tree per
 * event; test_model_json's columns_round_trip checks that this gives the model written. Files
 * of an older schema are read each time (they read back as the current one). A test that must
 * read the file itself calls model_read_file. */
static struct {
    char path[512];
    struct stat st; /* the file as it was read: a test may write the same path again */
    char *text;
} loaded[4];

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

void load_run(const char *path, run_model *m)
{
    char err[512];
    struct stat st;
    bool known = stat(path, &st) == 0;
    size_t slot = 0;
    while (slot < sizeof loaded / sizeof loaded[0] && loaded[slot].text && strcmp(loaded[slot].path, path) != 0)
        slot++;
    if (slot < sizeof loaded / sizeof loaded[0] && loaded[slot].text && !(known && same_file(&st, &loaded[slot].st))) {
        free(loaded[slot].text); /* the file changed since: read it again */
        loaded[slot].text = NULL;
    }
    if (slot < sizeof loaded / sizeof loaded[0] && loaded[slot].text) {
        if (!model_read_text(path, loaded[slot].text, strlen(loaded[slot].text), m, err, sizeof err))
            fail_msg("cannot read back the run of %s: %s", path, err);
        return;
    }
    if (!model_read_file(path, m, err, sizeof err))
        fail_msg("cannot load the run: %s", err);
    /* A file of an older schema reads back as the current one: the tests of its reading read it. */
    if (slot == sizeof loaded / sizeof loaded[0] || !known || m->schema_version != MMPROF_SCHEMA_VERSION)
        return;
    size_t saved = event_columns_min;
    event_columns_min = 0;
    char *text = model_to_text(m);
    event_columns_min = saved;
    if (text && strlen(path) < sizeof loaded[slot].path) {
        snprintf(loaded[slot].path, sizeof loaded[slot].path, "%s", path);
        loaded[slot].st = st;
        loaded[slot].text = text; /* kept for the process's life */
    } else {
        free(text);
    }
}

void load_sample(run_model *m)
{
    load_run(sample_path(), m);
}

void assert_close_at(double got, double want, double rel, const char *what, const char *file, int line)
{
    double tol = rel * fabs(want);
    if (got == want || fabs(got - want) <= tol)
        return;
    print_error("%s is %.17g, expected %.17g (relative tolerance %g)\n", what, got, want, rel);
    _fail(file, line);
}

/* ---------- models built here ---------- */

#define MS_NS 1000000LL
#define T0_NS 1732981234000000000LL /* a realistic CLOCK_REALTIME start, beyond 2^53 ns */

static int64_t at_ms(double ms)
{
    return T0_NS + (int64_t)(ms * MS_NS + (ms >= 0 ? 0.5 : -0.5));
}

static void phase_at(workload_run *w, const char *name, double s, double e)
{
    phase *p = workload_add_phase(w, name);
    assert_non_null(p);
    p->start_ns = at_ms(s);
    p->end_ns = at_ms(e);
}

/* One GPU workload from t ms on: copy-in, compute (repeat products), copy-out, each phase exactly
 * around its events. Returns the time it ends. */
static double gpu_workload(run_model *m, const char *name, mem_kind mem, double t, double h2d, double kern,
                           double d2h, const char *kname)
{
    static uint32_t corr = 1;
    workload_run *w = model_add_workload(m);
    assert_non_null(w);
    copy_str(w->name, sizeof w->name, name);
    w->host_memory = mem;
    w->needs_gpu = true;
    w->prec = PREC_FP32;
    w->status = WL_OK;
    w->device = 0;
    w->repeat = 2;
    w->launched = 2;
    w->timing = TIMING_CUPTI;
    w->verified = true;
    w->rel_error = 1e-7;
    w->error_bound = 1e-5;
    uint64_t n = (uint64_t)m->builtin.n;
    copy_event c = {.dir = COPY_H2D, .src = mem, .dst = MEM_DEVICE, .bytes = 2 * n * n * 4, .stream = 7};
    c.correlation = corr++;
    c.start_ns = at_ms(t);
    c.end_ns = at_ms(t + h2d);
    assert_true(workload_add_copy(w, &c));
    phase_at(w, "copy-in", t, t + h2d);
    t += h2d;
    phase_at(w, "compute", t, t + 2 * kern);
    for (int i = 0; i < 2; i++, t += kern) {
        api_event a = {.name = (char *)"cudaLaunchKernel_v7000", .start_ns = at_ms(t), .end_ns = at_ms(t) + 5000,
                       .thread = 1, .correlation = corr};
        kernel_event k = {.name = (char *)kname, .start_ns = at_ms(t), .end_ns = at_ms(t + kern), .stream = 7,
                          .correlation = corr++, .grid = {64, 64, 1}, .block = {16, 16, 1}};
        assert_true(workload_add_api(w, &a));
        assert_true(workload_add_kernel(w, &k));
        assert_true(workload_add_product_ms(w, kern));
    }
    c = (copy_event){.dir = COPY_D2H, .src = MEM_DEVICE, .dst = mem, .bytes = n * n * 4, .stream = 7};
    c.correlation = corr++;
    c.start_ns = at_ms(t);
    c.end_ns = at_ms(t + d2h);
    assert_true(workload_add_copy(w, &c));
    phase_at(w, "copy-out", t, t + d2h);
    return t + d2h + 1;
}

void small_builtin_run(run_model *m)
{
    model_init(m);
    m->schema_version = MMPROF_SCHEMA_VERSION;
    m->source = SOURCE_BUILTIN;
    copy_str(m->tool_version, sizeof m->tool_version, MMPROF_VERSION);
    copy_str(m->started_at, sizeof m->started_at, "2026-11-30T12:00:00Z");
    m->command_line = strdup("mmprof --size 1024");
    m->epoch_ns = T0_NS;
    m->builtin.n = 1024;
    m->builtin.seed = 7;
    m->devices = calloc(1, sizeof *m->devices);
    assert_non_null(m->devices);
    m->ndevices = 1;
    device_info *d = &m->devices[0];
    copy_str(d->name, sizeof d->name, "NVIDIA H200");
    d->cc_major = 9;
    d->sm_count = 132;
    d->clock_khz = 1980000;
    d->mem_clock_khz = 2619000;
    d->bus_width_bits = 6144;
    d->pcie_gen = 5;
    d->pcie_width = 16;
    d->max_threads_per_sm = 2048;
    d->max_threads_per_block = 1024;
    d->max_blocks_per_sm = 32;
    d->regs_per_sm = 65536;
    d->regs_per_block = 65536;
    d->warp_size = 32;
    d->smem_per_sm = 233472;
    d->smem_per_block = 49152;
    d->smem_per_block_optin = 232448;
    d->driver_version = d->runtime_version = 13000;
    m->collection.source = TIMING_CUPTI;
    workload_run *cpu = model_add_workload(m);
    assert_non_null(cpu);
    copy_str(cpu->name, sizeof cpu->name, "cpu-openblas");
    cpu->status = WL_OK;
    cpu->device = -1;
    cpu->repeat = 2;
    cpu->timing = TIMING_HOST_CLOCK;
    cpu->verified = true;
    cpu->rel_error = 1e-7;
    cpu->error_bound = 1e-5;
    phase_at(cpu, "compute", 0, 20);
    assert_true(workload_add_product_ms(cpu, 10));
    assert_true(workload_add_product_ms(cpu, 10));
    double t = 21;
    t = gpu_workload(m, "cuda-naive", MEM_PAGEABLE, t, 4.0, 3.0, 1.0, "mmprof_naive");
    t = gpu_workload(m, "cuda-naive", MEM_PINNED, t, 0.6, 3.0, 0.3, "mmprof_naive");
    t = gpu_workload(m, "cublas-sgemm", MEM_PAGEABLE, t, 4.0, 0.5, 1.0, "cutlass_sgemm");
    gpu_workload(m, "cublas-sgemm", MEM_PINNED, t, 0.6, 0.5, 0.3, "cutlass_sgemm");
    assert_true(model_finish_regions(m, "mmprof run"));
}

void add_device_memset(run_model *m, uint64_t bytes)
{
    const workload_run *w = &m->builtin.workloads[1];
    memset_event s = {.mem = MEM_DEVICE, .bytes = bytes, .start_ns = w->phases[0].start_ns,
                      .end_ns = w->phases[0].start_ns + 100000, .stream = 7, .region = w->region};
    assert_true(events_add_memset(&m->events, &s));
}

void small_profiled_run(run_model *m)
{
    model_init(m);
    m->schema_version = MMPROF_SCHEMA_VERSION;
    m->source = SOURCE_PROFILE;
    copy_str(m->tool_version, sizeof m->tool_version, MMPROF_VERSION);
    copy_str(m->source_file, sizeof m->source_file, "./train");
    m->command_line = strdup("mmprof profile -- ./train");
    m->epoch_ns = T0_NS;
    uint32_t corr = 1;
    api_event a = {.name = (char *)"cudaMemcpy_v3020", .start_ns = at_ms(0), .end_ns = at_ms(30), .pid = 42,
                   .thread = 1, .correlation = corr};
    copy_event c = {.dir = COPY_H2D, .src = MEM_PAGEABLE, .dst = MEM_DEVICE, .bytes = 64ull << 20,
                    .start_ns = at_ms(0), .end_ns = at_ms(30), .pid = 42, .stream = 7, .correlation = corr++};
    assert_true(events_add_api(&m->events, &a));
    assert_true(events_add_copy(&m->events, &c));
    double t = 31;
    for (int i = 0; i < 11; i++) {
        double len = i < 10 ? 2.0 : 0.5;
        a = (api_event){.name = (char *)"cudaLaunchKernel_v7000", .start_ns = at_ms(t), .end_ns = at_ms(t + 0.01),
                        .pid = 42, .thread = 1, .correlation = corr};
        kernel_event k = {.name = (char *)(i < 10 ? "gemm_kernel" : "relu"), .start_ns = at_ms(t + 0.02),
                          .end_ns = at_ms(t + 0.02 + len), .pid = 42, .stream = 7, .correlation = corr++,
                          .grid = {128, 1, 1}, .block = {256, 1, 1}};
        assert_true(events_add_api(&m->events, &a));
        assert_true(events_add_kernel(&m->events, &k));
        t += len + 0.05;
    }
    assert_true(model_add_region(m, REGION_NVTX, "train", NULL, at_ms(0), at_ms(t), 42, 1, -1) >= 0);
    assert_true(model_add_process(m, 42, "train"));
    assert_true(model_add_thread(m, 42, 1, "main"));
    assert_true(model_finish_regions(m, "./train"));
}

char *text_report_of(const analysis *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    render_text(a, f, false);
    assert_int_equal(fclose(f), 0);
    return buf;
}

cJSON *read_json(const char *path)
{
    char *text = read_file(path, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

bool recorded_load(const char *path, run_model *m, analysis *a, cJSON **raw)
{
    char err[512];
    if (!model_read_file(path, m, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    *raw = read_json(path);
    if (!*raw) {
        fprintf(stderr, "%s: cJSON could not parse it\n", path);
        model_free(m);
        return false;
    }
    if (!analyze(m, a)) {
        fprintf(stderr, "%s: out of memory analysing it\n", path);
        cJSON_Delete(*raw);
        model_free(m);
        return false;
    }
    return true;
}

void recorded_free(run_model *m, analysis *a, cJSON *raw)
{
    analysis_free(a);
    model_free(m);
    cJSON_Delete(raw);
}

event_list owned_events(const run_model *m, const workload_run *w)
{
    event_list o;
    memset(&o, 0, sizeof o);
    const event_list *e = &m->events;
    int g = w->region;
    if (g <= 0)
        return o;
    for (size_t i = 0; i < e->nkernels; i++)
        if (e->kernels[i].region == g)
            assert_true(events_add_kernel(&o, &e->kernels[i]));
    for (size_t i = 0; i < e->ncopies; i++)
        if (e->copies[i].region == g)
            assert_true(events_add_copy(&o, &e->copies[i]));
    for (size_t i = 0; i < e->nmemsets; i++)
        if (e->memsets[i].region == g)
            assert_true(events_add_memset(&o, &e->memsets[i]));
    for (size_t i = 0; i < e->napis; i++)
        if (e->apis[i].region == g)
            assert_true(events_add_api(&o, &e->apis[i]));
    for (size_t i = 0; i < e->nsyncs; i++)
        if (e->syncs[i].region == g)
            assert_true(events_add_sync(&o, &e->syncs[i]));
    return o;
}

char *unxz_sample(const char *xz_path, const char *dir, const char *name)
{
    char *out = path_in(dir, name);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", xz_path, out);
    if (system(cmd) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

int dir_entries(const char *dir, int *temporaries)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0, t = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        t += strncmp(e->d_name, ".mmprof-", 8) == 0;
    }
    closedir(d);
    if (temporaries)
        *temporaries = t;
    return n;
}

static bool keep(void *ctx, const char *data, size_t len)
{
    kept_text *k = ctx;
    sb_addn(&k->text, data, len);
    k->pieces++;
    return !k->text.oom;
}

text_sink kept_sink(kept_text *k)
{
    sb_init(&k->text);
    k->pieces = 0;
    return (text_sink){keep, k};
}

void assert_kept_whole(kept_text *k, char *whole, int least, const char *what)
{
    assert_non_null(whole);
    print_message("%s: %zu bytes in %d pieces\n", what, k->text.len, k->pieces);
    assert_int_equal(k->text.len, strlen(whole));
    assert_string_equal(k->text.s, whole);
    assert_true(k->pieces >= least);
    free(whole);
    sb_free(&k->text);
}
