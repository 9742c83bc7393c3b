/* The device state through NVML (src/collect/nvml.c), without a GPU:
 *
 *  - the n/a path: libnvidia-ml.so.1 absent (as on this machine and CI) gives the workloads a state
 *    that says so, and one warning for all of them;
 *  - a fake NVML (tests/fake_nvml.c, built beside this binary, opened through MMPROF_NVML_LIBRARY)
 *    for the rest: the device found by PCI bus id or refused, NVML's init failure, readings around
 *    the compute phase reduced to before/after/low/high, clock event reasons decoded to names,
 *    other processes counted (our own pid left out, or one left out when NVML's pids come from
 *    another pid namespace), the warnings, the sampling thread, and the JSON round trip. */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "device_check.h"
#include "model_json.h"
#include "nvml.h"

#define BUS "0000:65:00.0"

static int64_t fake_now;
static int64_t fake_clock(void) { return fake_now; }

static int64_t real_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The fake library sits beside this binary. */
static void use_fake(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    assert_non_null(slash);
    char lib[PATH_MAX + 32];
    snprintf(lib, sizeof lib, "%.*s/libfake_nvml.so", (int)(slash - exe), exe);
    assert_int_equal(access(lib, R_OK), 0);
    setenv("MMPROF_NVML_LIBRARY", lib, 1);
    static const char *const vars[] = {"FAKE_NVML_BUS_ID", "FAKE_NVML_SM_MHZ", "FAKE_NVML_SM_MAX_MHZ",
                                       "FAKE_NVML_MEM_MHZ", "FAKE_NVML_MEM_MAX_MHZ", "FAKE_NVML_POWER_MW",
                                       "FAKE_NVML_POWER_LIMIT_MW", "FAKE_NVML_TEMP_C", "FAKE_NVML_REASONS",
                                       "FAKE_NVML_PIDS", "FAKE_NVML_INIT_FAIL", "FAKE_NVML_PEER_BUS_ID",
                                       "FAKE_NVML_NVLINKS", "FAKE_NVML_NVLINK_TO", "FAKE_NVML_P2P_NVLINK",
                                       "FAKE_NVML_TOPO"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("FAKE_NVML_SM_MAX_MHZ", "1980", 1);
    setenv("FAKE_NVML_MEM_MAX_MHZ", "3201", 1);
    setenv("FAKE_NVML_POWER_LIMIT_MW", "700000", 1);
}

/* The device's state the fake reports from now on. */
static void fake_state(const char *sm, const char *power, const char *temp, const char *reasons, const char *pids)
{
    setenv("FAKE_NVML_SM_MHZ", sm, 1);
    setenv("FAKE_NVML_MEM_MHZ", "3201", 1);
    setenv("FAKE_NVML_POWER_MW", power, 1);
    setenv("FAKE_NVML_TEMP_C", temp, 1);
    setenv("FAKE_NVML_REASONS", reasons, 1);
    setenv("FAKE_NVML_PIDS", pids, 1);
}

/* A GPU workload whose compute phase is [from, to]. */
static workload_run *add_gpu_workload(run_model *m, const char *name, mem_kind kind, int64_t from, int64_t to)
{
    workload_run *w = model_add_workload(m);
    assert_non_null(w);
    snprintf(w->name, sizeof w->name, "%s", name);
    w->needs_gpu = true;
    w->host_memory = kind;
    w->device = 0;
    phase *p = workload_add_phase(w, "compute");
    assert_non_null(p);
    p->start_ns = from, p->end_ns = to;
    return w;
}

typedef struct {
    char text[8][600];
    int n;
} warnings;

static bool collect(void *ctx, const char *text)
{
    warnings *w = ctx;
    assert_true(w->n < 8);
    snprintf(w->text[w->n++], sizeof w->text[0], "%s", text);
    return true;
}

/* ---------- n/a ---------- */

static void test_missing_library_is_na(void **state)
{
    (void)state;
    unsetenv("MMPROF_NVML_LIBRARY");
    void *real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (real) {
        dlclose(real);
        skip(); /* a machine with the driver: the n/a path cannot be seen here */
    }
    char why[256];
    nvml_watch *nw = nvml_watch_open(BUS, 0, real_clock, why, sizeof why);
    assert_null(nw);
    assert_non_null(strstr(why, "libnvidia-ml.so.1 not found: "));
    assert_non_null(strstr(why, "cannot open shared object file"));

    run_model m;
    model_init(&m);
    workload_run *a = add_gpu_workload(&m, "cuda-naive", MEM_PAGEABLE, 10, 20);
    nvml_watch_end(NULL, a, why);
    workload_run *b = add_gpu_workload(&m, "cuda-naive", MEM_PINNED, 30, 40);
    nvml_watch_end(NULL, b, why);
    a = &m.builtin.workloads[0]; /* the array may have moved */
    assert_true(a->device_state.recorded);
    assert_false(a->device_state.valid);
    assert_string_equal(a->device_state.reason, why);
    warnings got = {.n = 0};
    assert_true(device_state_warnings(&m, collect, &got));
    assert_int_equal(got.n, 1);
    assert_non_null(strstr(got.text[0], "n/a for 2 GPU workloads: libnvidia-ml.so.1 not found"));
    /* Two different reasons are told per workload. */
    snprintf(b->device_state.reason, sizeof b->device_state.reason, "other reason");
    got.n = 0;
    assert_true(device_state_warnings(&m, collect, &got));
    assert_int_equal(got.n, 2);
    assert_non_null(strstr(got.text[0], "cuda-naive (pageable): device state n/a: libnvidia-ml.so.1 not found"));
    assert_non_null(strstr(got.text[1], "cuda-naive (pinned): device state n/a: other reason"));
    model_free(&m);
}

static void test_named_library_missing(void **state)
{
    (void)state;
    setenv("MMPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    char why[256];
    assert_null(nvml_watch_open(BUS, 0, real_clock, why, sizeof why));
    assert_non_null(strstr(why, "/nonexistent/libnvidia-ml.so.1 not found: "));
    unsetenv("MMPROF_NVML_LIBRARY");
}

/* ---------- the fake NVML ---------- */

static void test_device_by_bus_id(void **state)
{
    (void)state;
    use_fake();
    char why[256];
    assert_null(nvml_watch_open("0000:17:00.0", 0, fake_clock, why, sizeof why));
    assert_string_equal(why, "NVML has no device at PCI bus id '0000:17:00.0': Not Found");
    setenv("FAKE_NVML_INIT_FAIL", "1", 1);
    assert_null(nvml_watch_open(BUS, 0, fake_clock, why, sizeof why));
    assert_string_equal(why, "nvmlInit failed: Driver Not Loaded");
    unsetenv("FAKE_NVML_INIT_FAIL");
    nvml_watch *nw = nvml_watch_open(BUS, 0, fake_clock, why, sizeof why);
    assert_non_null(nw);
    nvml_watch_close(nw);
}

/* Readings at 0 (before the compute phase), 20 (inside: power-capped, hot, shared), 100 (after:
 * idle, clocks down); the compute phase is [10, 50]. */
static void watched_workload(run_model *m, workload_run **out)
{
    use_fake();
    char why[256];
    fake_now = 0;
    nvml_watch *nw = nvml_watch_open(BUS, 0, fake_clock, why, sizeof why);
    assert_non_null(nw);
    workload_run *w = add_gpu_workload(m, "cuda-tiled", MEM_PINNED, 10, 50);
    fake_state("1980", "310000", "41", "0", "self");
    nvml_watch_begin(nw);
    fake_now = 20;
    fake_state("1500", "699000", "83", "0x44", "self,4242");
    nvml_watch_sample(nw);
    fake_now = 100;
    fake_state("345", "90000", "60", "1", "self");
    nvml_watch_end(nw, w, why);
    nvml_watch_close(nw);
    *out = w;
}

static void test_readings_reduced_around_compute(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    workload_run *w;
    watched_workload(&m, &w);
    const device_state *d = &w->device_state;
    assert_true(d->recorded);
    assert_true(d->valid);
    assert_int_equal(d->sm_clock_max_mhz, 1980);
    assert_int_equal(d->mem_clock_max_mhz, 3201);
    assert_int_equal(d->power_limit_mw, 700000);
    assert_int_equal(d->samples, 3);
    assert_int_equal(d->before.sm_mhz, 1980);
    assert_int_equal(d->before.power_mw, 310000);
    assert_int_equal(d->after.sm_mhz, 345);
    assert_int_equal(d->after_reasons, CLOCK_REASON_GPU_IDLE);
    assert_int_equal(d->low.sm_mhz, 345);
    assert_int_equal(d->high.sm_mhz, 1980);
    assert_int_equal(d->high.temp_c, 83);
    assert_int_equal(d->high.power_mw, 699000);
    assert_int_equal(d->busy_sm_min_mhz, 1500); /* the idle reading does not count */
    assert_int_equal(d->reasons, CLOCK_REASON_GPU_IDLE | CLOCK_REASON_SW_POWER_CAP | CLOCK_REASON_HW_THERMAL);
    assert_int_equal(d->other_pids, 1);
    assert_int_equal(d->other_pid[0], 4242);
    assert_int_equal(d->other_pid[1], 0);
    char text[200];
    clock_reasons_text(d->reasons, text, sizeof text);
    assert_string_equal(text, "gpu idle, sw power cap, hw thermal");
    model_free(&m);
}

static void test_warnings_name_reasons_and_pids(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    workload_run *w;
    watched_workload(&m, &w);
    warnings got = {.n = 0};
    assert_true(device_state_warnings(&m, collect, &got));
    assert_int_equal(got.n, 2);
    assert_string_equal(got.text[0], "cuda-tiled (pinned): SM clock fell to 1500 MHz during the measurement, 24% "
                                     "below its maximum of 1980 MHz (clock event reasons: sw power cap, hw "
                                     "thermal); its times are not the GPU's best");
    assert_string_equal(got.text[1], "cuda-tiled (pinned): 1 other process used the GPU during the measurement "
                                     "(pid 4242); its times may include theirs");
    /* At 95% of the maximum or above, and alone on the GPU: nothing to say. */
    w->device_state.busy_sm_min_mhz = 1881;
    w->device_state.other_pids = 0;
    got.n = 0;
    assert_true(device_state_warnings(&m, collect, &got));
    assert_int_equal(got.n, 0);
    w->device_state.busy_sm_min_mhz = 1880;
    assert_true(device_state_warnings(&m, collect, &got));
    assert_int_equal(got.n, 1);
    model_free(&m);
}

/* NVML lists pids of the host's namespace inside a container: our own is not among them, and one
 * of those listed (the one holding the context we hold) is taken to be us. */
static void test_other_pid_namespace(void **state)
{
    (void)state;
    use_fake();
    char why[256];
    nvml_watch *nw = nvml_watch_open(BUS, 0, fake_clock, why, sizeof why);
    assert_non_null(nw);
    run_model m;
    model_init(&m);
    workload_run *w = add_gpu_workload(&m, "cuda-naive", MEM_PINNED, 10, 50);
    fake_now = 0;
    fake_state("1980", "300000", "40", "0", "999999");
    nvml_watch_begin(nw);
    fake_now = 60;
    nvml_watch_end(nw, w, why);
    assert_int_equal(w->device_state.other_pids, 0);
    fake_state("1980", "300000", "40", "0", "999999,888888");
    nvml_watch_begin(nw);
    nvml_watch_end(nw, w, why);
    assert_int_equal(w->device_state.other_pids, 1);
    nvml_watch_close(nw);
    model_free(&m);
}

/* The thread takes readings every period while the workload runs. */
static void test_sampling_thread(void **state)
{
    (void)state;
    use_fake();
    fake_state("1980", "300000", "40", "0", "self");
    char why[256];
    nvml_watch *nw = nvml_watch_open(BUS, 1, real_clock, why, sizeof why);
    assert_non_null(nw);
    run_model m;
    model_init(&m);
    int64_t t0 = real_clock();
    nvml_watch_begin(nw);
    struct timespec nap = {0, 100 * 1000000L};
    nanosleep(&nap, NULL);
    workload_run *w = add_gpu_workload(&m, "cuda-naive", MEM_PINNED, t0 + 1, real_clock());
    nvml_watch_end(nw, w, why);
    nvml_watch_close(nw);
    /* 100 ms at one reading a millisecond would be 100; on a loaded machine (the tests share it
     * with builds) the thread may get far fewer turns, but one reading of its own beside the first
     * and the last shows it ran. */
    assert_true(w->device_state.samples >= 3);
    assert_int_equal(w->device_state.before.sm_mhz, 1980);
    model_free(&m);
}

/* ---------- JSON ---------- */

static void json_round_trip(const run_model *m, run_model *back)
{
    cJSON *j = model_to_json(m);
    assert_non_null(j);
    char err[256];
    if (!model_from_json(j, back, err, sizeof err))
        fail_msg("%s", err);
    cJSON_Delete(j);
}

static run_model *minimal_run(run_model *m)
{
    model_init(m);
    snprintf(m->tool_version, sizeof m->tool_version, "test");
    m->command_line = strdup("mmprof");
    m->builtin.n = 64;
    m->devices = calloc(1, sizeof *m->devices);
    assert_non_null(m->devices);
    m->ndevices = 1;
    m->devices[0].max_threads_per_sm = m->devices[0].max_threads_per_block = m->devices[0].warp_size = 1;
    return m;
}

static void test_json_round_trip(void **state)
{
    (void)state;
    run_model m, back;
    minimal_run(&m);
    workload_run *w;
    watched_workload(&m, &w);
    w->device_state.before.temp_c = -1; /* a figure NVML did not give */
    workload_run *na = add_gpu_workload(&m, "cuda-naive", MEM_PINNED, 60, 70);
    nvml_watch_end(NULL, na, "libnvidia-ml.so.1 not found: gone");
    add_gpu_workload(&m, "cuda-naive", MEM_PAGEABLE, 80, 90); /* never sampled */

    cJSON *j = model_to_json(&m);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    assert_non_null(strstr(text, "\"clock_event_reasons\":[\"gpu idle\",\"sw power cap\",\"hw thermal\"]"));
    assert_non_null(strstr(text, "\"other_pids\":[4242]"));
    cJSON_free(text);

    json_round_trip(&m, &back);
    assert_int_equal(back.builtin.nworkloads, 3);
    const device_state *a = &m.builtin.workloads[0].device_state, *b = &back.builtin.workloads[0].device_state;
    assert_true(b->recorded && b->valid);
    assert_int_equal(b->sm_clock_max_mhz, a->sm_clock_max_mhz);
    assert_int_equal(b->mem_clock_max_mhz, a->mem_clock_max_mhz);
    assert_int_equal(b->power_limit_mw, a->power_limit_mw);
    assert_int_equal(b->samples, a->samples);
    assert_memory_equal(&b->before, &a->before, sizeof a->before);
    assert_memory_equal(&b->after, &a->after, sizeof a->after);
    assert_memory_equal(&b->low, &a->low, sizeof a->low);
    assert_memory_equal(&b->high, &a->high, sizeof a->high);
    assert_int_equal(b->before.temp_c, -1);
    assert_int_equal(b->before_reasons, a->before_reasons);
    assert_int_equal(b->after_reasons, a->after_reasons);
    assert_int_equal(b->busy_sm_min_mhz, a->busy_sm_min_mhz);
    assert_int_equal(b->reasons, a->reasons);
    assert_int_equal(b->other_pids, a->other_pids);
    assert_memory_equal(b->other_pid, a->other_pid, sizeof a->other_pid);
    const device_state *c = &back.builtin.workloads[1].device_state;
    assert_true(c->recorded);
    assert_false(c->valid);
    assert_string_equal(c->reason, "libnvidia-ml.so.1 not found: gone");
    assert_false(back.builtin.workloads[2].device_state.recorded);
    model_free(&back);
    model_free(&m);
}

static void test_json_bad_device_state(void **state)
{
    (void)state;
    run_model m, back;
    minimal_run(&m);
    workload_run *w;
    watched_workload(&m, &w);
    cJSON *j = model_to_json(&m);
    cJSON *ds = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "builtin"), "workloads"), 0), "device_state");
    cJSON_ReplaceItemInObject(ds, "samples", cJSON_CreateString("many"));
    char err[256];
    assert_false(model_from_json(j, &back, err, sizeof err));
    assert_string_equal(err, "builtin.workloads[0].device_state.samples: expected a number");
    cJSON_Delete(j);
    model_free(&m);
}

/* ---------- the link between two GPUs (nvml_link.c) ---------- */

#define PEER "0000:2A:00.0"

static void link_of(const char *a, const char *b, const char *kind, const char *detail)
{
    char k[16], d[192];
    nvml_link(a, b, k, sizeof k, d, sizeof d);
    assert_string_equal(k, kind);
    if (!strstr(d, detail))
        fail_msg("link detail '%s' lacks '%s'", d, detail);
}

static void test_link_kinds(void **state)
{
    (void)state;
    use_fake();
    setenv("FAKE_NVML_PEER_BUS_ID", PEER, 1);
    /* NVLinks whose far end is the other GPU. */
    setenv("FAKE_NVML_NVLINKS", "4", 1);
    setenv("FAKE_NVML_NVLINK_TO", "peer", 1);
    link_of(BUS, PEER, "NVLink", "4 NVLinks straight to the other GPU (of 4 active)");
    /* NVLinks to a switch, and NVML's P2P status saying NVLink: through NVSwitch. */
    setenv("FAKE_NVML_NVLINKS", "18", 1);
    setenv("FAKE_NVML_NVLINK_TO", "switch", 1);
    setenv("FAKE_NVML_P2P_NVLINK", "ok", 1);
    link_of(BUS, PEER, "NVLink", "through NVSwitch: 18 active NVLinks, 18 to a switch");
    /* Links to a switch, but no NVLink P2P between these two: PCIe, with its path. */
    setenv("FAKE_NVML_P2P_NVLINK", "no", 1);
    setenv("FAKE_NVML_TOPO", "20", 1);
    link_of(BUS, PEER, "PCIe", "no NVLink between them; PCIe path: PXB (multiple PCIe bridges)");
    /* No NVLink at all, across NUMA nodes. */
    unsetenv("FAKE_NVML_NVLINKS");
    unsetenv("FAKE_NVML_P2P_NVLINK");
    setenv("FAKE_NVML_TOPO", "50", 1);
    link_of(BUS, PEER, "PCIe", "SYS (across NUMA nodes");
    unsetenv("FAKE_NVML_TOPO");
    link_of(BUS, PEER, "PCIe", "PCIe path not known (Not Supported)");
}

static void test_link_na(void **state)
{
    (void)state;
    use_fake();
    setenv("FAKE_NVML_PEER_BUS_ID", PEER, 1);
    link_of(BUS, "0000:17:00.0", "n/a", "NVML does not know the GPU at " BUS " or 0000:17:00.0: Not Found");
    setenv("FAKE_NVML_INIT_FAIL", "1", 1);
    link_of(BUS, PEER, "n/a", "nvmlInit failed: Driver Not Loaded");
    unsetenv("FAKE_NVML_INIT_FAIL");
    setenv("MMPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    link_of(BUS, PEER, "n/a", "/nonexistent/libnvidia-ml.so.1 not found: ");
    unsetenv("MMPROF_NVML_LIBRARY");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_library_is_na),
        cmocka_unit_test(test_named_library_missing),
        cmocka_unit_test(test_device_by_bus_id),
        cmocka_unit_test(test_readings_reduced_around_compute),
        cmocka_unit_test(test_warnings_name_reasons_and_pids),
        cmocka_unit_test(test_other_pid_namespace),
        cmocka_unit_test(test_sampling_thread),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_bad_device_state),
        cmocka_unit_test(test_link_kinds),
        cmocka_unit_test(test_link_na),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
