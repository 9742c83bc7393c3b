/* The Nsight Systems SQLite importer, on databases each test builds with SQLite itself in the
 * tables and columns of NVIDIA's documented export schema (nsys cannot make reports on the
 * machine the project has, so no recorded export is checked in):
 *
 *  - a new-style export (ENUM_ tables, shortName, NVTX text inline and by textId, a named
 *    domain, two processes, runtime and driver calls, a memset, a synchronization) read back
 *    field by field, times beyond 2^53 ns exact;
 *  - an old-style one (no ENUM_ tables, NVTX text only by textId, a plain name column for
 *    kernels) and one with tables missing (warnings, figures n/a, no failure);
 *  - nsys's memory-kind numbering, which is not CUPTI's (pinned is 1 there, 2 here);
 *  - each CUDA call counted once where nsys stores it twice (a backtrace row around it), and
 *    only the processes and threads that did CUDA work counted;
 *  - totals over a few thousand rows against SQL's own COUNT and SUM on the same file;
 *  - the data region attribution needs: an NVTX range, the runtime call made inside it and the
 *    kernel it launched, which ends after the range has; and the region analysis on the import,
 *    and the import through the run file and back;
 *  - bad input: not SQLite, no CUDA tables, wrong types, NULLs, huge names with markup, damaged
 *    and cut-short databases, a missing path; each refused with a message naming the file, the
 *    model left empty and the file untouched. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "analysis.h"
#include "import.h"
#include "model_json.h"
#include "regions.h"
#include "test_support.h"

/* 2024-11-30 15:40:34 UTC in ns: past 2^53, so a double on the way would show. */
#define T0 INT64_C(1732981234000000000)
/* nsys packs a VM/host id above bit 48, the pid in bits 24..47, the tid in 0..23. */
#define GTID(pid, tid) ((INT64_C(1) << 56) | ((int64_t)(pid) << 24) | (int64_t)(tid))
#define GPID(pid) GTID(pid, 0)
#define PID_A 4242
#define TID_MAIN 4242
#define TID_WORKER 4250
#define PID_B 5151

/* Variations of the export. */
enum {
    OLD_STYLE = 1,  /* no ENUM_ tables, kernels named by a plain name column, NVTX text by textId */
    NO_MEMCPY = 2,  /* no CUPTI_ACTIVITY_KIND_MEMCPY table */
    NO_NVTX = 4,    /* no NVTX_EVENTS table */
};

/* ---------- building databases ---------- */

static void vexec_sql(sqlite3 *db, const char *fmt, va_list ap)
{
    char *sql = sqlite3_vmprintf(fmt, ap);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("SQL failed (%s): %.300s", msg ? msg : "?", sql);
    sqlite3_free(msg);
    sqlite3_free(sql);
}

/* Statements (sqlite3_mprintf's format: %Q quotes) run on the database. */
static void exec_sql(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vexec_sql(db, fmt, ap);
    va_end(ap);
}

/* The same on the database at path, opened for them alone. */
static void alter_export(const char *path, const char *fmt, ...)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        fail_msg("cannot open %s", path);
    va_list ap;
    va_start(ap, fmt);
    vexec_sql(db, fmt, ap);
    va_end(ap);
    sqlite3_close(db);
}

static sqlite3 *create_db(const char *path)
{
    sqlite3 *db = NULL;
    unlink(path);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        fail_msg("cannot create %s", path);
    return db;
}

/* The documented tables and columns (NOT NULL constraints left off, so the bad-input tests can
 * store what a damaged file could hold). */
static void create_schema(sqlite3 *db, int flags)
{
    exec_sql(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
                 "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
                 "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
                 "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT, isDiscrete "
                 "INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, "
                 "smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, "
                 "maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, "
                 "maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER, "
                 "maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, computeMajor INTEGER, "
                 "computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId "
                 "INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, %s launchType INTEGER, "
                 "cacheConfig INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, "
                 "blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory "
                 "INTEGER, localMemoryPerThread INTEGER, localMemoryTotal INTEGER, gridId INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, contextId "
                 "INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER, "
                 "graphNodeId INTEGER, memKind INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid "
                 "INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER, end INTEGER, eventClass INTEGER, globalTid "
                 "INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, "
                 "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, "
                 "eventId INTEGER);",
             (flags & OLD_STYLE) ? "name INTEGER," : "demangledName INTEGER, shortName INTEGER, mangledName INTEGER,");
    if (!(flags & NO_MEMCPY))
        exec_sql(db, "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, "
                     "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, "
                     "copyKind INTEGER, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId "
                     "INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER);");
    if (!(flags & NO_NVTX))
        exec_sql(db, "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, "
                     "category INTEGER, color INTEGER, %s globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, "
                     "%s uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value "
                     "INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);",
                 (flags & OLD_STYLE) ? "" : "text TEXT,", (flags & OLD_STYLE) ? "" : "domainId INTEGER,");
    if (flags & OLD_STYLE)
        return;
    exec_sql(db, "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
                 "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),"
                 "(1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'), (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),"
                 "(3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'), (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),"
                 "(5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC', 'Device Static'),"
                 "(6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC', 'Managed Static'),"
                 "(7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');"
                 "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
                 "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown'),"
                 "(1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'), (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'),"
                 "(3, 'CUDA_MEMCPY_KIND_HTOA', 'Host-to-Array'), (4, 'CUDA_MEMCPY_KIND_ATOH', 'Array-to-Host'),"
                 "(8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device'), (9, 'CUDA_MEMCPY_KIND_HTOH', 'Host-to-Host'),"
                 "(10, 'CUDA_MEMCPY_KIND_PTOP', 'Peer-to-Peer');");
}

/* String ids of the fixture; names beyond these get ids from next_string. */
enum {
    S_SGEMM_DEM = 1, S_SGEMM_SHORT, S_SGEMM_MANGLED, S_REDUCE_DEM, S_REDUCE_SHORT, S_REDUCE_MANGLED,
    S_LAUNCH, S_MEMCPY, S_MEMSET, S_CU_LAUNCH, S_STREAM_SYNC, S_FORWARD, S_THREAD_MAIN, S_THREAD_WORKER,
};
static const char *const fixture_strings[] = {
    NULL, "void sgemm_tile<128>(const float *, const float *, float *, int)", "sgemm_tile",
    "_Z10sgemm_tileILi128EEvPKfS1_Pfi", "reduce_sum(float *, int)", "reduce_sum", "_Z10reduce_sumPfi",
    "cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020", "cudaMemsetAsync_v3020", "cuLaunchKernel",
    "cudaStreamSynchronize_v3020", "forward", "python3", "data-loader",
};
#define NSTRINGS ((int)(sizeof fixture_strings / sizeof fixture_strings[0]))
static int next_string;

static int add_string(sqlite3 *db, const char *s)
{
    exec_sql(db, "INSERT INTO StringIds VALUES (%d, %Q)", next_string, s);
    return next_string++;
}

static void add_kernel(sqlite3 *db, int flags, int64_t start, int64_t end, int stream, int corr, int pid, int dem,
                       int shortname, int mangled)
{
    char names[64], ids[64];
    if (flags & OLD_STYLE) {
        snprintf(names, sizeof names, "name");
        snprintf(ids, sizeof ids, "%d", dem);
    } else {
        snprintf(names, sizeof names, "demangledName, shortName, mangledName");
        snprintf(ids, sizeof ids, "%d, %d, %d", dem, shortname, mangled);
    }
    exec_sql(db,
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, "
             "globalPid, %s, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, "
             "dynamicSharedMemory, localMemoryPerThread) VALUES (%lld, %lld, 0, 1, %d, %d, %lld, %s, 128, 16, 16, 1, "
             "256, 1, 1, 32768, 65536, 0)",
             names, (long long)start, (long long)end, stream, corr, (long long)GPID(pid), ids);
}

static void add_copy(sqlite3 *db, int64_t start, int64_t end, int corr, int pid, int64_t bytes, int kind, int src,
                     int dst)
{
    exec_sql(db,
             "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, "
             "globalPid, bytes, copyKind, srcKind, dstKind) VALUES (%lld, %lld, 0, 1, 7, %d, %lld, %lld, %d, %d, %d)",
             (long long)start, (long long)end, corr, (long long)GPID(pid), (long long)bytes, kind, src, dst);
}

static void add_api(sqlite3 *db, const char *table, int64_t start, int64_t end, int64_t gtid, int corr, int name)
{
    exec_sql(db, "INSERT INTO %s (start, end, eventClass, globalTid, correlationId, nameId, returnValue) "
                 "VALUES (%lld, %lld, 1, %lld, %d, %d, 0)",
             table, (long long)start, (long long)end, (long long)gtid, corr, name);
}

/* An NVTX row: end < 0 stores NULL; text goes inline in a new-style export and through StringIds
 * in an old one; text_id 0 stores NULL. */
static void add_nvtx(sqlite3 *db, int flags, int64_t start, int64_t end, int type, const char *text, int text_id,
                     int64_t gtid, int domain)
{
    if (flags & NO_NVTX)
        return;
    char endv[32];
    snprintf(endv, sizeof endv, end < 0 ? "NULL" : "%lld", (long long)end);
    if (flags & OLD_STYLE) {
        int id = text ? add_string(db, text) : text_id;
        exec_sql(db, "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId) VALUES (%lld, %s, %d, %lld, %d)",
                 (long long)start, endv, type, (long long)gtid, id);
        return;
    }
    char idv[32];
    snprintf(idv, sizeof idv, text_id ? "%d" : "NULL", text_id);
    exec_sql(db, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) "
                 "VALUES (%lld, %s, %d, %Q, %lld, %s, %d)",
             (long long)start, endv, type, text, (long long)gtid, idv, domain);
}

/* The fixture's story, times from T0:
 *   process A (python3), main thread: push "step" [1000, 50000] (inline text) around push
 *   "forward" [2000, 20000] (registered string); inside it cudaLaunchKernel (corr 101) at
 *   [3000, 3500], whose sgemm kernel runs [21000, 60000] after both ranges ended; a pinned
 *   host-to-device copy (corr 102), a device-to-pageable copy (corr 103), a memset (104),
 *   cuLaunchKernel (105) launching reduce_sum, cudaStreamSynchronize (106) with its sync record;
 *   a mark "checkpoint"; domain 1 "io" created, and a start/end range "load" in it on the
 *   data-loader thread.
 *   process B: one kernel (corr 201) and a device-to-device copy (corr 202). */
static void build_export(const char *path, int flags)
{
    sqlite3 *db = create_db(path);
    create_schema(db, flags);
    for (int i = 1; i < NSTRINGS; i++)
        exec_sql(db, "INSERT INTO StringIds VALUES (%d, %Q)", i, fixture_strings[i]);
    next_string = 1000;
    exec_sql(db, "INSERT INTO PROCESSES VALUES (%lld, %d, 'python3'), (%lld, %d, 'trainer')", (long long)GPID(PID_A),
             PID_A, (long long)GPID(PID_B), PID_B);
    exec_sql(db, "INSERT INTO ThreadNames VALUES (%d, 0, %lld), (%d, 0, %lld)", S_THREAD_MAIN,
             (long long)GTID(PID_A, TID_MAIN), S_THREAD_WORKER, (long long)GTID(PID_A, TID_WORKER));
    exec_sql(db, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%lld, 'x', 'y')", (long long)T0);
    exec_sql(db, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, l2CacheSize, totalMemory, clockRate, "
                 "smCount, maxRegistersPerBlock, maxShmemPerBlock, maxShmemPerBlockOptin, maxShmemPerSm, "
                 "maxRegistersPerSm, threadsPerWarp, maxWarpsPerSm, maxBlocksPerSm, maxThreadsPerBlock, computeMajor, "
                 "computeMinor, memoryBandwidth) VALUES (0, 0, 'NVIDIA H200', '0000:19:00.0', 62914560, 150754820096, "
                 "1980000000, 132, 65536, 49152, 232448, 233472, 65536, 32, 64, 32, 1024, 9, 0, 4812800000000)");

    int64_t main_a = GTID(PID_A, TID_MAIN);
    add_nvtx(db, flags, T0 + 1000, T0 + 50000, 59, "step", 0, main_a, 0);
    add_nvtx(db, flags, T0 + 2000, T0 + 20000, 59, NULL, S_FORWARD, main_a, 0);
    add_api(db, "CUPTI_ACTIVITY_KIND_RUNTIME", T0 + 3000, T0 + 3500, main_a, 101, S_LAUNCH);
    add_kernel(db, flags, T0 + 21000, T0 + 60000, 7, 101, PID_A, S_SGEMM_DEM, S_SGEMM_SHORT, S_SGEMM_MANGLED);
    if (!(flags & NO_MEMCPY)) {
        add_api(db, "CUPTI_ACTIVITY_KIND_RUNTIME", T0 + 22000, T0 + 22400, main_a, 102, S_MEMCPY);
        add_copy(db, T0 + 60500, T0 + 61500, 102, PID_A, 1 << 20, 1, 1, 2);      /* pinned -> device */
        add_api(db, "CUPTI_ACTIVITY_KIND_RUNTIME", T0 + 22500, T0 + 22900, main_a, 103, S_MEMCPY);
        add_copy(db, T0 + 62000, T0 + 64000, 103, PID_A, 4 << 20, 2, 2, 0);      /* device -> pageable */
        add_copy(db, T0 + 70000, T0 + 70100, 202, PID_B, 65536, 8, 2, 2);        /* process B, device -> device */
    }
    add_api(db, "CUPTI_ACTIVITY_KIND_RUNTIME", T0 + 23000, T0 + 23300, main_a, 104, S_MEMSET);
    exec_sql(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, "
                 "globalPid, value, bytes, memKind) VALUES (%lld, %lld, 0, 1, 7, 104, %lld, 0, 8192, 2)",
             (long long)(T0 + 64500), (long long)(T0 + 64600), (long long)GPID(PID_A));
    add_api(db, "CUPTI_ACTIVITY_KIND_DRIVER", T0 + 24000, T0 + 24200, main_a, 105, S_CU_LAUNCH);
    add_kernel(db, flags, T0 + 65000, T0 + 66000, 7, 105, PID_A, S_REDUCE_DEM, S_REDUCE_SHORT, S_REDUCE_MANGLED);
    add_api(db, "CUPTI_ACTIVITY_KIND_RUNTIME", T0 + 25000, T0 + 66100, main_a, 106, S_STREAM_SYNC);
    exec_sql(db, "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (%lld, %lld, 0, 1, 7, 106, %lld, 3, 0)",
             (long long)(T0 + 25100), (long long)(T0 + 66050), (long long)GPID(PID_A));
    add_nvtx(db, flags, T0 + 26000, -1, 34, "checkpoint", 0, main_a, 0);
    if (!(flags & OLD_STYLE))
        add_nvtx(db, flags, T0 + 500, -1, 75, "io", 0, main_a, 1);
    add_nvtx(db, flags, T0 + 30000, T0 + 80000, 60, "load", 0, GTID(PID_A, TID_WORKER), 1);
    add_api(db, "CUPTI_ACTIVITY_KIND_RUNTIME", T0 + 68000, T0 + 68300, GTID(PID_B, PID_B), 201, S_LAUNCH);
    add_kernel(db, flags, T0 + 69000, T0 + 69900, 13, 201, PID_B, S_REDUCE_DEM, S_REDUCE_SHORT, S_REDUCE_MANGLED);
    sqlite3_close(db);
}

/* ---------- checking ---------- */

typedef struct {
    char *dir;
    char path[512];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = make_temp_dir();
    if (!f->dir)
        return -1;
    snprintf(f->path, sizeof f->path, "%s/report.sqlite", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rm_rf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static void import_ok(const char *path, run_model *m)
{
    char err[512] = "";
    model_init(m);
    if (!import_nsys_sqlite(path, m, err, sizeof err))
        fail_msg("import failed: %s", err);
}

static const kernel_event *kernel_by_corr(const run_model *m, uint32_t pid, uint32_t corr)
{
    for (size_t i = 0; i < m->events.nkernels; i++)
        if (m->events.kernels[i].pid == pid && m->events.kernels[i].correlation == corr)
            return &m->events.kernels[i];
    fail_msg("no kernel with correlation %u in process %u", corr, pid);
    return NULL;
}

static const copy_event *copy_by_corr(const run_model *m, uint32_t corr)
{
    for (size_t i = 0; i < m->events.ncopies; i++)
        if (m->events.copies[i].correlation == corr)
            return &m->events.copies[i];
    fail_msg("no copy with correlation %u", corr);
    return NULL;
}

static const api_event *api_by_corr(const run_model *m, uint32_t pid, uint32_t corr)
{
    for (size_t i = 0; i < m->events.napis; i++)
        if (m->events.apis[i].pid == pid && m->events.apis[i].correlation == corr)
            return &m->events.apis[i];
    fail_msg("no API call with correlation %u in process %u", corr, pid);
    return NULL;
}

static int region_named(const run_model *m, const char *name)
{
    for (int i = 0; i < m->nregions; i++)
        if (strcmp(m->regions[i].name, name) == 0)
            return i;
    return -1;
}

static int count_regions(const run_model *m, region_kind kind)
{
    int n = 0;
    for (int i = 0; i < m->nregions; i++)
        n += m->regions[i].kind == kind;
    return n;
}

static bool has_warning(const run_model *m, const char *a, const char *b)
{
    for (int i = 0; i < m->nwarnings; i++)
        if (strstr(m->warnings[i], a) && (!b || strstr(m->warnings[i], b)))
            return true;
    return false;
}

static void print_warnings(const run_model *m)
{
    for (int i = 0; i < m->nwarnings; i++)
        print_message("warning: %s\n", m->warnings[i]);
}

/* What both export styles hold, read back. */
static void check_story(const run_model *m, int flags)
{
    assert_int_equal(m->source, SOURCE_NSYS);
    assert_int_equal(m->events.nkernels, 3);
    const kernel_event *k = kernel_by_corr(m, PID_A, 101);
    assert_string_equal(k->name, fixture_strings[S_SGEMM_DEM]); /* demangled, or old style's name column */
    assert_true(k->start_ns == T0 + 21000 && k->end_ns == T0 + 60000);
    assert_int_equal(k->stream, 7);
    assert_int_equal(k->grid[0], 16);
    assert_int_equal(k->block[0], 256);
    assert_true(k->has_resources);
    assert_int_equal(k->registers, 128);
    assert_int_equal(k->static_smem + k->dynamic_smem, 98304);
    assert_true(k->smem_optin);
    assert_string_equal(kernel_by_corr(m, PID_B, 201)->name, fixture_strings[S_REDUCE_DEM]);

    const api_event *drv = api_by_corr(m, PID_A, 105);
    assert_int_equal(drv->kind, API_DRIVER);
    assert_string_equal(drv->name, "cuLaunchKernel");
    assert_int_equal(drv->thread, TID_MAIN);
    assert_int_equal(api_by_corr(m, PID_A, 101)->kind, API_RUNTIME);
    assert_int_equal(api_by_corr(m, PID_B, 201)->pid, PID_B);

    assert_int_equal(m->events.nmemsets, 1);
    assert_int_equal(m->events.memsets[0].mem, MEM_DEVICE);
    assert_int_equal(m->events.memsets[0].bytes, 8192);
    assert_int_equal(m->events.nsyncs, 1);
    assert_int_equal(m->events.syncs[0].kind, SYNC_STREAM);
    assert_int_equal(m->events.syncs[0].pid, PID_A);
    assert_int_equal(m->events.syncs[0].thread, TID_MAIN); /* from the runtime call with its correlation id */

    /* Ranges: step, forward (nested in step) and load; the mark is not a region. */
    assert_int_equal(m->regions[0].kind, REGION_RUN);
    assert_true(m->regions[0].start_ns == T0 + 1000 && m->regions[0].end_ns == T0 + 80000);
    assert_true(m->epoch_ns == T0 + 1000);
    assert_int_equal(count_regions(m, REGION_NVTX), 3);
    assert_int_equal(region_named(m, "checkpoint"), -1);
    int step = region_named(m, "step"), fwd = region_named(m, "forward"), load = region_named(m, "load");
    assert_true(step > 0 && fwd > 0 && load > 0);
    assert_int_equal(m->regions[fwd].parent, step);
    assert_int_equal(m->regions[step].parent, 0);
    assert_true(m->regions[step].push_pop && m->regions[fwd].push_pop && !m->regions[load].push_pop);
    assert_int_equal(m->regions[load].tid, TID_WORKER);
    assert_int_equal(m->regions[load].pid, PID_A);
    if (flags & OLD_STYLE)
        assert_null(m->regions[load].domain);
    else
        assert_string_equal(m->regions[load].domain, "io");
    assert_null(m->regions[step].domain);

    assert_int_equal(m->nprocesses, 2);
    assert_int_equal(m->processes[1].pid, PID_B);
    assert_string_equal(m->processes[1].name, "trainer");
    /* The threads that did CUDA work or opened ranges: python3's main thread and its data loader
     * (named by ThreadNames), and process B's thread, which made a call but has no name there. */
    assert_int_equal(m->nthreads, 3);
    assert_string_equal(m->threads[1].name, "data-loader");
    assert_int_equal(m->threads[1].tid, TID_WORKER);
    assert_int_equal(m->threads[2].pid, PID_B);
    assert_int_equal(m->threads[2].tid, PID_B);
    assert_string_equal(m->threads[2].name, "");
    assert_int_equal(m->ndevices, 1);
    assert_string_equal(m->devices[0].name, "NVIDIA H200");
    assert_int_equal(m->devices[0].sm_count, 132);
    assert_int_equal(m->devices[0].cc_major * 10 + m->devices[0].cc_minor, 90);
    assert_int_equal(m->devices[0].clock_khz, 1980000);
    assert_int_equal(m->devices[0].max_threads_per_sm, 2048);
    assert_int_equal(m->devices[0].smem_per_block_optin, 232448);
    /* The memory bandwidth as the export reports it (no memory clock or bus width there), and
     * the memory peak from it. */
    assert_int_equal(m->devices[0].memory_bandwidth, 4812800000000);
    device_peaks p = device_peaks_of(&m->devices[0]);
    assert_true(p.hbm_gbps.ok);
    assert_close(p.hbm_gbps.v, 4812.8, 1e-12);
    assert_string_equal(m->started_at, "2024-11-30T15:40:34Z");
}

static void reads_new_style_export(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    run_model m;
    import_ok(f->path, &m);
    print_warnings(&m);
    check_story(&m, 0);
    assert_int_equal(m.nwarnings, 0); /* every table and column the reader wants is there */
    const copy_event *h2d = copy_by_corr(&m, 102), *d2h = copy_by_corr(&m, 103), *d2d = copy_by_corr(&m, 202);
    assert_int_equal(h2d->dir, COPY_H2D);
    assert_int_equal(h2d->bytes, 1 << 20);
    assert_int_equal(d2h->dir, COPY_D2H);
    assert_int_equal(d2d->dir, COPY_D2D);
    assert_int_equal(d2d->pid, PID_B);
    assert_string_equal(m.source_file, f->path);
    model_free(&m);
}

static void reads_old_style_export(void **state)
{
    fixture *f = *state;
    build_export(f->path, OLD_STYLE);
    run_model m;
    import_ok(f->path, &m);
    print_warnings(&m);
    check_story(&m, OLD_STYLE);
    assert_int_equal(copy_by_corr(&m, 102)->dir, COPY_H2D);
    assert_int_equal(copy_by_corr(&m, 103)->dir, COPY_D2H);
    /* No domainId column: domains are n/a, and said so. */
    assert_true(has_warning(&m, "NVTX_EVENTS", "domainId"));
    model_free(&m);
}

static void missing_tables_warn(void **state)
{
    fixture *f = *state;
    build_export(f->path, NO_MEMCPY | NO_NVTX);
    run_model m;
    import_ok(f->path, &m);
    assert_int_equal(m.events.nkernels, 3);
    assert_int_equal(m.events.ncopies, 0);
    assert_int_equal(count_regions(&m, REGION_NVTX), 0);
    assert_true(has_warning(&m, "no CUPTI_ACTIVITY_KIND_MEMCPY table", "n/a"));
    assert_true(has_warning(&m, "no NVTX_EVENTS table", NULL));
    model_free(&m);

    /* A column gone: its figures n/a, the rest read. */
    alter_export(f->path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN registersPerThread");
    import_ok(f->path, &m);
    assert_int_equal(m.events.nkernels, 3);
    assert_false(m.events.kernels[0].has_resources);
    assert_true(has_warning(&m, "CUPTI_ACTIVITY_KIND_KERNEL", "registersPerThread"));
    model_free(&m);

    /* An NVTX table with marks but no ranges: no regions beyond the run's. */
    build_export(f->path, 0);
    alter_export(f->path, "DELETE FROM NVTX_EVENTS WHERE eventType <> 34");
    import_ok(f->path, &m);
    assert_int_equal(m.nregions, 1);
    assert_int_equal(m.events.nkernels, 3);
    model_free(&m);
}

/* nsys numbers memory kinds 0 pageable, 1 pinned, 2 device; CUPTI (and mem_kind) 1, 2, 3. */
static void memory_kinds_are_nsys_numbered(void **state)
{
    fixture *f = *state;
    for (int style = 0; style < 2; style++) {
        build_export(f->path, style ? OLD_STYLE : 0);
        run_model m;
        import_ok(f->path, &m);
        const copy_event *h2d = copy_by_corr(&m, 102), *d2h = copy_by_corr(&m, 103);
        assert_int_equal(h2d->src, MEM_PINNED);   /* stored as 1 */
        assert_int_equal(h2d->dst, MEM_DEVICE);   /* stored as 2 */
        assert_int_equal(d2h->dst, MEM_PAGEABLE); /* stored as 0 */
        assert_int_equal(d2h->src, MEM_DEVICE);
        model_free(&m);
    }
    /* Where the export names its kinds, the names decide, not the fixed numbering. */
    alter_export(f->path, "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
                 "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),"
                 "(1, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'), (2, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned');"
                 "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
                 "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, NULL, 'Device-to-Host'), (2, NULL, 'Host-to-Device');");
    run_model m;
    import_ok(f->path, &m);
    const copy_event *c = copy_by_corr(&m, 102); /* copyKind 1, srcKind 1, dstKind 2 */
    assert_int_equal(c->dir, COPY_D2H);
    assert_int_equal(c->src, MEM_PAGEABLE);
    assert_int_equal(c->dst, MEM_PINNED);
    assert_int_equal(copy_by_corr(&m, 103)->dst, MEM_MANAGED);
    assert_int_equal(copy_by_corr(&m, 202)->dir, COPY_OTHER); /* 8 is not in this table */
    model_free(&m);
}

/* Names are cached by string id: two ids that share a slot must not swap names. */
static void string_ids_sharing_a_cache_slot(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    alter_export(f->path, "INSERT INTO StringIds VALUES (%d, 'other_kernel(int)');"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = %d WHERE correlationId = 201",
                 S_SGEMM_DEM + 1024, S_SGEMM_DEM + 1024);
    run_model m;
    import_ok(f->path, &m);
    assert_string_equal(kernel_by_corr(&m, PID_A, 101)->name, fixture_strings[S_SGEMM_DEM]);
    assert_string_equal(kernel_by_corr(&m, PID_B, 201)->name, "other_kernel(int)");
    model_free(&m);
}

/* Rows no interval can be made of are left out, each kind with its warning; the rest stay, and a
 * range never ended closes at the end. */
static void unusable_rows_are_left_out(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    alter_export(f->path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 0, end = 0 WHERE correlationId = 105;"
                          "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start - 1 WHERE correlationId = 103;"
                          "UPDATE NVTX_EVENTS SET end = NULL WHERE text = 'step';"
                          "UPDATE NVTX_EVENTS SET end = start - 5 WHERE text = 'load'");
    run_model m;
    import_ok(f->path, &m);
    print_warnings(&m);
    assert_int_equal(m.events.nkernels, 2);
    assert_int_equal(m.collection.lost_timestamps, 1);
    assert_int_equal(m.events.ncopies, 2);
    /* step never ended: it is kept, closed at the export's last event (as Nsight Systems draws it
     * and as profile closes a range left open), and forward stays inside it; load is left out. */
    assert_int_equal(count_regions(&m, REGION_NVTX), 2);
    int step = region_named(&m, "step");
    assert_true(step > 0);
    assert_int_equal(m.regions[step].end_ns, T0 + 70100); /* process B's copy, the last event */
    assert_int_equal(m.regions[region_named(&m, "forward")].parent, step);
    assert_true(has_warning(&m, "CUPTI_ACTIVITY_KIND_KERNEL: 1 row has no timestamps", NULL));
    assert_true(has_warning(&m, "CUPTI_ACTIVITY_KIND_MEMCPY: 1 row ends before it starts", NULL));
    assert_true(has_warning(&m, "NVTX_EVENTS: 1 NVTX range was still open at the end", "last event"));
    assert_true(has_warning(&m, "NVTX_EVENTS: 1 range ends before it starts", NULL));
    model_free(&m);
}

/* nsys with call stacks (its default --cudabacktrace) stores each CUDA call twice: a "CUDA
 * backtrace" row (eventClass 67, the plain name) around the call's own runtime row, with one
 * correlation id (as a public A100 export, saxpy-mpi-cuda from pipit's tests, has them). Each call
 * counts once, as its own row; calls of another thread or id, even overlapping, stay. */
static void calls_recorded_twice_count_once(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    run_model plain;
    import_ok(f->path, &plain);
    size_t calls = plain.events.napis;
    model_free(&plain);
    alter_export(f->path,
                 "INSERT INTO StringIds VALUES (2000, 'cudaLaunchKernel'), (2001, 'cudaMemcpyAsync');"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId,"
                 " returnValue) SELECT start - 50, end + 30, 67, globalTid, correlationId,"
                 " CASE nameId WHEN %d THEN 2000 ELSE 2001 END, 0 FROM CUPTI_ACTIVITY_KIND_RUNTIME"
                 " WHERE nameId IN (%d, %d);"
                 /* another thread's call with id 101 around the first: not the same call */
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId,"
                 " returnValue) VALUES (%lld, %lld, 0, %lld, 101, %d, 0);",
                 S_LAUNCH, S_LAUNCH, S_MEMCPY, (long long)(T0 + 2000), (long long)(T0 + 4000),
                 (long long)GTID(PID_A, TID_WORKER), S_LAUNCH);
    run_model m;
    import_ok(f->path, &m);
    print_warnings(&m);
    assert_int_equal(m.events.napis, calls + 1);
    int launches = 0, plain_names = 0;
    for (size_t i = 0; i < m.events.napis; i++) {
        launches += strcmp(m.events.apis[i].name, "cudaLaunchKernel_v7000") == 0;
        plain_names += strcmp(m.events.apis[i].name, "cudaLaunchKernel") == 0 ||
                       strcmp(m.events.apis[i].name, "cudaMemcpyAsync") == 0;
    }
    assert_int_equal(launches, 3); /* two in process A (one per thread), one in B */
    assert_int_equal(plain_names, 0);
    const api_event *launch = api_by_corr(&m, PID_A, 101);
    assert_true(launch->start_ns == T0 + 3000 || launch->start_ns == T0 + 2000);
    assert_true(has_warning(&m, "CUPTI_ACTIVITY_KIND_RUNTIME: 4 CUDA calls were recorded twice", "counted once"));
    /* The synchronization still finds its calling thread. */
    assert_int_equal(m.events.syncs[0].thread, TID_MAIN);
    model_free(&m);
}

/* PROCESSES and ThreadNames list whatever the capture saw (a shell, nsys's own processes, idle
 * threads): the run's processes and threads are those that did CUDA work or opened ranges. */
static void only_cuda_processes_and_threads_count(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    alter_export(f->path,
                 "INSERT INTO StringIds VALUES (3000, 'idle-pool'), (3001, 'bash');"
                 "INSERT INTO PROCESSES VALUES (%lld, 777, 'bash'), (%lld, 888, 'nsys-launcher'), (%lld, %d, 'python3');"
                 "INSERT INTO ThreadNames VALUES (3000, 0, %lld), (3001, 0, %lld);",
                 (long long)GPID(777), (long long)GPID(888), (long long)GPID(PID_A), PID_A,
                 (long long)GTID(PID_A, 4260), (long long)GTID(777, 777));
    run_model m;
    import_ok(f->path, &m);
    check_story(&m, 0);
    for (int i = 0; i < m.nthreads; i++)
        assert_int_not_equal(m.threads[i].tid, 4260);
    model_free(&m);
}

/* OS runtime calls (OSRT_API, nsys --trace=osrt; the table as NVIDIA's export schema documents
 * it, made here since no export at hand has one): host spans of op frames named by the call, on
 * their thread, of CUDA processes only; a row ending before it starts is left out and said. */
static void os_runtime_calls_become_host_spans(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    alter_export(f->path,
                 "CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
                 "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, "
                 "nestingLevel INTEGER, callchainId INTEGER);"
                 "INSERT INTO StringIds VALUES (3100, 'poll'), (3101, 'pthread_cond_wait'), (3102, 'read');"
                 "INSERT INTO OSRT_API VALUES (%lld, %lld, 27, %lld, 0, 3100, 0, 0, NULL),"
                 " (%lld, %lld, 27, %lld, 0, 3101, 0, 0, NULL), (%lld, %lld, 27, %lld, 0, 3102, 0, 0, NULL),"
                 " (%lld, %lld, 27, %lld, 0, 3100, 0, 0, NULL);",
                 (long long)(T0 + 40000), (long long)(T0 + 45000), (long long)GTID(PID_A, TID_MAIN),
                 (long long)(T0 + 50000), (long long)(T0 + 52000), (long long)GTID(PID_A, TID_WORKER),
                 (long long)(T0 + 41000), (long long)(T0 + 42000), (long long)GTID(777, 777),
                 (long long)(T0 + 47000), (long long)(T0 + 46000), (long long)GTID(PID_A, TID_MAIN));
    run_model m;
    import_ok(f->path, &m);
    check_story(&m, 0);
    const host_activity *h = &m.host_activity;
    assert_int_equal(h->nspans, 2);
    assert_int_equal(h->nframes, 2);
    for (size_t i = 0; i < h->nspans; i++) {
        const host_span *sp = &h->spans[i];
        const host_frame *fr = &h->frames[sp->frame];
        assert_int_equal(sp->pid, PID_A);
        assert_int_equal(fr->kind, HOST_FRAME_OP);
        assert_int_equal(fr->parent, -1);
        bool poll = sp->tid == TID_MAIN;
        assert_string_equal(fr->function, poll ? "poll" : "pthread_cond_wait");
        assert_int_equal(sp->start_ns, T0 + (poll ? 40000 : 50000));
        assert_int_equal(sp->end_ns, T0 + (poll ? 45000 : 52000));
    }
    bool warned = false;
    for (int i = 0; i < m.nwarnings; i++)
        warned |= strstr(m.warnings[i], "OSRT_API: 1 row ends before it starts") != NULL;
    assert_true(warned);
    model_free(&m);
}

/* CPU samples (COMPOSITE_EVENTS with SAMPLING_CALLCHAINS, nsys --sample=cpu; the tables as
 * NVIDIA's export schema documents them, made here since no export at hand has them): each
 * sample of a CUDA process with its stack as native frames, stackDepth 0 the sampled function
 * and its callers outward, a stack seen twice stored once; a sample without a call chain has no
 * stack; the rate is the median interval of a thread's samples. */
static void cpu_samples_with_call_chains(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    alter_export(f->path,
                 "CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER, "
                 "threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL);"
                 "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL, "
                 "kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER, "
                 "unwindMethod INTEGER, stackDepth INTEGER NOT NULL);"
                 "INSERT INTO StringIds VALUES (3200, 'main'), (3201, 'train_step'), (3202, 'memcpy'), (3203, '/w/app'),"
                 " (3204, '/lib/libc.so.6');"
                 "INSERT INTO COMPOSITE_EVENTS VALUES (1, %lld, 0, 1, %lld, 0), (2, %lld, 0, 1, %lld, 0),"
                 " (3, %lld, 0, 1, %lld, 0), (4, %lld, 0, 1, %lld, 0);"
                 "INSERT INTO SAMPLING_CALLCHAINS VALUES (1, 3202, 3204, 0, 0, 0, 0, 0, 0, 0), (1, 3201, 3203, 0, 0, 0, 0, 0, 0, 1),"
                 " (1, 3200, 3203, 0, 0, 0, 0, 0, 0, 2), (2, 3200, 3203, 0, 0, 0, 0, 0, 0, 2),"
                 " (2, 3201, 3203, 0, 0, 0, 0, 0, 0, 1), (2, 3202, 3204, 0, 0, 0, 0, 0, 0, 0),"
                 " (4, 3200, 3203, 0, 0, 0, 0, 0, 0, 0);",
                 (long long)(T0 + 10000), (long long)GTID(PID_A, TID_MAIN), (long long)(T0 + 11000),
                 (long long)GTID(PID_A, TID_MAIN), (long long)(T0 + 12000), (long long)GTID(PID_A, TID_MAIN),
                 (long long)(T0 + 12500), (long long)GTID(777, 777));
    run_model m;
    import_ok(f->path, &m);
    check_story(&m, 0);
    const host_activity *h = &m.host_activity;
    assert_int_equal(h->nsamples, 3); /* process 777 did no CUDA work */
    assert_int_equal(h->nframes, 3);
    const host_sample *s = h->samples;
    assert_int_equal(s[0].ts_ns, T0 + 10000);
    assert_int_equal(s[0].tid, TID_MAIN);
    assert_int_equal(s[0].source, HOST_SAMPLE_CPU);
    assert_int_equal(s[0].frame, s[1].frame);
    const host_frame *leaf = &h->frames[s[0].frame];
    assert_string_equal(leaf->function, "memcpy");
    assert_string_equal(leaf->module, "/lib/libc.so.6");
    assert_int_equal(leaf->kind, HOST_FRAME_NATIVE);
    assert_string_equal(h->frames[leaf->parent].function, "train_step");
    assert_string_equal(h->frames[h->frames[leaf->parent].parent].function, "main");
    assert_int_equal(h->frames[h->frames[leaf->parent].parent].parent, -1);
    assert_int_equal(s[2].frame, -1); /* no call chain */
    assert_string_equal(h->mechanism, "nsys CPU sampling");
    assert_true(fabs(h->rate_hz - 1e6) < 1e-6); /* 1000 ns apart */
    model_free(&m);
}

/* ---------- totals against SQL's own arithmetic ---------- */

static int64_t sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void totals_match_sql(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    exec_sql(db, "BEGIN");
    uint64_t x = 88172645463325252u; /* xorshift: many rows of varied lengths and sizes */
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t start = T0 + 100000 + (int64_t)i * 5000, len = 1 + (int64_t)(x % 4000);
        static const int kinds[] = {1, 2, 8, 10};
        if (i % 3 == 0)
            add_kernel(db, 0, start, start + len, 7, 10000 + i, PID_A, S_SGEMM_DEM, S_SGEMM_SHORT, S_SGEMM_MANGLED);
        else if (i % 3 == 1)
            add_copy(db, start, start + len, 10000 + i, PID_B, (int64_t)(x >> 20) % (64 << 20), kinds[(x >> 8) % 4],
                     (int)((x >> 12) % 3), 2);
        else if (i % 9 == 2)
            exec_sql(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, globalPid, bytes, memKind) VALUES "
                         "(%lld, %lld, %lld, %d, 2)",
                     (long long)start, (long long)(start + len), (long long)GPID(PID_A), (int)(x % 100000));
    }
    exec_sql(db, "COMMIT");

    run_model m;
    import_ok(f->path, &m);
    int64_t ktime = 0;
    for (size_t i = 0; i < m.events.nkernels; i++)
        ktime += m.events.kernels[i].end_ns - m.events.kernels[i].start_ns;
    assert_int_equal(m.events.nkernels, sql_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    assert_true(ktime == sql_int(db, "SELECT sum(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    assert_int_equal(m.events.ncopies, sql_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
    assert_int_equal(m.events.nmemsets, sql_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
    static const copy_dir dirs[] = {COPY_H2D, COPY_D2H, COPY_D2D, COPY_P2P};
    for (int d = 0; d < 4; d++) {
        int64_t n = 0, t = 0, bytes = 0;
        for (size_t i = 0; i < m.events.ncopies; i++) {
            const copy_event *c = &m.events.copies[i];
            if (c->dir != dirs[d])
                continue;
            n++;
            t += c->end_ns - c->start_ns;
            bytes += (int64_t)c->bytes;
        }
        char q[256];
        snprintf(q, sizeof q, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = %d", (int)dirs[d]);
        assert_int_equal(n, sql_int(db, q));
        assert_true(n > 100 || dirs[d] == COPY_D2D); /* every direction well represented */
        snprintf(q, sizeof q, "SELECT sum(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = %d",
                 (int)dirs[d]);
        assert_true(t == sql_int(db, q));
        snprintf(q, sizeof q, "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = %d", (int)dirs[d]);
        assert_true(bytes == sql_int(db, q));
    }
    sqlite3_close(db);
    model_free(&m);
}

/* ---------- what region attribution needs ---------- */

/* "forward" holds the cudaLaunchKernel call (corr 101) on its thread; the kernel it launched
 * runs after the range ended. The model must carry all three, linked by the correlation id and
 * the thread, for analysis to put the kernel in "forward". */
static void range_call_and_late_kernel(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    run_model m;
    import_ok(f->path, &m);
    int fwd = region_named(&m, "forward");
    assert_true(fwd > 0);
    const region *r = &m.regions[fwd];
    const api_event *call = api_by_corr(&m, PID_A, 101);
    const kernel_event *k = kernel_by_corr(&m, PID_A, 101);
    assert_string_equal(call->name, "cudaLaunchKernel_v7000");
    assert_true(call->start_ns >= r->start_ns && call->end_ns <= r->end_ns);
    assert_int_equal(call->pid, r->pid);
    assert_int_equal(call->thread, r->tid);
    assert_int_equal(k->correlation, call->correlation);
    assert_true(k->start_ns > r->end_ns); /* ran after the range ended */
    assert_true(k->end_ns > m.regions[region_named(&m, "step")].end_ns);
    model_free(&m);
}

/* The same through the region analysis: the late kernel is forward's through its launch. */
static const region_metrics *metrics_of(const region_metrics *rm, int n, int region)
{
    for (int i = 0; i < n; i++)
        if (rm[i].region == region)
            return &rm[i];
    fail_msg("no figures for region %d", region);
    return NULL;
}

static void regions_own_what_they_launched(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    run_model m;
    import_ok(f->path, &m);
    region_metrics *rm = NULL;
    int n = 0;
    assert_true(analyze_regions(&m, &rm, &n));
    const region_metrics *fwd = metrics_of(rm, n, region_named(&m, "forward"));
    assert_int_equal(fwd->nkernels, 1);
    assert_int_equal(fwd->by_time, 0);
    assert_true(fwd->kernel_ms.ok);
    assert_close(fwd->kernel_ms.v, 39000 / 1e6, 1e-12); /* [21000, 60000] ns */
    /* step: the sgemm and reduce_sum kernels, both copies, the memset and the sync. */
    const region_metrics *step = metrics_of(rm, n, region_named(&m, "step"));
    assert_int_equal(step->nkernels, 2);
    assert_int_equal(step->ncopies, 2);
    assert_int_equal(step->nmemsets, 1);
    assert_int_equal(step->nsyncs, 1);
    assert_true(step->h2d_bytes.ok && step->h2d_bytes.v == 1 << 20);
    bool pinned_h2d = false;
    for (int i = 0; i < step->nflows; i++)
        pinned_h2d |= step->flows[i].dir == COPY_H2D && step->flows[i].host == MEM_PINNED;
    assert_true(pinned_h2d);
    /* load ran on a thread that launched nothing. */
    assert_int_equal(metrics_of(rm, n, region_named(&m, "load"))->nkernels, 0);
    region_metrics_free(rm, n);
    model_free(&m);
}

/* What the importer made survives the run file (v2) unchanged: names, times past 2^53 ns,
 * domains, threads, kinds. */
static void run_file_keeps_the_import(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    run_model a, b;
    import_ok(f->path, &a);
    cJSON *root = model_to_json(&a);
    assert_non_null(root);
    char err[512] = "";
    model_init(&b);
    if (!model_from_json(root, &b, err, sizeof err))
        fail_msg("run file refused: %s", err);
    cJSON_Delete(root);
    check_story(&b, 0);
    assert_int_equal(b.events.ncopies, a.events.ncopies);
    for (size_t i = 0; i < a.events.ncopies; i++) {
        assert_int_equal(b.events.copies[i].src, a.events.copies[i].src);
        assert_int_equal(b.events.copies[i].dir, a.events.copies[i].dir);
        assert_true(b.events.copies[i].start_ns == a.events.copies[i].start_ns);
    }
    assert_int_equal(b.nregions, a.nregions);
    model_free(&a);
    model_free(&b);
}

/* ---------- bad input ---------- */

static void assert_empty(const run_model *m)
{
    assert_int_equal(m->events.nkernels + m->events.ncopies + m->events.nmemsets + m->events.napis + m->events.nsyncs, 0);
    assert_int_equal(m->nregions + m->nprocesses + m->nthreads + m->nwarnings + m->ndevices, 0);
    assert_string_equal(m->source_file, "");
}

/* Imports what must fail: the message names the file and holds each of want (NULL-ended), the
 * model is empty, and the file is byte for byte what it was. */
static void expect_refusal(const char *path, const char *const *want)
{
    size_t before_len = 0, after_len = 0;
    char *before = read_file(path, &before_len);
    run_model m;
    model_init(&m);
    char err[512] = "";
    assert_false(import_nsys_sqlite(path, &m, err, sizeof err));
    print_message("refused: %s\n", err);
    assert_non_null(strstr(err, path));
    for (; *want; want++)
        if (!strstr(err, *want))
            fail_msg("message \"%s\" lacks \"%s\"", err, *want);
    assert_empty(&m);
    model_free(&m);
    char *after = read_file(path, &after_len);
    assert_true((before == NULL) == (after == NULL));
    if (before) {
        assert_int_equal(before_len, after_len);
        assert_memory_equal(before, after, before_len);
    }
    free(before);
    free(after);
}

#define REFUSE(path, ...) expect_refusal((path), (const char *const[]){__VA_ARGS__, NULL})

static void refuses_what_is_not_sqlite(void **state)
{
    fixture *f = *state;
    assert_true(write_text(f->path, "{\"traceEvents\": []}\n"));
    REFUSE(f->path, "not an SQLite database");
    assert_true(write_text(f->path, ""));
    REFUSE(f->path, "empty file");
    REFUSE(f->dir, "directory");
}

static void missing_path_is_not_created(void **state)
{
    fixture *f = *state;
    char path[600];
    snprintf(path, sizeof path, "%s/absent.sqlite", f->dir);
    REFUSE(path, "cannot open", "No such file");
    assert_int_not_equal(access(path, F_OK), 0);
}

static void refuses_database_without_cuda_tables(void **state)
{
    fixture *f = *state;
    sqlite3 *db = create_db(f->path);
    exec_sql(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT);"
                 "INSERT INTO NVTX_EVENTS VALUES (1, 2, 59, 'x');");
    sqlite3_close(db);
    REFUSE(f->path, "no CUDA activity tables", "--trace=cuda");
}

/* Builds the fixture, spoils it with sql, and checks the refusal. */
static void spoil(fixture *f, const char *sql, const char *const *want)
{
    build_export(f->path, 0);
    alter_export(f->path, "%s", sql);
    expect_refusal(f->path, want);
}

#define SPOIL(f, sql, ...) spoil((f), (sql), (const char *const[]){__VA_ARGS__, NULL})

static void refuses_wrong_types(void **state)
{
    fixture *f = *state;
    /* Row 2 of the kernels (rowid order): reduce_sum. */
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc' WHERE correlationId = 105",
          "CUPTI_ACTIVITY_KIND_KERNEL", "row 2", "column start", "'abc'");
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 1.5 WHERE correlationId = 103", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "row 2", "column bytes", "REAL");
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = x'00ff' WHERE correlationId = 101",
          "CUPTI_ACTIVITY_KIND_RUNTIME", "row 1", "column nameId", "BLOB");
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = -4 WHERE correlationId = 101", "gridX", "-4 is outside");
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999 WHERE correlationId = 201",
          "demangledName", "string id 999 is not in StringIds");
    /* Late in the import, after the kernels went in: the model must still come back empty. */
    SPOIL(f, "UPDATE NVTX_EVENTS SET start = 'soon' WHERE text = 'load'", "NVTX_EVENTS", "column start", "'soon'");
    /* Control characters in the file do not reach the message. */
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 'a' || char(27) || '[31m' WHERE correlationId = 101",
          "'a?[31m'");
}

static void refuses_nulls_where_required(void **state)
{
    fixture *f = *state;
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = NULL WHERE correlationId = 202", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "row 3", "column bytes", "NULL");
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = NULL", "column end", "NULL");
    SPOIL(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL, shortName = NULL, mangledName = NULL "
             "WHERE correlationId = 105",
          "row 2", "name is NULL");
    SPOIL(f, "UPDATE StringIds SET value = NULL WHERE id = 7", "StringIds entry 7");
    SPOIL(f, "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN copyKind", "has no column copyKind");
}

/* A 100 kB kernel name full of markup is a name like any other: kept byte for byte. */
static void keeps_huge_names_with_markup(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    size_t len = 100 * 1024;
    char *name = malloc(len + 1);
    static const char piece[] = "<script>alert('x')</script>&amp;\"]]>{{name}}%s%n\t";
    for (size_t i = 0; i < len; i++)
        name[i] = piece[i % (sizeof piece - 1)];
    name[len] = '\0';
    alter_export(f->path, "UPDATE StringIds SET value = %Q WHERE id = %d;"
                          "UPDATE NVTX_EVENTS SET text = %Q WHERE text = 'step'",
                 name, S_SGEMM_DEM, name);
    run_model m;
    import_ok(f->path, &m);
    assert_string_equal(kernel_by_corr(&m, PID_A, 101)->name, name);
    int step = region_named(&m, name);
    assert_true(step > 0);
    assert_int_equal(m.regions[region_named(&m, "forward")].parent, step);
    model_free(&m);
    free(name);
}

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
}

static void refuses_damaged_databases(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    size_t len = 0;
    char *good = read_file(f->path, &len);
    assert_non_null(good);
    assert_true(len > 8 * 4096); /* pages to spoil beyond the first */

    /* Cut short: the schema says pages exist that are not there. */
    write_bytes(f->path, good, len / 2);
    REFUSE(f->path, "damaged SQLite database");

    /* Pages past the first overwritten with noise. */
    char *bad = malloc(len);
    memcpy(bad, good, len);
    uint32_t x = 2463534242u;
    for (size_t i = 4096; i < len; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        bad[i] = (char)x;
    }
    write_bytes(f->path, bad, len);
    REFUSE(f->path, "damaged SQLite database");

    /* The header itself spoilt. */
    memcpy(bad, good, len);
    memcpy(bad, "SQLite format 2\0", 16);
    write_bytes(f->path, bad, len);
    REFUSE(f->path, "not an SQLite database");

    /* The first page only. */
    write_bytes(f->path, good, 100);
    REFUSE(f->path, "SQLite");
    free(bad);
    free(good);

    /* Schema and the first tables sound, the kernel table's last pages noise: the scan meets it
     * part way through. */
    build_export(f->path, 0);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    exec_sql(db, "BEGIN");
    for (int i = 0; i < 2000; i++)
        add_kernel(db, 0, T0 + 100000 + i * 1000, T0 + 100500 + i * 1000, 7, 20000 + i, PID_A, S_SGEMM_DEM,
                   S_SGEMM_SHORT, S_SGEMM_MANGLED);
    exec_sql(db, "COMMIT");
    sqlite3_close(db);
    good = read_file(f->path, &len);
    assert_non_null(good);
    for (size_t i = len - 2 * 4096; i < len; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        good[i] = (char)x;
    }
    write_bytes(f->path, good, len);
    REFUSE(f->path, "damaged SQLite database", "CUPTI_ACTIVITY_KIND_KERNEL");
    free(good);
}

/* A successful import leaves the user's file as it was, down to its modification time. */
static void leaves_the_file_alone(void **state)
{
    fixture *f = *state;
    build_export(f->path, 0);
    struct stat before, after;
    assert_int_equal(stat(f->path, &before), 0);
    size_t len0 = 0, len1 = 0;
    char *a = read_file(f->path, &len0);
    run_model m;
    import_ok(f->path, &m);
    model_free(&m);
    char *b = read_file(f->path, &len1);
    assert_int_equal(stat(f->path, &after), 0);
    assert_int_equal(len0, len1);
    assert_memory_equal(a, b, len0);
    assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
    char journal[600];
    snprintf(journal, sizeof journal, "%s-journal", f->path);
    assert_int_not_equal(access(journal, F_OK), 0);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(reads_new_style_export, setup, teardown),
        cmocka_unit_test_setup_teardown(reads_old_style_export, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_tables_warn, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_kinds_are_nsys_numbered, setup, teardown),
        cmocka_unit_test_setup_teardown(string_ids_sharing_a_cache_slot, setup, teardown),
        cmocka_unit_test_setup_teardown(unusable_rows_are_left_out, setup, teardown),
        cmocka_unit_test_setup_teardown(calls_recorded_twice_count_once, setup, teardown),
        cmocka_unit_test_setup_teardown(only_cuda_processes_and_threads_count, setup, teardown),
        cmocka_unit_test_setup_teardown(os_runtime_calls_become_host_spans, setup, teardown),
        cmocka_unit_test_setup_teardown(cpu_samples_with_call_chains, setup, teardown),
        cmocka_unit_test_setup_teardown(totals_match_sql, setup, teardown),
        cmocka_unit_test_setup_teardown(range_call_and_late_kernel, setup, teardown),
        cmocka_unit_test_setup_teardown(regions_own_what_they_launched, setup, teardown),
        cmocka_unit_test_setup_teardown(run_file_keeps_the_import, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_what_is_not_sqlite, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_path_is_not_created, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_database_without_cuda_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_wrong_types, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_nulls_where_required, setup, teardown),
        cmocka_unit_test_setup_teardown(keeps_huge_names_with_markup, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_damaged_databases, setup, teardown),
        cmocka_unit_test_setup_teardown(leaves_the_file_alone, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
