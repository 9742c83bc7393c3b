/* The injection library's table of live allocations (src/inject/mem_live.c), without a GPU: adds
 * and frees by address keep the count and bytes exact, whatever order the probes collide in
 * (removal shifts entries back, so every held key stays findable); a full table counts what it
 * cannot hold instead of growing; the live set is grouped by call site, device and kind, most bytes
 * first, the groups past the limit summed into one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mem_live.h"

/* Addresses as the driver hands them out: 2 MB apart, in one region, so their home slots crowd. */
static uint64_t addr(int i) { return 0x7f3a00000000ull + ((uint64_t)i << 21); }

static void adds_and_frees_stay_exact(void **state)
{
    (void)state;
    mem_live_table t;
    assert_true(mem_live_init(&t, 1024));
    assert_int_equal(t.cap, 1024);
    uint64_t bytes = 0;
    for (int i = 0; i < 700; i++) {
        mem_live_add(&t, addr(i), 1000 + (uint64_t)i, (uint32_t)(i % 5), 0, 3);
        bytes += 1000 + (uint64_t)i;
    }
    assert_int_equal(t.n, 700);
    assert_true(t.bytes == bytes);
    /* Free every third, in a scattered order, then check each remaining key is still found. */
    for (int k = 0; k < 700; k++) {
        int i = (k * 389) % 700;
        if (i % 3)
            continue;
        mem_live_entry e;
        assert_true(mem_live_remove(&t, addr(i), &e));
        assert_true(e.bytes == 1000 + (uint64_t)i && e.node == (uint32_t)(i % 5));
        bytes -= e.bytes;
    }
    assert_true(t.bytes == bytes);
    for (int i = 0; i < 700; i++) {
        mem_live_entry e;
        bool held = mem_live_remove(&t, addr(i), &e);
        assert_int_equal(held, i % 3 != 0);
        if (held)
            assert_true(e.bytes == 1000 + (uint64_t)i);
    }
    assert_int_equal(t.n, 0);
    assert_true(t.bytes == 0);
    assert_false(mem_live_remove(&t, addr(1), NULL)); /* a free of what was never seen */
    assert_false(mem_live_remove(&t, 0, NULL));
    mem_live_free(&t);
}

/* The same address given again (freed unseen) replaces its entry; a VMM handle is its own key. */
static void readded_address_replaces(void **state)
{
    (void)state;
    mem_live_table t;
    assert_true(mem_live_init(&t, 16));
    mem_live_add(&t, addr(1), 100, 1, 0, 3);
    mem_live_add(&t, addr(1), 300, 2, 0, 3);
    mem_live_add(&t, 0x1234 | MEM_LIVE_HANDLE, 50, 3, 0, 3);
    assert_int_equal(t.n, 2);
    assert_true(t.bytes == 350);
    mem_live_free(&t);
}

/* Filled to three quarters: the next allocations are counted, not held; a program that frees
 * and allocates forever never fills it. */
static void full_table_counts_what_it_cannot_hold(void **state)
{
    (void)state;
    mem_live_table t;
    assert_true(mem_live_init(&t, 64));
    for (int i = 0; i < 60; i++)
        mem_live_add(&t, addr(i), 1, 0, 0, 3);
    assert_int_equal(t.n, 48);
    assert_true(t.untracked == 12);
    mem_live_free(&t);
    assert_true(mem_live_init(&t, 64));
    for (int i = 0; i < 100000; i++) {
        mem_live_add(&t, addr(i), 8, 0, 0, 3);
        if (i >= 10)
            assert_true(mem_live_remove(&t, addr(i - 10), NULL));
    }
    assert_int_equal(t.n, 10);
    assert_true(t.untracked == 0);
    mem_live_free(&t);
}

/* Grouped by (node, device, kind), most bytes first; past the limit the rest summed, node 0. */
static void groups_by_site(void **state)
{
    (void)state;
    mem_live_table t;
    assert_true(mem_live_init(&t, 256));
    for (int i = 0; i < 10; i++)
        mem_live_add(&t, addr(i), 100, 7, 0, 3);   /* site 7: 1000 B */
    for (int i = 10; i < 13; i++)
        mem_live_add(&t, addr(i), 1000, 9, 0, 3);  /* site 9: 3000 B */
    mem_live_add(&t, addr(20), 500, 9, 1, 3);      /* site 9 on device 1 */
    mem_live_add(&t, addr(21), 400, 9, 0, 2);      /* site 9, pinned */
    mem_live_add(&t, addr(22), 10, 4, 0, 3);       /* site 4: 10 B */
    mem_live_sum g[8];
    size_t n = mem_live_groups(&t, g, 8);
    assert_int_equal(n, 5);
    assert_true(g[0].node == 9 && g[0].device == 0 && g[0].kind == 3 && g[0].count == 3 && g[0].bytes == 3000);
    assert_true(g[1].node == 7 && g[1].count == 10 && g[1].bytes == 1000);
    assert_true(g[2].node == 9 && g[2].device == 1 && g[2].bytes == 500);
    assert_true(g[3].node == 9 && g[3].kind == 2 && g[3].bytes == 400);
    assert_true(g[4].node == 4 && g[4].bytes == 10);
    n = mem_live_groups(&t, g, 3);
    assert_int_equal(n, 3);
    assert_true(g[0].bytes == 3000 && g[1].bytes == 1000);
    assert_true(g[2].node == 0 && g[2].count == 3 && g[2].bytes == 910); /* the rest */
    mem_live_free(&t);
    assert_true(mem_live_init(&t, 16));
    assert_int_equal(mem_live_groups(&t, g, 8), 0);
    mem_live_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(adds_and_frees_stay_exact),
        cmocka_unit_test(readded_address_replaces),
        cmocka_unit_test(full_table_counts_what_it_cannot_hold),
        cmocka_unit_test(groups_by_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
