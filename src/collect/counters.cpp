// The range profiler behind counters.h. C++ only because cupti_profiler_host.h includes <string>;
// the code is plain C otherwise (no exceptions, no STL), so it reads like its C neighbours.
//
// The sequence (CUPTI 13's range profiler): cuptiProfilerInitialize; the chip's name and the
// context's counter-availability image; a host object for the chip; every metric of the counter
// table the host object accepts goes into one configuration image (its pass count says how many
// replays each kernel costs); cuptiRangeProfilerEnable on the context. Per collection: a fresh
// counter-data image, SetConfig (auto range: one range per kernel; kernel replay: CUPTI replays
// each kernel for every pass, saving and restoring the memory it writes), Start, the launches,
// Stop, DecodeData, then each range's values evaluated on the host. The DRAM bytes have a
// configuration of their own (counters_collect says why).
#include "counters.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// In the injection library CUPTI is opened, not linked (cupti_load.h says why): the range
// profiler's functions are pointers, looked up by cupti_load through cupti_load_counters.
#ifdef MMPROF_CUPTI_DLOPEN
#include <dlfcn.h>
#include <stdio.h>

#include "cupti_load.h"

#define COUNTER_FNS(X) \
    X(cuptiDeviceGetChipName) \
    X(cuptiProfilerDeviceSupported) \
    X(cuptiProfilerGetCounterAvailability) \
    X(cuptiProfilerHostConfigAddMetrics) \
    X(cuptiProfilerHostDeinitialize) \
    X(cuptiProfilerHostEvaluateToGpuValues) \
    X(cuptiProfilerHostGetBaseMetrics) \
    X(cuptiProfilerHostGetConfigImage) \
    X(cuptiProfilerHostGetConfigImageSize) \
    X(cuptiProfilerHostGetNumOfPasses) \
    X(cuptiProfilerHostInitialize) \
    X(cuptiProfilerInitialize) \
    X(cuptiRangeProfilerCounterDataGetRangeInfo) \
    X(cuptiRangeProfilerCounterDataImageInitialize) \
    X(cuptiRangeProfilerDecodeData) \
    X(cuptiRangeProfilerDisable) \
    X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerGetCounterDataInfo) \
    X(cuptiRangeProfilerGetCounterDataSize) \
    X(cuptiRangeProfilerSetConfig) \
    X(cuptiRangeProfilerStart) \
    X(cuptiRangeProfilerStop)
#define COUNTER_PTR(name) decltype(&name) p_##name; // p_: C++ forbids a member of the function's own name
static struct {
    COUNTER_FNS(COUNTER_PTR)
} counter_fns;

extern "C" bool cupti_load_counters(void *lib, char *why, size_t why_len)
{
#define COUNTER_FIND(name)                                                                        \
    if (!(*(void **)&counter_fns.p_##name = dlsym(lib, #name))) {                                     \
        snprintf(why, why_len, "libcupti.so.13 has no %s", #name);                                \
        return false;                                                                             \
    }
    COUNTER_FNS(COUNTER_FIND)
#undef COUNTER_FIND
    return true;
}

#define cuptiDeviceGetChipName (*counter_fns.p_cuptiDeviceGetChipName)
#define cuptiProfilerDeviceSupported (*counter_fns.p_cuptiProfilerDeviceSupported)
#define cuptiProfilerGetCounterAvailability (*counter_fns.p_cuptiProfilerGetCounterAvailability)
#define cuptiProfilerHostConfigAddMetrics (*counter_fns.p_cuptiProfilerHostConfigAddMetrics)
#define cuptiProfilerHostDeinitialize (*counter_fns.p_cuptiProfilerHostDeinitialize)
#define cuptiProfilerHostEvaluateToGpuValues (*counter_fns.p_cuptiProfilerHostEvaluateToGpuValues)
#define cuptiProfilerHostGetBaseMetrics (*counter_fns.p_cuptiProfilerHostGetBaseMetrics)
#define cuptiProfilerHostGetConfigImage (*counter_fns.p_cuptiProfilerHostGetConfigImage)
#define cuptiProfilerHostGetConfigImageSize (*counter_fns.p_cuptiProfilerHostGetConfigImageSize)
#define cuptiProfilerHostGetNumOfPasses (*counter_fns.p_cuptiProfilerHostGetNumOfPasses)
#define cuptiProfilerHostInitialize (*counter_fns.p_cuptiProfilerHostInitialize)
#define cuptiProfilerInitialize (*counter_fns.p_cuptiProfilerInitialize)
#define cuptiRangeProfilerCounterDataGetRangeInfo (*counter_fns.p_cuptiRangeProfilerCounterDataGetRangeInfo)
#define cuptiRangeProfilerCounterDataImageInitialize (*counter_fns.p_cuptiRangeProfilerCounterDataImageInitialize)
#define cuptiRangeProfilerDecodeData (*counter_fns.p_cuptiRangeProfilerDecodeData)
#define cuptiRangeProfilerDisable (*counter_fns.p_cuptiRangeProfilerDisable)
#define cuptiRangeProfilerEnable (*counter_fns.p_cuptiRangeProfilerEnable)
#define cuptiRangeProfilerGetCounterDataInfo (*counter_fns.p_cuptiRangeProfilerGetCounterDataInfo)
#define cuptiRangeProfilerGetCounterDataSize (*counter_fns.p_cuptiRangeProfilerGetCounterDataSize)
#define cuptiRangeProfilerSetConfig (*counter_fns.p_cuptiRangeProfilerSetConfig)
#define cuptiRangeProfilerStart (*counter_fns.p_cuptiRangeProfilerStart)
#define cuptiRangeProfilerStop (*counter_fns.p_cuptiRangeProfilerStop)
#endif

// A CUPTI parameter block: zeroed, its size set (the header's {SIZE} initialiser leaves the rest
// to value-initialisation, which -Wextra flags field by field).
#define PARAMS(T, v)                                                                              \
    T v;                                                                                          \
    memset(&v, 0, sizeof v);                                                                      \
    v.structSize = T##_STRUCT_SIZE

// Kernels one collection can hold: a product launches one (our kernels) or a few (a library).
#define MAX_RANGES 16

// The metrics one collection reads, with its configuration image (how CUPTI schedules them into
// passes) and its counter-data image (where the values land).
typedef struct {
    const char *metrics[CTR_COUNT];
    counter_id ids[CTR_COUNT]; // which counter each metric is
    int n;                     // 0: not collected
    int passes;                // replays of each kernel the set needs
    uint8_t *config;
    size_t config_size;
    uint8_t *data;
    size_t data_size;
} metric_set;

struct counter_session {
    CUcontext ctx;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    char chip[64];
    metric_set all;                 // every metric of the table the chip has, in kernel replay
    const char *missing[CTR_COUNT]; // those it refused
    int nmissing;
    // The one-pass collections after the replayed one (see counters_collect): the DRAM bytes,
    // and the FP32 instruction counts whose values are dropped.
    metric_set dram, drain;
    bool started; // counters_begin ran and counters_end has not
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

static int host_object(counter_session *s, const uint8_t *avail, CUpti_Profiler_Host_Object **out, char *why, size_t len)
{
    PARAMS(CUpti_Profiler_Host_Initialize_Params, hi);
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = s->chip;
    hi.pCounterAvailabilityImage = avail;
    TRY(cuptiProfilerHostInitialize(&hi));
    *out = hi.pHostObject;
    return 0;
}

static void host_release(CUpti_Profiler_Host_Object *host)
{
    if (!host)
        return;
    PARAMS(CUpti_Profiler_Host_Deinitialize_Params, hd);
    hd.pHostObject = host;
    cuptiProfilerHostDeinitialize(&hd);
}

// Each metric of the table alone through a scratch host object: a name the chip lacks fails
// ConfigAddMetrics, and one such name would otherwise fail the whole set.
static int choose_metrics(counter_session *s, const uint8_t *avail, char *why, size_t len)
{
    for (int c = 0; c < CTR_COUNT; c++) {
        CUpti_Profiler_Host_Object *host = NULL;
        if (host_object(s, avail, &host, why, len) != 0)
            return -1;
        const char *name = counter_metric_name((counter_id)c);
        PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
        add.pHostObject = host;
        add.ppMetricNames = &name;
        add.numMetrics = 1;
        bool ok = cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS;
        host_release(host);
        if (ok) {
            s->all.ids[s->all.n] = (counter_id)c;
            s->all.metrics[s->all.n++] = name;
        } else {
            s->missing[s->nmissing++] = name;
        }
    }
    if (s->all.n == 0) {
        snprintf(why, len, "the chip %s has none of the counters' metrics", s->chip);
        return -1;
    }
    return 0;
}

// The configuration image of set's metrics on host, and its pass count.
static int build_config(CUpti_Profiler_Host_Object *host, metric_set *set, char *why, size_t len)
{
    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = host;
    add.ppMetricNames = set->metrics;
    add.numMetrics = (size_t)set->n;
    TRY(cuptiProfilerHostConfigAddMetrics(&add));
    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
    sz.pHostObject = host;
    TRY(cuptiProfilerHostGetConfigImageSize(&sz));
    set->config = (uint8_t *)calloc(sz.configImageSize, 1);
    if (!set->config) {
        snprintf(why, len, "out of host memory for the counter configuration");
        return -1;
    }
    set->config_size = sz.configImageSize;
    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, img);
    img.pHostObject = host;
    img.configImageSize = set->config_size;
    img.pConfigImage = set->config;
    TRY(cuptiProfilerHostGetConfigImage(&img));
    PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
    np.configImageSize = set->config_size;
    np.pConfigImage = set->config;
    TRY(cuptiProfilerHostGetNumOfPasses(&np));
    set->passes = (int)np.numOfPasses;
    return 0;
}

// The size of a counter-data image for set's metrics and up to MAX_RANGES ranges. It also sets
// the layout the range profiler's next image initialisation uses (configure says why that matters).
static int data_size_for(counter_session *s, const metric_set *set, size_t *size, char *why, size_t len)
{
    PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, ds);
    ds.pRangeProfilerObject = s->rp;
    ds.pMetricNames = (const char **)set->metrics; // CUPTI does not write them
    ds.numMetrics = (size_t)set->n;
    ds.maxNumOfRanges = MAX_RANGES;
    ds.maxNumRangeTreeNodes = MAX_RANGES;
    TRY(cuptiRangeProfilerGetCounterDataSize(&ds));
    *size = ds.counterDataSize;
    return 0;
}

// set's counter-data image.
static int data_image(counter_session *s, metric_set *set, char *why, size_t len)
{
    if (data_size_for(s, set, &set->data_size, why, len) != 0)
        return -1;
    set->data = (uint8_t *)calloc(set->data_size, 1);
    if (!set->data) {
        snprintf(why, len, "out of host memory for the counter data");
        return -1;
    }
    return 0;
}

// A side pass's configuration from those of the session's metrics that are in want, or none (n
// 0) when the chip lacks them or they do not fit one pass. Its host object is a scratch one, gone
// before the session's own is made (as choose_metrics' are); both passes' data are evaluated with
// the session's object, which knows every metric.
static int side_config(counter_session *s, const uint8_t *avail, metric_set *p, const counter_id *want, int nwant,
                       char *why, size_t len)
{
    for (int i = 0; i < s->all.n; i++)
        for (int j = 0; j < nwant; j++)
            if (s->all.ids[i] == want[j]) {
                p->ids[p->n] = s->all.ids[i];
                p->metrics[p->n++] = s->all.metrics[i];
            }
    if (p->n == 0)
        return 0;
    CUpti_Profiler_Host_Object *host = NULL;
    int rc = host_object(s, avail, &host, why, len) == 0 && build_config(host, p, why, len) == 0 ? 0 : -1;
    host_release(host);
    if (rc == 0 && p->passes != 1)
        p->n = 0; // one pass is the point: without replay nothing is restored
    return rc;
}

static int side_configs(counter_session *s, const uint8_t *avail, char *why, size_t len)
{
    static const counter_id dram[] = {CTR_DRAM_READ_BYTES, CTR_DRAM_WRITE_BYTES};
    static const counter_id sass[] = {CTR_FFMA, CTR_FADD, CTR_FMUL};
    if (side_config(s, avail, &s->dram, dram, 2, why, len) != 0 || side_config(s, avail, &s->drain, sass, 3, why, len) != 0)
        return -1;
    return 0;
}

static int open_session(counter_session *s, CUcontext ctx, int device, char *why, size_t len)
{
    s->ctx = ctx;
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
    else if (choose_metrics(s, avail, why, len) == 0 && side_configs(s, avail, why, len) == 0 &&
             host_object(s, avail, &s->host, why, len) == 0 && build_config(s->host, &s->all, why, len) == 0)
        rc = 0;
    free(avail);
    if (rc != 0)
        return -1;

    PARAMS(CUpti_RangeProfiler_Enable_Params, en);
    en.ctx = s->ctx;
    TRY(cuptiRangeProfilerEnable(&en));
    s->rp = en.pRangeProfilerObject;
    metric_set *sets[] = {&s->all, &s->dram, &s->drain};
    for (int i = 0; i < 3; i++)
        if (sets[i]->n > 0 && data_image(s, sets[i], why, len) != 0)
            return -1;
    return 0;
}

extern "C" counter_session *counters_open(void *context, int device, char *why, size_t len)
{
    counter_session *s = (counter_session *)calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, len, "out of host memory");
        return NULL;
    }
    if (open_session(s, (CUcontext)context, device, why, len) != 0) {
        counters_close(s);
        return NULL;
    }
    return s;
}

extern "C" int counters_passes(const counter_session *s)
{
    return s ? s->all.passes : 0;
}

// One range's values of set's metrics into k (the others untouched), evaluated with the session's
// host object, which knows every metric; the range's name, which CUPTI allocates, into *name for
// the caller to free (NULL: not wanted).
static int range_values(const counter_session *s, const metric_set *set, size_t range, kernel_counters *k, char **name,
                        char *why, size_t len)
{
    double values[CTR_COUNT];
    PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
    ev.pHostObject = s->host;
    ev.pCounterDataImage = set->data;
    ev.counterDataImageSize = set->data_size;
    ev.rangeIndex = range;
    ev.ppMetricNames = (const char **)set->metrics; // CUPTI does not write them
    ev.numMetrics = (size_t)set->n;
    ev.pMetricValues = values;
    TRY(cuptiProfilerHostEvaluateToGpuValues(&ev));
    for (int i = 0; i < set->n; i++)
        k->v[set->ids[i]] = values[i];
    if (name) {
        PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, ri);
        ri.pCounterDataImage = set->data;
        ri.counterDataImageSize = set->data_size;
        ri.rangeIndex = range;
        ri.rangeDelimiter = "/";
        TRY(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
        *name = (char *)ri.rangeName;
    }
    return 0;
}

// A fresh counter-data image and set's configuration for one collection: auto range (one range
// per kernel), kernel replay (a one-pass set is simply not replayed). The image is laid out for the
// metrics of the range profiler's last GetCounterDataSize (its Initialize takes no metric names):
// asked again here, so the DRAM pass's metrics do not shape the full set's image (seen on the
// H200: every metric but the DRAM ones NaN).
static int configure(counter_session *s, const metric_set *set, char *why, size_t len)
{
    size_t size = 0;
    if (data_size_for(s, set, &size, why, len) != 0)
        return -1;
    if (size != set->data_size) {
        snprintf(why, len, "the counter data image changed size (%zu, not %zu bytes)", size, set->data_size);
        return -1;
    }
    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ci);
    ci.pRangeProfilerObject = s->rp;
    ci.counterDataSize = set->data_size;
    ci.pCounterData = set->data;
    TRY(cuptiRangeProfilerCounterDataImageInitialize(&ci));
    PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
    sc.pRangeProfilerObject = s->rp;
    sc.configSize = set->config_size;
    sc.pConfig = set->config;
    sc.counterDataImageSize = set->data_size;
    sc.pCounterDataImage = set->data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = MAX_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    TRY(cuptiRangeProfilerSetConfig(&sc));
    return 0;
}

// Decodes what the passes gathered into set's image; the ranges recorded into *nranges.
static int decode(counter_session *s, const metric_set *set, size_t *nranges, char *why, size_t len)
{
    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
    dd.pRangeProfilerObject = s->rp;
    TRY(cuptiRangeProfilerDecodeData(&dd));
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = set->data;
    info.counterDataImageSize = set->data_size;
    TRY(cuptiRangeProfilerGetCounterDataInfo(&info));
    if (info.numTotalRanges == 0) {
        snprintf(why, len, "the range profiler recorded no kernel (%zu ranges dropped)", dd.numOfRangeDropped);
        return -1;
    }
    *nranges = info.numTotalRanges;
    return 0;
}

// One collection of set over launch(ctx): Start, the launches, Stop, repeated until CUPTI has
// every pass (kernel replay submits them all within one round; the loop is there in case CUPTI
// asks for the launches again), bounded so a profiler that never finishes cannot hang the run.
static int collect(counter_session *s, const metric_set *set, int (*launch)(void *ctx), void *ctx, size_t *nranges,
                   char *why, size_t len)
{
    if (configure(s, set, why, len) != 0)
        return -1;
    bool submitted = false;
    for (int round = 0; !submitted && round < 2 * (set->passes > 0 ? set->passes : 1) + 2; round++) {
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
        snprintf(why, len, "the range profiler did not finish its %d passes", set->passes);
        return -1;
    }
    return decode(s, set, nranges, why, len);
}

static void all_nan(kernel_counters *k)
{
    memset(k, 0, sizeof *k);
    for (int c = 0; c < CTR_COUNT; c++)
        k->v[c] = NAN;
}

// Three collections. First every metric in kernel replay: CUPTI replays each kernel within its
// one launch, once per pass, saving and restoring the memory it writes. That restore is written
// back from the L2 while the next pass runs, so kernel replay's DRAM bytes written count CUPTI's
// writes too (24-35 MB against Nsight Compute's 3-14 MB for a 2048 product on the H200). So the
// DRAM bytes come from a one-pass collection of their own (nothing replayed, nothing restored),
// after flush(ctx) has written back every dirty line and left the L2 holding clean ones, as
// Nsight Compute flushes its caches before each pass. Measured on the H200 against ncu: within 5%
// at 4096, and 2.0-3.4 MB under ncu's at 2048 (ncu 2.6-13.5 MB; both 0 at 1024), for all twelve
// ladder and cuBLAS kernels. Dropping the flushed lines from the L2 (discard.global.L2) and an idle
// kernel after the product to catch write-backs still in flight changed nothing: ncu's cache
// control leaves a state this does not reproduce. Then a drain: the one-pass collection of
// the FP32 instruction counts, whose values are dropped. Those counts come from instrumenting the
// kernel, and a launch profiled without them (the DRAM pass) was still counted, into the next
// collection that asks for them: on the H200 the next workload's FLOPs came out doubled. (User
// replay was tried for both the whole set and the DRAM pass: on the H200 it broke the run's
// activity records and read the instruction counts as 0, and a one-pass configuration never
// reported its pass submitted.)
extern "C" int counters_collect(counter_session *s, int (*launch)(void *ctx), int (*flush)(void *ctx), void *ctx,
                                workload_run *w, char *why, size_t len)
{
    size_t nranges = 0;
    if (collect(s, &s->all, launch, ctx, &nranges, why, len) != 0)
        return -1;
    int first = w->ncounters;
    for (size_t i = 0; i < nranges; i++) {
        kernel_counters k;
        all_nan(&k);
        char *name = NULL;
        if (range_values(s, &s->all, i, &k, &name, why, len) != 0)
            return -1;
        k.name = name ? name : (char *)"";
        bool added = workload_add_counters(w, &k);
        free(name); // CUPTI allocates the name; the caller frees it
        if (!added) {
            snprintf(why, len, "out of host memory for the counters");
            return -1;
        }
    }
    // The drain is needed for the DRAM pass to be taken (see above); without either, the
    // replay's DRAM bytes stay.
    if (!flush || s->dram.n == 0 || s->drain.n == 0)
        return 0;
    if (flush(ctx) != 0) {
        snprintf(why, len, "the L2 flush before the DRAM pass failed");
        return -1;
    }
    size_t dram_ranges = 0, drain_ranges = 0;
    if (collect(s, &s->dram, launch, ctx, &dram_ranges, why, len) != 0 ||
        collect(s, &s->drain, launch, ctx, &drain_ranges, why, len) != 0)
        return -1;
    if (dram_ranges != nranges) {
        snprintf(why, len, "the DRAM pass recorded %zu kernels, the replayed pass %zu", dram_ranges, nranges);
        return -1;
    }
    const char *verbose = getenv("MMPROF_COUNTERS_VERBOSE");
    for (size_t i = 0; i < nranges; i++) {
        kernel_counters *k = &w->counters[first + (int)i];
        double rd = k->v[CTR_DRAM_READ_BYTES], wr = k->v[CTR_DRAM_WRITE_BYTES];
        kernel_counters pass;
        all_nan(&pass);
        if (range_values(s, &s->dram, i, &pass, NULL, why, len) != 0)
            return -1;
        k->v[CTR_DRAM_READ_BYTES] = pass.v[CTR_DRAM_READ_BYTES];
        k->v[CTR_DRAM_WRITE_BYTES] = pass.v[CTR_DRAM_WRITE_BYTES];
        if (verbose && verbose[0] == '1') // the two passes' DRAM bytes side by side, for diagnosis
            fprintf(stderr, "counters: %s range %zu: DRAM read %.4g (replayed %.4g), written %.4g (replayed %.4g)\n",
                    w->name, i, k->v[CTR_DRAM_READ_BYTES], rd, k->v[CTR_DRAM_WRITE_BYTES], wr);
    }
    return 0;
}

extern "C" int counters_begin(counter_session *s, char *why, size_t len)
{
    if (configure(s, &s->all, why, len) != 0)
        return -1;
    PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = s->rp;
    TRY(cuptiRangeProfilerStart(&st));
    s->started = true;
    return 0;
}

extern "C" int counters_end(counter_session *s, kernel_counters *k, char *why, size_t len)
{
    all_nan(k);
    if (!s->started) {
        snprintf(why, len, "counters_end without counters_begin");
        return -1;
    }
    s->started = false;
    PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
    sp.pRangeProfilerObject = s->rp;
    TRY(cuptiRangeProfilerStop(&sp));
    if (!sp.isAllPassSubmitted) {
        snprintf(why, len, "kernel replay did not submit its %d passes within the launch", s->all.passes);
        return -1;
    }
    size_t nranges = 0;
    if (decode(s, &s->all, &nranges, why, len) != 0)
        return -1;
    return range_values(s, &s->all, 0, k, NULL, why, len);
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
    host_release(s->host);
    metric_set *sets[] = {&s->all, &s->dram, &s->drain};
    for (int i = 0; i < 3; i++) {
        free(sets[i]->config);
        free(sets[i]->data);
    }
    free(s);
}

extern "C" void counters_describe(const counter_session *s, FILE *f)
{
    if (!s)
        return;
    fprintf(f, "counters: chip %s, %d metrics, %d passes, DRAM pass %s\n", s->chip, s->all.n, s->all.passes,
            s->dram.n && s->drain.n ? "after an L2 flush" : "none (DRAM bytes from kernel replay)");
    for (int i = 0; i < s->all.n; i++)
        fprintf(f, "counters:   have %s\n", s->all.metrics[i]);
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
