/* See sections.h. Presence is decided from the analysis alone, the same for every output. */
#include "sections.h"

#include "analysis.h"
#include "devices.h"
#include "host_idle.h"
#include "source.h"

static const section_def defs[NSECTIONS] = {
    [SEC_FINDINGS] = {SEC_FINDINGS, "findings", "Summary", "Summary"},
    [SEC_SWEEP] = {SEC_SWEEP, "sweep", "Where the GPU pays off", "Sweep"},
    [SEC_DEVICES] = {SEC_DEVICES, "devices", "GPUs: each alone, then all at once", "GPUs"},
    [SEC_LADDER] = {SEC_LADDER, "ladder", "The ladder: % of cuBLAS", "Ladder"},
    [SEC_COUNTERS] = {SEC_COUNTERS, "roofline", "Why each kernel is as fast as it is", "Counters"},
    [SEC_COPIES] = {SEC_COPIES, "copies", "Copy versus compute", "Copy vs compute"},
    [SEC_TIMELINE] = {SEC_TIMELINE, "timeline", "Timeline", "Timeline"},
    [SEC_REGIONS] = {SEC_REGIONS, "regions", "Regions: where the GPU time went", "Regions"},
    [SEC_RANKS] = {SEC_RANKS, "ranks", "Ranks", "Ranks"},
    [SEC_WORKLOADS] = {SEC_WORKLOADS, "summary", "Workloads", "Workloads"},
    [SEC_SPEEDUP] = {SEC_SPEEDUP, "speedup", "Speedup over the CPU", "Speedup"},
    [SEC_KERNELS] = {SEC_KERNELS, "kernels", "Kernels", "Kernels"},
    [SEC_TOOL_TIME] = {SEC_TOOL_TIME, "tool-time", "Where mmprof's own time went", "mmprof's time"},
    [SEC_WARNINGS] = {SEC_WARNINGS, "warnings", "Warnings", "Warnings"},
    [SEC_CAPTURE] = {SEC_CAPTURE, "capture", "Capture windows: what was recorded", "Capture"},
    [SEC_CALL_SITES] = {SEC_CALL_SITES, "call-sites", "Where the GPU work was launched from", "Call sites"},
    [SEC_ACCOUNT] = {SEC_ACCOUNT, "time", "Where the time went", "Time"},
    [SEC_MEMORY] = {SEC_MEMORY, "memory", "GPU memory: the peak, who held it, what was never freed", "Memory"},
};

const section_def *section_of(section_id s)
{
    return (unsigned)s < NSECTIONS ? &defs[s] : &defs[SEC_FINDINGS];
}

/* A built-in GPU workload that ran to its figures (verified or not; not skipped, no failed CUDA
 * call): what the ladder, copy and speedup charts draw. */
static bool gpu_workload_ran(const analysis *a)
{
    for (int i = 0; i < a->nwl; i++)
        if (a->wl[i].w->needs_gpu && (a->wl[i].w->status == WL_OK || a->wl[i].w->status == WL_FAILED))
            return true;
    return false;
}

/* A built-in workload that was not skipped: the timeline draws its phases, even when it ended in
 * an error or ran on the CPU alone. */
static bool workload_not_skipped(const analysis *a)
{
    for (int i = 0; i < a->nwl; i++)
        if (a->wl[i].w->status != WL_SKIPPED)
            return true;
    return false;
}

static bool workload_kernels(const analysis *a)
{
    for (int i = 0; i < a->nwl; i++)
        if (a->wl[i].nkernels > 0)
            return true;
    return false;
}

static bool cpu_and_gpu_ran(const analysis *a)
{
    bool cpu = false;
    for (int i = 0; i < a->nwl; i++)
        cpu |= !a->wl[i].w->needs_gpu && a->wl[i].w->status == WL_OK;
    return cpu && gpu_workload_ran(a);
}

bool section_shown(const analysis *a, section_id s)
{
    const run_model *m = a->m;
    switch (s) {
    case SEC_FINDINGS: return a->nsummary > 0;
    case SEC_SWEEP: return a->sweep != NULL;
    case SEC_DEVICES: return a->devices != NULL;
    case SEC_LADDER:
    case SEC_COPIES: return gpu_workload_ran(a);
    case SEC_TIMELINE: return workload_not_skipped(a);
    case SEC_KERNELS: return workload_kernels(a);
    case SEC_COUNTERS: return m->counters.asked;
    case SEC_REGIONS: return a->nrg > 0 && source_has(m->source, HAS_TIMELINE);
    case SEC_RANKS: return a->ranks != NULL;
    case SEC_WORKLOADS: return a->nwl > 0;
    case SEC_SPEEDUP: return cpu_and_gpu_ran(a);
    case SEC_TOOL_TIME: return source_has(m->source, HAS_WORKLOADS) && m->builtin.ntool_phases > 0;
    case SEC_WARNINGS: return a->nwarnings > 0;
    case SEC_CAPTURE: return a->ncapture > 0;
    case SEC_CALL_SITES: return a->host && a->host->nsites > 0;
    case SEC_ACCOUNT: return a->naccounts > 0 && source_has(m->source, HAS_TIMELINE);
    case SEC_MEMORY: return a->memory != NULL;
    default: return false;
    }
}
