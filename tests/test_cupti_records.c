/* The record-to-event mapping every CUPTI reader shares (src/collect/cupti_records.c), on CUPTI
 * activity records built in memory: no GPU and no driver needed (libcupti names API calls and
 * walks a buffer without one). Each record kind must become the right event, field by field:
 * times, device, stream and correlation ids, kinds, names, memory kinds, bytes; a kernel, copy or
 * memset without timestamps must be counted as lost and not kept; overhead and marker records
 * are counted, not stored.
 *
 * The last tests hand a whole buffer to cupti_buffer_store, laid out as CUPTI 13 lays its own
 * (each record its kind's struct of this header's version, back to back; libcupti walks it so):
 * the one loop both readers use, with its skip callback, the end of the buffer and a record it
 * cannot read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cupti_records.h"
#include "model.h"

#define PID 4242

/* Stores one record into a fresh list and counts. */
typedef struct {
    event_list e;
    record_counts n;
} stored;

static void store(stored *s, const void *rec)
{
    cupti_record_store((const CUpti_Activity *)rec, PID, &s->e, &s->n);
}

static stored *fresh(void)
{
    stored *s = calloc(1, sizeof *s);
    assert_non_null(s);
    return s;
}

static void done(stored *s)
{
    events_clear(&s->e);
    free(s);
}

static CUpti_ActivityKernel10 kernel_record(void)
{
    CUpti_ActivityKernel10 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r.start = 1000000000123ull;
    r.end = 1000000005123ull;
    r.deviceId = 2;
    r.streamId = 13;
    r.correlationId = 77;
    r.gridX = 64, r.gridY = 32, r.gridZ = 1;
    r.blockX = 16, r.blockY = 16, r.blockZ = 1;
    r.registersPerThread = 40;
    r.staticSharedMemory = 8192;
    r.dynamicSharedMemory = 1024;
    r.localMemoryPerThread = 24;
    r.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_OPTIN;
    r.name = "mmprof_tiled16";
    return r;
}

static void kernel_maps_every_field(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityKernel10 r = kernel_record();
    char name[] = "mmprof_tiled16";
    r.name = name;
    store(s, &r);
    assert_int_equal(s->e.nkernels, 1);
    const kernel_event *k = &s->e.kernels[0];
    /* The name is copied: CUPTI owns the record's and reuses its buffers. */
    name[0] = 'X';
    assert_string_equal(k->name, "mmprof_tiled16");
    assert_int_equal(k->start_ns, 1000000000123ll);
    assert_int_equal(k->end_ns, 1000000005123ll);
    assert_int_equal(k->pid, PID);
    assert_int_equal(k->device, 2);
    assert_int_equal(k->stream, 13);
    assert_int_equal(k->correlation, 77);
    assert_int_equal(k->grid[0], 64);
    assert_int_equal(k->grid[1], 32);
    assert_int_equal(k->grid[2], 1);
    assert_int_equal(k->block[0], 16);
    assert_int_equal(k->block[1], 16);
    assert_int_equal(k->block[2], 1);
    assert_true(k->has_resources);
    assert_int_equal(k->registers, 40);
    assert_int_equal(k->static_smem, 8192);
    assert_int_equal(k->dynamic_smem, 1024);
    assert_true(k->smem_optin);
    assert_int_equal(k->local_mem, 24);
    assert_int_equal(k->region, 0);
    assert_int_equal(s->n.records, 1);
    assert_int_equal(s->n.lost, 0);
    assert_int_equal(s->n.errors, 0);
    done(s);
}

/* The older KERNEL kind is read as a kernel too; no name reads "?"; the default shared-memory
 * limit is not the opt-in. */
static void plain_kernel_kind_and_no_name(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityKernel10 r = kernel_record();
    r.kind = CUPTI_ACTIVITY_KIND_KERNEL;
    r.name = NULL;
    r.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_DEFAULT;
    store(s, &r);
    assert_int_equal(s->e.nkernels, 1);
    assert_string_equal(s->e.kernels[0].name, "?");
    assert_false(s->e.kernels[0].smem_optin);
    done(s);
}

/* A kernel with no timestamps (start = end = 0: the device buffer was full) or one that ends
 * before it starts (seen under the range profiler's replay) is counted lost and not kept. */
static void kernel_without_timestamps_is_lost(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityKernel10 r = kernel_record();
    r.start = r.end = 0;
    store(s, &r);
    r = kernel_record();
    r.end = r.start - 1;
    store(s, &r);
    assert_int_equal(s->e.nkernels, 0);
    assert_int_equal(s->n.records, 2);
    assert_int_equal(s->n.lost, 2);
    /* Only start = end = 0 is lost: a kernel starting at 0 that ends later is kept. */
    r = kernel_record();
    r.start = 0;
    store(s, &r);
    assert_int_equal(s->e.nkernels, 1);
    assert_int_equal(s->n.lost, 2);
    done(s);
}

static CUpti_ActivityMemcpy6 copy_record(uint8_t kind, uint8_t src, uint8_t dst)
{
    CUpti_ActivityMemcpy6 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = kind;
    r.srcKind = src;
    r.dstKind = dst;
    r.bytes = 16777216;
    r.start = 2000;
    r.end = 9000;
    r.deviceId = 1;
    r.streamId = 7;
    r.correlationId = 31;
    return r;
}

static void copy_maps_direction_memory_and_bytes(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityMemcpy6 r = copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    store(s, &r);
    assert_int_equal(s->e.ncopies, 1);
    const copy_event *c = &s->e.copies[0];
    assert_int_equal(c->dir, COPY_H2D);
    assert_int_equal(c->src, MEM_PINNED);
    assert_int_equal(c->dst, MEM_DEVICE);
    assert_int_equal(c->bytes, 16777216);
    assert_int_equal(c->start_ns, 2000);
    assert_int_equal(c->end_ns, 9000);
    assert_int_equal(c->pid, PID);
    assert_int_equal(c->device, 1);
    assert_int_equal(c->stream, 7);
    assert_int_equal(c->correlation, 31);
    assert_int_equal(s->n.records, 1);
    assert_int_equal(s->n.lost, 0);
    done(s);
}

/* Every direction and memory kind CUPTI names, and what it names beyond them. */
static void copy_directions_and_memory_kinds(void **state)
{
    (void)state;
    static const struct {
        uint8_t cupti;
        copy_dir dir;
    } dirs[] = {
        {CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, COPY_H2D}, {CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, COPY_D2H},
        {CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, COPY_D2D}, {CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, COPY_H2H},
        {CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, COPY_P2P}, {CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, COPY_OTHER},
        {CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, COPY_OTHER},
    };
    static const struct {
        uint8_t cupti;
        mem_kind mem;
    } mems[] = {
        {CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, MEM_PAGEABLE}, {CUPTI_ACTIVITY_MEMORY_KIND_PINNED, MEM_PINNED},
        {CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, MEM_DEVICE},     {CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, MEM_ARRAY},
        {CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, MEM_MANAGED},   {CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, MEM_UNKNOWN},
        {CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, MEM_UNKNOWN},
    };
    stored *s = fresh();
    int nd = (int)(sizeof dirs / sizeof dirs[0]), nm = (int)(sizeof mems / sizeof mems[0]);
    for (int i = 0; i < nd; i++) {
        CUpti_ActivityMemcpy6 r = copy_record(dirs[i].cupti, mems[i % nm].cupti, mems[(i + 1) % nm].cupti);
        store(s, &r);
    }
    for (int i = 0; i < nm; i++) {
        CUpti_ActivityMemcpy6 r = copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, mems[i].cupti, mems[i].cupti);
        store(s, &r);
    }
    assert_int_equal(s->e.ncopies, (size_t)(nd + nm));
    for (int i = 0; i < nd; i++) {
        assert_int_equal(s->e.copies[i].dir, dirs[i].dir);
        assert_int_equal(s->e.copies[i].src, mems[i % nm].mem);
        assert_int_equal(s->e.copies[i].dst, mems[(i + 1) % nm].mem);
    }
    for (int i = 0; i < nm; i++) {
        assert_int_equal(s->e.copies[nd + i].src, mems[i].mem);
        assert_int_equal(s->e.copies[nd + i].dst, mems[i].mem);
    }
    done(s);
}

static void copy_without_timestamps_is_lost(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityMemcpy6 r = copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                          CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
    r.start = r.end = 0;
    store(s, &r);
    assert_int_equal(s->e.ncopies, 0);
    assert_int_equal(s->n.records, 1);
    assert_int_equal(s->n.lost, 1);
    done(s);
}

static CUpti_ActivityMemset4 memset_record(void)
{
    CUpti_ActivityMemset4 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    r.bytes = 4096;
    r.value = 0xFF;
    r.start = 300;
    r.end = 340;
    r.deviceId = 3;
    r.streamId = 9;
    r.correlationId = 55;
    return r;
}

static void memset_maps_memory_and_bytes(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityMemset4 r = memset_record();
    store(s, &r);
    assert_int_equal(s->e.nmemsets, 1);
    const memset_event *m = &s->e.memsets[0];
    assert_int_equal(m->mem, MEM_MANAGED);
    assert_int_equal(m->bytes, 4096);
    assert_int_equal(m->start_ns, 300);
    assert_int_equal(m->end_ns, 340);
    assert_int_equal(m->pid, PID);
    assert_int_equal(m->device, 3);
    assert_int_equal(m->stream, 9);
    assert_int_equal(m->correlation, 55);
    r.start = r.end = 0;
    store(s, &r);
    assert_int_equal(s->e.nmemsets, 1);
    assert_int_equal(s->n.records, 2);
    assert_int_equal(s->n.lost, 1);
    done(s);
}

static CUpti_ActivityAPI api_record(CUpti_ActivityKind kind, uint32_t cbid)
{
    CUpti_ActivityAPI r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.cbid = cbid;
    r.start = 100;
    r.end = 250;
    r.processId = 1; /* not used: the caller's pid is the process */
    r.threadId = 31337;
    r.correlationId = 12;
    return r;
}

/* Runtime and driver calls are named by CUPTI from their callback id; an id CUPTI does not know
 * gets a generic name rather than none. */
static void api_calls_named_by_callback_id(void **state)
{
    (void)state;
    stored *s = fresh();
    CUpti_ActivityAPI rt = api_record(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
    CUpti_ActivityAPI drv = api_record(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    CUpti_ActivityAPI rt_bad = api_record(CUPTI_ACTIVITY_KIND_RUNTIME, 999999);
    CUpti_ActivityAPI drv_bad = api_record(CUPTI_ACTIVITY_KIND_DRIVER, 999999);
    store(s, &rt);
    store(s, &drv);
    store(s, &rt_bad);
    store(s, &drv_bad);
    assert_int_equal(s->e.napis, 4);
    const api_event *a = s->e.apis;
    assert_string_equal(a[0].name, "cudaMemcpy_v3020");
    assert_int_equal(a[0].kind, API_RUNTIME);
    assert_string_equal(a[1].name, "cuLaunchKernel");
    assert_int_equal(a[1].kind, API_DRIVER);
    assert_string_equal(a[2].name, "cuda runtime call");
    assert_int_equal(a[2].kind, API_RUNTIME);
    assert_string_equal(a[3].name, "cuda driver call");
    assert_int_equal(a[3].kind, API_DRIVER);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(a[i].start_ns, 100);
        assert_int_equal(a[i].end_ns, 250);
        assert_int_equal(a[i].pid, PID);
        assert_int_equal(a[i].thread, 31337);
        assert_int_equal(a[i].correlation, 12);
    }
    assert_int_equal(s->n.records, 4);
    assert_int_equal(s->n.lost, 0);
    done(s);
}

static CUpti_ActivitySynchronization2 sync_record(uint32_t type, uint32_t stream, uint32_t correlation, uint64_t start,
                                                  uint64_t end)
{
    CUpti_ActivitySynchronization2 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    r.type = type;
    r.streamId = stream;
    r.correlationId = correlation;
    r.start = start;
    r.end = end;
    return r;
}

static CUpti_ActivityOverhead3 overhead_record(uint64_t start, uint64_t end)
{
    CUpti_ActivityOverhead3 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    r.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    r.start = start;
    r.end = end;
    return r;
}

static CUpti_ActivityMarker2 marker_record(void)
{
    CUpti_ActivityMarker2 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MARKER;
    r.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    r.timestamp = 1234;
    r.id = 5;
    r.name = "a range";
    return r;
}

/* A synchronization's type is model.h's sync_kind by number (1 to 4), anything else unknown; the
 * "no stream" marker becomes stream 0. It has no thread: analysis finds it by correlation id. */
static void synchronization_kinds_and_streams(void **state)
{
    (void)state;
    static const struct {
        uint32_t cupti;
        sync_kind kind;
        bool no_stream; /* a context synchronization waits for no one stream */
    } types[] = {
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, SYNC_EVENT, false},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, SYNC_STREAM_WAIT_EVENT, false},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, SYNC_STREAM, false},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, SYNC_CONTEXT, true},
        {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN, SYNC_UNKNOWN, false},
        {9, SYNC_UNKNOWN, false},
    };
    int nt = (int)(sizeof types / sizeof types[0]);
    stored *s = fresh();
    for (int i = 0; i < nt; i++) {
        CUpti_ActivitySynchronization2 r =
            sync_record(types[i].cupti, types[i].no_stream ? CUPTI_SYNCHRONIZATION_INVALID_VALUE : 40 + (uint32_t)i,
                        60 + (uint32_t)i, 500 + (uint64_t)i, 900 + (uint64_t)i);
        store(s, &r);
    }
    assert_int_equal(s->e.nsyncs, (size_t)nt);
    for (int i = 0; i < nt; i++) {
        const sync_event *y = &s->e.syncs[i];
        assert_int_equal(y->kind, types[i].kind);
        assert_int_equal(y->start_ns, 500 + i);
        assert_int_equal(y->end_ns, 900 + i);
        assert_int_equal(y->pid, PID);
        assert_int_equal(y->thread, 0);
        assert_int_equal(y->correlation, 60 + i);
        assert_int_equal(y->stream, types[i].no_stream ? 0u : 40u + (unsigned)i);
    }
    assert_int_equal(s->n.lost, 0);
    done(s);
}

/* CUPTI's own overhead is summed, not stored (an empty or backwards interval adds nothing);
 * markers and kinds the mapping does not read are counted as records only. */
static void overhead_summed_markers_counted(void **state)
{
    (void)state;
    stored *s = fresh();
    static const uint64_t spans[][2] = {{1000, 1600}, {2000, 2050}, {3000, 3000}, {4000, 3500}};
    for (int i = 0; i < 4; i++) {
        CUpti_ActivityOverhead3 o = overhead_record(spans[i][0], spans[i][1]);
        store(s, &o);
    }
    CUpti_ActivityMarker2 mk = marker_record();
    store(s, &mk);
    assert_int_equal(s->n.overhead_records, 4);
    assert_int_equal(s->n.overhead_ns, 650);
    assert_int_equal(s->n.records, 5);
    assert_int_equal(s->n.lost, 0);
    assert_int_equal(s->e.nkernels + s->e.ncopies + s->e.nmemsets + s->e.napis + s->e.nsyncs, 0);
    done(s);
}

/* ---------- the buffer loop ---------- */

typedef struct {
    uint8_t *bytes;
    size_t len;
} buffer;

static void put(buffer *b, const void *rec, size_t size)
{
    memcpy(b->bytes + b->len, rec, size);
    b->len += size;
}

/* One record of each kind the mapping reads, a marker, and a kernel without timestamps. */
static void fill(buffer *b)
{
    CUpti_ActivityKernel10 k = kernel_record();
    put(b, &k, sizeof k);
    CUpti_ActivityMemcpy6 c = copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                                          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    put(b, &c, sizeof c);
    CUpti_ActivityMemset4 ms = memset_record();
    put(b, &ms, sizeof ms);
    CUpti_ActivityAPI a = api_record(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    put(b, &a, sizeof a);
    CUpti_ActivitySynchronization2 y = sync_record(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 4, 5, 6, 7);
    put(b, &y, sizeof y);
    CUpti_ActivityOverhead3 o = overhead_record(1, 11);
    put(b, &o, sizeof o);
    CUpti_ActivityMarker2 mk = marker_record();
    put(b, &mk, sizeof mk);
    CUpti_ActivityKernel10 lost = kernel_record();
    lost.start = lost.end = 0;
    lost.correlationId = 99;
    put(b, &lost, sizeof lost);
}

static buffer new_buffer(void)
{
    buffer b = {aligned_alloc(8, 8192), 0};
    assert_non_null(b.bytes);
    memset(b.bytes, 0, 8192);
    return b;
}

static void buffer_reads_every_record(void **state)
{
    (void)state;
    buffer b = new_buffer();
    fill(&b);
    stored *s = fresh();
    cupti_buffer_store(NULL, 0, b.bytes, b.len, PID, NULL, NULL, &s->e, &s->n);
    assert_int_equal(s->n.records, 8);
    assert_int_equal(s->e.nkernels, 1);
    assert_int_equal(s->e.kernels[0].correlation, 77);
    assert_int_equal(s->e.ncopies, 1);
    assert_int_equal(s->e.nmemsets, 1);
    assert_int_equal(s->e.napis, 1);
    assert_string_equal(s->e.apis[0].name, "cuLaunchKernel");
    assert_int_equal(s->e.nsyncs, 1);
    assert_int_equal(s->e.syncs[0].kind, SYNC_STREAM);
    assert_int_equal(s->n.overhead_records, 1);
    assert_int_equal(s->n.overhead_ns, 10);
    assert_int_equal(s->n.lost, 1);
    assert_int_equal(s->n.unreadable, 0);
    assert_int_equal(s->n.errors, 0);
    assert_int_equal(s->n.dropped, 0); /* no context: CUPTI reports none */
    done(s);
    free(b.bytes);
}

/* What the injection library does with replayed launches: a skip that claims a record counts it
 * and keeps it out of the store and out of the lost count. */
static bool skip_correlation_99(const CUpti_Activity *rec, void *arg)
{
    if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        ((const CUpti_ActivityKernel10 *)rec)->correlationId != 99)
        return false;
    ++*(int *)arg;
    return true;
}

static void buffer_skip_claims_records(void **state)
{
    (void)state;
    buffer b = new_buffer();
    fill(&b);
    stored *s = fresh();
    int skipped = 0;
    cupti_buffer_store(NULL, 0, b.bytes, b.len, PID, skip_correlation_99, &skipped, &s->e, &s->n);
    assert_int_equal(skipped, 1);
    assert_int_equal(s->n.records, 8);
    assert_int_equal(s->n.lost, 0);
    assert_int_equal(s->e.nkernels, 1);
    done(s);
    free(b.bytes);
}

/* A record CUPTI cannot read (a kind it does not know) ends the buffer and is counted, what came
 * before it kept; an empty buffer is no record and no error. */
static void buffer_unreadable_record_counted(void **state)
{
    (void)state;
    buffer b = new_buffer();
    fill(&b);
    uint32_t bad = 0x7fff;
    memcpy(b.bytes + b.len, &bad, sizeof bad);
    CUpti_ActivityKernel10 after = kernel_record();
    memcpy(b.bytes + b.len + 64, &after, sizeof after);
    stored *s = fresh();
    cupti_buffer_store(NULL, 0, b.bytes, b.len + 64 + sizeof after, PID, NULL, NULL, &s->e, &s->n);
    assert_int_equal(s->n.unreadable, 1);
    assert_int_equal(s->n.records, 8);
    assert_int_equal(s->e.nkernels, 1);
    done(s);

    s = fresh();
    cupti_buffer_store(NULL, 0, b.bytes, 0, PID, NULL, NULL, &s->e, &s->n);
    assert_int_equal(s->n.records, 0);
    assert_int_equal(s->n.unreadable, 0);
    done(s);
    free(b.bytes);
}

/* GPU memory: the memory and memory-pool records, walked in a buffer by CUPTI and claimed by the
 * skip as the injection library's does (cupti_memory_record): every field into the memory store,
 * the allocating library by its base name, a pool allocation with its pool and size, CUPTI's kinds
 * of static variables as their memory, no stream for a synchronous call; the other records still
 * become events. */
static bool claim_memory(const CUpti_Activity *rec, void *arg)
{
    static bool oom;
    return cupti_memory_record(rec, PID, arg, &oom);
}

static void memory_records_into_the_store(void **state)
{
    (void)state;
    buffer b = new_buffer();
    CUpti_ActivityMemory4 a;
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    a.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    a.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    a.correlationId = 41;
    a.address = 0x7f3a40000000ull;
    a.bytes = 2 << 20;
    a.timestamp = 1000000000777ull;
    a.deviceId = 1;
    a.streamId = CUPTI_INVALID_STREAM_ID;
    a.source = "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
    put(&b, &a, sizeof a);
    CUpti_ActivityMemory4 p = a; /* from a local pool, freed */
    p.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
    p.isAsync = 1;
    p.streamId = 13;
    p.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    p.memoryPoolConfig.address = 0x7f3a00000000ull;
    p.memoryPoolConfig.pool.size = 32 << 20;
    p.source = NULL;
    put(&b, &p, sizeof p);
    CUpti_ActivityMemory4 st = a; /* a module's __device__ variable */
    st.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC;
    put(&b, &st, sizeof st);
    CUpti_ActivityMemoryPool3 pool;
    memset(&pool, 0, sizeof pool);
    pool.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
    pool.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
    pool.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    pool.correlationId = 42;
    pool.deviceId = 1;
    pool.address = 0x7f3a00000000ull;
    pool.size = 8 << 20;
    pool.utilizedSize = 2 << 20;
    pool.timestamp = 1000000000999ull;
    put(&b, &pool, sizeof pool);
    CUpti_ActivityKernel10 k = kernel_record();
    put(&b, &k, sizeof k);
    stored *s = fresh();
    memory_activity m = {0};
    cupti_buffer_store(NULL, 0, b.bytes, b.len, PID, claim_memory, &m, &s->e, &s->n);
    assert_int_equal(s->n.records, 5);
    assert_int_equal(s->e.nkernels, 1);
    assert_int_equal(m.nevents, 3);
    const mem_event *e = &m.events[0];
    assert_true(e->ts_ns == 1000000000777ll && e->address == 0x7f3a40000000ull && e->bytes == 2 << 20);
    assert_true(e->op == MEMOP_ALLOC && e->kind == MEM_DEVICE && e->pool == 0 && e->pool_size == -1);
    assert_true(e->pid == PID && e->device == 1 && e->stream == 0 && e->correlation == 41);
    assert_string_equal(memory_name_of(&m, e->allocator), "libtorch_cuda.so");
    assert_true(e->total_allocated == -1 && e->total_reserved == -1);
    e = &m.events[1];
    assert_true(e->op == MEMOP_FREE && e->pool == 0x7f3a00000000ull && e->pool_size == 32 << 20 && e->stream == 13);
    assert_int_equal(e->allocator, -1);
    assert_int_equal(m.events[2].kind, MEM_DEVICE);
    assert_int_equal(m.npools, 1);
    assert_true(m.pools[0].op == MEMPOOL_TRIMMED && m.pools[0].size == 8 << 20 && m.pools[0].utilized == 2 << 20);
    assert_true(m.pools[0].device == 1 && m.pools[0].correlation == 42 && !m.pools[0].managed);
    memory_activity_free(&m);
    done(s);
    free(b.bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_maps_every_field),
        cmocka_unit_test(plain_kernel_kind_and_no_name),
        cmocka_unit_test(kernel_without_timestamps_is_lost),
        cmocka_unit_test(copy_maps_direction_memory_and_bytes),
        cmocka_unit_test(copy_directions_and_memory_kinds),
        cmocka_unit_test(copy_without_timestamps_is_lost),
        cmocka_unit_test(memset_maps_memory_and_bytes),
        cmocka_unit_test(api_calls_named_by_callback_id),
        cmocka_unit_test(synchronization_kinds_and_streams),
        cmocka_unit_test(overhead_summed_markers_counted),
        cmocka_unit_test(buffer_reads_every_record),
        cmocka_unit_test(buffer_skip_claims_records),
        cmocka_unit_test(buffer_unreadable_record_counted),
        cmocka_unit_test(memory_records_into_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
