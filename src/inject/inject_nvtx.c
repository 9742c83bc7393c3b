/* libmmprof_inject.so's NVTX side: InitializeInjectionNvtx2, which NVTX calls at the program's
 * first NVTX call because NVTX_INJECTION64_PATH names this library. It fills NVTX's callback
 * tables (the CORE and CORE2 modules of nvtxDetail/nvtxTypes.h) with functions that append
 * push/pop and start/end ranges to this process's stream, with CLOCK_REALTIME timestamps and
 * the calling thread's id. Unlike CUPTI's MARKER records, this sees every range, including
 * those opened before cuInit and in processes that never use CUDA.
 *
 * Each range call is one write(2) (about a microsecond), so a range survives a crash or _exit.
 * With --capture-range nvtx:NAME each push and start is also compared with NAME (inject_capture.c),
 * a string comparison without a lock unless it matches. Once the job's records reach --max-size
 * no range is written (inject_control.c), so the files stop growing while the program runs on.
 * With any capture option only the ranges opened inside a window are written (with their close,
 * wherever it falls): outside, a loop's ranges would otherwise grow the files and the run file (a
 * region each) with the run's length, which a capture is meant to bound.
 * Marks, categories and resource naming are left to NVTX's no-op defaults. */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "inject.h"
#include "stream_format.h"

#define EXPORT __attribute__((visibility("default")))

/* Start/end range ids, unique in the process. */
static uint64_t next_range_id = 1;
/* Push depth of this thread, which nvtxRangePush and Pop return. */
static __thread int depth;

/* A domain handle and a registered-string handle both point to the name, copied. */
static const char *domain_name(nvtxDomainHandle_t d) { return (const char *)d; }

/* A wide string as a multibyte one, in buf. */
static const char *narrow(const wchar_t *w, char *buf, size_t len)
{
    if (!w)
        return "";
    mbstate_t st;
    memset(&st, 0, sizeof st);
    const wchar_t *src = w;
    size_t n = wcsrtombs(buf, &src, len - 1, &st);
    if (n == (size_t)-1)
        n = 0;
    buf[n] = '\0';
    return buf;
}

static const char *attr_message(const nvtxEventAttributes_t *a, char *buf, size_t len)
{
    if (!a)
        return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE: return narrow(a->message.unicode, buf, len);
    case NVTX_MESSAGE_TYPE_REGISTERED: return a->message.registered ? (const char *)a->message.registered : "";
    default: return "";
    }
}

/* One range line: kind, time, thread, [id,] and domain and name where given. */
/* Each thread's line buffer, kept between calls so a range costs no allocation (freed with the
 * thread's exit never: a few KB per thread that made NVTX calls). */
static __thread strbuf line;

static void range_line_at(int64_t ts, const char *kind, uint64_t id, const char *domain, bool has_name,
                          const char *name)
{
    if (inject_control_capped()) /* --max-size reached: the job records nothing more */
        return;
    uint32_t tid = inject_tid();
    strbuf *b = &line;
    inject_name_this_thread(b);
    sb_printf(b, "%s\t%lld\t%u", kind, (long long)ts, tid);
    if (id)
        sb_printf(b, "\t%llu", (unsigned long long)id);
    if (domain || has_name) {
        sb_add(b, "\t");
        stream_escape(b, domain);
    }
    if (has_name) {
        sb_add(b, "\t");
        stream_escape(b, name);
    }
    sb_add(b, "\n");
    if (!inject_emit(b) && b->oom) /* out of memory once: start over with an empty buffer */
        sb_free(b);
}

static void range_line(const char *kind, uint64_t id, const char *domain, bool has_name, const char *name)
{
    range_line_at(inject_now_ns(), kind, id, domain, has_name, name);
}

/* Which of this thread's open push ranges were written, by depth (deeper than 64: as the capture
 * stands at the pop). */
static __thread uint64_t pushed_written;

/* Start/end ranges written while a capture was open and not ended yet, so that their end is
 * written wherever it falls (a few at a time in practice; when the set is full an end is written
 * only inside a window). Used only under a capture option. */
#define WRITTEN_STARTS 256
static struct {
    pthread_mutex_t lock;
    uint64_t id[WRITTEN_STARTS];
} starts = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void start_written(uint64_t id)
{
    pthread_mutex_lock(&starts.lock);
    for (int i = 0; i < WRITTEN_STARTS; i++)
        if (!starts.id[i]) {
            starts.id[i] = id;
            break;
        }
    pthread_mutex_unlock(&starts.lock);
}

static bool end_of_written(uint64_t id)
{
    bool found = false;
    pthread_mutex_lock(&starts.lock);
    for (int i = 0; i < WRITTEN_STARTS && !found; i++)
        if (starts.id[i] == id) {
            starts.id[i] = 0;
            found = true;
        }
    pthread_mutex_unlock(&starts.lock);
    return found;
}

static int push(nvtxDomainHandle_t domain, const char *name)
{
    /* Timed before the window it may open (whose begin is timed before tracing starts), and
     * written once it is known whether a window is open: the window lies inside its range. */
    int64_t ts = inject_now_ns();
    inject_capture_nvtx_open(inject_tid(), depth, 0, domain_name(domain), name);
    bool write = inject_capture_tracing_now();
    if (write)
        range_line_at(ts, "push", 0, domain_name(domain), true, name);
    if (depth < 64)
        pushed_written = write ? pushed_written | (1ull << depth) : pushed_written & ~(1ull << depth);
    return depth++;
}

static int pop(nvtxDomainHandle_t domain)
{
    if (depth == 0)
        return -1; /* NVTX's answer to a pop without a push */
    int d = depth - 1;
    bool write = d < 64 ? (pushed_written >> d) & 1 : inject_capture_tracing_now();
    /* Closed first (a window's end is timed after tracing stopped), so the window lies inside
     * the range. pop's domain field is always there (empty for the default domain). */
    inject_capture_nvtx_close(inject_tid(), d, 0);
    if (write)
        range_line("pop", 0, domain ? domain_name(domain) : "", false, NULL);
    return --depth;
}

static nvtxRangeId_t start(nvtxDomainHandle_t domain, const char *name)
{
    uint64_t id = __atomic_fetch_add(&next_range_id, 1, __ATOMIC_RELAXED);
    int64_t ts = inject_now_ns(); /* as push's */
    inject_capture_nvtx_open(inject_tid(), 0, id, domain_name(domain), name);
    if (!inject_capture_init()) {
        range_line_at(ts, "start", id, domain_name(domain), true, name);
    } else if (inject_capture_tracing_now()) {
        range_line_at(ts, "start", id, domain_name(domain), true, name);
        start_written(id);
    }
    return id;
}

static void end(nvtxRangeId_t id)
{
    bool write = !inject_capture_init() || end_of_written(id) || inject_capture_tracing_now();
    inject_capture_nvtx_close(inject_tid(), 0, id); /* as pop's */
    if (write)
        range_line("end", id, NULL, false, NULL);
}

/* The CORE module: the default domain. */
static int NVTX_API push_a(const char *m) { return push(NULL, m); }
static int NVTX_API push_w(const wchar_t *m)
{
    char buf[1024];
    return push(NULL, narrow(m, buf, sizeof buf));
}
static int NVTX_API push_ex(const nvtxEventAttributes_t *a)
{
    char buf[1024];
    return push(NULL, attr_message(a, buf, sizeof buf));
}
static int NVTX_API pop_core(void) { return pop(NULL); }
static nvtxRangeId_t NVTX_API start_a(const char *m) { return start(NULL, m); }
static nvtxRangeId_t NVTX_API start_w(const wchar_t *m)
{
    char buf[1024];
    return start(NULL, narrow(m, buf, sizeof buf));
}
static nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t *a)
{
    char buf[1024];
    return start(NULL, attr_message(a, buf, sizeof buf));
}
static void NVTX_API end_core(nvtxRangeId_t id) { end(id); }

/* The CORE2 module: named domains and registered strings. */
static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    char buf[1024];
    return push(d, attr_message(a, buf, sizeof buf));
}
static int NVTX_API domain_pop(nvtxDomainHandle_t d) { return pop(d); }
static nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    char buf[1024];
    return start(d, attr_message(a, buf, sizeof buf));
}
static void NVTX_API domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    (void)d;
    end(id);
}
/* Handles live as long as the process: NVTX has no call that frees a registered string, and a
 * destroyed domain's name may still label ranges already written. */
static nvtxDomainHandle_t NVTX_API domain_create_a(const char *name) { return (nvtxDomainHandle_t)strdup(name ? name : ""); }
static nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t *name)
{
    char buf[1024];
    return (nvtxDomainHandle_t)strdup(narrow(name, buf, sizeof buf));
}
static nvtxStringHandle_t NVTX_API register_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)strdup(s ? s : "");
}
static nvtxStringHandle_t NVTX_API register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
    (void)d;
    char buf[1024];
    return (nvtxStringHandle_t)strdup(narrow(s, buf, sizeof buf));
}

typedef struct {
    unsigned id;
    NvtxFunctionPointer fn;
} slot;

static bool fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, const slot *slots, size_t n)
{
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
        return false;
    for (size_t i = 0; i < n; i++)
        if (slots[i].id < size && table[slots[i].id])
            *table[slots[i].id] = slots[i].fn;
    return true;
}

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

/* Returns 1 when the callbacks are installed; 0 leaves NVTX's calls as no-ops. */
EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    inject_capture_init(); /* --capture-range nvtx: the ranges to match, before the first */
    const NvtxExportTableCallbacks *cb = get_table ? get_table(NVTX_ETID_CALLBACKS) : NULL;
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
        return 0;
    const slot core[] = {
        {NVTX_CBID_CORE_RangePushA, FN(push_a)},   {NVTX_CBID_CORE_RangePushW, FN(push_w)},
        {NVTX_CBID_CORE_RangePushEx, FN(push_ex)}, {NVTX_CBID_CORE_RangePop, FN(pop_core)},
        {NVTX_CBID_CORE_RangeStartA, FN(start_a)}, {NVTX_CBID_CORE_RangeStartW, FN(start_w)},
        {NVTX_CBID_CORE_RangeStartEx, FN(start_ex)}, {NVTX_CBID_CORE_RangeEnd, FN(end_core)},
    };
    const slot core2[] = {
        {NVTX_CBID_CORE2_DomainRangePushEx, FN(domain_push)},
        {NVTX_CBID_CORE2_DomainRangePop, FN(domain_pop)},
        {NVTX_CBID_CORE2_DomainRangeStartEx, FN(domain_start)},
        {NVTX_CBID_CORE2_DomainRangeEnd, FN(domain_end)},
        {NVTX_CBID_CORE2_DomainCreateA, FN(domain_create_a)},
        {NVTX_CBID_CORE2_DomainCreateW, FN(domain_create_w)},
        {NVTX_CBID_CORE2_DomainRegisterStringA, FN(register_a)},
        {NVTX_CBID_CORE2_DomainRegisterStringW, FN(register_w)},
    };
    bool ok = fill(cb, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0]);
    ok = fill(cb, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]) && ok;
    /* The host sampler from here, not from CUDA's start alone: a program's first NVTX call often
     * comes before its first CUDA call, and CUDA's start (cuInit, which loads this library's CUDA
     * side) took 180 ms of a PyTorch program's torch.cuda.init() on the H200, unseen without it. */
    if (ok)
        inject_sampler_start();
    return ok ? 1 : 0;
}
