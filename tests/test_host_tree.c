/* The injection library's host call tree (src/inject/host_tree.c): stacks stored as shared
 * paths, ids in the order nodes were made, the bound on nodes and what happens at it, and the
 * stream lines of host-spec. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "host_tree.h"
#include "stream_format.h"

static host_key py_key(uint64_t code, uint32_t lasti) { return (host_key){.a = code, .b = lasti, .kind = HOST_KEY_PY}; }
static host_key native_key(uint64_t pc) { return (host_key){.a = pc, .kind = HOST_KEY_NATIVE}; }

/* The innermost node of keys[0..n) (outermost first), counting the nodes made. */
static uint32_t path(host_tree *t, const host_key *keys, int n, int *made_count)
{
    uint32_t node = 0;
    for (int i = 0; i < n; i++) {
        bool made;
        uint32_t id = host_tree_find(t, node, &keys[i], &made);
        if (!id)
            break;
        *made_count += made;
        node = id;
    }
    return node;
}

static void a_stack_seen_twice_is_stored_once(void **state)
{
    (void)state;
    host_tree t;
    host_tree_init(&t, 100);
    host_key a[] = {py_key(0x1000, 10), py_key(0x2000, 4), py_key(0x3000, 8)};
    int made = 0;
    uint32_t first = path(&t, a, 3, &made);
    assert_int_equal(made, 3);
    assert_int_equal(first, 3); /* ids from 1, in the order made */
    made = 0;
    assert_int_equal(path(&t, a, 3, &made), first);
    assert_int_equal(made, 0);
    /* A sibling shares the caller's nodes: one new node. */
    host_key b[] = {py_key(0x1000, 10), py_key(0x2000, 4), py_key(0x3000, 12)};
    assert_int_equal(path(&t, b, 3, &made), 4);
    assert_int_equal(made, 1);
    /* The same frame under another caller is another node. */
    host_key c[] = {py_key(0x3000, 8)};
    made = 0;
    assert_int_not_equal(path(&t, c, 1, &made), first);
    assert_int_equal(made, 1);
    /* Kinds do not mix: a native address equal to a code object's is another frame. */
    host_key d[] = {native_key(0x1000)};
    made = 0;
    path(&t, d, 1, &made);
    assert_int_equal(made, 1);
    assert_int_equal(t.nnodes, 6);
    host_tree_free(&t);
}

static void many_nodes_survive_the_table_growing(void **state)
{
    (void)state;
    host_tree t;
    host_tree_init(&t, HOST_TREE_MAX_NODES);
    enum { N = 20000 };
    uint32_t *ids = malloc(N * sizeof *ids);
    assert_non_null(ids);
    for (int i = 0; i < N; i++) {
        bool made;
        host_key k = native_key(0x400000 + 16u * (unsigned)i);
        ids[i] = host_tree_find(&t, (uint32_t)(i % 7), &k, &made);
        assert_true(made);
    }
    for (int i = 0; i < N; i++) {
        bool made;
        host_key k = native_key(0x400000 + 16u * (unsigned)i);
        assert_int_equal(host_tree_find(&t, (uint32_t)(i % 7), &k, &made), ids[i]);
        assert_false(made);
    }
    free(ids);
    host_tree_free(&t);
}

static void at_the_bound_a_stack_stops_at_its_deepest_known_node(void **state)
{
    (void)state;
    host_tree t;
    host_tree_init(&t, 3);
    host_key a[] = {native_key(1), native_key(2), native_key(3)};
    int made = 0;
    assert_int_equal(path(&t, a, 3, &made), 3);
    host_key b[] = {native_key(1), native_key(2), native_key(4), native_key(5)};
    assert_int_equal(path(&t, b, 4, &made), 2); /* named by its caller's node */
    assert_int_equal(t.cut, 1);
    assert_int_equal(t.nnodes, 3);
    /* Known stacks are still found. */
    made = 0;
    assert_int_equal(path(&t, a, 3, &made), 3);
    /* A forked child starts over. */
    host_tree_clear(&t);
    assert_int_equal(path(&t, b, 2, &made), 2);
    assert_int_equal(t.cut, 0);
    host_tree_free(&t);
}

static void lines_are_tab_separated_with_text_escaped(void **state)
{
    (void)state;
    strbuf b;
    sb_init(&b);
    host_format_py_frame(&b, 2, 1, 42, "Model.forward", "/home/u/my\tmodel.py");
    host_format_native_frame(&b, 3, 2, 4471, "", "/usr/lib/libx.so");
    stream_format_site(&b, 17, 3);
    stream_format_sample(&b, 1700000000123456789LL, 99, 3, HOST_SAMPLE_CPU, 'R');
    stream_format_sample(&b, 5, 99, 0, HOST_SAMPLE_PY, 0);
    stream_format_sampler(&b, 100, "python-wall+cpu-timer", "");
    assert_string_equal(b.s, "frame\t2\t1\tpy\t42\t0\tModel.forward\t/home/u/my\\tmodel.py\t\n"
                             "frame\t3\t2\tnative\t0\t4471\t\t\t/usr/lib/libx.so\n"
                             "site\t17\t3\n"
                             "sample\t1700000000123456789\t99\t3\tcpu\tR\n"
                             "sample\t5\t99\t0\tpy\t-\n"
                             "sampler\t100\tpython-wall+cpu-timer\t\n");
    sb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stack_seen_twice_is_stored_once),
        cmocka_unit_test(many_nodes_survive_the_table_growing),
        cmocka_unit_test(at_the_bound_a_stack_stops_at_its_deepest_known_node),
        cmocka_unit_test(lines_are_tab_separated_with_text_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
