/* GPU memory in the run model (memory_activity.h): the run file's "memory" member written and read
 * back (memory_json.c), through the tree and as a file is read (its events and samples element by
 * element); the record stream's memory lines (stream_format.c) read back by stream_read.c; two runs
 * merged; a Kineto trace's memory events imported. Real shapes, invented values: addresses as CUDA
 * hands them out (0x7f..., above 2^53 for one), sizes of a 2 MB caching-allocator segment, CUPTI's
 * kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "import.h"
#include "model_json.h"
#include "model_merge.h"
#include "stream_format.h"
#include "stream_read.h"
#include "test_support.h"

#define EPOCH INT64_C(1800000000123456789)

/* A profiled run's frame of the host tree, a device, and memory of every record kind. */
static void build(run_model *m)
{
    model_init(m);
    m->epoch_ns = EPOCH;
    m->source = SOURCE_PROFILE;
    m->devices = calloc(1, sizeof *m->devices);
    assert_non_null(m->devices);
    m->ndevices = 1;
    copy_str(m->devices[0].name, sizeof m->devices[0].name, "NVIDIA H200");
    assert_true(model_add_process(m, 4242, "python3 train.py"));
    assert_int_equal(model_add_region(m, REGION_RUN, "run", NULL, EPOCH, EPOCH + 1000000, 0, 0, -1), 0);
    host_frame f = {.pid = 4242, .parent = -1, .kind = HOST_FRAME_PY, .function = "step", .file = "train.py", .line = 57};
    assert_int_equal(host_add_frame(&m->host_activity, &f), 0);
    memory_activity *mem = &m->memory;
    int torch = memory_name(mem, "libtorch_cuda.so");
    assert_int_equal(torch, 0);
    mem_event a = {.ts_ns = EPOCH + 100, .address = 0x7f3a40000000ull, .bytes = 2 << 20, .pid = 4242, .device = 0,
                   .correlation = 77, .allocator = torch, .op = MEMOP_ALLOC, .kind = MEM_DEVICE, .pool_size = -1,
                   .total_allocated = -1, .total_reserved = -1};
    assert_true(memory_add_event(mem, &a));
    mem_event p = a; /* from a pool, with a stream, an address past 2^53 */
    p.ts_ns = EPOCH + 200;
    p.address = 0xff00000000000000ull;
    p.pool = 0x7f3a00000000ull;
    p.pool_size = 32 << 20;
    p.stream = 13;
    p.allocator = -1;
    p.correlation = 78;
    assert_true(memory_add_event(mem, &p));
    mem_event fr = a; /* the first freed, as Kineto would give it: totals, no correlation */
    fr.ts_ns = EPOCH + 300;
    fr.op = MEMOP_FREE;
    fr.correlation = 0;
    fr.tid = 4243;
    fr.total_allocated = 1 << 20;
    fr.total_reserved = 20 << 20;
    assert_true(memory_add_event(mem, &fr));
    mem_pool_event pool = {.ts_ns = EPOCH + 150, .pid = 4242, .correlation = 78, .op = MEMPOOL_TRIMMED, .managed = true,
                           .address = 0x7f3a00000000ull, .size = 32 << 20, .utilized = 2 << 20, .release_threshold = 0};
    assert_true(memory_add_pool(mem, &pool));
    mem_failure x = {.ts_ns = EPOCH + 400, .pid = 4242, .tid = 4242, .correlation = 90, .kind = MEM_DEVICE,
                     .bytes = (uint64_t)2 << 30, .error = 2, .api = memory_name(mem, "cudaMalloc"),
                     .error_name = memory_name(mem, "cudaErrorMemoryAllocation"), .has_live = true, .live_count = 3,
                     .live_bytes = (uint64_t)139 << 30, .untracked = 1};
    assert_true(memory_add_failure(mem, &x));
    mem_live_group g1 = {.frame = 0, .device = 0, .kind = MEM_DEVICE, .count = 2, .bytes = (uint64_t)130 << 30};
    mem_live_group g2 = {.frame = -1, .device = 0, .kind = MEM_PINNED, .count = 1, .bytes = (uint64_t)9 << 30};
    assert_true(memory_add_live(mem, &g1) && memory_add_live(mem, &g2));
    mem_failure y = x; /* a second failure, without its live set */
    y.has_live = false;
    y.live_count = y.live_bytes = y.untracked = 0;
    y.error_name = -1;
    assert_true(memory_add_failure(mem, &y));
    mem_sample s = {.ts_ns = EPOCH + 500, .pid = 4242, .device = 0, .used = (uint64_t)140 << 30, .total = (uint64_t)150 << 30};
    assert_true(memory_add_sample(mem, &s));
    copy_str(mem->nvml_why, sizeof mem->nvml_why, "");
}

static void memory_equal(const memory_activity *a, const memory_activity *b)
{
    assert_int_equal(a->nnames, b->nnames);
    for (int i = 0; i < a->nnames; i++)
        assert_string_equal(a->names[i], b->names[i]);
    assert_int_equal(a->nevents, b->nevents);
    assert_memory_equal(a->events, b->events, a->nevents * sizeof *a->events);
    assert_int_equal(a->npools, b->npools);
    assert_memory_equal(a->pools, b->pools, (size_t)a->npools * sizeof *a->pools);
    assert_int_equal(a->nfailures, b->nfailures);
    for (int i = 0; i < a->nfailures; i++) {
        const mem_failure *x = &a->failures[i], *y = &b->failures[i];
        assert_true(x->ts_ns == y->ts_ns && x->pid == y->pid && x->tid == y->tid && x->bytes == y->bytes);
        assert_true(x->error == y->error && x->api == y->api && x->error_name == y->error_name);
        assert_true(x->has_live == y->has_live && x->live_count == y->live_count && x->live_bytes == y->live_bytes);
        assert_true(x->untracked == y->untracked && x->first_live == y->first_live && x->nlive == y->nlive);
    }
    assert_int_equal(a->nlive, b->nlive);
    assert_memory_equal(a->live, b->live, (size_t)a->nlive * sizeof *a->live);
    assert_int_equal(a->nsamples, b->nsamples);
    assert_memory_equal(a->samples, b->samples, a->nsamples * sizeof *a->samples);
    assert_string_equal(a->nvml_why, b->nvml_why);
}

/* Every field comes back, through the tree and through the text as a file is read; an address past
 * 2^53 as a "0x" string; a run without memory has no member. */
static void run_file_round_trips(void **state)
{
    (void)state;
    run_model m, back;
    build(&m);
    char err[512] = "";
    cJSON *tree = model_to_json(&m);
    assert_non_null(tree);
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(tree, "memory");
    assert_non_null(mem);
    const cJSON *ev1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(mem, "events"), 1);
    assert_string_equal(cJSON_GetArrayItem(ev1, 8)->valuestring, "0xff00000000000000");
    if (!model_from_json(tree, &back, err, sizeof err))
        fail_msg("%s", err);
    memory_equal(&m.memory, &back.memory);
    model_free(&back);
    cJSON_Delete(tree);

    char *text = model_to_text(&m);
    assert_non_null(text);
    if (!model_read_text("mem.json", text, strlen(text), &back, err, sizeof err))
        fail_msg("%s", err);
    memory_equal(&m.memory, &back.memory);
    model_free(&back);
    free(text);

    memory_activity_free(&m.memory);
    tree = model_to_json(&m);
    assert_null(cJSON_GetObjectItemCaseSensitive(tree, "memory"));
    cJSON_Delete(tree);
    model_free(&m);
}

/* Each malformed field refused with where it is, from the tree and from the text alike. */
static void run_file_refusals(void **state)
{
    (void)state;
    run_model m, back;
    build(&m);
    struct {
        const char *array;
        int index, field;
        const char *json, *detail;
    } bad[] = {
        {"events", 0, 1, "\"grow\"", "memory.events[0][1]: expected \"alloc\" or \"free\""},
        {"events", 0, 2, "\"vram\"", "memory.events[0][2]: unknown memory kind 'vram'"},
        {"events", 0, 8, "\"7f00\"", "memory.events[0][8]: expected an address"},
        {"events", 0, 9, "-1", "memory.events[0][9]: expected an integer from 0"},
        {"events", 0, 10, "5", "memory.events[0][10]: expected an integer from 0 to 2"},
        {"pools", 0, 1, "\"drained\"", "memory.pools[0][1]: expected \"created\", \"destroyed\" or \"trimmed\""},
        {"pools", 0, 5, "1", "memory.pools[0][5]: expected true or false"},
        {"failures", 0, 11, "null", "memory.failures[0][10]: live_count, live_bytes and untracked"},
        {"failures", 1, 13, "1", "memory.failures[1][13]: groups of a live set that was not given"},
        {"failures", 0, 13, "3", "memory: live: 2 groups, but the failures announce 3"},
        {"live", 0, 0, "1", "memory.live[0][0]: expected an integer from -1 to 0"},
        {"samples", 0, 3, "1.5", "memory.samples[0][3]: expected an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *tree = model_to_json(&m);
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tree, "memory"), bad[i].array);
        assert_true(cJSON_ReplaceItemInArray(cJSON_GetArrayItem(arr, bad[i].index), bad[i].field, cJSON_Parse(bad[i].json)));
        char err[512] = "";
        assert_false(model_from_json(tree, &back, err, sizeof err));
        if (!strstr(err, bad[i].detail))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, bad[i].detail);
        char *text = cJSON_PrintUnformatted(tree);
        err[0] = '\0';
        assert_false(model_read_text("bad.json", text, strlen(text), &back, err, sizeof err));
        if (!strstr(err, bad[i].detail) || !strstr(err, "bad.json"))
            fail_msg("case %zu as text: \"%s\" lacks \"%s\"", i, err, bad[i].detail);
        free(text);
        cJSON_Delete(tree);
    }
    model_free(&m);
}

/* The stream's memory lines as the library writes them, read back: CUPTI's records with their
 * allocator named, a pool trimmed, a failure with its live set grouped by call-site node (the
 * library's node ids mapped to the process's frames), NVML's readings and why NVML was off; a
 * live group of no failure, or of another call, is malformed. */
static void stream_lines_read_back(void **state)
{
    (void)state;
    run_model src;
    build(&src);
    strbuf b;
    sb_init(&b);
    sb_add(&b, "mmprof-stream\t1\nprocess\t4242\t1\t10\tpython3 train.py\n");
    host_frame f = {.kind = HOST_FRAME_PY, .function = "step", .file = "train.py", .line = 57};
    stream_format_frame(&b, 5, 0, &f);
    stream_format_memory(&b, &src.memory);
    const mem_failure *x = &src.memory.failures[0];
    stream_format_memfail(&b, x, "cudaMalloc", "cudaErrorMemoryAllocation");
    stream_format_memlive(&b, x->correlation, 5, 0, MEM_DEVICE, 2, (uint64_t)130 << 30);
    stream_format_memlive(&b, x->correlation, 0, 0, MEM_PINNED, 1, (uint64_t)9 << 30);
    stream_format_memlive(&b, 91, 5, 0, MEM_DEVICE, 1, 1); /* another call's: malformed */
    stream_format_memnvml(&b, EPOCH + 500, 0, (uint64_t)140 << 30, (uint64_t)150 << 30);
    sb_add(&b, "memnvmloff\tlibnvidia-ml.so.1 not found\n"
               "mem\t1\tgrow\t3\t0\t0\t1\t1\t1\t0\t-1\t\n"   /* no such op */
               "mem\t1\talloc\t9\t0\t0\t1\t1\t1\t0\t-1\t\n"  /* no such kind */
               "memlive\t90\t77\t0\t3\t1\t1\n");              /* a node no frame gave */
    char *dir = make_temp_dir();
    char *path = path_in(dir, "4242.stream");
    assert_true(write_text(path, b.s));
    sb_free(&b);
    run_model m;
    model_init(&m);
    stream_summary sum = {0};
    char err[256];
    assert_true(stream_read_dir(dir, &m, &sum, err, sizeof err));
    const memory_activity *mem = &m.memory;
    assert_int_equal(mem->nevents, 3);
    assert_true(mem->events[0].address == 0x7f3a40000000ull && mem->events[0].bytes == 2 << 20);
    assert_int_equal(mem->events[0].pid, 4242);
    assert_string_equal(memory_name_of(mem, mem->events[0].allocator), "libtorch_cuda.so");
    assert_int_equal(mem->events[1].allocator, -1);
    assert_true(mem->events[1].pool == 0x7f3a00000000ull && mem->events[1].pool_size == 32 << 20);
    assert_int_equal(mem->events[1].stream, 13);
    assert_int_equal(mem->events[2].op, MEMOP_FREE);
    assert_true(mem->events[2].total_allocated == -1); /* the stream carries no allocator totals */
    assert_int_equal(mem->npools, 1);
    assert_true(mem->pools[0].op == MEMPOOL_TRIMMED && mem->pools[0].managed && mem->pools[0].utilized == 2 << 20);
    assert_int_equal(mem->nfailures, 1);
    const mem_failure *y = &mem->failures[0];
    assert_true(y->bytes == (uint64_t)2 << 30 && y->error == 2 && y->live_count == 3 && y->untracked == 1);
    assert_true(y->has_live && y->live_bytes == (uint64_t)139 << 30);
    assert_string_equal(memory_name_of(mem, y->api), "cudaMalloc");
    assert_string_equal(memory_name_of(mem, y->error_name), "cudaErrorMemoryAllocation");
    assert_int_equal(y->nlive, 2);
    assert_int_equal(mem->live[0].frame, 0); /* node 5: the process's first frame */
    assert_int_equal(mem->live[1].frame, -1);
    assert_int_equal(mem->live[1].kind, MEM_PINNED);
    assert_int_equal(mem->nsamples, 1);
    assert_true(mem->samples[0].used == (uint64_t)140 << 30);
    assert_string_equal(mem->nvml_why, "libnvidia-ml.so.1 not found");
    bool warned = false;
    for (int i = 0; i < m.nwarnings; i++)
        warned |= strstr(m.warnings[i], "4 malformed line(s)") != NULL;
    assert_true(warned);
    model_free(&m);
    model_free(&src);
    free(path);
    rm_rf(dir);
    free(dir);
}

/* Two runs merged: the second's allocator names join the first's by name, its pid (the same as
 * the first's) renumbered on every record, its live groups' frames shifted past the first's. */
static void merged_runs_keep_memory(void **state)
{
    (void)state;
    run_model a, b;
    build(&a);
    build(&b);
    memory_activity *mb = &b.memory;
    /* b's names in another order: "cudaMalloc" first */
    int extra = memory_name(mb, "libnccl.so.2");
    mb->events[0].allocator = extra;
    merge_state s;
    char err[256];
    assert_true(model_merge_begin(&s, &a, "a.json"));
    if (!model_merge(&s, &a, &b, "b.json", err, sizeof err))
        fail_msg("%s", err);
    assert_true(model_merge_finish(&s, &a));
    const memory_activity *m = &a.memory;
    assert_int_equal(m->nevents, 6);
    assert_string_equal(memory_name_of(m, m->events[3].allocator), "libnccl.so.2");
    assert_string_equal(memory_name_of(m, m->events[0].allocator), "libtorch_cuda.so");
    assert_true(m->events[3].pid != 4242 && m->events[3].pid == m->failures[2].pid);
    assert_int_equal(m->nfailures, 4);
    assert_int_equal(m->failures[2].first_live, 2);
    assert_string_equal(memory_name_of(m, m->failures[2].api), "cudaMalloc");
    assert_int_equal(m->nlive, 4);
    assert_int_equal(m->live[2].frame, 1); /* b's frame 0, after a's one frame */
    assert_int_equal(a.host_activity.frames[1].pid, m->failures[2].pid);
    assert_int_equal(m->nsamples, 2);
    model_free(&a);
    model_free(&b);
}

/* PyTorch's memory events imported (src/import/kineto_memory.c) from a trace shaped as
 * torch.profiler writes one (tests/data/kineto/memory_steps.py made it): every CUDA allocation and
 * free with the allocator's own totals, at its absolute time (baseTimeNanoseconds added), the
 * process and thread of the instant; CPU memory left out with a warning; a malformed arg refused
 * with the event named. */
static void kineto_memory_events(void **state)
{
    (void)state;
    run_model m;
    char err[512];
    if (!import_kineto("tests/data/kineto/memory_steps.json", &m, err, sizeof err))
        fail_msg("%s", err);
    const memory_activity *mem = &m.memory;
    assert_int_equal(mem->nevents, 12);
    const mem_event *first = &mem->events[0];
    assert_true(first->ts_ns == 1764460800123456789ll + 1120 * 1000);
    assert_true(first->op == MEMOP_ALLOC && first->kind == MEM_DEVICE && first->bytes == 4 << 20);
    assert_true(first->address == 0x7f3a40000000ull && first->pid == 777 && first->tid == 777 && first->device == 0);
    assert_true(first->total_allocated == 104 << 20 && first->total_reserved == 120 << 20);
    assert_int_equal(first->correlation, 0);
    assert_string_equal(memory_name_of(mem, first->allocator), "PyTorch caching allocator");
    const mem_event *freed = &mem->events[2];
    assert_true(freed->op == MEMOP_FREE && freed->bytes == 16 << 20 && freed->total_allocated == 104 << 20);
    int64_t most = 0;
    for (size_t i = 0; i < mem->nevents; i++)
        most = mem->events[i].total_allocated > most ? mem->events[i].total_allocated : most;
    assert_true(most == 132 << 20);
    bool warned = false;
    for (int i = 0; i < m.nwarnings; i++)
        warned |= strstr(m.warnings[i], "4 [memory] events of host (CPU) memory were left out") != NULL;
    assert_true(warned);
    model_free(&m);

    /* A malformed arg: the file and the event named. */
    char *text = read_file("tests/data/kineto/memory_steps.json", NULL);
    assert_non_null(text);
    char *at = strstr(text, "\"Bytes\": 4194304");
    assert_non_null(at);
    memcpy(at, "\"Bytes\": \"4 MiB\"", strlen("\"Bytes\": 4194304")); /* same length */
    char *dir = make_temp_dir();
    char *path = path_in(dir, "bad.json");
    assert_true(write_text(path, text));
    assert_false(import_kineto(path, &m, err, sizeof err));
    if (!strstr(err, "bad.json") || !strstr(err, "traceEvents[") || !strstr(err, "args.Bytes is a string, not a number"))
        fail_msg("%s", err);
    free(text);
    free(path);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_file_round_trips),
        cmocka_unit_test(run_file_refusals),
        cmocka_unit_test(stream_lines_read_back),
        cmocka_unit_test(merged_runs_keep_memory),
        cmocka_unit_test(kineto_memory_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
