// The range profiler behind counters.h. C++ only because cupti_profiler_host.h includes <string>;
// the code is plain C otherwise (no exceptions, no STL), so it reads like its C neighbours.
//
// The sequence (CUPTI 13's range profiler): cuptiProfilerInitialize; the chip's name and the
// context's counter-availability image; a host object for the chip; every metric of the counter
// table the host object accepts goes into one configuration image (its pass count says how many
// replays each kernel costs); cuptiRangeProfilerEnable on the context. Per collection: a fresh
// counter-data image, SetConfig (auto range: one range per kernel; kernel replay: CUPTI replays
// each kernel for every pass, saving and restoring the memory it writes), Start, the launches,
// Stop, DecodeData, then each range's values evaluated on the host.
#include "counters.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// A CUPTI parameter block: zeroed, its size set (the header's {SIZE} initialiser leaves the rest
// to value-initialisation, which -Wextra flags field by field).
#define PARAMS(T, v)                                                                              \
    T v;                                                                                          \
    memset(&v, 0, sizeof v);                                                                      \
    v.structSize = T##_STRUCT_SIZE

// Kernels one collection can hold: a product launches one (our kernels) or a few (a library).
#define MAX_RANGES 16

struct counter_session {
    CUcontext ctx;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    char chip[64];
    const char *metrics[CTR_COUNT]; // the metrics the chip has
    counter_id ids[CTR_COUNT];      // which counter each is
    int nmetrics;
    const char *missing[CTR_COUNT]; // those it refused
    int nmissing;
    uint8_t *config;
    size_t config_size;
    uint8_t *data;
    size_t data_size;
    int passes;
};

extern "C" void counters_reason(int result, const char *call, char *why, size_t len)
{
    CUptiResult r = (CUptiResult)result;
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        snprintf(why, len,
                 "no permission to read the GPU's performance counters (%s, ERR_NVGPUCTRPERM): run as root, "
                 "or load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0",
                 call);
    else if (r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_COMPATIBLE || r == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED ||
             r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED ||
             r == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED ||
             r == CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED)
        snprintf(why, len, "the range profiler does not support this GPU or configuration (%s: %s)", call, s);
    else
        snprintf(why, len, "%s: %s", call, s);
}

#define TRY(call)                                                                                 \
    do {                                                                                          \
        CUptiResult r_ = (call);                                                                  \
        if (r_ != CUPTI_SUCCESS) {                                                                \
            counters_reason(r_, #call, why, len);                                                 \
            return -1;                                                                            \
        }                                                                                         \
    } while (0)

// The current context through the runtime's driver entry point: the program links no libcuda.
static CUcontext current_context(void)
{
    CUresult (*get)(CUcontext *) = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !get)
        return NULL;
    CUcontext ctx = NULL;
    return get(&ctx) == CUDA_SUCCESS ? ctx : NULL;
}

// Why the profiler refuses this device, or "" when it supports it.
static int device_supported(int device, char *why, size_t len)
{
    PARAMS(CUpti_Profiler_DeviceSupported_Params, p);
    p.cuDevice = (CUdevice)device;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    TRY(cuptiProfilerDeviceSupported(&p));
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return 0;
    const char *what = p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "its architecture (compute capability 7.0 or later is needed)"
                       : p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED     ? "vGPU without profiling enabled"
                       : p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "confidential computing"
                       : p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED      ? "a crypto-mining processor"
                       : p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED      ? "WSL"
                       : p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED      ? "SLI"
                                                                              : "an unknown reason";
    snprintf(why, len, "the range profiler does not support GPU %d: %s", device, what);
    return -1;
}

// Each metric of the table alone through a scratch host object: a name the chip lacks fails
// ConfigAddMetrics, and one such name would otherwise fail the whole set.
static int choose_metrics(counter_session *s, const uint8_t *avail, char *why, size_t len)
{
    for (int c = 0; c < CTR_COUNT; c++) {
        PARAMS(CUpti_Profiler_Host_Initialize_Params, hi);
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = s->chip;
        hi.pCounterAvailabilityImage = avail;
        TRY(cuptiProfilerHostInitialize(&hi));
        const char *name = counter_metric_name((counter_id)c);
        PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
        add.pHostObject = hi.pHostObject;
        add.ppMetricNames = &name;
        add.numMetrics = 1;
        bool ok = cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS;
        PARAMS(CUpti_Profiler_Host_Deinitialize_Params, hd);
        hd.pHostObject = hi.pHostObject;
        cuptiProfilerHostDeinitialize(&hd);
        if (ok) {
            s->ids[s->nmetrics] = (counter_id)c;
            s->metrics[s->nmetrics++] = name;
        } else {
            s->missing[s->nmissing++] = name;
        }
    }
    if (s->nmetrics == 0) {
        snprintf(why, len, "the chip %s has none of the counters' metrics", s->chip);
        return -1;
    }
    return 0;
}

static int build_config(counter_session *s, char *why, size_t len)
{
    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = s->host;
    add.ppMetricNames = s->metrics;
    add.numMetrics = (size_t)s->nmetrics;
    TRY(cuptiProfilerHostConfigAddMetrics(&add));
    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
    sz.pHostObject = s->host;
    TRY(cuptiProfilerHostGetConfigImageSize(&sz));
    s->config = (uint8_t *)calloc(sz.configImageSize, 1);
    if (!s->config) {
        snprintf(why, len, "out of host memory for the counter configuration");
        return -1;
    }
    s->config_size = sz.configImageSize;
    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, img);
    img.pHostObject = s->host;
    img.configImageSize = s->config_size;
    img.pConfigImage = s->config;
    TRY(cuptiProfilerHostGetConfigImage(&img));
    PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
    np.configImageSize = s->config_size;
    np.pConfigImage = s->config;
    TRY(cuptiProfilerHostGetNumOfPasses(&np));
    s->passes = (int)np.numOfPasses;
    return 0;
}

static int open_session(counter_session *s, int device, char *why, size_t len)
{
    s->ctx = current_context();
    if (!s->ctx) {
        snprintf(why, len, "no current CUDA context to profile");
        return -1;
    }
    PARAMS(CUpti_Profiler_Initialize_Params, init);
    TRY(cuptiProfilerInitialize(&init));
    if (device_supported(device, why, len) != 0)
        return -1;
    PARAMS(CUpti_Device_GetChipName_Params, chip);
    chip.deviceIndex = (size_t)device;
    TRY(cuptiDeviceGetChipName(&chip));
    snprintf(s->chip, sizeof s->chip, "%s", chip.pChipName ? chip.pChipName : "?");

    PARAMS(CUpti_Profiler_GetCounterAvailability_Params, av);
    av.ctx = s->ctx;
    TRY(cuptiProfilerGetCounterAvailability(&av));
    uint8_t *avail = (uint8_t *)calloc(av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1, 1);
    if (!avail) {
        snprintf(why, len, "out of host memory for the counter availability");
        return -1;
    }
    av.pCounterAvailabilityImage = avail;
    CUptiResult r = cuptiProfilerGetCounterAvailability(&av);
    int rc = -1;
    if (r != CUPTI_SUCCESS)
        counters_reason(r, "cuptiProfilerGetCounterAvailability", why, len);
    else if (choose_metrics(s, avail, why, len) == 0) {
        PARAMS(CUpti_Profiler_Host_Initialize_Params, hi);
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = s->chip;
        hi.pCounterAvailabilityImage = avail;
        r = cuptiProfilerHostInitialize(&hi);
        if (r != CUPTI_SUCCESS)
            counters_reason(r, "cuptiProfilerHostInitialize", why, len);
        else {
            s->host = hi.pHostObject;
            rc = build_config(s, why, len);
        }
    }
    free(avail);
    if (rc != 0)
        return -1;

    PARAMS(CUpti_RangeProfiler_Enable_Params, en);
    en.ctx = s->ctx;
    TRY(cuptiRangeProfilerEnable(&en));
    s->rp = en.pRangeProfilerObject;
    PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, ds);
    ds.pRangeProfilerObject = s->rp;
    ds.pMetricNames = s->metrics;
    ds.numMetrics = (size_t)s->nmetrics;
    ds.maxNumOfRanges = MAX_RANGES;
    ds.maxNumRangeTreeNodes = MAX_RANGES;
    TRY(cuptiRangeProfilerGetCounterDataSize(&ds));
    s->data = (uint8_t *)calloc(ds.counterDataSize, 1);
    if (!s->data) {
        snprintf(why, len, "out of host memory for the counter data");
        return -1;
    }
    s->data_size = ds.counterDataSize;
    return 0;
}

extern "C" counter_session *counters_open(int device, char *why, size_t len)
{
    counter_session *s = (counter_session *)calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, len, "out of host memory");
        return NULL;
    }
    if (open_session(s, device, why, len) != 0) {
        counters_close(s);
        return NULL;
    }
    return s;
}

extern "C" int counters_passes(const counter_session *s)
{
    return s ? s->passes : 0;
}

// One range's values into a kernel_counters appended to w.
static int evaluate(counter_session *s, size_t range, workload_run *w, char *why, size_t len)
{
    PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, ri);
    ri.pCounterDataImage = s->data;
    ri.counterDataImageSize = s->data_size;
    ri.rangeIndex = range;
    ri.rangeDelimiter = "/";
    TRY(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
    double values[CTR_COUNT];
    PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
    ev.pHostObject = s->host;
    ev.pCounterDataImage = s->data;
    ev.counterDataImageSize = s->data_size;
    ev.rangeIndex = range;
    ev.ppMetricNames = s->metrics;
    ev.numMetrics = (size_t)s->nmetrics;
    ev.pMetricValues = values;
    CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&ev);
    if (r != CUPTI_SUCCESS) {
        free((void *)ri.rangeName);
        counters_reason(r, "cuptiProfilerHostEvaluateToGpuValues", why, len);
        return -1;
    }
    kernel_counters k;
    memset(&k, 0, sizeof k);
    for (int c = 0; c < CTR_COUNT; c++)
        k.v[c] = NAN;
    for (int i = 0; i < s->nmetrics; i++)
        k.v[s->ids[i]] = values[i];
    k.name = (char *)(ri.rangeName ? ri.rangeName : "");
    bool added = workload_add_counters(w, &k);
    free((void *)ri.rangeName); // CUPTI allocates the name; the caller frees it
    if (!added) {
        snprintf(why, len, "out of host memory for the counters");
        return -1;
    }
    return 0;
}

// Kernel replay: CUPTI replays each kernel within its one launch, once per pass, saving and
// restoring the memory it writes. User replay (the program relaunching the product once per pass,
// with an L2 flush before each) was tried on the H200: the activity records of the same run came
// back with a kernel ending before it started and extra kernels in the timed phase, and the SASS
// instruction counts read 0; so kernel replay it is. Its cost: the restore's write-backs land in
// the kernel's DRAM bytes written (README, "Hardware counters").
extern "C" int counters_collect(counter_session *s, int (*launch)(void *ctx), void *ctx, workload_run *w, char *why,
                                size_t len)
{
    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ci);
    ci.pRangeProfilerObject = s->rp;
    ci.counterDataSize = s->data_size;
    ci.pCounterData = s->data;
    TRY(cuptiRangeProfilerCounterDataImageInitialize(&ci));
    PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
    sc.pRangeProfilerObject = s->rp;
    sc.configSize = s->config_size;
    sc.pConfig = s->config;
    sc.counterDataImageSize = s->data_size;
    sc.pCounterDataImage = s->data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = MAX_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    TRY(cuptiRangeProfilerSetConfig(&sc));
    // Kernel replay submits every pass within one Start/Stop; the loop is there in case CUPTI
    // asks for the launches again, bounded so a profiler that never finishes cannot hang the run.
    bool submitted = false;
    for (int round = 0; !submitted && round < 2 * (s->passes > 0 ? s->passes : 1) + 2; round++) {
        PARAMS(CUpti_RangeProfiler_Start_Params, st);
        st.pRangeProfilerObject = s->rp;
        TRY(cuptiRangeProfilerStart(&st));
        int rc = launch(ctx);
        PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
        sp.pRangeProfilerObject = s->rp;
        CUptiResult r = cuptiRangeProfilerStop(&sp);
        if (rc != 0) {
            snprintf(why, len, "the workload's launch failed during the counter pass");
            return -1;
        }
        if (r != CUPTI_SUCCESS) {
            counters_reason(r, "cuptiRangeProfilerStop", why, len);
            return -1;
        }
        submitted = sp.isAllPassSubmitted != 0;
    }
    if (!submitted) {
        snprintf(why, len, "the range profiler did not finish its %d passes", s->passes);
        return -1;
    }
    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
    dd.pRangeProfilerObject = s->rp;
    TRY(cuptiRangeProfilerDecodeData(&dd));
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = s->data;
    info.counterDataImageSize = s->data_size;
    TRY(cuptiRangeProfilerGetCounterDataInfo(&info));
    if (info.numTotalRanges == 0) {
        snprintf(why, len, "the range profiler recorded no kernel (%zu ranges dropped)", dd.numOfRangeDropped);
        return -1;
    }
    for (size_t i = 0; i < info.numTotalRanges; i++)
        if (evaluate(s, i, w, why, len) != 0)
            return -1;
    return 0;
}

extern "C" void counters_close(counter_session *s)
{
    if (!s)
        return;
    if (s->rp) {
        PARAMS(CUpti_RangeProfiler_Disable_Params, d);
        d.pRangeProfilerObject = s->rp;
        cuptiRangeProfilerDisable(&d);
    }
    if (s->host) {
        PARAMS(CUpti_Profiler_Host_Deinitialize_Params, hd);
        hd.pHostObject = s->host;
        cuptiProfilerHostDeinitialize(&hd);
    }
    free(s->config);
    free(s->data);
    free(s);
}

extern "C" void counters_describe(const counter_session *s, FILE *f)
{
    if (!s)
        return;
    fprintf(f, "counters: chip %s, %d metrics, %d passes\n", s->chip, s->nmetrics, s->passes);
    for (int i = 0; i < s->nmetrics; i++)
        fprintf(f, "counters:   have %s\n", s->metrics[i]);
    for (int i = 0; i < s->nmissing; i++)
        fprintf(f, "counters:   LACKS %s\n", s->missing[i]);
    // The chip's tensor-pipe and FP32 metrics, to choose names from when one is missing.
    PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, bm);
    bm.pHostObject = s->host;
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; t++) {
        bm.metricType = (CUpti_MetricType)t;
        if (cuptiProfilerHostGetBaseMetrics(&bm) != CUPTI_SUCCESS)
            continue;
        for (size_t i = 0; i < bm.numMetrics; i++) {
            const char *m = bm.ppMetricNames[i];
            if (strstr(m, "tensor") || strstr(m, "ffma") || strstr(m, "warps_active") || strstr(m, "gmma") ||
                strstr(m, "_throughput") || strstr(m, "hit_rate"))
                fprintf(f, "counters:   chip metric (type %d) %s\n", t, m);
        }
    }
}
