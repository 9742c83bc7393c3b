/* The run model: everything one run recorded, as plain C structs.
 *
 * This is the seam of the program. Its sources fill it (the built-in workloads with the CUPTI
 * collector, `mmprof profile`'s injection stream, the importers of PyTorch and Nsight Systems
 * traces), model_json.c writes it to disk and reads it back, and analysis and every renderer read
 * only this. Nothing here depends on CUDA, so all of it builds and is tested without a GPU.
 *
 * A run is a timeline, the same for every source:
 * - events (kernels, copies, memsets, runtime and driver API calls, synchronization), all in one
 *   store, run_model.events, each with its process, thread or device and stream, and the region
 *   that owns it by its source's rule (event_owner below);
 * - regions: named intervals (the whole run at index 0, a built-in workload and its phases, an NVTX
 *   range, a PyTorch annotation), nested through their parent links.
 * A built-in run adds its own facts in run_model.builtin (matrix size, seed, BLAS, the workloads'
 * matmul facts: n, repeat, verification, ...); other sources leave it empty (source says which).
 *
 * Times are nanoseconds on one clock: CUPTI's timestamp when CUPTI collected the run, otherwise
 * CLOCK_REALTIME (which is what CUPTI's clock is based on, on Linux). Raw figures that might not
 * have been measured carry a flag saying whether they were; derived figures live in analysis.h. */
#ifndef MMPROF_MODEL_H
#define MMPROF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_state.h"
#include "host_activity.h"
#include "memory_activity.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MMPROF_VERSION "0.1.0"
#define MMPROF_SCHEMA_VERSION 3 /* 3: one event store and a builtin section; 1 and 2 still load */

/* What timed a workload's kernels and copies. */
typedef enum {
    TIMING_NONE = 0,   /* nothing ran on a GPU */
    TIMING_CUPTI,      /* CUPTI activity records */
    TIMING_CUDA_EVENT, /* cudaEvents around each launch and copy (another profiler holds CUPTI) */
    TIMING_HOST_CLOCK, /* the host's clock (CPU workloads) */
} timing_source;

typedef enum { PREC_FP32 = 0, PREC_TF32 } precision;

/* Why a workload's timed sampling stopped (the compute phase, as nvbench samples). */
typedef enum {
    STOP_UNKNOWN = 0, /* not recorded (files from before sampling by noise) */
    STOP_NOISE,       /* the relative noise fell to --max-noise with the minimum samples taken */
    STOP_TIME,        /* --max-time ran out first */
    STOP_REPEAT,      /* --repeat asked for a fixed count */
    STOP_MAX_SAMPLES, /* the sample cap was reached first */
} sample_stop;

typedef enum {
    WL_OK = 0,   /* ran and verified */
    WL_FAILED,   /* ran, but the result did not verify */
    WL_ERROR,    /* a CUDA or library call failed; status_reason says which */
    WL_SKIPPED,  /* not run (no GPU); status_reason says why */
} workload_status;

/* Where a copy's host side lived. Numbers follow CUPTI's CUpti_ActivityMemoryKind. */
typedef enum {
    MEM_UNKNOWN = 0,
    MEM_PAGEABLE = 1,
    MEM_PINNED = 2,
    MEM_DEVICE = 3,
    MEM_ARRAY = 4,
    MEM_MANAGED = 5,
} mem_kind;

/* Copy directions, numbered as CUPTI's CUpti_ActivityMemcpyKind. */
typedef enum {
    COPY_OTHER = 0,
    COPY_H2D = 1,
    COPY_D2H = 2,
    COPY_D2D = 8,
    COPY_H2H = 9,
    COPY_P2P = 10, /* between two devices */
} copy_dir;

#define PHASE_NAME_MAX 24
#define MAX_SWEEP_SIZES 32
#define MAX_PHASES 8

/* A built-in run over several GPUs (--devices) runs each GPU workload twice on every listed GPU:
 * once with that GPU alone busy (the GPUs one after another) and once with every listed GPU busy
 * at the same time (a host thread per GPU). A single-GPU run's workloads are PASS_ALONE. */
typedef enum { PASS_ALONE = 0, PASS_SEQUENTIAL, PASS_CONCURRENT } device_pass;

/* One timed interval of a workload (allocate, copy-in, warm-up, compute, copy-out, verify) or of
 * the tool itself (cuda-init, inputs, reference, ...). Each is also an NVTX range. */
typedef struct {
    char name[PHASE_NAME_MAX];
    int64_t start_ns;
    int64_t end_ns;
} phase;

/* Where a run came from. What each one is and can hold is its row in source.c (source.h): a new
 * source is a value here, before SOURCE_COUNT, and that row. */
typedef enum {
    SOURCE_BUILTIN = 0, /* mmprof's own matmul workloads */
    SOURCE_KINETO,      /* a PyTorch profiler (Kineto) Chrome trace */
    SOURCE_NSYS,        /* an Nsight Systems SQLite export */
    SOURCE_PROFILE,     /* `mmprof profile -- CMD` */
    SOURCE_NCU,         /* an Nsight Compute CSV export: launch counters, no timeline */
    SOURCE_COUNT
} run_source;

typedef struct {
    char *name; /* as CUPTI recorded it (mangled); its event_list's (names below) */
    int64_t start_ns, end_ns;
    uint32_t pid; /* process that launched it; 0 when not known (built-in runs: one process) */
    uint32_t device, stream, correlation;
    int grid[3], block[3];
    bool has_resources; /* registers and shared memory known (not under cudaEvent timing) */
    int registers;      /* per thread */
    int static_smem;    /* bytes per block */
    int dynamic_smem;   /* bytes per block */
    bool smem_optin;    /* launched with the opt-in shared-memory limit (> 48 KB per block) */
    int local_mem;      /* bytes per thread (spills); meaningful only with has_resources */
    int region;         /* owner (see event_owner) */
} kernel_event;

typedef struct {
    copy_dir dir;
    mem_kind src, dst;
    uint64_t bytes;
    int64_t start_ns, end_ns;
    uint32_t pid;
    uint32_t device, stream, correlation;
    int region;
} copy_event;

typedef struct {
    mem_kind mem; /* the memory set */
    uint64_t bytes;
    int64_t start_ns, end_ns;
    uint32_t pid;
    uint32_t device, stream, correlation;
    int region;
} memset_event;

typedef enum { API_RUNTIME = 0, API_DRIVER = 1 } api_kind;

/* A CUDA runtime or driver call on the host, as CUPTI's RUNTIME and DRIVER records saw it. */
typedef struct {
    char *name; /* its event_list's (names below), e.g. "cudaMemcpy_v3020", "cuLaunchKernel" */
    int64_t start_ns, end_ns;
    api_kind kind;
    uint32_t pid;
    uint32_t thread, correlation;
    int region;
} api_event;

/* What a synchronization waited for; numbered as CUPTI's CUpti_ActivitySynchronizationType. */
typedef enum {
    SYNC_UNKNOWN = 0,
    SYNC_EVENT = 1,             /* cudaEventSynchronize */
    SYNC_STREAM_WAIT_EVENT = 2, /* cudaStreamWaitEvent */
    SYNC_STREAM = 3,            /* cudaStreamSynchronize */
    SYNC_CONTEXT = 4,           /* cudaDeviceSynchronize */
} sync_kind;

/* Time a host thread spent waiting for the GPU. */
typedef struct {
    sync_kind kind;
    int64_t start_ns, end_ns;
    uint32_t pid, thread;
    uint32_t stream, correlation;
    int region;
} sync_event;

/* The event store: every event of the run.
 *
 * event_owner: each event names the region that owns it by its source's rule. A built-in
 * workload's events (the collector hands each record to the workload running on its device or
 * host thread at the time) name that workload's region; every other event names 0, the run: an
 * NVTX range or annotation of a program or trace owns what its thread launched while it was open,
 * which analysis works out from launch times and threads (regions.h), not the source. */
typedef struct {
    kernel_event *kernels;
    size_t nkernels;
    copy_event *copies;
    size_t ncopies;
    memset_event *memsets;
    size_t nmemsets;
    api_event *apis;
    size_t napis;
    sync_event *syncs;
    size_t nsyncs;
    /* The kernels' and API calls' names, each distinct one stored once (model.c): the adds
     * below copy a name into it, events_clear frees it. Events of one list with equal names
     * share one string, so a name's pointer may key a cache of what is derived from it. */
    struct name_pool *names;
} event_list;

typedef enum {
    REGION_RUN = 0,    /* the whole run, trace or program */
    REGION_WORKLOAD,   /* a built-in workload */
    REGION_PHASE,      /* one phase of a built-in workload */
    REGION_NVTX,       /* an NVTX range from the program's code */
    REGION_ANNOTATION, /* a PyTorch record_function / profiler annotation */
    REGION_CAPTURE,    /* a capture window of mmprof profile --delay/--duration/--capture-range: its
                        * process's work launched while the window was open */
} region_kind;

/* A named interval that owns events. A kernel or copy belongs to the region whose thread made
 * the API call that launched it (matched by correlation id) while the region was open, even when
 * it runs on the GPU after the region has ended; analysis does that attribution. */
typedef struct {
    char *name;        /* owned */
    char *domain;      /* NVTX domain (owned); NULL for the default domain and non-NVTX regions */
    region_kind kind;
    int64_t start_ns, end_ns;
    uint32_t pid, tid; /* the thread that opened it; 0 when not known */
    int parent;        /* index of the enclosing region, -1 at the top */
    int workload;      /* the built-in workload (its own or its phase's), -1 otherwise */
    bool push_pop;     /* NVTX push/pop (nesting on its thread) rather than start/end */
} region;

typedef struct {
    uint32_t pid;
    char name[128];
    /* Its place in a distributed job, from the launcher's variables (RANK, OMPI_COMM_WORLD_RANK,
     * PMI_RANK, SLURM_PROCID...): -1 when not known. host: where it ran ("" when not known). */
    int rank, world_size, local_rank;
    char host[64];
    bool records_cut;  /* profile: it initialised CUDA but its stream has no exit line (killed,
                        * crashed): records CUPTI still held were never written, so what it did
                        * on the GPU is undercounted (analysis/incomplete.c says how much) */
} process_info;

typedef struct {
    uint32_t pid, tid;
    char name[64];
} thread_info;

/* The CUDA runtime's own occupancy answer for one of our kernels, kept so the header-only
 * calculator used in analysis can be checked against it (tests do, on recorded runs). */
typedef struct {
    char kernel[96];
    int block_size;
    int dynamic_smem;
    int registers;
    int static_smem;
    int runtime_blocks_per_sm; /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
} occupancy_check;

/* Hardware counters of one kernel from the counter pass, a separate launch after the timed ones
 * (CUPTI's range profiler, kernel replay, one range per kernel launch). The figures are those of
 * Nsight Compute's metrics of the same names (counter_metric_name); NaN where one was not
 * collected. Raw counts here; rates, intensity and the bound are derived in analysis. */
typedef enum {
    CTR_OCCUPANCY_PCT = 0, /* achieved occupancy: active warps over the SM's maximum */
    CTR_SM_PCT,            /* compute (SM) throughput, % of peak (speed of light) */
    CTR_MEM_PCT,           /* memory throughput, % of peak (speed of light) */
    CTR_DRAM_READ_BYTES,
    CTR_DRAM_WRITE_BYTES,
    CTR_L1_HIT_PCT,
    CTR_L2_HIT_PCT,
    CTR_FFMA,              /* FP32 thread instructions executed, predicated on */
    CTR_FADD,
    CTR_FMUL,
    CTR_TENSOR_PCT,        /* tensor pipe active cycles, % of peak (on Hopper wgmma's count too) */
    CTR_DRAM_PCT,          /* DRAM throughput, % of peak */
    CTR_L2_PCT,            /* L2 throughput, % of peak */
    CTR_L1_PCT,            /* L1/shared throughput, % of peak */
    CTR_DURATION_NS,       /* the kernel's time in the counter pass (replayed: not a timing figure) */
    CTR_L2_PEAK_BYTES_PER_CYCLE,   /* the L2's peak bandwidth, per L2 cycle: the roofline's L2 ceiling */
    CTR_L2_CYCLES_PER_SECOND,
    CTR_DRAM_PEAK_BYTES_PER_CYCLE, /* the same for DRAM */
    CTR_DRAM_CYCLES_PER_SECOND,
    CTR_COUNT
} counter_id;

typedef struct {
    char *name; /* the kernel, as the range profiler named its range; owned */
    double v[CTR_COUNT];
    /* profile --counters: the launch, as its kernel record names it (correlation 0: none) */
    uint32_t pid, device, correlation;
} kernel_counters;

/* The JSON key of a counter ("achieved_occupancy_pct") and the metric that measures it
 * ("sm__warps_active.avg.pct_of_peak_sustained_active"). */
const char *counter_key(counter_id c);
const char *counter_metric_name(counter_id c);

typedef struct {
    char name[32];         /* cpu-openblas, cuda-naive, ... */
    mem_kind host_memory;  /* MEM_PAGEABLE or MEM_PINNED for GPU workloads, MEM_UNKNOWN for CPU */
    bool needs_gpu;
    precision prec;
    workload_status status;
    char status_reason[256];
    int n;                 /* the matrix size this workload multiplied */
    int device;            /* index into run.devices, -1 for CPU */
    int repeat;            /* timed products in the compute phase */
    int samples;           /* of them, the timed samples the noise was judged on (= repeat); 0: not recorded */
    double noise_pct;      /* stdev / mean of those samples, in %, as sampling saw it; < 0: not recorded */
    sample_stop stopped_by;
    int launched;          /* products launched in all (warm-up included) */
    timing_source timing;

    /* Its phases as the runner timed them; model_add_builtin_regions makes the workload's region
     * (region, owner of its events in run_model.events) and a region per phase from them. */
    phase phases[MAX_PHASES];
    int nphases;
    int region;            /* its REGION_WORKLOAD region; 0 or less (never a workload's: regions[0]
                            * is the run) before it has one, or when it never ran */
    /* Events the workload recorded for itself: under cudaEvent timing (another profiler holds
     * CUPTI) the kernel and copy times it took, held here while it runs (on a host thread of its
     * own in a --devices run) until model_finish_regions moves them into the store, owned by the
     * workload's region. Empty otherwise; never saved. */
    event_list timed;

    /* Per-product times of the compute phase by the workload's own clock: cudaEvents around each
     * launch for GPU workloads, the host clock for CPU ones. Kept beside CUPTI's records so the
     * two can be compared. */
    double *product_ms;
    int nproduct_ms;

    bool verified;         /* a relative error was computed */
    double rel_error;      /* relative Frobenius error against the FP64 reference */
    double error_bound;

    occupancy_check *occ;
    int nocc;

    device_state device_state; /* the GPU's clocks, power and neighbours while it ran (NVML) */

    device_pass pass;      /* --devices: run with its GPU alone busy, or with every listed GPU busy */
    uint32_t host_tid;     /* the thread that ran it (gettid), for CUPTI's API records; not saved */
    /* The counter pass (run_model.counters): one entry per kernel of one product, or none and
     * counters_why saying why (no permission, unsupported GPU, the pass failed). */
    kernel_counters *counters;
    int ncounters;
    char counters_why[256];
} workload_run;

typedef struct {
    int index;
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;         /* peak SM clock */
    int mem_clock_khz;
    int bus_width_bits;
    int l2_bytes;
    uint64_t total_mem, free_mem;
    int max_threads_per_sm, max_threads_per_block, max_blocks_per_sm;
    int regs_per_sm, regs_per_block, warp_size;
    uint64_t smem_per_sm, smem_per_block, smem_per_block_optin, reserved_smem_per_block;
    char pci_bus_id[32];
    int pcie_gen, pcie_width; /* 0 when unknown; pcie_why says why */
    char pcie_why[128];
    int driver_version, runtime_version; /* as CUDA encodes them: 13000 = 13.0; 0 when unknown */
    uint64_t memory_bandwidth; /* bytes per second, where a source reports it (Nsight Systems'
                                * TARGET_INFO_GPU) rather than a memory clock and bus width; 0 otherwise */
} device_info;

/* Copies from one GPU to another (cudaMemcpyPeerAsync), with peer access off (the driver stages
 * them) or on (direct over the link). */
enum { PEER_STAGED = 0, PEER_DIRECT = 1, PEER_MODES = 2 };

typedef struct {
    bool measured;
    double gbps;          /* copy_bytes x copy_reps over their time between cudaEvents, 1e9 B/s */
    double latency_us;    /* mean time of one latency_bytes copy, latency_reps back to back */
    bool verified;        /* every byte of the large copy arrived as sent */
    char why[256];        /* why not measured, or what went wrong; empty when measured and verified */
} peer_copy;

typedef struct {
    int src, dst;         /* indices into run.devices */
    char link[16];        /* "NVLink", "PCIe" or "n/a" (NVML) */
    char link_detail[192];/* how NVML saw the link (links, switch, PCIe path), or why it is n/a */
    bool can_access_peer; /* cudaDeviceCanAccessPeer */
    peer_copy copy[PEER_MODES];
} peer_pair;

#define MAX_RUN_DEVICES 16

/* The GPUs of a --devices run and the copies between every ordered pair of them. */
typedef struct {
    int devices[MAX_RUN_DEVICES]; /* indices into run.devices, as --devices listed them */
    int ndevices;                 /* 0: not a --devices run */
    uint64_t copy_bytes;          /* the bandwidth copies' size */
    int copy_reps;
    uint64_t latency_bytes;
    int latency_reps;
    peer_pair *pairs;             /* owned; ndevices * (ndevices - 1) in order (src, dst) */
    int npairs;
    char why[256];                /* why there is no peer matrix ("one GPU: ..."); empty otherwise */
} multi_gpu_info;

/* The machine a run was recorded on: known for the built-in run and `mmprof profile` (read where
 * they ran), not for imports (known: false). */
typedef struct {
    bool known;
    char cpu_model[128];
    int logical_cores;
    bool has_avx2, has_avx512f;
    char os[128];
} host_info;

/* The BLAS library the built-in CPU workload multiplied with. */
typedef struct {
    char config[256];  /* openblas_get_config() */
    char version[32];  /* parsed from the config string */
    char core[64];     /* openblas_get_corename() */
    int threads;
    char library[256]; /* the shared object it was loaded from */
} blas_info;

typedef struct {
    timing_source source; /* for GPU work: CUPTI or cudaEvents */
    char reason[256];      /* why it is not CUPTI, when it is not */
    int cupti_version;
    uint64_t records;      /* activity records received */
    uint64_t dropped;      /* records CUPTI reported dropped */
    uint64_t lost_timestamps; /* kernel or copy records with start = end = 0 */
    uint64_t replayed_kernels; /* profile --counters: kernel records of profiled launches, which
                                * CUPTI gives no timestamps (not in lost_timestamps) */
    uint64_t overhead_records;
    uint64_t outside_workloads; /* kernel, copy and API records outside every workload span (kept
                                 * in run_model.events) */
    int64_t overhead_ns;   /* CUPTI's own reported overhead */
    double flush_ms;
} collection_info;

/* Hardware counters (--counters): asked for, or not. A built-in run reads them in a pass after
 * each GPU workload (workload_run.counters); `mmprof profile --counters` per chosen launch of the
 * program (run_model.launch_counters), chosen by kernels and max. */
typedef struct {
    bool asked;
    int passes;        /* replays of each kernel the metric set needed; 0: not known */
    char why[256];     /* non-empty when the counters are n/a for the whole run */
    char kernels[128]; /* profile --kernels: the expression ("" every kernel) */
    long max;          /* profile --max-kernels (0: no limit) */
    char from[256];    /* launch_counters not of mmprof's own pass: the Nsight Compute CSV they
                        * were read from ("" for profile --counters, whose launches it replayed) */
} counter_info;

/* profile --delay/--duration/--capture-range: one window in which the injection library traced
 * (stream_read.c reads them from the stream's capture lines). */
typedef struct {
    int region;            /* its REGION_CAPTURE region */
    uint32_t pid;
    int number;            /* its number in its process, from 1 */
    int64_t start_ns, end_ns;
    char began[24], ended[24]; /* why: delay, start, duration, cuda-profiler-start/-stop,
                                * nvtx-begin/-end, exit */
    char began_detail[320], ended_detail[320]; /* the same in words */
    /* Unrecorded stretches around it: from the previous window's end (or the process's start)
     * to its start, and from its end to the next window's start (or the process's end), with
     * the CUDA runtime calls made in them; -1 where not known. */
    int64_t before_ns, after_ns;
    int64_t calls_before, calls_after;
} capture_window;

typedef struct {
    char asked[640];       /* what was asked, in words ("" without a capture option) */
    capture_window *windows;
    int nwindows;
} capture_info;

/* What only a built-in run has: its settings, its BLAS, the tool's own phases, the workloads'
 * matmul facts and a --devices run's peer matrix. Empty (nworkloads 0) for other sources. */
typedef struct {
    int n;                /* the matrix size (a sweep's first) */
    int sizes[MAX_SWEEP_SIZES]; /* a sweep's sizes, in run order; nsizes 0 for one size */
    int nsizes;
    uint64_t seed;
    int repeat_requested; /* 0: chosen per workload */
    double max_noise_pct; /* sampling stops below this relative noise (%); 0: not recorded */
    double max_time_s;    /* ... or after this long per workload and size */
    bool cold_l2;         /* the L2 was flushed before each timed launch */
    char host_memory_requested[12];
    blas_info blas;
    char gpu_skip_reason[256]; /* non-empty when GPU workloads could not run */
    phase tool_phases[16 + 3 * MAX_SWEEP_SIZES]; /* where the tool's own wall time went (inputs,
                                                  * reference and buffers per size of a sweep) */
    int ntool_phases;
    workload_run *workloads;
    int nworkloads;
    multi_gpu_info multi;  /* --devices: the GPUs run and the peer matrix */
} builtin_run;

typedef struct {
    int schema_version;
    run_source source;
    char source_file[256]; /* an import's input, as given */
    char tool_version[16];
    char *command_line;  /* owned */
    char started_at[32]; /* ISO 8601, UTC */
    int64_t epoch_ns;    /* the run's start on the event clock; JSON stores times relative to it,
                          * since absolute nanoseconds do not fit a JSON number exactly */
    host_info host;
    device_info *devices;
    int ndevices;
    collection_info collection;
    counter_info counters;
    capture_info capture;  /* profile's capture windows; none otherwise */
    host_activity host_activity; /* what the host did: samples, call sites, CPU spans (host_activity.h) */
    memory_activity memory; /* allocations, frees, failed allocations, device memory (memory_activity.h) */
    /* profile --counters: one entry per profiled launch (demangled kernel name), in stream order */
    kernel_counters *launch_counters;
    int nlaunch_counters;
    event_list events;     /* every event of the run (event_owner) */
    region *regions;       /* regions[0] is the whole run (model_add_region makes it first) */
    int nregions;
    process_info *processes;
    int nprocesses;
    thread_info *threads;
    int nthreads;
    char **warnings;       /* raised while running; analysis adds its own when reporting */
    int nwarnings;
    builtin_run builtin;   /* source == SOURCE_BUILTIN only */
} run_model;

/* Lifetime. */
void model_init(run_model *m);
void model_free(run_model *m);
workload_run *model_add_workload(run_model *m);
void workload_clear(workload_run *w); /* frees its events and zeroes it */
void model_add_warning(run_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A workload's own figures; each returns false when memory ran out. */
bool workload_add_kernel(workload_run *w, const kernel_event *k); /* to w->timed; copies k->name */
bool workload_add_copy(workload_run *w, const copy_event *c);     /* to w->timed */
bool workload_add_memset(workload_run *w, const memset_event *s); /* to w->timed */
bool workload_add_api(workload_run *w, const api_event *a);       /* to w->timed; copies a->name */
bool workload_add_sync(workload_run *w, const sync_event *s);     /* to w->timed */
bool workload_add_product_ms(workload_run *w, double ms);
bool workload_add_occ(workload_run *w, const occupancy_check *o);
bool workload_add_counters(workload_run *w, const kernel_counters *c); /* copies c->name */
bool model_add_launch_counters(run_model *m, const kernel_counters *c); /* copies c->name */
phase *workload_add_phase(workload_run *w, const char *name);
const phase *workload_find_phase(const workload_run *w, const char *name);

/* Appending events to the store; each copies names and returns false when memory ran out. */
bool events_add_kernel(event_list *e, const kernel_event *k);
bool events_add_copy(event_list *e, const copy_event *c);
bool events_add_memset(event_list *e, const memset_event *s);
bool events_add_api(event_list *e, const api_event *a);
bool events_add_sync(event_list *e, const sync_event *s);
/* For a reader that meets each name many times (a run file's names table): the list's own copy
 * of name, added when new (NULL when memory ran out), and appending an event whose name already
 * is that copy, with no lookup. */
const char *events_intern(event_list *e, const char *name);
bool events_push_kernel(event_list *e, const kernel_event *k);
bool events_push_api(event_list *e, const api_event *a);
void events_clear(event_list *e);
/* After src's kernels or API calls were moved to dst as they are (model_merge): dst takes src's
 * names too. False when memory ran out (src keeps what dst did not take). */
bool events_adopt_names(event_list *dst, event_list *src);
/* The list's names (each kernel's and API call's name is one of them, by pointer), in the order
 * first added, and a name's index among them (SIZE_MAX: not there). */
const char *const *events_names(const event_list *e, size_t *n);
size_t events_name_index(const event_list *e, const char *name);

/* Regions: model_add_region copies name and domain (either may be NULL) and returns the new
 * region's index, or -1 when memory ran out. The run's own region is always regions[0]: the first
 * region added to a model that has none is made the run (kind REGION_RUN), or, when it is of
 * another kind, a run region is made before it (named and spanned by model_finish_regions). A
 * parent of -1 on any other region means the run. Indices never change once given, so events can
 * name their region as they are stored. */
int model_add_region(run_model *m, region_kind kind, const char *name, const char *domain,
                     int64_t start_ns, int64_t end_ns, uint32_t pid, uint32_t tid, int parent);
/* A built-in run's regions: for every workload that has phases and no region yet, its
 * REGION_WORKLOAD region (w->region) and one REGION_PHASE region per phase inside it. The
 * collector calls it before it hands the workloads their events. */
bool model_add_builtin_regions(run_model *m);
/* Once every event is in: adds a built-in run's regions where it has none yet, moves each
 * workload's timed events into the store (owned by the workload's region), names regions[0]
 * run_name and spans it from the earliest to the latest event or region. False when memory ran
 * out. */
bool model_finish_regions(run_model *m, const char *run_name);
bool model_add_process(run_model *m, uint32_t pid, const char *name);
/* The rank, world size, local rank (-1: unknown) and host of process pid (the last added with
 * that pid); nothing when there is none. */
void model_set_process_rank(run_model *m, uint32_t pid, int rank, int world_size, int local_rank, const char *host);
bool model_add_thread(run_model *m, uint32_t pid, uint32_t tid, const char *name);

/* Names used in the JSON form and the reports. A source's is its row's key (source.c). */
const char *run_source_name(run_source s);
bool run_source_parse(const char *s, run_source *out);
const char *region_kind_name(region_kind k);
bool region_kind_parse(const char *s, region_kind *out);
const char *api_kind_name(api_kind k);
bool api_kind_parse(const char *s, api_kind *out);
const char *sync_kind_name(sync_kind k);
bool sync_kind_parse(const char *s, sync_kind *out);
bool copy_dir_parse(const char *s, copy_dir *out);
const char *copy_dir_name(copy_dir d);
const char *timing_source_name(timing_source s);
bool timing_source_parse(const char *s, timing_source *out);
const char *mem_kind_name(mem_kind k);
bool mem_kind_parse(const char *s, mem_kind *out);
const char *status_name(workload_status s);
bool status_parse(const char *s, workload_status *out);
const char *precision_name(precision p);
bool precision_parse(const char *s, precision *out);
const char *device_pass_name(device_pass p); /* "alone", "sequential", "concurrent" */
bool device_pass_parse(const char *s, device_pass *out);
const char *sample_stop_name(sample_stop s); /* "noise", "time", "repeat", "max-samples" */
bool sample_stop_parse(const char *s, sample_stop *out);

/* "cuda-naive (pinned)" or "cpu-openblas". */
void workload_label(const workload_run *w, char *buf, size_t len);

/* Bounded string copy that always terminates. */
void copy_str(char *dst, size_t len, const char *src);

#ifdef __cplusplus
}
#endif

#endif
