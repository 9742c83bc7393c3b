/* launch_index.h (the API call that made each GPU record) against a plain search of the calls:
 * two processes with dense ids (an array per process), ids far apart (the sorted table), a
 * runtime call and the driver call it made sharing an id (the runtime one, in either order), two
 * calls of one id and kind (the first), id 0 and ids no call has (none). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_index.h"
#include "model.h"

/* What launch_of must give: of the calls of (pid, corr), the first runtime one, else the first. */
static const api_event *plain_search(const event_list *e, uint32_t pid, uint32_t corr)
{
    const api_event *found = NULL;
    for (size_t j = 0; corr != 0 && j < e->napis; j++) {
        const api_event *a = &e->apis[j];
        if (a->pid != pid || a->correlation != corr)
            continue;
        if (!found || (found->kind == API_DRIVER && a->kind != API_DRIVER))
            found = a;
    }
    return found;
}

static void add(event_list *e, uint32_t pid, uint32_t corr, api_kind kind)
{
    api_event a = {.name = "cuLaunchKernel", .pid = pid, .correlation = corr, .kind = kind,
                   .start_ns = (int64_t)e->napis, .end_ns = (int64_t)e->napis + 1};
    assert_true(events_add_api(e, &a));
}

/* Every (pid, corr) a call has, and the ids beside them, gives the plain search's call. */
static void check_all(const event_list *e)
{
    launch_index *x = launch_index_build(e);
    assert_non_null(x);
    const uint32_t pids[] = {7, 8, 9};
    for (size_t p = 0; p < 3; p++)
        for (size_t j = 0; j <= e->napis; j++) {
            uint32_t id = j < e->napis ? e->apis[j].correlation : 0, beside[3] = {id - 1, id, id + 1};
            for (int k = 0; k < 3; k++)
                if (launch_of(x, pids[p], beside[k]) != plain_search(e, pids[p], beside[k]))
                    fail_msg("pid %u correlation %u: not the call a plain search finds", pids[p], beside[k]);
        }
    launch_index_free(x);
}

static void fill(event_list *e, uint32_t step)
{
    /* Two processes interleaved, ids counting up by step; of each id a driver call, and for most
     * also the runtime call that made it, recorded after it (it ends later) or before. */
    for (uint32_t i = 1; i <= 600; i++) {
        uint32_t pid = i % 3 == 0 ? 8 : 7, corr = i * step;
        if (i % 5 == 0) {
            add(e, pid, corr, API_RUNTIME);
            add(e, pid, corr, API_DRIVER);
        } else {
            add(e, pid, corr, API_DRIVER);
            if (i % 7 != 0)
                add(e, pid, corr, API_RUNTIME);
        }
        if (i % 11 == 0)
            add(e, pid, corr, API_RUNTIME); /* a second of one kind: the first stays */
        if (i % 13 == 0)
            add(e, pid, 0, API_RUNTIME); /* no id */
    }
}

static void dense_ids(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    fill(&m.events, 1);
    check_all(&m.events);
    model_free(&m);
}

static void sparse_ids(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    fill(&m.events, 1000); /* a thousand times wider than the calls: the sorted table */
    add(&m.events, 9, UINT32_MAX, API_DRIVER);
    check_all(&m.events);
    model_free(&m);
}

static void no_calls(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    check_all(&m.events);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dense_ids),
        cmocka_unit_test(sparse_ids),
        cmocka_unit_test(no_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
