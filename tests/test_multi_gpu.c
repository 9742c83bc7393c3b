/* GPU tests of a --devices run (make test-gpu). One run over every GPU of the machine at n = 1024
 * (all workloads, both memory kinds) is made in the group's setup and read back; the tests check:
 *  - every workload ran and verified on every GPU, in both passes (each GPU alone, all at once),
 *    and CUPTI's kernels went to the workload of their own GPU;
 *  - the concurrent pass really ran the GPUs at once: their spans overlap;
 *  - the peer matrix has every ordered pair; each copy's bytes arrived right, in both modes
 *    (peer access on where the GPUs can reach each other), at a plausible bandwidth: above
 *    PEER_MIN_GBPS and below PEER_MAX_GBPS, and a latency between 0 and PEER_MAX_LATENCY_US;
 *  - --devices with one GPU runs, and says why there is no peer matrix;
 *  - an index past the machine's last GPU is refused with exit 2, naming --devices.
 * The tests that need two GPUs report themselves skipped on a machine with one (or none); those
 * that need one skip without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model_json.h"
#include "test_support.h"

/* The fastest link between two GPUs today, NVLink 4 at 18 links, carries 450 GB/s each way; a copy
 * faster than 600 GB/s would be a timing error. 1 GB/s is below even a PCIe 3 x1 link staged
 * through the host. */
#define PEER_MIN_GBPS 1.0
#define PEER_MAX_GBPS 600.0
#define PEER_MAX_LATENCY_US 1000.0

static bool have_gpu;
static int ngpus;
static char *tmp;
static run_model all;    /* --devices all, n = 1024 */
static int all_status = -1;

static int run_to(const char *json, const char *devices, const char *size, cmd_result *out)
{
    const char *argv[] = {mmprof_bin(), "--quiet", "--json", json, "--devices", devices, "--size", size, NULL};
    *out = run_argv(argv, NULL);
    return out->status;
}

static int group_setup(void **state)
{
    (void)state;
    tmp = make_temp_dir();
    have_gpu = gpu_usable();
    model_init(&all);
    if (!have_gpu)
        return 0;
    char *json = path_in(tmp, "all.json");
    cmd_result r;
    all_status = run_to(json, "all", "1024", &r);
    if (all_status != 0)
        print_message("mmprof --devices all exited %d:\n%s\n", all_status, r.err);
    cmd_free(&r);
    char err[512];
    if (!model_read_file(json, &all, err, sizeof err)) {
        print_message("%s\n", err);
        model_init(&all);
    }
    ngpus = all.ndevices;
    print_message("%d GPU%s on this machine\n", ngpus, ngpus == 1 ? "" : "s");
    free(json);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    model_free(&all);
    rm_rf(tmp);
    free(tmp);
    return 0;
}

static void need_gpus(int n)
{
    if (!have_gpu || ngpus < n) {
        print_message("needs %d GPU%s; this machine has %d usable\n", n, n == 1 ? "" : "s", have_gpu ? ngpus : 0);
        skip();
    }
}

static void every_workload_verifies_on_every_gpu(void **state)
{
    (void)state;
    need_gpus(2);
    assert_int_equal(all_status, 0);
    assert_int_equal(all.builtin.multi.ndevices, ngpus);
    int per_pass = 2 * gpu_workload_count(); /* pageable and pinned */
    for (int d = 0; d < ngpus; d++)
        for (int p = PASS_SEQUENTIAL; p <= PASS_CONCURRENT; p++) {
            int ran = 0;
            for (int i = 0; i < all.builtin.nworkloads; i++) {
                const workload_run *w = &all.builtin.workloads[i];
                if (w->device != d || (int)w->pass != p)
                    continue;
                char label[64];
                workload_label(w, label, sizeof label);
                if (w->status != WL_OK || !w->verified)
                    print_message("GPU %d %s %s: %s %s\n", d, device_pass_name(w->pass), label, status_name(w->status),
                                  w->status_reason);
                assert_int_equal(w->status, WL_OK);
                assert_true(w->verified && w->rel_error <= w->error_bound);
                /* CUPTI's records went to the workload of their own GPU, even when both ran at once. */
                assert_int_equal(w->timing, TIMING_CUPTI);
                event_list ev = owned_events(&all, w);
                assert_true(ev.nkernels >= (size_t)w->launched);
                for (size_t k = 0; k < ev.nkernels; k++)
                    assert_int_equal(ev.kernels[k].device, (uint32_t)d);
                events_clear(&ev);
                ran++;
            }
            assert_int_equal(ran, per_pass);
        }
}

static void span(const workload_run *w, int64_t *lo, int64_t *hi)
{
    if (w->nphases == 0)
        return;
    if (*hi == 0 || w->phases[0].start_ns < *lo)
        *lo = w->phases[0].start_ns;
    if (w->phases[w->nphases - 1].end_ns > *hi)
        *hi = w->phases[w->nphases - 1].end_ns;
}

static void concurrent_pass_overlaps(void **state)
{
    (void)state;
    need_gpus(2);
    int64_t lo[2] = {0, 0}, hi[2] = {0, 0};
    for (int i = 0; i < all.builtin.nworkloads; i++) {
        const workload_run *w = &all.builtin.workloads[i];
        if (w->pass == PASS_CONCURRENT && w->device >= 0 && w->device < 2)
            span(w, &lo[w->device], &hi[w->device]);
    }
    assert_true(hi[0] > lo[0] && hi[1] > lo[1]);
    int64_t both = (hi[0] < hi[1] ? hi[0] : hi[1]) - (lo[0] > lo[1] ? lo[0] : lo[1]);
    int64_t shorter = hi[0] - lo[0] < hi[1] - lo[1] ? hi[0] - lo[0] : hi[1] - lo[1];
    print_message("concurrent pass: GPU 0 %.1f ms, GPU 1 %.1f ms, both busy %.1f ms\n", (hi[0] - lo[0]) / 1e6,
                  (hi[1] - lo[1]) / 1e6, both / 1e6);
    /* Run at once, the two GPUs' spans overlap for most of the shorter one. */
    assert_true(both > shorter / 2);
}

static void peer_matrix_copies_verify(void **state)
{
    (void)state;
    need_gpus(2);
    const multi_gpu_info *g = &all.builtin.multi;
    assert_int_equal(g->npairs, ngpus * (ngpus - 1));
    for (int i = 0; i < g->npairs; i++) {
        const peer_pair *p = &g->pairs[i];
        assert_true(p->src != p->dst);
        print_message("%d -> %d %s (%s): direct %.1f GB/s %.2f us, staged %.1f GB/s %.2f us\n", p->src, p->dst,
                      p->link, p->link_detail, p->copy[PEER_DIRECT].gbps, p->copy[PEER_DIRECT].latency_us,
                      p->copy[PEER_STAGED].gbps, p->copy[PEER_STAGED].latency_us);
        for (int k = 0; k < PEER_MODES; k++) {
            const peer_copy *c = &p->copy[k];
            if (k == PEER_DIRECT && !p->can_access_peer) {
                assert_false(c->measured);
                assert_true(c->why[0] != '\0');
                continue;
            }
            if (!c->measured || !c->verified)
                print_message("%d -> %d %s: %s\n", p->src, p->dst, k == PEER_DIRECT ? "direct" : "staged", c->why);
            assert_true(c->measured);
            assert_true(c->verified);
            assert_true(c->gbps > PEER_MIN_GBPS && c->gbps < PEER_MAX_GBPS);
            assert_true(c->latency_us > 0 && c->latency_us < PEER_MAX_LATENCY_US);
        }
    }
}

static void one_gpu_has_no_peer_matrix(void **state)
{
    (void)state;
    need_gpus(1);
    char *json = path_in(tmp, "one.json");
    cmd_result r;
    int status = run_to(json, "0", "256", &r);
    if (status != 0)
        print_message("%s\n", r.err);
    cmd_free(&r);
    assert_int_equal(status, 0);
    run_model m;
    load_run(json, &m);
    assert_int_equal(m.builtin.multi.ndevices, 1);
    assert_int_equal(m.builtin.multi.npairs, 0);
    assert_non_null(strstr(m.builtin.multi.why, "one GPU"));
    model_free(&m);
    free(json);
}

static void index_past_the_last_gpu_is_refused(void **state)
{
    (void)state;
    need_gpus(1);
    char *json = path_in(tmp, "bad.json"), index[16];
    snprintf(index, sizeof index, "0,%d", ngpus);
    cmd_result r;
    int status = run_to(json, index, "64", &r);
    assert_int_equal(status, 2);
    assert_non_null(strstr(r.err, "--devices"));
    assert_non_null(strstr(r.err, "out of range"));
    assert_null(read_file(json, NULL)); /* nothing written */
    cmd_free(&r);
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_workload_verifies_on_every_gpu),
        cmocka_unit_test(concurrent_pass_overlaps),
        cmocka_unit_test(peer_matrix_copies_verify),
        cmocka_unit_test(one_gpu_has_no_peer_matrix),
        cmocka_unit_test(index_past_the_last_gpu_is_refused),
    };
    return cmocka_run_group_tests_name("multi-gpu", tests, group_setup, group_teardown);
}
