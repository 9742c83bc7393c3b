/* The record stream's reader (src/collect/stream_read.c): stream files written here by hand, in
 * the format stream_format.h defines and libmmprof_inject.so writes, merged into one run model.
 * Checked: every event kind with its pid, NVTX push/pop nesting per thread and domain, start/end
 * ranges by id, processes, threads and devices, CUPTI's counts summed over processes, and what a
 * damaged stream still gives: a truncated last line dropped and reported, a process that never
 * ran its exit handler reported, a malformed line skipped, a file of something else skipped. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "analyze.h"
#include "json_report.h"
#include "model_json.h"
#include "model_merge.h"
#include "stream_format.h"
#include "text.h"
#include "stream_follow.h"
#include "stream_read.h"
#include "test_support.h"

static void put(const char *name, const char *text)
{
    char *path = path_in(test_tmp, name);
    assert_true(write_text(path, text));
    free(path);
}

static bool has_warning(const run_model *m, const char *part)
{
    for (int i = 0; i < m->nwarnings; i++)
        if (strstr(m->warnings[i], part))
            return true;
    return false;
}

static int find_region(const run_model *m, const char *name, uint32_t pid)
{
    for (int i = 0; i < m->nregions; i++)
        if (strcmp(m->regions[i].name, name) == 0 && m->regions[i].pid == pid)
            return i;
    return -1;
}

/* A parent process with a CUDA context: every event kind, nested pushes, a domain, a start/end
 * range; and a worker it started, with one kernel. */
static const char *parent_stream =
    "mmprof-stream\t1\n"
    "process\t100\t1\t1000\t/usr/bin/python3 train.py --epochs 2\n"
    "thread\t100\tpython3\n"
    "push\t1100\t100\t\tepoch\n"
    "push\t1200\t100\t\tstep\\t1\n"
    "start\t1250\t100\t7\tio\tload\n"
    "cuda\t1300\n"
    "device\t0\t9\t0\t132\t1980000\t2619000\t6144\t52428800\t1024\t2048\t32\t65536\t65536\t233472\t49152\t232448\t1024\t32\t150000000000\t13000\t0000:19:00.0\tNVIDIA H200\n"
    "api\t1400\t1450\t0\t100\t5\tcudaMemcpy_v3020\n"
    "copy\t1420\t1520\t0\t7\t5\t1\t1\t3\t1048576\n"
    "api\t1600\t1610\t1\t100\t6\tcuLaunchKernel\n"
    "kernel\t1620\t1900\t0\t7\t6\t64\t1\t1\t256\t1\t1\t40\t1024\t0\t0\t0\t_Z3fooPf\n"
    "memset\t1910\t1920\t0\t7\t8\t3\t4096\n"
    "sync\t1930\t1990\t3\t7\t9\n"
    "stats\t6\t2\t1\t3\t500\n"
    "pop\t2000\t100\t\n"
    "push\t2050\t100\tio\tflush\n"
    "pop\t2060\t100\tio\n"
    "end\t2070\t100\t7\n"
    "pop\t2100\t100\t\n"
    "exit\t2200\n";

static const char *worker_stream =
    "mmprof-stream\t1\n"
    "process\t101\t100\t1500\tpython3 -c worker\n"
    "cuda\t1510\n"
    "kernel\t1700\t1800\t0\t13\t2\t1\t1\t1\t32\t1\t1\t16\t0\t0\t0\t0\tworker_kernel\n"
    "stats\t1\t0\t0\t0\t0\n"
    "exit\t1900\n";

static void merges_processes_events_and_ranges(void **state)
{
    (void)state;
    put("100.stream", parent_stream);
    put("101.stream", worker_stream);
    put("notes.txt", "not a stream: ignored by name\n");
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(s.files, 2);
    assert_int_equal(s.cuda_processes, 2);

    assert_int_equal(m.nprocesses, 2);
    assert_int_equal(m.processes[0].pid, 100);
    assert_string_equal(m.processes[0].name, "python3 train.py --epochs 2");
    assert_int_equal(m.processes[1].pid, 101);
    assert_int_equal(m.nthreads, 1);
    assert_string_equal(m.threads[0].name, "python3");

    assert_int_equal(m.events.nkernels, 2);
    assert_string_equal(m.events.kernels[0].name, "_Z3fooPf");
    assert_int_equal(m.events.kernels[0].pid, 100);
    assert_int_equal(m.events.kernels[0].start_ns, 1620);
    assert_int_equal(m.events.kernels[0].grid[0], 64);
    assert_int_equal(m.events.kernels[0].block[0], 256);
    assert_int_equal(m.events.kernels[0].registers, 40);
    assert_int_equal(m.events.kernels[0].static_smem, 1024);
    assert_int_equal(m.events.kernels[1].pid, 101);
    assert_int_equal(m.events.kernels[1].stream, 13);
    assert_int_equal(m.events.ncopies, 1);
    assert_int_equal(m.events.copies[0].dir, COPY_H2D);
    assert_int_equal(m.events.copies[0].src, MEM_PAGEABLE);
    assert_int_equal(m.events.copies[0].dst, MEM_DEVICE);
    assert_int_equal(m.events.copies[0].bytes, 1048576);
    assert_int_equal(m.events.nmemsets, 1);
    assert_int_equal(m.events.memsets[0].bytes, 4096);
    assert_int_equal(m.events.napis, 2);
    assert_string_equal(m.events.apis[1].name, "cuLaunchKernel");
    assert_int_equal(m.events.apis[1].kind, API_DRIVER);
    assert_int_equal(m.events.apis[1].thread, 100);
    assert_int_equal(m.events.nsyncs, 1);
    assert_int_equal(m.events.syncs[0].kind, SYNC_STREAM);

    assert_int_equal(m.ndevices, 1);
    assert_string_equal(m.devices[0].name, "NVIDIA H200");
    assert_int_equal(m.devices[0].sm_count, 132);
    assert_int_equal(m.devices[0].smem_per_block_optin, 232448);
    assert_int_equal(m.devices[0].total_mem, 150000000000ull);

    assert_int_equal(m.collection.records, 7);
    assert_int_equal(m.collection.dropped, 2);
    assert_int_equal(m.collection.lost_timestamps, 1);
    assert_int_equal(m.collection.overhead_ns, 500);

    /* Ranges: step nests in epoch (same thread), flush in domain io, load by start/end id. */
    int epoch = find_region(&m, "epoch", 100), step = find_region(&m, "step\t1", 100);
    int load = find_region(&m, "load", 100), flush = find_region(&m, "flush", 100);
    assert_true(epoch >= 0 && step >= 0 && load >= 0 && flush >= 0);
    assert_int_equal(m.regions[epoch].kind, REGION_NVTX);
    assert_true(m.regions[epoch].push_pop);
    assert_int_equal(m.regions[epoch].start_ns, 1100);
    assert_int_equal(m.regions[epoch].end_ns, 2100);
    assert_int_equal(m.regions[step].parent, epoch);
    assert_int_equal(m.regions[step].end_ns, 2000);
    assert_null(m.regions[step].domain);
    assert_string_equal(m.regions[flush].domain, "io");
    assert_int_equal(m.regions[flush].end_ns, 2060);
    assert_false(m.regions[load].push_pop);
    assert_int_equal(m.regions[load].end_ns, 2070);
    assert_int_equal(m.regions[load].tid, 100);
    assert_int_equal(m.nwarnings, 0);

    assert_true(model_finish_regions(&m, "python3"));
    assert_int_equal(m.regions[0].kind, REGION_RUN);
    assert_int_equal(m.regions[0].start_ns, 1100);
    assert_int_equal(m.regions[0].end_ns, 2100); /* the last range; "exit" is no event */
    model_free(&m);
}

/* A process killed while writing: its last line has no newline. The complete lines count, the
 * partial one does not, no exit handler ran, and the range it had open ends at its last record. */
static void truncated_stream_keeps_complete_lines(void **state)
{
    (void)state;
    put("200.stream", "mmprof-stream\t1\n"
                      "process\t200\t1\t10\tcrasher\n"
                      "cuda\t20\n"
                      "push\t30\t200\t\tdoomed\n"
                      "kernel\t40\t90\t0\t7\t1\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n"
                      "kernel\t95\t99\t0\t7\t2\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk2\n"
                      "kernel\t100\t150\t0\t7\t3\t1\t1");
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(m.events.nkernels, 2);
    assert_true(has_warning(&m, "partial line"));
    assert_true(has_warning(&m, "without running its exit handlers"));
    assert_true(has_warning(&m, "still open"));
    int doomed = find_region(&m, "doomed", 200);
    assert_true(doomed >= 0);
    assert_int_equal(m.regions[doomed].end_ns, 99);
    model_free(&m);
}

/* A pool worker ended by SIGTERM after the injection library flushed (inject_signal.c writes
 * "signal" before "exit"): its kernel is there, the report names the signal, and it is not
 * reported as having lost records. "flush" lines (MMPROF_INJECT_DEBUG) are not events. */
static void process_ended_by_signal_after_flush(void **state)
{
    (void)state;
    put("400.stream", "mmprof-stream\t1\n"
                      "process\t400\t1\t10\tworker\n"
                      "cuda\t20\n"
                      "kernel\t40\t90\t0\t7\t1\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n"
                      "flush\t95\t97\t0\n"
                      "signal\t15\n"
                      "exit\t100\n");
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(m.events.nkernels, 1);
    assert_true(has_warning(&m, "ended by signal 15"));
    assert_false(has_warning(&m, "exit handlers"));
    assert_false(has_warning(&m, "malformed"));
    model_free(&m);
}

/* A line with a bad number or the wrong field count is skipped and counted; lines of unknown
 * kinds (a later version) are not errors; a file of something else is skipped with a warning. */
static void bad_lines_and_foreign_files(void **state)
{
    (void)state;
    put("300.stream", "mmprof-stream\t1\n"
                      "process\t300\t1\t10\tp\n"
                      "copy\t1\t2\t0\t7\t1\t1\t2\t3\tmany\n"
                      "kernel\t1\t2\n"
                      "someday\t1\t2\t3\n"
                      "copy\t5\t9\t0\t7\t1\t2\t2\t3\t64\n");
    put("301.stream", "{\"traceEvents\": []}\n");
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(m.events.ncopies, 1);
    assert_int_equal(m.events.copies[0].bytes, 64);
    assert_int_equal(m.events.copies[0].dir, COPY_D2H);
    /* The warning points at the first: line 3 of the file, a copy with a bad byte count. */
    assert_true(has_warning(&m, "2 malformed line(s) in its record stream were skipped (the first: line 3, a 'copy' "
                                "line of 10 fields)"));
    assert_true(has_warning(&m, "not an mmprof record stream"));
    assert_false(has_warning(&m, "exit handlers")); /* no CUDA, nothing CUPTI could have held */
    model_free(&m);
}

/* Numbers are read as strtoll and strtoull read them (the reader parses them by hand): white
 * space and a sign before a time, digits alone for an id, nothing after, nothing out of range.
 * Names keep their escapes' characters, and names the reader's cache files together (same
 * length, first, middle and last character) stay apart while equal names share one copy. */
static void numbers_and_names_as_written(void **state)
{
    (void)state;
    put("310.stream", "mmprof-stream\t1\n"
                      "process\t310\t1\t10\tp\n"
                      "api\t 5\t+7\t0\t1\t1\taXbXc\n"                              /* read: 5 .. 7 */
                      "api\t-3\t9223372036854775807\t1\t1\t2\taYbYc\n"             /* read */
                      "api\t1\t2\t0\t1\t3\taXbXc\n"                                /* read, one name */
                      "api\t1\t9223372036854775808\t0\t1\t4\tx\n"                  /* past INT64_MAX */
                      "api\t-9223372036854775809\t2\t0\t1\t5\tx\n"                 /* below INT64_MIN */
                      "api\t1\t2\t0\t4294967296\t6\tx\n"                           /* thread past u32 */
                      "api\t1\t2\t0\t-1\t7\tx\n"                                   /* an id has no sign */
                      "api\t1\t2\t0\t 1\t8\tx\n"                                   /* nor white space */
                      "api\t5x\t6\t0\t1\t9\tx\n"                                   /* something after */
                      "api\t-\t6\t0\t1\t10\tx\n"                                   /* no digits */
                      "api\t\t6\t0\t1\t11\tx\n"                                    /* empty */
                      "replayed\t18446744073709551616\n"                                /* past u64 */
                      "replayed\t18446744073709551615\n"
                      "api\t1\t2\t0\t1\t12\ttab\\there\n");
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(m.events.napis, 4);
    assert_int_equal(m.events.apis[0].start_ns, 5);
    assert_int_equal(m.events.apis[0].end_ns, 7);
    assert_int_equal(m.events.apis[1].start_ns, -3);
    assert_int_equal(m.events.apis[1].end_ns, INT64_MAX);
    assert_string_equal(m.events.apis[0].name, "aXbXc");
    assert_string_equal(m.events.apis[1].name, "aYbYc");
    assert_ptr_equal(m.events.apis[2].name, m.events.apis[0].name);
    assert_string_equal(m.events.apis[3].name, "tab\there");
    assert_true(m.collection.replayed_kernels == UINT64_MAX);
    assert_true(has_warning(&m, "9 malformed line(s)"));
    model_free(&m);
}

/* profile --counters: what was asked (ctrconf), a profiled launch per counters line in counter_id
 * order ("nan" where not collected) with its pid, device place and correlation, the kernel records
 * the replay left without timestamps (replayed); a counters line with a bad value or the wrong
 * field count is skipped and counted. */
static void counter_lines(void **state)
{
    (void)state;
    char line[1024], bad[1024];
    int at = snprintf(line, sizeof line, "counters\t42\t1");
    int bt = snprintf(bad, sizeof bad, "counters\t43\t1");
    for (int c = 0; c < CTR_COUNT; c++) {
        at += snprintf(line + at, sizeof line - (size_t)at, c == CTR_DRAM_WRITE_BYTES ? "\tnan" : "\t%d.5", c + 1);
        bt += snprintf(bad + bt, sizeof bad - (size_t)bt, c == 3 ? "\tmany" : "\t1");
    }
    snprintf(line + at, sizeof line - (size_t)at, "\tffma_chain(float*, int)\n");
    snprintf(bad + bt, sizeof bad - (size_t)bt, "\tk\n");
    char text[4096];
    snprintf(text, sizeof text,
             "mmprof-stream\t1\n"
             "process\t400\t1\t10\tcounter_kernels\n"
             "ctrconf\t5\tffma_chain|add_one\n"
             "cuda\t20\n"
             "device\t1\t9\t0\t132\t1980000\t2619000\t6144\t52428800\t1024\t2048\t32\t65536\t65536\t233472\t49152\t232448\t1024\t32\t150000000000\t13000\t0000:2a:00.0\tNVIDIA H200\n"
             "%s%s"
             "counters\t44\t1\t1\n"
             "replayed\t1\n"
             "stats\t3\t0\t0\t0\t0\n"
             "exit\t90\n",
             line, bad);
    put("400.stream", text);
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_true(m.counters.asked);
    assert_string_equal(m.counters.kernels, "ffma_chain|add_one");
    assert_int_equal(m.counters.max, 5);
    assert_int_equal(m.nlaunch_counters, 1);
    const kernel_counters *k = &m.launch_counters[0];
    assert_string_equal(k->name, "ffma_chain(float*, int)");
    assert_int_equal(k->pid, 400);
    assert_int_equal(k->correlation, 42);
    assert_int_equal(k->device, 0); /* device ordinal 1 is the run's first (and only) device */
    for (int c = 0; c < CTR_COUNT; c++)
        if (c == CTR_DRAM_WRITE_BYTES)
            assert_true(isnan(k->v[c]));
        else
            assert_true(k->v[c] == c + 1.5);
    assert_int_equal(m.collection.replayed_kernels, 1);
    assert_true(has_warning(&m, "2 malformed line(s)"));
    model_free(&m);
}

/* No process wrote a stream (the program never used CUDA or NVTX): nothing read, no error. */
static void empty_directory_reads_nothing(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(s.files, 0);
    assert_int_equal(s.cuda_processes, 0);
    assert_int_equal(m.events.nkernels + m.nregions + m.nprocesses + m.nwarnings, 0);
    model_free(&m);
}

static void missing_directory_is_an_error(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512] = "";
    char path[512];
    snprintf(path, sizeof path, "%s/none", test_tmp);
    assert_false(stream_read_dir(path, &m, &s, err, sizeof err));
    assert_non_null(strstr(err, path));
    model_free(&m);
}

/* What the injection library writes (stream_format_events, stream_format_device) reads back field
 * for field: times past 2^53 ns exactly, names with tabs and newlines, every enum value. */
static void written_events_read_back_exactly(void **state)
{
    (void)state;
    const int64_t t0 = 1796054920537216543; /* CLOCK_REALTIME in 2026: more than a double holds */
    event_list e;
    memset(&e, 0, sizeof e);
    kernel_event k = {.name = "void gemm<128,\t64>(float*)\n", .start_ns = t0, .end_ns = t0 + 1234567,
                      .device = 1, .stream = 13, .correlation = 77, .grid = {40, 2, 3}, .block = {256, 2, 1},
                      .has_resources = true, .registers = 168, .static_smem = 1024, .dynamic_smem = 200704,
                      .smem_optin = true, .local_mem = 16};
    copy_event c = {.dir = COPY_D2H, .src = MEM_DEVICE, .dst = MEM_PINNED, .bytes = 5000000000ull,
                    .start_ns = t0 + 1, .end_ns = t0 + 3, .device = 1, .stream = 14, .correlation = 78};
    memset_event z = {.mem = MEM_MANAGED, .bytes = 12, .start_ns = t0 + 4, .end_ns = t0 + 5, .device = 0,
                      .stream = 7, .correlation = 79};
    api_event a = {.name = "cuLaunchKernelEx", .start_ns = t0 - 10, .end_ns = t0 - 2, .kind = API_DRIVER,
                   .thread = 4000001, .correlation = 77};
    sync_event y = {.kind = SYNC_STREAM_WAIT_EVENT, .start_ns = t0 + 6, .end_ns = t0 + 9, .stream = 14,
                    .correlation = 80};
    assert_true(events_add_kernel(&e, &k) && events_add_copy(&e, &c) && events_add_memset(&e, &z) &&
                events_add_api(&e, &a) && events_add_sync(&e, &y));
    device_info d = {.index = 1, .cc_major = 9, .cc_minor = 0, .sm_count = 132, .clock_khz = 1980000,
                     .mem_clock_khz = 2619000, .bus_width_bits = 6144, .l2_bytes = 52428800,
                     .max_threads_per_block = 1024, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
                     .regs_per_sm = 65536, .regs_per_block = 65535, .smem_per_sm = 233472, .smem_per_block = 49152,
                     .smem_per_block_optin = 232448, .reserved_smem_per_block = 1024, .warp_size = 32,
                     .total_mem = 150754820096ull, .driver_version = 13000};
    copy_str(d.name, sizeof d.name, "NVIDIA H200");
    copy_str(d.pci_bus_id, sizeof d.pci_bus_id, "00000000:19:00.0");
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "mmprof-stream\t1\nprocess\t42\t1\t%lld\tprog\n", (long long)t0);
    stream_format_device(&b, &d);
    stream_format_events(&b, &e);
    events_clear(&e);
    char *text = sb_finish(&b);
    assert_non_null(text);
    put("42.stream", text);
    free(text);

    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_int_equal(m.nwarnings, 0);
    assert_int_equal(m.events.nkernels, 1);
    const kernel_event *rk = &m.events.kernels[0];
    assert_string_equal(rk->name, k.name);
    assert_true(rk->start_ns == k.start_ns && rk->end_ns == k.end_ns);
    assert_int_equal(rk->pid, 42);
    /* Device 1 (its ordinal) is the run's only device: events name its place, 0. */
    assert_true(rk->device == 0 && rk->stream == 13 && rk->correlation == 77);
    assert_memory_equal(rk->grid, k.grid, sizeof k.grid);
    assert_memory_equal(rk->block, k.block, sizeof k.block);
    assert_true(rk->has_resources && rk->registers == 168 && rk->static_smem == 1024 && rk->dynamic_smem == 200704 &&
                rk->smem_optin && rk->local_mem == 16);
    assert_int_equal(m.events.ncopies, 1);
    const copy_event *rc = &m.events.copies[0];
    assert_true(rc->dir == COPY_D2H && rc->src == MEM_DEVICE && rc->dst == MEM_PINNED && rc->bytes == c.bytes &&
                rc->start_ns == c.start_ns && rc->end_ns == c.end_ns && rc->stream == 14 && rc->correlation == 78 &&
                rc->device == 0 && rc->pid == 42);
    assert_int_equal(m.events.nmemsets, 1);
    const memset_event *rz = &m.events.memsets[0];
    assert_true(rz->mem == MEM_MANAGED && rz->bytes == 12 && rz->start_ns == z.start_ns && rz->stream == 7 &&
                rz->correlation == 79 && rz->pid == 42);
    assert_int_equal(m.events.napis, 1);
    const api_event *ra = &m.events.apis[0];
    assert_string_equal(ra->name, "cuLaunchKernelEx");
    assert_true(ra->kind == API_DRIVER && ra->thread == 4000001 && ra->correlation == 77 && ra->start_ns == a.start_ns &&
                ra->end_ns == a.end_ns && ra->pid == 42);
    assert_int_equal(m.events.nsyncs, 1);
    const sync_event *ry = &m.events.syncs[0];
    assert_true(ry->kind == SYNC_STREAM_WAIT_EVENT && ry->start_ns == y.start_ns && ry->end_ns == y.end_ns &&
                ry->stream == 14 && ry->correlation == 80 && ry->pid == 42);
    assert_int_equal(m.ndevices, 1);
    const device_info *rd = &m.devices[0];
    assert_string_equal(rd->name, d.name);
    assert_string_equal(rd->pci_bus_id, d.pci_bus_id);
    assert_true(rd->index == d.index && rd->cc_major == d.cc_major && rd->cc_minor == d.cc_minor &&
                rd->sm_count == d.sm_count && rd->clock_khz == d.clock_khz && rd->mem_clock_khz == d.mem_clock_khz &&
                rd->bus_width_bits == d.bus_width_bits && rd->l2_bytes == d.l2_bytes &&
                rd->max_threads_per_block == d.max_threads_per_block && rd->max_threads_per_sm == d.max_threads_per_sm &&
                rd->max_blocks_per_sm == d.max_blocks_per_sm && rd->regs_per_sm == d.regs_per_sm &&
                rd->regs_per_block == d.regs_per_block && rd->smem_per_sm == d.smem_per_sm &&
                rd->smem_per_block == d.smem_per_block && rd->smem_per_block_optin == d.smem_per_block_optin &&
                rd->reserved_smem_per_block == d.reserved_smem_per_block && rd->warp_size == d.warp_size &&
                rd->total_mem == d.total_mem && rd->driver_version == d.driver_version);
    model_free(&m);
}

static void escaping_round_trips(void **state)
{
    (void)state;
    const char *names[] = {"plain", "tab\there", "line\nbreak\r", "back\\slash\\t", "", "end\\"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        strbuf b;
        sb_init(&b);
        stream_escape(&b, names[i]);
        char *s = sb_finish(&b);
        assert_non_null(s);
        assert_null(strchr(s, '\t'));
        assert_null(strchr(s, '\n'));
        stream_unescape(s);
        assert_string_equal(s, names[i]);
        free(s);
    }
}

/* Capture windows (profile --capture-range and the like): the lines stream_format_capture writes
 * read back as windows with their reasons, the unrecorded stretches and calls around each, and a
 * REGION_CAPTURE region each, which the region analysis gives per-window figures; a window the
 * process never closed (killed) ends at its last record, with a warning. */
static void capture_windows_read_back_and_analysed(void **state)
{
    (void)state;
    strbuf b;
    sb_init(&b);
    sb_add(&b, "mmprof-stream\t1\n"
               "process\t300\t1\t1000\t./train\n"
               "capconf\tthe first 2 instance(s) of NVTX range 'step' (default domain)\n"
               "cuda\t1100\n"
               "device\t0\t9\t0\t132\t1980000\t2619000\t6144\t52428800\t1024\t2048\t32\t65536\t65536\t233472\t49152\t232448\t1024\t32\t150000000000\t13000\t0000:19:00.0\tNVIDIA H200\n");
    stream_format_capture(&b, 2000, true, 1, "nvtx-begin", 10, "NVTX range step instance 1 began");
    sb_add(&b, "api\t2100\t2110\t0\t300\t11\tcudaLaunchKernel_v7000\n"
               "kernel\t2120\t2300\t0\t7\t11\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n"
               "api\t2400\t2410\t0\t300\t12\tcudaLaunchKernel_v7000\n"
               "kernel\t2420\t2500\t0\t7\t12\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n");
    stream_format_capture(&b, 2600, false, 1, "nvtx-end", 10, "NVTX range step instance 1 ended");
    stream_format_capture(&b, 5000, true, 2, "nvtx-begin", 25, "NVTX range\tstep instance 2 began");
    sb_add(&b, "api\t5100\t5110\t0\t300\t21\tcudaLaunchKernel_v7000\n"
               "kernel\t5120\t5200\t0\t7\t21\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk2\n");
    stream_format_capture(&b, 5300, false, 2, "nvtx-end", 25, "NVTX range step instance 2 ended");
    sb_add(&b, "capcalls\t9000\t40\nexit\t9000\n");
    put("300.stream", b.s);
    sb_free(&b);
    /* Killed inside its window: it ends at the last record. */
    sb_init(&b);
    sb_add(&b, "mmprof-stream\t1\nprocess\t400\t300\t1500\t./worker\ncuda\t1600\n");
    stream_format_capture(&b, 3000, true, 1, "delay", 3, "the 1 s delay elapsed");
    sb_add(&b, "api\t3100\t3110\t0\t400\t1\tcudaLaunchKernel_v7000\n"
               "kernel\t3120\t3900\t0\t7\t1\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk3\n");
    put("400.stream", b.s);
    sb_free(&b);

    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE; /* as profile.c sets it, for the run file below */
    stream_summary s = {0};
    char err[256];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    assert_true(model_finish_regions(&m, "train"));
    assert_string_equal(m.capture.asked, "the first 2 instance(s) of NVTX range 'step' (default domain)");
    assert_int_equal(m.capture.nwindows, 3);
    const capture_window *w = m.capture.windows;
    assert_int_equal(w[0].pid, 300);
    assert_int_equal(w[0].number, 1);
    assert_int_equal(w[0].start_ns, 2000);
    assert_int_equal(w[0].end_ns, 2600);
    assert_string_equal(w[0].began, "nvtx-begin");
    assert_string_equal(w[0].ended, "nvtx-end");
    assert_string_equal(w[0].ended_detail, "NVTX range step instance 1 ended");
    assert_int_equal(w[0].before_ns, 1000); /* from the process's start */
    assert_int_equal(w[0].calls_before, 10);
    assert_int_equal(w[0].after_ns, 2400);  /* to the next window */
    assert_int_equal(w[0].calls_after, 15);
    assert_string_equal(w[1].began_detail, "NVTX range\tstep instance 2 began");
    assert_int_equal(w[1].before_ns, 2400);
    assert_int_equal(w[1].calls_before, 15);
    assert_int_equal(w[1].after_ns, 3700);  /* to the exit */
    assert_int_equal(w[1].calls_after, 15); /* 40 in all outside */
    assert_int_equal(w[2].pid, 400);
    assert_int_equal(w[2].end_ns, 3900);
    assert_string_equal(w[2].ended, "exit");
    assert_int_equal(w[2].calls_before, 3);
    assert_int_equal(w[2].calls_after, -1); /* no capcalls line: not known */
    assert_true(has_warning(&m, "capture window 1 was still open"));
    for (int i = 0; i < 3; i++) {
        const region *g = &m.regions[w[i].region];
        assert_int_equal(g->kind, REGION_CAPTURE);
        assert_int_equal(g->pid, w[i].pid);
        assert_int_equal(g->start_ns, w[i].start_ns);
        assert_int_equal(g->end_ns, w[i].end_ns);
    }
    assert_string_equal(m.regions[w[0].region].name, "capture 1");
    assert_string_equal(m.regions[w[1].region].name, "capture 2");
    assert_string_equal(m.regions[w[2].region].name, "capture 1");

    /* Per window, by the region analysis: its own process's launches inside it. */
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.rg[w[0].region].nkernels, 2);
    assert_int_equal(a.rg[w[1].region].nkernels, 1);
    assert_int_equal(a.rg[w[2].region].nkernels, 1);
    assert_int_equal(a.rg[0].nkernels, 4);
    /* The windows' own figures (capture.h), and the reports naming them. */
    assert_int_equal(a.ncapture, 3);
    assert_true(a.capture[0].kernels.ok && a.capture[0].kernels.v == 2);
    assert_true(a.capture[0].wall_ms.ok && fabs(a.capture[0].wall_ms.v - 0.0006) < 1e-9);
    assert_true(a.capture[1].calls_before.ok && a.capture[1].calls_before.v == 15);
    assert_false(a.capture[2].calls_after.ok);
    char *json = render_json(&a);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"asked\":\"the first 2 instance(s) of NVTX range 'step' (default domain)\""));
    assert_non_null(strstr(json, "\"began_detail\":\"NVTX range step instance 1 began\""));
    assert_non_null(strstr(json, "\"calls_after\":15"));
    free(json);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    render_text(&a, f, false);
    fclose(f);
    assert_non_null(strstr(text, "Capture  recorded the first 2 instance(s) of NVTX range 'step'"));
    assert_non_null(strstr(text, "from the 1 s delay elapsed to the process ended without closing"));
    assert_non_null(strstr(text, "\n  capture 2    ")); /* in the timeline, under the run */
    free(text);
    analysis_free(&a);

    /* The run file keeps the windows, so `mmprof report` shows them again. */
    char *doc = model_to_text(&m);
    assert_non_null(doc);
    run_model back;
    char why[256];
    bool read = model_read_text("capture.json", doc, strlen(doc), &back, why, sizeof why);
    if (!read)
        fail_msg("%s", why);
    free(doc);
    assert_string_equal(back.capture.asked, m.capture.asked);
    assert_int_equal(back.capture.nwindows, 3);
    for (int i = 0; i < 3; i++) {
        const capture_window *x = &m.capture.windows[i], *y = &back.capture.windows[i];
        assert_int_equal(y->region, x->region);
        assert_int_equal(y->pid, x->pid);
        assert_int_equal(y->start_ns, x->start_ns);
        assert_int_equal(y->end_ns, x->end_ns);
        assert_string_equal(y->ended_detail, x->ended_detail);
        assert_int_equal(y->before_ns, x->before_ns);
        assert_int_equal(y->calls_after, x->calls_after);
    }
    model_free(&back);
    model_free(&m);
}

/* Host activity (issue 20): frame lines build each process's call tree with its ids remapped to
 * indices and parents resolved, two processes' ids kept apart; a site and samples name nodes; a
 * sample without a stack (node 0) and an unknown state ("-"); the sampler line's mechanism, rate
 * and reason; the sitestat and samplestat counts, summed over processes. Lines written by the stream_format helpers read back field for field. A frame whose
 * parent never came, a frame id given twice, a site or sample naming an unknown node, a bad kind,
 * a sample state that is not a letter: each skipped and counted, the rest kept. A frame of no line
 * (Python's -1) is line 0, written so and read so from a library that wrote -1. */
static void host_activity_lines(void **state)
{
    (void)state;
    strbuf b;
    sb_init(&b);
    sb_add(&b, "mmprof-stream\t1\nprocess\t500\t1\t10\tpython3 model.py\n");
    host_frame outer = {.kind = HOST_FRAME_PY, .function = "main", .file = "/w/model.py", .line = 90};
    host_frame inner = {.kind = HOST_FRAME_PY, .function = "Net.forward", .file = "/w/model.py", .line = 42};
    host_frame native = {.kind = HOST_FRAME_NATIVE, .function = "cudaLaunchKernel", .module = "/lib/libcudart.so.12",
                         .offset = 0x1f3a7};
    stream_format_frame(&b, 7, 0, &outer);
    stream_format_frame(&b, 9, 7, &inner);
    stream_format_frame(&b, 3, 9, &native);
    stream_format_site(&b, 41, 3);
    stream_format_sample(&b, 1796054920537216543, 501, 9, HOST_SAMPLE_PY, 'S');
    stream_format_sample(&b, 1796054920537216600, 502, 0, HOST_SAMPLE_CPU, 0);
    /* Python's "no line" (-1, an instruction of no line) is written as the stream's unknown, 0 */
    host_frame noline = {.kind = HOST_FRAME_PY, .function = "<genexpr>", .file = "/w/model.py", .line = -1};
    stream_format_frame(&b, 10, 9, &noline);
    stream_format_sample(&b, 1796054920537216700, 501, 10, HOST_SAMPLE_PY, 'R');
    stream_format_sampler(&b, 97, "python-wall+cpu-timer", "");
    host_collect_stats st = {.has_sites = true, .sites_taken = 900, .sites_skipped = 100, .sites_off_ns = 123456789,
                             .has_looks = true,
                             .looks_nogil = 97, .looks_gil = 3, .samples_left_out = 5, .samples_torn = 2};
    stream_format_host_stats(&b, &st);
    sb_add(&b, "sitestat\t1\n"          /* a field short */
               "samplestat\t1\t2\t3\tx\n"); /* not a count */
    sb_add(&b, "frame\t11\t12\tpy\t1\t0\tf\tx.py\t\n"  /* parent 12 never given */
               "frame\t9\t0\tpy\t1\t0\tg\tx.py\t\n"   /* id 9 again */
               "frame\t13\t0\tjava\t1\t0\tg\tx.py\t\n" /* no such kind */
               "site\t42\t99\n"                        /* unknown node */
               "site\t43\t0\n"                         /* a site has a stack */
               "sample\t5\t501\t99\tpy\tR\n"           /* unknown node */
               "sample\t5\t501\t9\tpy\t?\n");          /* not a state */
    assert_non_null(strstr(b.s, "frame\t10\t9\tpy\t0\t0\t<genexpr>\t"));
    put("500.stream", b.s);
    sb_free(&b);
    put("600.stream", "mmprof-stream\t1\nprocess\t600\t1\t10\tworker\n"
                      "frame\t7\t0\tnative\t0\t4096\t\t\t/usr/bin/worker\n"
                      "sample\t20\t600\t7\tcpu\tR\n"
                      "frame\t8\t7\tpy\t-1\t0\tf\told.py\t\n" /* -1 as libraries wrote it before */
                      "sample\t21\t600\t8\tpy\tR\n"
                      "sampler\t0\toff\ttimer_create failed: EPERM\n"
                      "sitestat\t40\t0\n"); /* as the library wrote it before OFF_NS */
    run_model m;
    model_init(&m);
    stream_summary s = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &s, err, sizeof err));
    const host_activity *h = &m.host_activity;
    assert_int_equal(h->nframes, 6);
    assert_int_equal(h->frames[0].pid, 500);
    assert_int_equal(h->frames[0].parent, -1);
    assert_int_equal(h->frames[0].kind, HOST_FRAME_PY);
    assert_string_equal(h->frames[0].function, "main");
    assert_int_equal(h->frames[1].parent, 0);
    assert_int_equal(h->frames[1].line, 42);
    assert_string_equal(h->frames[1].file, "/w/model.py");
    assert_null(h->frames[1].module);
    assert_int_equal(h->frames[2].parent, 1);
    assert_int_equal(h->frames[2].kind, HOST_FRAME_NATIVE);
    assert_int_equal(h->frames[2].offset, 0x1f3a7);
    assert_string_equal(h->frames[2].module, "/lib/libcudart.so.12");
    assert_null(h->frames[2].file);
    assert_int_equal(h->frames[3].parent, 1);
    assert_int_equal(h->frames[3].line, 0);
    /* process 600's id 7 is its own node, not process 500's */
    assert_int_equal(h->frames[4].pid, 600);
    assert_int_equal(h->frames[4].parent, -1);
    assert_null(h->frames[4].function);
    assert_int_equal(h->frames[5].parent, 4);
    assert_int_equal(h->frames[5].line, 0);
    assert_int_equal(h->nsites, 1);
    assert_int_equal(h->sites[0].correlation, 41);
    assert_int_equal(h->sites[0].frame, 2);
    assert_int_equal(h->sites[0].pid, 500);
    assert_int_equal(h->nsamples, 5);
    assert_true(h->samples[0].ts_ns == 1796054920537216543);
    assert_int_equal(h->samples[0].tid, 501);
    assert_int_equal(h->samples[0].frame, 1);
    assert_int_equal(h->samples[0].source, HOST_SAMPLE_PY);
    assert_int_equal(h->samples[0].state, 'S');
    assert_int_equal(h->samples[1].frame, -1);
    assert_int_equal(h->samples[1].state, 0);
    assert_int_equal(h->samples[1].source, HOST_SAMPLE_CPU);
    assert_int_equal(h->samples[2].frame, 3);
    assert_int_equal(h->samples[3].frame, 4);
    assert_int_equal(h->samples[3].pid, 600);
    assert_int_equal(h->samples[4].frame, 5);
    assert_string_equal(h->mechanism, "python-wall+cpu-timer");
    assert_true(h->rate_hz == 97);
    assert_string_equal(h->why_not, "timer_create failed: EPERM");
    /* sitestat summed over both processes; samplestat from the Python one alone */
    assert_true(h->stats.has_sites && h->stats.sites_taken == 940 && h->stats.sites_skipped == 100);
    assert_true(h->stats.sites_off_ns == 123456789);
    assert_true(h->stats.has_looks && h->stats.looks_nogil == 97 && h->stats.looks_gil == 3);
    assert_true(h->stats.samples_left_out == 5 && h->stats.samples_torn == 2);
    assert_true(has_warning(&m, "process 500 (python3 model.py): 9 malformed line(s)"));
    assert_false(has_warning(&m, "process 600 (worker): "));
    model_free(&m);
}

/* hspan lines (inject_pyhooks.c): a span Python told of, as an op frame NAME under its stack's
 * node, made once per stack and name; a malformed one (its end before its start, no name, an
 * unknown node) counted as such. */
static void host_span_lines(void **state)
{
    (void)state;
    put("700.stream", "mmprof-stream\t1\nprocess\t700\t1\t10\tpython3 loop.py\n"
                      "frame\t4\t0\tpy\t12\t0\tmain\t/w/loop.py\t\n"
                      "frame\t5\t4\tpy\t30\t0\tstep\t/w/loop.py\t\n"
                      "hspan\t1000\t5000\t700\t5\tgc\n"
                      "hspan\t6000\t9000\t700\t5\tgc\n"          /* the same stack and name: one frame */
                      "hspan\t9500\t409500\t700\t4\ttime.sleep\n"
                      "hspan\t20\t10\t700\t4\tgc\n"               /* ends before it starts */
                      "hspan\t30\t40\t700\t77\tgc\n"              /* unknown node */
                      "hspan\t30\t40\t700\t4\t\n");               /* no name */
    run_model m;
    model_init(&m);
    stream_summary sum = {0};
    char err[512];
    assert_true(stream_read_dir(test_tmp, &m, &sum, err, sizeof err));
    const host_activity *h = &m.host_activity;
    assert_int_equal(h->nframes, 4); /* main, step, gc under step, time.sleep under main */
    assert_int_equal(h->nspans, 3);
    const host_frame *gc = &h->frames[h->spans[0].frame];
    assert_int_equal(gc->kind, HOST_FRAME_OP);
    assert_string_equal(gc->function, "gc");
    assert_string_equal(h->frames[gc->parent].function, "step");
    assert_int_equal(h->spans[1].frame, h->spans[0].frame);
    assert_true(h->spans[0].start_ns == 1000 && h->spans[0].end_ns == 5000 && h->spans[0].tid == 700);
    const host_frame *sleep = &h->frames[h->spans[2].frame];
    assert_string_equal(sleep->function, "time.sleep");
    assert_string_equal(h->frames[sleep->parent].function, "main");
    assert_true(h->spans[2].end_ns - h->spans[2].start_ns == 400000);
    assert_true(has_warning(&m, "process 700 (python3 loop.py): 3 malformed line(s)"));
    model_free(&m);
}

/* Two ranks' runs merged (model_merge, as `mmprof report a.json b.json` does): the second's
 * frames follow the first's with their parents, samples and sites shifted to them, and its pid,
 * which the first run has too, renumbered on every record alike. */
static void host_activity_merges(void **state)
{
    (void)state;
    const char *rank_stream[2] = {
        "mmprof-stream\t1\nprocess\t500\t1\t10\tpython3 train.py\nrank\t0\t2\t0\tRANK\th\n"
        "frame\t1\t0\tpy\t5\t0\tmain\ttrain.py\t\nsample\t20\t500\t1\tpy\tR\nsampler\t100\tpython-wall\t\n",
        "mmprof-stream\t1\nprocess\t500\t1\t12\tpython3 train.py\nrank\t1\t2\t1\tRANK\th\n"
        "frame\t1\t0\tpy\t5\t0\tmain\ttrain.py\t\nframe\t2\t1\tpy\t9\t0\tstep\ttrain.py\t\n"
        "sample\t21\t501\t2\tpy\tS\nsite\t8\t2\nsampler\t0\toff\t--no-sample\n",
    };
    run_model m[2];
    for (int i = 0; i < 2; i++) {
        char name[32];
        snprintf(name, sizeof name, "%d.stream", 500);
        put(name, rank_stream[i]);
        model_init(&m[i]);
        m[i].source = SOURCE_PROFILE;
        stream_summary s = {0};
        char err[512];
        char *path = path_in(test_tmp, name);
        assert_true(stream_read_file(path, &m[i], &s, err, sizeof err));
        free(path);
        assert_true(model_finish_regions(&m[i], "train.py"));
    }
    merge_state ms;
    char err[512];
    assert_true(model_merge_begin(&ms, &m[0], "a"));
    if (!model_merge(&ms, &m[0], &m[1], "b", err, sizeof err))
        fail_msg("merge: %s", err);
    assert_true(model_merge_finish(&ms, &m[0]));
    const host_activity *h = &m[0].host_activity;
    assert_int_equal(h->nframes, 3);
    uint32_t renumbered = h->frames[1].pid;
    assert_true(renumbered != 500);
    assert_int_equal(h->frames[0].pid, 500);
    assert_int_equal(h->frames[1].parent, -1);
    assert_int_equal(h->frames[2].parent, 1);
    assert_int_equal(h->frames[2].pid, renumbered);
    assert_int_equal(h->nsamples, 2);
    assert_int_equal(h->samples[0].frame, 0);
    assert_int_equal(h->samples[1].frame, 2);
    assert_int_equal(h->samples[1].pid, renumbered);
    assert_int_equal(h->nsites, 1);
    assert_int_equal(h->sites[0].frame, 2);
    assert_int_equal(h->sites[0].pid, renumbered);
    assert_string_equal(h->mechanism, "python-wall");
    assert_string_equal(h->why_not, "--no-sample");
    assert_int_equal(m[1].host_activity.nframes, 0);
    /* What the merge made is a run file that reads back. */
    char *text = model_to_text(&m[0]);
    run_model back;
    if (!model_read_text("merged", text, strlen(text), &back, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(back.host_activity.nframes, 3);
    model_free(&back);
    free(text);
    model_free(&m[0]);
    model_free(&m[1]);
}

/* m: a profile's model of the one stream file at path. */
static void read_profile_stream(const char *path, run_model *m)
{
    model_init(m);
    m->source = SOURCE_PROFILE;
    stream_summary s = {0};
    char err[512];
    if (!stream_read_file(path, m, &s, err, sizeof err))
        fail_msg("%s", err);
}

/* The record streams the injection library wrote on the H200 (tests/data/host: a Python program
 * with sleeps and CPU work between launches, a CUDA C host loop, a numba first call, a PyTorch
 * training loop): every frame, site and sample line is read, none is malformed, each process has
 * its sampler line. */
static void h200_host_streams_read_whole(void **state)
{
    (void)state;
    const char *names[] = {"host_gaps", "host_loop", "numba", "torch_train"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/host/%s.stream", names[i]);
        char *text = read_file(path, NULL);
        assert_non_null(text);
        size_t frames = 0, sites = 0, samples = 0;
        for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
            frames += strncmp(l, "frame\t", 6) == 0;
            sites += strncmp(l, "site\t", 5) == 0;
            samples += strncmp(l, "sample\t", 7) == 0;
        }
        free(text);
        run_model m;
        read_profile_stream(path, &m);
        const host_activity *h = &m.host_activity;
        if (has_warning(&m, "malformed"))
            fail_msg("%s: malformed lines", path);
        assert_true(frames > 0 && sites > 0 && samples > 0);
        assert_int_equal(h->nframes, frames);
        assert_int_equal(h->nsites, sites);
        assert_int_equal(h->nsamples, samples);
        assert_true(h->mechanism[0] && h->rate_hz > 0);
        for (int f = 0; f < h->nframes; f++)
            assert_true(h->frames[f].parent < f);
        model_free(&m);
    }
}


/* Appends len bytes of text to path. */
static void append(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* The model of path read whole, as text (model_to_text). */
static char *whole_model(const char *path)
{
    run_model m;
    read_profile_stream(path, &m);
    char *text = model_to_text(&m);
    model_free(&m);
    assert_non_null(text);
    return text;
}

/* A stream read while it is written (the launcher follows the program's): the H200 streams
 * written in pieces that cut lines anywhere (a byte, a few, a page and more), read after each
 * piece, give the model reading them whole gives; a last line left torn is dropped and said, as
 * there. */
static void stream_read_as_it_grows(void **state)
{
    (void)state;
    const char *names[] = {"host_gaps", "torch_train"};
    const size_t pieces[] = {1, 7, 4093, 13, 65537, 2};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char src[256];
        snprintf(src, sizeof src, "tests/data/host/%s.stream", names[i]);
        size_t len;
        char *text = read_file(src, &len);
        assert_non_null(text);
        for (int torn = 0; torn < 2; torn++) {
            size_t upto = torn ? len - 5 : len; /* torn: the last line's end never comes */
            char *whole = path_in(test_tmp, "whole.stream"), *grown = path_in(test_tmp, "grown.stream");
            remove(whole);
            remove(grown);
            append(whole, text, upto);
            append(grown, "", 0);
            run_model m;
            model_init(&m);
            m.source = SOURCE_PROFILE;
            char err[512];
            stream_file *f = stream_file_open(grown, &m, err, sizeof err);
            assert_non_null(f);
            size_t at = 0;
            for (int k = 0; at < upto; k++) {
                size_t n = pieces[k % 6] < upto - at ? pieces[k % 6] : upto - at;
                append(grown, text + at, n);
                at += n;
                if (k % 3 == 0 || pieces[k % 6] > 1000) /* not after every piece: some reads take several */
                    assert_true(stream_file_feed(f, false));
            }
            assert_true(stream_file_feed(f, true));
            stream_summary s = {0};
            assert_true(stream_file_close(f, &s, err, sizeof err));
            assert_int_equal(s.files, 1);
            assert_int_equal(has_warning(&m, "partial line"), torn);
            char *got = model_to_text(&m), *want = whole_model(whole);
            assert_non_null(got);
            if (strcmp(got, want) != 0)
                fail_msg("%s%s: the model read as the file grew differs from the one read whole", src,
                         torn ? " (torn)" : "");
            free(got);
            free(want);
            model_free(&m);
            free(whole);
            free(grown);
        }
        free(text);
    }
}

/* The hook a follower calls after each read: counts them, so that a test can wait for one. */
static void count_reads(run_model *m, void *ctx)
{
    (void)m;
    __atomic_add_fetch((int *)ctx, 1, __ATOMIC_SEQ_CST);
}

static void wait_for_reads(int *reads, int n)
{
    for (int t = 0; t < 1000 && __atomic_load_n(reads, __ATOMIC_SEQ_CST) < n; t++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    assert_true(__atomic_load_n(reads, __ATOMIC_SEQ_CST) >= n);
}

/* The launcher's follower: the lowest pid's stream read while it is written, the others after,
 * gives stream_read_dir's model; a lower pid appearing after the followed one is read again. */
static void followed_streams_read_as_a_directory(void **state)
{
    (void)state;
    size_t plen;
    char *parent = read_file("tests/data/host/torch_train.stream", &plen);
    assert_non_null(parent);
    char *p100 = path_in(test_tmp, "100.stream");
    run_model m;
    model_init(&m);
    int reads = 0;
    stream_follow *f = stream_follow_start(test_tmp, &m, count_reads, &reads);
    assert_non_null(f);
    append(p100, parent, plen / 2);
    wait_for_reads(&reads, 1);
    append(p100, parent + plen / 2, plen - plen / 2);
    put("101.stream", worker_stream);
    stream_summary s = {0};
    char err[512];
    assert_int_equal(stream_follow_finish(f, test_tmp, &m, &s, err, sizeof err), FOLLOW_READ);
    assert_int_equal(s.files, 2);
    run_model w;
    model_init(&w);
    stream_summary ws = {0};
    assert_true(stream_read_dir(test_tmp, &w, &ws, err, sizeof err));
    char *got = model_to_text(&m), *want = model_to_text(&w);
    assert_non_null(got);
    assert_non_null(want);
    assert_true(strcmp(got, want) == 0);
    free(got);
    free(want);
    model_free(&m);
    model_free(&w);

    /* pid 101 followed, then pid 99 (a wrapped pid) starts: read again, in pid order. */
    model_init(&m);
    reads = 0;
    remove(p100);
    f = stream_follow_start(test_tmp, &m, count_reads, &reads);
    assert_non_null(f);
    wait_for_reads(&reads, 1);
    put("99.stream", parent_stream);
    s = (stream_summary){0};
    assert_int_equal(stream_follow_finish(f, test_tmp, &m, &s, err, sizeof err), FOLLOW_AGAIN);
    model_free(&m);
    /* No thread (NULL): everything read at the finish. */
    model_init(&m);
    s = (stream_summary){0};
    assert_int_equal(stream_follow_finish(NULL, test_tmp, &m, &s, err, sizeof err), FOLLOW_READ);
    assert_int_equal(s.files, 2);
    assert_int_equal(m.nprocesses, 2);
    model_free(&m);
    free(p100);
    free(parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(merges_processes_events_and_ranges, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(truncated_stream_keeps_complete_lines, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(numbers_and_names_as_written, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(process_ended_by_signal_after_flush, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(bad_lines_and_foreign_files, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(empty_directory_reads_nothing, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(missing_directory_is_an_error, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(written_events_read_back_exactly, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(counter_lines, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test(escaping_round_trips),
        cmocka_unit_test_setup_teardown(host_span_lines, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(host_activity_lines, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(host_activity_merges, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test(h200_host_streams_read_whole),
        cmocka_unit_test_setup_teardown(stream_read_as_it_grows, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(followed_streams_read_as_a_directory, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(capture_windows_read_back_and_analysed, test_tmp_setup, test_tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
