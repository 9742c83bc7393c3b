/* The sources' rows (source.h). A new source is a row here (and its value in model.h); the unit
 * test test_sources checks every source has a whole one. */
#include "source.h"

#include <string.h>

const source_desc source_descs[SOURCE_COUNT] = {
    [SOURCE_BUILTIN] = {
        .source = SOURCE_BUILTIN, .key = "builtin", .name = "mmprof run",
        .one = "a run of mmprof's built-in workloads", .recorder = "mmprof", .api_calls = "CUDA API calls",
        .why_not = {[HAS_HOST_SAMPLES] = "the built-in workloads run without the host sampler"},
    },
    [SOURCE_KINETO] = {
        .source = SOURCE_KINETO, .key = "kineto", .name = "PyTorch profiler trace",
        .one = "a PyTorch profiler trace", .recorder = "trace", .api_calls = "CUDA API calls",
        .why_not = {
            [HAS_WORKLOADS] = "a PyTorch profiler trace runs no built-in workload",
            [HAS_COLLECTION] = "a PyTorch profiler trace does not say what its collection dropped",
            [HAS_HOST_SAMPLES] = "a PyTorch profiler trace holds no host samples or call sites of mmprof's",
        },
    },
    [SOURCE_NSYS] = {
        .source = SOURCE_NSYS, .key = "nsys-sqlite", .name = "Nsight Systems export",
        .one = "an Nsight Systems export", .recorder = "Nsight Systems export", .api_calls = "CUDA API calls",
        .why_not = {
            [HAS_WORKLOADS] = "an Nsight Systems export runs no built-in workload",
            [HAS_COLLECTION] = "an Nsight Systems export does not say what its collection dropped",
            [HAS_HOST_SAMPLES] = "an Nsight Systems export's CPU samples are not read",
        },
    },
    [SOURCE_PROFILE] = {
        .source = SOURCE_PROFILE, .key = "profile", .name = "profiled program",
        .one = "a run of mmprof profile", .recorder = "profile", .api_calls = "CUDA API calls",
        .why_not = {[HAS_WORKLOADS] = "a profiled program runs no built-in workload"},
    },
    [SOURCE_NCU] = {
        .source = SOURCE_NCU, .key = "ncu-csv", .name = "Nsight Compute CSV export",
        .one = "an Nsight Compute CSV export", .recorder = "Nsight Compute CSV export", .api_calls = "CUDA API calls",
        .why_not = {
            [HAS_WORKLOADS] = "an Nsight Compute CSV export runs no built-in workload",
            [HAS_COLLECTION] = "an Nsight Compute CSV export does not say what its collection dropped",
            [HAS_HOST_SAMPLES] = "an Nsight Compute CSV export holds no host samples or call sites",
            [HAS_API_CALLS] = "an Nsight Compute CSV export holds no CUDA API calls",
            [HAS_TIMELINE] = "an Nsight Compute CSV export holds each launch's counters, not when it ran",
        },
    },
};

const source_desc *source_of(run_source s)
{
    return (int)s >= 0 && s < SOURCE_COUNT ? &source_descs[s] : &source_descs[SOURCE_BUILTIN];
}

bool source_has(run_source s, source_figs f)
{
    return source_why_not(s, f) == NULL;
}

const char *source_why_not(run_source s, source_figs f)
{
    return (int)f >= 0 && f < HAS_COUNT ? source_of(s)->why_not[f] : NULL;
}

const char *run_source_name(run_source s)
{
    return source_of(s)->key;
}

bool run_source_parse(const char *s, run_source *out)
{
    for (int i = 0; i < SOURCE_COUNT; i++)
        if (source_descs[i].key && strcmp(source_descs[i].key, s) == 0) {
            *out = (run_source)i;
            return true;
        }
    return false;
}
