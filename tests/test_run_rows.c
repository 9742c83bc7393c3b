/* Runs as rows (run_rows.h), their key, SQL literals, the store's round trip through SQLite, the
 * diff's noise rules on rows made by hand, and history's band. The samples' own figures against
 * the databases are tests/test_db.sh's. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "db.h"
#include "diff.h"
#include "history.h"
#include "model_json.h"
#include "run_store.h"
#include "sha256.h"
#include "store.h"

static void sha256_matches_fips_vectors(void **state)
{
    (void)state;
    char hex[65];
    sha256_ctx c;
    sha256_init(&c);
    sha256_hex(&c, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_init(&c);
    sha256_add(&c, "a", 1);
    sha256_add(&c, "bc", 2); /* in pieces, as the rows are hashed */
    sha256_hex(&c, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* two blocks padded */
    sha256_init(&c);
    sha256_add(&c, two, strlen(two));
    sha256_hex(&c, hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void sql_literals_are_quoted_and_utf8(void **state)
{
    (void)state;
    strbuf b;
    sb_init(&b);
    sql_text(&b, "it's \xff ok \xc3\xa9");
    sb_add(&b, " ");
    sql_num(&b, 1.5);
    sb_add(&b, " ");
    sql_num(&b, NAN);
    sb_add(&b, " ");
    sql_num(&b, 42);
    assert_string_equal(b.s, "'it''s ? ok \xc3\xa9' 1.5 NULL 42");
    sb_free(&b);
}

/* Rows of a run with one range group and its median instance's account, one kernel. */
static void make_run(run_rows *r, double median, double mad, int count, double input_ms, const char *kernel,
                     double kernel_ms)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < RR_NTABLES; i++)
        r->tables[i].t = &rr_tables[i];
    rr_rows *t = &r->tables[RR_RUNS];
    rr_val *v = rr_add_row(t);
    rr_set_text(&v[rr_col_find(t->t, "started_at")], "2026-01-01T00:00:00Z");
    t = &r->tables[RR_REGIONS];
    v = rr_add_row(t);
    rr_set_num(&v[rr_col_find(t->t, "idx")], 0);
    rr_set_num(&v[rr_col_find(t->t, "wall_ms")], 1000 + count * median);
    t = &r->tables[RR_RANGE_GROUPS];
    v = rr_add_row(t);
    rr_set_text(&v[rr_col_find(t->t, "name")], "step *");
    rr_set_text(&v[rr_col_find(t->t, "kind")], "nvtx");
    rr_set_num(&v[rr_col_find(t->t, "count")], count);
    rr_set_num(&v[rr_col_find(t->t, "median_ms")], median);
    rr_set_num(&v[rr_col_find(t->t, "mad_ms")], mad);
    t = &r->tables[RR_ACCOUNTS];
    v = rr_add_row(t);
    rr_set_num(&v[rr_col_find(t->t, "idx")], 0);
    rr_set_text(&v[rr_col_find(t->t, "scope")], "group_median");
    rr_set_text(&v[rr_col_find(t->t, "range_group")], "step *");
    t = &r->tables[RR_ACCOUNT_STATES];
    v = rr_add_row(t);
    rr_set_num(&v[rr_col_find(t->t, "account")], 0);
    rr_set_text(&v[rr_col_find(t->t, "state")], "gpu_compute");
    rr_set_num(&v[rr_col_find(t->t, "ms")], median - input_ms);
    v = rr_add_row(t);
    rr_set_num(&v[rr_col_find(t->t, "account")], 0);
    rr_set_text(&v[rr_col_find(t->t, "state")], "input");
    rr_set_text(&v[rr_col_find(t->t, "at")], "train.py:38 (main)");
    rr_set_num(&v[rr_col_find(t->t, "ms")], input_ms);
    t = &r->tables[RR_KERNELS];
    v = rr_add_row(t);
    rr_set_text(&v[rr_col_find(t->t, "name")], kernel);
    rr_set_num(&v[rr_col_find(t->t, "launches")], 40);
    rr_set_num(&v[rr_col_find(t->t, "total_ms")], kernel_ms);
    rr_set_num(&v[rr_col_find(t->t, "stddev_ms")], 0.001);
    run_rows_key(r);
}

static const diff_change *find_change(const run_diff *d, diff_kind k, const char *name)
{
    for (int i = 0; i < d->nchanges; i++)
        if (d->changes[i].kind == k && strcmp(d->changes[i].name, name) == 0)
            return &d->changes[i];
    return NULL;
}

static void diff_judges_a_range_by_its_instances(void **state)
{
    (void)state;
    run_rows a, b, c;
    make_run(&a, 20.0, 0.2, 40, 1.0, "gemm", 80);
    make_run(&b, 20.5, 0.3, 40, 1.0, "gemm", 80);  /* +0.5 ms: within 3 x 1.4826 x 0.3 = 1.33 */
    make_run(&c, 38.2, 0.3, 40, 18.9, "gemm", 80); /* +18.2 ms, of it input +17.9 */
    assert_string_not_equal(a.key, b.key);
    diff_options o = {.threshold_pct = 5, .min_change_pct = -1};
    run_diff d;
    assert_true(diff_runs(&a, &b, &o, &d));
    const diff_change *s = find_change(&d, DIFF_RANGE, "step *");
    assert_non_null(s);
    assert_int_equal(s->verdict, DV_SAME);
    assert_string_equal(s->noise_from, "instances");
    assert_true(fabs(s->noise_ms - 3 * 1.4826 * 0.3) < 1e-9);
    assert_int_equal(d.regressions, 0);
    run_diff_free(&d);

    assert_true(diff_runs(&a, &c, &o, &d));
    s = find_change(&d, DIFF_RANGE, "step *");
    assert_int_equal(s->verdict, DV_SLOWER);
    assert_true(s->regression);
    assert_true(fabs(s->delta_ms - 18.2) < 1e-9);
    assert_true(s->nparts >= 1);
    assert_string_equal(s->parts[0].state, "input");
    char words[256];
    diff_parts_words(s, words, sizeof words);
    /* kernels +0.3 ms is under a twentieth of the change: not named */
    assert_string_equal(words, "waiting for input +17.9 ms at train.py:38 (main)");
    run_diff_free(&d);
    run_rows_free(&a);
    run_rows_free(&b);
    run_rows_free(&c);
}

static void diff_names_a_new_kernel(void **state)
{
    (void)state;
    run_rows a, b;
    make_run(&a, 20.0, 0.2, 40, 1.0, "gemm", 80);
    make_run(&b, 20.0, 0.2, 40, 1.0, "gemm", 80);
    rr_rows *k = &b.tables[RR_KERNELS];
    rr_val *v = rr_add_row(k);
    rr_set_text(&v[rr_col_find(k->t, "name")], "planted");
    rr_set_num(&v[rr_col_find(k->t, "launches")], 10);
    rr_set_num(&v[rr_col_find(k->t, "total_ms")], 25);
    diff_options o = {.threshold_pct = -1, .min_change_pct = -1};
    run_diff d;
    assert_true(diff_runs(&a, &b, &o, &d));
    assert_int_equal(d.ncalled, 1);
    const diff_change *c = &d.changes[0]; /* beyond the noise first */
    assert_int_equal(c->kind, DIFF_KERNEL);
    assert_string_equal(c->name, "planted");
    assert_int_equal(c->verdict, DV_NEW);
    assert_int_equal(c->regression, false); /* no threshold given */
    run_diff_free(&d);
    run_rows_free(&a);
    run_rows_free(&b);
}

static void store_round_trip_keeps_rows_and_key(void **state)
{
    (void)state;
    char path[] = "/tmp/mmprof-test-rows-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path); /* a new database file */
    char err[1024];
    db *d = db_open(path, true, err, sizeof err);
    assert_non_null(d);
    run_rows r, back;
    make_run(&r, 20.0, 0.2, 40, 1.0, "it's a kernel", 80);
    long long id;
    bool added;
    assert_true(store_begin(d, err, sizeof err));
    assert_true(store_rows(d, &r, NULL, &id, &added, err, sizeof err));
    assert_true(added);
    assert_true(store_rows(d, &r, NULL, &id, &added, err, sizeof err));
    assert_false(added); /* the same content is found by its key */
    assert_true(store_commit(d, err, sizeof err));
    long long found;
    assert_true(store_find(d, "1", &found, err, sizeof err));
    assert_int_equal(found, id);
    char prefix[8];
    snprintf(prefix, sizeof prefix, "%.7s", r.key);
    assert_true(store_find(d, prefix, &found, err, sizeof err));
    assert_false(store_find(d, "zz", &found, err, sizeof err));
    assert_true(store_load(d, id, &back, err, sizeof err));
    assert_string_equal(back.key, r.key);
    run_rows_key(&back); /* the rows read back hash to the key stored */
    assert_string_equal(back.key, r.key);
    assert_string_equal(rr_text(&back.tables[RR_KERNELS], 0, "name"), "it's a kernel");
    run_rows_free(&back);
    run_rows_free(&r);
    db_close(d);
    unlink(path);
    /* a file that is not a database is refused when opened */
    FILE *f = fopen(path, "w");
    fputs("not a database, but text long enough to be read as a header of one\n", f);
    fclose(f);
    assert_null(db_open(path, true, err, sizeof err));
    assert_non_null(strstr(err, path));
    unlink(path);
}

static void history_flags_a_step_once_and_a_stray_alone(void **state)
{
    (void)state;
    history_point p[12];
    double v[12] = {10, 10.1, 9.9, 10, 10.05, 12, 12.1, 11.9, 12, 15, 12, 12.05};
    for (int i = 0; i < 12; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].value = v[i];
        p[i].own_noise = NAN;
    }
    history_judge(p, 12);
    assert_false(isfinite(p[2].baseline)); /* two runs before it: not judged */
    assert_int_equal(p[3].changed, 0);
    assert_int_equal(p[5].changed, 1);  /* the step */
    assert_int_equal(p[6].changed, 0);  /* not judged: too few since the step */
    assert_int_equal(p[8].changed, 0);  /* judged against the new level */
    assert_int_equal(p[9].changed, 1);  /* a stray */
    assert_int_equal(p[10].changed, 0);
    assert_int_equal(p[11].changed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_matches_fips_vectors),
        cmocka_unit_test(sql_literals_are_quoted_and_utf8),
        cmocka_unit_test(diff_judges_a_range_by_its_instances),
        cmocka_unit_test(diff_names_a_new_kernel),
        cmocka_unit_test(store_round_trip_keeps_rows_and_key),
        cmocka_unit_test(history_flags_a_step_once_and_a_stray_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
