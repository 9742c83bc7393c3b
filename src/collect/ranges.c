/* NVTX ranges and model phases, kept in step. See ranges.h.
 *
 * NVTX calls cost nothing unless a tool (Nsight Systems, say) injected itself; mmprof never sets
 * NVTX_INJECTION64_PATH itself, so under nsys the variable keeps naming nsys's library. Strings
 * are registered once per name, the cheap path NVTX recommends for ranges opened repeatedly. */
#include "ranges.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <string.h>

#include "collector.h"

static nvtxDomainHandle_t domain;

#define MAX_STRINGS 64
static struct {
    char text[64];
    nvtxStringHandle_t handle;
} strings[MAX_STRINGS];
static int nstrings;
/* The domain and the string table are shared by a --devices run's GPU threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static nvtxDomainHandle_t get_domain(void)
{
    pthread_mutex_lock(&lock);
    if (!domain)
        domain = nvtxDomainCreateA("mmprof");
    nvtxDomainHandle_t d = domain;
    pthread_mutex_unlock(&lock);
    return d;
}

static nvtxStringHandle_t registered(const char *text)
{
    nvtxDomainHandle_t d = get_domain();
    pthread_mutex_lock(&lock);
    nvtxStringHandle_t h = NULL;
    for (int i = 0; i < nstrings && !h; i++)
        if (strcmp(strings[i].text, text) == 0)
            h = strings[i].handle;
    if (!h) {
        h = nvtxDomainRegisterStringA(d, text);
        if (nstrings < MAX_STRINGS) {
            copy_str(strings[nstrings].text, sizeof strings[nstrings].text, text);
            strings[nstrings++].handle = h;
        }
    }
    pthread_mutex_unlock(&lock);
    return h;
}

uint32_t workload_color(const char *name)
{
    /* A fixed palette, picked by a hash of the name so that a workload keeps its color from run
     * to run and in every tool that shows the ranges. */
    static const uint32_t palette[] = {0xFF4E79A7, 0xFFF28E2B, 0xFFE15759, 0xFF76B7B2, 0xFF59A14F,
                                       0xFFEDC948, 0xFFB07AA1, 0xFFFF9DA7, 0xFF9C755F, 0xFFBAB0AC};
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return palette[h % (sizeof palette / sizeof palette[0])];
}

static void push(const char *text, uint32_t color, uint64_t payload)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = color;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = registered(text);
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = payload;
    nvtxDomainRangePushEx(get_domain(), &a);
}

void range_push_workload(const workload_run *w, int n)
{
    char label[64];
    workload_label(w, label, sizeof label);
    push(label, workload_color(w->name), (uint64_t)n);
}

void range_pop(void)
{
    nvtxDomainRangePop(get_domain());
}

phase *phase_begin(workload_run *w, const char *name, int n)
{
    phase *p = workload_add_phase(w, name);
    push(name, workload_color(w->name), (uint64_t)n);
    if (p)
        p->start_ns = collector_now();
    return p;
}

void phase_end(phase *p)
{
    if (p)
        p->end_ns = collector_now();
    range_pop();
}

phase *tool_phase_begin(run_model *m, const char *name)
{
    int cap = (int)(sizeof m->builtin.tool_phases / sizeof m->builtin.tool_phases[0]);
    phase *p = m->builtin.ntool_phases < cap ? &m->builtin.tool_phases[m->builtin.ntool_phases++] : NULL;
    push(name, 0xFF888888, (uint64_t)m->builtin.n);
    if (p) {
        copy_str(p->name, sizeof p->name, name);
        p->start_ns = collector_now();
        p->end_ns = p->start_ns;
    }
    return p;
}

void tool_phase_end(phase *p)
{
    phase_end(p);
}
