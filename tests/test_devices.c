/* A --devices run, without a GPU: the committed run on the 2-GPU H200 machine (every workload on
 * each GPU alone and on both at once, and the peer matrix between them) is read back and reported.
 *  - the run holds both GPUs' workloads in both passes, every one verified, and the two ordered
 *    pairs of the peer matrix, measured and verified;
 *  - the per-GPU figures (devices.h) agree with the workloads' own: TFLOP/s alone and together
 *    are the workloads' kernel TFLOP/s, the change is their ratio, the aggregate their sum;
 *  - text, HTML, CSV and JSON show them, and the peer matrix with its GB/s, latency and link;
 *  - with one GPU the peer matrix is n/a with its reason, in every output;
 *  - a run file whose peer matrix names a device it lacks, or a pair of one GPU, is refused;
 *  - --devices is checked on the command line: not a number, named twice, past the largest
 *    index, mixed with --device or given to `mmprof report` exits 2 naming --devices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "csv.h"
#include "devices.h"
#include "html.h"
#include "json_report.h"
#include "model_json.h"
#include "test_support.h"

/* xz-compressed: the JSON is four 2048 runs' worth of events. */
#define DEVICES_SAMPLE "samples/h200x2-devices-2048.json.xz"

static run_model sample;
static analysis an;

static int group_setup(void **state)
{
    test_tmp_setup(state);
    char *json = unxz_sample(DEVICES_SAMPLE, test_tmp, "devices.json");
    if (!json)
        return -1;
    char err[512];
    bool ok = model_read_file(json, &sample, err, sizeof err) && analyze(&sample, &an);
    if (!ok)
        print_message("%s: %s\n", DEVICES_SAMPLE, err);
    free(json);
    return ok ? 0 : -1;
}

static int group_teardown(void **state)
{
    analysis_free(&an);
    model_free(&sample);
    return test_tmp_teardown(state);
}

static void sample_has_both_gpus_in_both_passes(void **state)
{
    (void)state;
    assert_int_equal(sample.ndevices, 2);
    assert_int_equal(sample.builtin.multi.ndevices, 2);
    int per[2][3] = {{0}};
    for (int i = 0; i < sample.builtin.nworkloads; i++) {
        const workload_run *w = &sample.builtin.workloads[i];
        if (!w->needs_gpu)
            continue;
        assert_true(w->device == 0 || w->device == 1);
        assert_true(w->pass == PASS_SEQUENTIAL || w->pass == PASS_CONCURRENT);
        assert_int_equal(w->status, WL_OK);
        assert_true(w->verified);
        /* CUPTI's kernels went to the workload of their own GPU. */
        event_list ev = owned_events(&sample, w);
        assert_true(ev.nkernels > 0);
        for (size_t k = 0; k < ev.nkernels; k++)
            assert_int_equal(ev.kernels[k].device, (uint32_t)w->device);
        events_clear(&ev);
        per[w->device][w->pass]++;
    }
    assert_true(per[0][PASS_SEQUENTIAL] > 0);
    assert_int_equal(per[0][PASS_SEQUENTIAL], per[1][PASS_SEQUENTIAL]);
    assert_int_equal(per[0][PASS_SEQUENTIAL], per[0][PASS_CONCURRENT]);
    assert_int_equal(per[0][PASS_SEQUENTIAL], per[1][PASS_CONCURRENT]);
    assert_int_equal(sample.builtin.multi.npairs, 2);
    for (int i = 0; i < 2; i++) {
        const peer_pair *p = &sample.builtin.multi.pairs[i];
        assert_int_equal(p->src, i);
        assert_int_equal(p->dst, 1 - i);
        assert_true(strcmp(p->link, "NVLink") == 0 || strcmp(p->link, "PCIe") == 0);
        for (int k = 0; k < PEER_MODES; k++) {
            assert_true(p->copy[k].measured && p->copy[k].verified);
            assert_true(p->copy[k].gbps > 0 && p->copy[k].latency_us > 0);
        }
    }
}

static void per_gpu_figures_agree_with_the_workloads(void **state)
{
    (void)state;
    devices_analysis d;
    assert_true(devices_analyze(&an, &d));
    assert_true(d.multi);
    assert_int_equal(d.npasses, 2);
    assert_true(d.nrows > 0);
    assert_int_equal(d.nrows, 2 * d.nagg);
    for (int i = 0; i < d.nrows; i++) {
        const device_workload_row *r = &d.rows[i];
        assert_true(r->wl_seq >= 0 && r->wl_conc >= 0);
        const workload_run *s = an.wl[r->wl_seq].w, *c = an.wl[r->wl_conc].w;
        assert_int_equal(s->device, r->device);
        assert_int_equal(c->device, r->device);
        assert_int_equal(s->pass, PASS_SEQUENTIAL);
        assert_int_equal(c->pass, PASS_CONCURRENT);
        assert_string_equal(s->name, c->name);
        assert_true(r->seq_tflops.ok && r->conc_tflops.ok && r->change_pct.ok);
        /* 2n^3 over the workload's median kernel time (ms): TFLOP/s. */
        assert_close(r->seq_tflops.v, product_flops(r->n) / an.wl[r->wl_seq].kernel_ms.v / 1e9, 1e-9);
        assert_close(r->conc_tflops.v, product_flops(r->n) / an.wl[r->wl_conc].kernel_ms.v / 1e9, 1e-9);
        /* Absolute: a change near 0 has no relative precision. */
        assert_true(fabs(r->change_pct.v - 100.0 * (r->conc_tflops.v / r->seq_tflops.v - 1)) < 1e-9);
    }
    for (int g = 0; g < d.nagg; g++) {
        double sum = 0, best = 0;
        for (int i = 0; i < d.nrows; i++)
            if (d.rows[i].n == d.agg[g].n && strcmp(d.rows[i].label, d.agg[g].label) == 0) {
                sum += d.rows[i].conc_tflops.v;
                best = d.rows[i].seq_tflops.v > best ? d.rows[i].seq_tflops.v : best;
            }
        assert_int_equal(d.agg[g].ngpus, 2);
        assert_close(d.agg[g].aggregate_tflops.v, sum, 1e-12);
        assert_close(d.agg[g].scaling.v, sum / best, 1e-12);
    }
    /* Both GPUs at once take less wall time than one after the other. */
    assert_true(d.seq_wall_ms.ok && d.conc_wall_ms.ok);
    assert_true(d.conc_wall_ms.v < d.seq_wall_ms.v);
    assert_int_equal(d.npeers, 2);
    for (int i = 0; i < d.npeers; i++) {
        assert_close(d.peers[i].direct_gbps.v, d.peers[i].p->copy[PEER_DIRECT].gbps, 0);
        assert_close(d.peers[i].staged_latency_us.v, d.peers[i].p->copy[PEER_STAGED].latency_us, 0);
    }
    devices_free(&d);
}

/* The peer line of a text report: "0 -> 1   NVLink  <direct GB/s> <us> <staged GB/s> <us>". */
static void assert_peer_line(const char *text, const peer_pair *p)
{
    char want[160];
    snprintf(want, sizeof want, "%d -> %d", p->src, p->dst);
    const char *line = strstr(text, want);
    assert_non_null(line);
    const char *end = strchr(line, '\n');
    assert_non_null(end);
    char row[256];
    snprintf(row, sizeof row, "%.*s", (int)(end - line), line);
    char figs[4][32];
    snprintf(figs[0], 32, " %.1f ", p->copy[PEER_DIRECT].gbps);
    snprintf(figs[1], 32, " %.2f ", p->copy[PEER_DIRECT].latency_us);
    snprintf(figs[2], 32, " %.1f ", p->copy[PEER_STAGED].gbps);
    snprintf(figs[3], 32, " %.2f ", p->copy[PEER_STAGED].latency_us);
    for (int k = 0; k < 4; k++)
        if (!strstr(row, figs[k]))
            fail_msg("'%s' lacks '%s'", row, figs[k]);
    assert_non_null(strstr(row, p->link));
    assert_non_null(strstr(row, "yes, both"));
}

static void text_report_shows_gpus_and_peer_matrix(void **state)
{
    (void)state;
    char *t = text_report_of(&an);
    assert_non_null(strstr(t, "\nGPUs  "));
    assert_non_null(strstr(t, "GPU 0, alone (one GPU after another)"));
    assert_non_null(strstr(t, "GPU 1, together (every GPU at once)"));
    assert_non_null(strstr(t, "TFLOP/s per GPU, alone and together"));
    assert_non_null(strstr(t, "\nPeer copies  cudaMemcpyPeerAsync"));
    for (int i = 0; i < sample.builtin.multi.npairs; i++)
        assert_peer_line(t, &sample.builtin.multi.pairs[i]);
    free(t);
}

static void html_csv_and_json_show_them(void **state)
{
    (void)state;
    char *h = render_html(&an);
    assert_non_null(h);
    assert_non_null(strstr(h, "<section id=\"devices\">"));
    assert_non_null(strstr(h, "Peer copies between GPUs"));
    /* The first pair's direct bandwidth, as the registry formats it, marked with its place in the JSON. */
    char fig[160];
    snprintf(fig, sizeof fig, "data-t=\"peer_pair\" data-fig=\"analysis.devices.peers[0].direct_gbps\" data-u=\"0\">%.1f</span>",
             sample.builtin.multi.pairs[0].copy[PEER_DIRECT].gbps);
    assert_non_null(strstr(h, fig));
    free(h);

    char *c = render_csv(&an);
    assert_non_null(c);
    int peers = 0, rows = 0, aggs = 0;
    for (const char *p = c; (p = strstr(p, "\r\n")); p += 2) {
        peers += strncmp(p + 2, "peer,", 5) == 0;
        rows += strncmp(p + 2, "gpu_workload,", 13) == 0;
        aggs += strncmp(p + 2, "gpu_aggregate,", 14) == 0;
    }
    assert_int_equal(peers, 2);
    assert_true(rows > 0);
    assert_int_equal(rows, 2 * aggs);
    assert_non_null(strstr(c, "peer.direct_gbps (GB/s)"));
    free(c);

    char *j = render_json(&an);
    assert_non_null(j);
    cJSON *root = cJSON_Parse(j);
    free(j);
    assert_non_null(root);
    const cJSON *dv = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "devices");
    assert_non_null(dv);
    const cJSON *pe = cJSON_GetObjectItem(dv, "peers");
    assert_int_equal(cJSON_GetArraySize(pe), 2);
    assert_close(cJSON_GetObjectItem(cJSON_GetArrayItem(pe, 0), "direct_gbps")->valuedouble,
                 sample.builtin.multi.pairs[0].copy[PEER_DIRECT].gbps, 1e-12);
    assert_null(cJSON_GetObjectItem(dv, "peer_matrix_not_available"));
    cJSON_Delete(root);
}

/* The sample as a one-GPU --devices run: GPU 1's workloads and the pairs gone, and the reason the
 * runner gives on a machine with one GPU. */
/* The recorded 2-GPU run cut down to GPU 0: its workloads, their regions (made again) and the
 * events they own, and the run's own events. */
static void one_gpu_run(run_model *m)
{
    char *path = path_in(test_tmp, "devices.json");
    load_run(path, m);
    free(path);
    int *moved = calloc((size_t)m->nregions, sizeof *moved); /* old region -> kept workload + 1 */
    assert_non_null(moved);
    int kept = 0;
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        if (m->builtin.workloads[i].device == 1) {
            workload_clear(&m->builtin.workloads[i]);
            continue;
        }
        if (m->builtin.workloads[i].region > 0)
            moved[m->builtin.workloads[i].region] = kept + 1;
        m->builtin.workloads[kept] = m->builtin.workloads[i];
        m->builtin.workloads[kept++].region = -1;
    }
    m->builtin.nworkloads = kept;
    /* Regions name workloads by index: made again for those left (the run's own first). */
    for (int i = 1; i < m->nregions; i++) {
        free(m->regions[i].name);
        free(m->regions[i].domain);
    }
    m->nregions = 1;
    assert_true(model_add_builtin_regions(m));
    /* Each event keeps its owner (under its new index) or goes with a workload let go. */
    event_list *e = &m->events;
#define KEEP(arr, count)                                                                          \
    do {                                                                                          \
        size_t n_ = 0;                                                                            \
        for (size_t i_ = 0; i_ < (count); i_++) {                                                 \
            int g_ = (arr)[i_].region, w_ = g_ > 0 ? moved[g_] - 1 : -2;                          \
            if (w_ == -1)                                                                         \
                continue; /* a GPU 1 workload's */                                                \
            (arr)[i_].region = w_ >= 0 ? m->builtin.workloads[w_].region : 0;                     \
            (arr)[n_++] = (arr)[i_];                                                              \
        }                                                                                         \
        (count) = n_;                                                                             \
    } while (0)
    /* Names stay: the list's name pool owns them (events_clear frees them). */
    KEEP(e->kernels, e->nkernels);
    KEEP(e->copies, e->ncopies);
    KEEP(e->memsets, e->nmemsets);
    KEEP(e->apis, e->napis);
    KEEP(e->syncs, e->nsyncs);
#undef KEEP
    free(moved);
    assert_true(model_finish_regions(m, "mmprof run"));
    m->builtin.multi.ndevices = 1;
    free(m->builtin.multi.pairs);
    m->builtin.multi.pairs = NULL;
    m->builtin.multi.npairs = 0;
    snprintf(m->builtin.multi.why, sizeof m->builtin.multi.why, "one GPU in the run (this machine has one CUDA device): no pair to copy between");
}

static void one_gpu_says_peer_matrix_na(void **state)
{
    (void)state;
    run_model m;
    one_gpu_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    char *t = text_report_of(&a);
    assert_non_null(strstr(t, "Peer copies  n/a: one GPU in the run (this machine has one CUDA device)"));
    assert_null(strstr(t, "0 -> 1"));
    free(t);
    char *h = render_html(&a);
    assert_non_null(strstr(h, "<span class=\"na\">n/a</span>: one GPU in the run"));
    free(h);
    char *j = render_json(&a);
    cJSON *root = cJSON_Parse(j);
    free(j);
    const cJSON *na = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "devices"),
                                          "peer_matrix_not_available");
    assert_true(cJSON_IsString(na));
    assert_string_equal(na->valuestring, m.builtin.multi.why);
    cJSON_Delete(root);
    /* Written and read back, the reason stays. */
    char *path = path_in(test_tmp, "one.json");
    root = model_to_json(&m);
    char *s = cJSON_PrintUnformatted(root);
    assert_true(write_text(path, s));
    cJSON_Delete(root);
    free(s);
    run_model back;
    load_run(path, &back);
    assert_int_equal(back.builtin.multi.ndevices, 1);
    assert_int_equal(back.builtin.multi.npairs, 0);
    assert_string_equal(back.builtin.multi.why, m.builtin.multi.why);
    model_free(&back);
    free(path);
    analysis_free(&a);
    model_free(&m);
}

/* A run file whose peer matrix does not fit its devices is refused with the member named: a pair
 * naming a device the run lacks, a pair of one GPU with itself, a GPU list naming a missing one. */
static void bad_peer_matrix_is_refused(void **state)
{
    (void)state;
    char *path0 = path_in(test_tmp, "devices.json"), *path = path_in(test_tmp, "bad.json");
    char *orig = read_file(path0, NULL);
    assert_non_null(orig);
    for (int e = 0; e < 3; e++) {
        cJSON *root = cJSON_Parse(orig);
        assert_non_null(root);
        cJSON *mg = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "multi_gpu");
        cJSON *pair = cJSON_GetArrayItem(cJSON_GetObjectItem(mg, "peers"), 0);
        if (e == 0)
            cJSON_SetNumberValue(cJSON_GetObjectItem(pair, "dst"), 2);
        else if (e == 1)
            cJSON_SetNumberValue(cJSON_GetObjectItem(pair, "dst"), cJSON_GetObjectItem(pair, "src")->valuedouble);
        else
            cJSON_SetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(mg, "devices"), 1), 5);
        char *bad = cJSON_PrintUnformatted(root);
        cJSON_Delete(root);
        assert_true(write_text(path, bad));
        free(bad);
        run_model m;
        char err[512];
        assert_false(model_read_file(path, &m, err, sizeof err));
        if (!strstr(err, "multi_gpu"))
            fail_msg("edit %d: %s", e, err);
    }
    free(orig);
    free(path0);
    free(path);
}

static void devices_option_errors(void **state)
{
    (void)state;
    static const char *const bad[][3] = {
        {"x", "'x' is not a device index", NULL},
        {"0,0", "device 0 is named twice", NULL},
        {"0,,1", "'' is not a device index", NULL},
        {"-1", "'-1' is not a device index", NULL},
        {"16", "device 16 is out of range", NULL},
        {"", "is not a device index", NULL},
    };
    char *json = path_in(test_tmp, "never.json");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {mmprof_bin(), "--devices", bad[i][0], "--json", json, "--size", "64", NULL};
        cmd_result r = run_argv(argv, NULL);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, "--devices") || !strstr(r.err, bad[i][1]))
            fail_msg("--devices '%s': %s", bad[i][0], r.err);
        assert_null(read_file(json, NULL));
        cmd_free(&r);
    }
    const char *both[] = {mmprof_bin(), "--device", "0", "--devices", "all", NULL};
    cmd_result r = run_argv(both, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--device and --devices"));
    cmd_free(&r);
    const char *report[] = {mmprof_bin(), "report", sample_path(), "--devices", "all", NULL};
    r = run_argv(report, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--devices applies to a new run"));
    cmd_free(&r);
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_has_both_gpus_in_both_passes),
        cmocka_unit_test(per_gpu_figures_agree_with_the_workloads),
        cmocka_unit_test(text_report_shows_gpus_and_peer_matrix),
        cmocka_unit_test(html_csv_and_json_show_them),
        cmocka_unit_test(one_gpu_says_peer_matrix_na),
        cmocka_unit_test(bad_peer_matrix_is_refused),
        cmocka_unit_test(devices_option_errors),
    };
    return cmocka_run_group_tests_name("devices", tests, group_setup, group_teardown);
}
