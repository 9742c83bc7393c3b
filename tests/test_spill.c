/* spill.h: arrays below the threshold stay on the heap; one that grows past it moves into a file
 * with its contents, keeps growing there and is never shrunk; zeroed arrays read as zeros either
 * way; the file has no name in TMPDIR, before and after the free; without a usable directory, or
 * with one in memory (tmpfs), the arrays stay on the heap and work; threads growing and freeing
 * arrays side by side keep each its own. And a report whose arrays are all in files: a recorded
 * run read and analysed with every array from 4 KiB in a file gives the same run model and the
 * same analysis JSON. The growing arrays' capacity (array_grow.h) is the next power of two, at
 * least 8, however large. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze.h"
#include "array_grow.h"
#include "json_report.h"
#include "model_json.h"
#include "spill.h"
#include "test_support.h"

static char *tmp;

static int setup(void **state)
{
    (void)state;
    tmp = make_temp_dir();
    if (!tmp || setenv("TMPDIR", tmp, 1) != 0)
        return -1;
    spill_min_bytes = 64 << 10;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(tmp);
    free(tmp);
    spill_min_bytes = SPILL_MIN_BYTES;
    return 0;
}

/* Entries of dir but . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return d ? n : -1;
}

static uint32_t word(size_t i, uint32_t salt) { return (uint32_t)(i * 2654435761u) ^ salt; }

/* An array grown by doubling from 256 to bytes, each growth filling the new part; checked whole
 * at the end. */
static uint32_t *grow_to(size_t bytes, uint32_t salt)
{
    uint32_t *v = NULL;
    size_t n = 0;
    for (size_t cap = 64; cap * sizeof *v <= bytes; cap *= 2) {
        uint32_t *g = spill_resize(v, n * sizeof *v, cap * sizeof *v);
        if (!g) {
            spill_free(v);
            return NULL;
        }
        v = g;
        for (; n < cap; n++)
            v[n] = word(n, salt);
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] != word(i, salt)) {
            spill_free(v);
            return NULL;
        }
    return v;
}

static void heap_below_the_threshold(void **state)
{
    (void)state;
    uint32_t *v = grow_to(32 << 10, 1);
    assert_non_null(v);
    assert_false(spill_in_file(v));
    assert_int_equal(spill_file_bytes(), 0);
    spill_free(v);
}

static void moves_to_a_file_with_its_contents(void **state)
{
    (void)state;
    size_t before = spill_file_bytes();
    uint32_t *v = grow_to(4 << 20, 2); /* crosses 64 KiB on the way, then grows in the file */
    assert_non_null(v);
    assert_true(spill_in_file(v));
    assert_true(spill_file_bytes() >= before + (4 << 20));
    /* Asked for less: the same array, its contents kept. */
    assert_ptr_equal(spill_resize(v, 4 << 20, 1 << 10), v);
    assert_int_equal(v[(1 << 20) - 1], word((1 << 20) - 1, 2));
    assert_int_equal(entries(tmp), 0); /* no name, while held */
    spill_free(v);
    assert_int_equal(spill_file_bytes(), before);
    assert_int_equal(entries(tmp), 0);
}

static void zeroed_either_way(void **state)
{
    (void)state;
    for (size_t n = 1000; n <= 1000000; n *= 1000) { /* 8 KB on the heap, 8 MB in a file */
        uint64_t *z = spill_calloc(n, sizeof *z);
        assert_non_null(z);
        assert_int_equal(spill_in_file(z), n * sizeof *z >= spill_min_bytes);
        for (size_t i = 0; i < n; i++)
            assert_true(z[i] == 0);
        spill_free(z);
    }
    assert_null(spill_calloc(SIZE_MAX / 2, 4)); /* the size overflows */
}

static void heap_without_a_directory(void **state)
{
    (void)state;
    char missing[512];
    snprintf(missing, sizeof missing, "%s/not-there", tmp);
    setenv("TMPDIR", missing, 1);
    uint32_t *v = grow_to(1 << 20, 3);
    uint64_t *z = spill_calloc(200000, sizeof *z);
    setenv("TMPDIR", tmp, 1);
    assert_non_null(v);
    assert_false(spill_in_file(v));
    assert_non_null(z);
    assert_false(spill_in_file(z));
    for (size_t i = 0; i < 200000; i++)
        assert_true(z[i] == 0);
    spill_free(v);
    spill_free(z);
}

/* A directory in memory (tmpfs: /dev/shm where it is one) is no place for them: the heap. */
static void heap_where_the_directory_is_memory(void **state)
{
    (void)state;
    struct statfs fs;
    if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC || access("/dev/shm", W_OK) != 0)
        skip();
    setenv("TMPDIR", "/dev/shm", 1);
    uint32_t *v = grow_to(1 << 20, 4);
    setenv("TMPDIR", tmp, 1);
    assert_non_null(v);
    assert_false(spill_in_file(v));
    spill_free(v);
}

static void *grow_and_free(void *arg)
{
    uintptr_t salt = (uintptr_t)arg;
    for (int round = 0; round < 8; round++) {
        uint32_t *v = grow_to((size_t)(256 << 10) << (round % 3), (uint32_t)(salt * 100 + round));
        if (!v || !spill_in_file(v))
            return (void *)1;
        spill_free(v);
    }
    return NULL;
}

static void threads_keep_their_own(void **state)
{
    (void)state;
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, grow_and_free, (void *)i), 0);
    for (int i = 0; i < 4; i++) {
        void *failed;
        pthread_join(t[i], &failed);
        assert_null(failed);
    }
    assert_int_equal(spill_file_bytes(), 0);
}

/* The sample's run file, read and analysed: its model's text and the analysis JSON. */
static void report_of_sample(char **model, char **json, bool *apis_in_file)
{
    run_model m;
    char err[512];
    assert_true(model_read_file(sample_path(), &m, err, sizeof err));
    *apis_in_file = spill_in_file(m.events.apis);
    *model = model_to_text(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    *json = render_json(&a);
    assert_non_null(*model);
    assert_non_null(*json);
    analysis_free(&a);
    model_free(&m);
}

static void same_report_from_files(void **state)
{
    (void)state;
    char *model_heap, *json_heap, *model_file, *json_file;
    bool in_file;
    spill_min_bytes = SPILL_MIN_BYTES;
    report_of_sample(&model_heap, &json_heap, &in_file);
    assert_false(in_file);
    spill_min_bytes = 4096;
    report_of_sample(&model_file, &json_file, &in_file);
    spill_min_bytes = 64 << 10;
    assert_true(in_file);
    assert_string_equal(model_file, model_heap);
    assert_string_equal(json_file, json_heap);
    assert_int_equal(spill_file_bytes(), 0); /* all freed */
    free(model_heap);
    free(json_heap);
    free(model_file);
    free(json_file);
}

/* array_capacity_for against doubling from 8, below and at every power of two up to 2^62. */
static void capacity_is_the_next_power_of_two(void **state)
{
    (void)state;
    for (size_t n = 0; n < 70000; n++) {
        size_t cap = 8;
        while (cap < n)
            cap *= 2;
        assert_int_equal(array_capacity_for(n), cap);
    }
    for (int k = 4; k <= 62; k++) {
        size_t p = (size_t)1 << k;
        assert_int_equal(array_capacity_for(p - 1), p);
        assert_int_equal(array_capacity_for(p), p);
        assert_int_equal(array_capacity_for(p + 1), 2 * p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heap_below_the_threshold),
        cmocka_unit_test(moves_to_a_file_with_its_contents),
        cmocka_unit_test(zeroed_either_way),
        cmocka_unit_test(heap_without_a_directory),
        cmocka_unit_test(heap_where_the_directory_is_memory),
        cmocka_unit_test(threads_keep_their_own),
        cmocka_unit_test(same_report_from_files),
        cmocka_unit_test(capacity_is_the_next_power_of_two),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
