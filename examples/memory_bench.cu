// The cost of `mmprof profile`'s GPU memory collection, measured inside one process: blocks of the
// same work run in pairs, one with memory collection on and one with it paused by the injection
// library's benchmark switch, their order alternating from pair to pair, so both halves of a pair
// share the machine's drift.
//
//   MMPROF_AB_FILE=PATH MMPROF_AB_ONLY=memory mmprof profile -- memory_bench --out OUT.json [--pairs N]
//
// While PATH exists the library pauses memory collection alone (its allocation callbacks and
// CUPTI's memory records; launch call sites and sampling stay as asked) and writes an "abswitch"
// line to this process's stream once it switched, which the program waits for before a block.
// Workloads, each a block of operations timed on the host (the block ends with the stream
// synchronised, so queued GPU work is in its time):
//   launch       LAUNCHES empty kernel launches (the launch-heavy benchmark: memory collection
//                adds no callback to a launch, so its cost should be near 0);
//   alloc_async  ASYNC cudaMallocAsync and cudaFreeAsync of 1 MiB from a warm pool (the
//                allocation-heavy one: each pair is two calls under the memory callbacks, two memory
//                records, and an allocation's call site within the sites' share);
//   alloc        SYNC cudaMalloc and cudaFree of 2 MiB.
// OUT.json: per workload, every pair's nanoseconds per operation on and off, and the median over
// pairs of on / off - 1 in %, with its quartiles.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const int LAUNCHES = 20000, ASYNC = 5000, SYNC = 400;
#define MAX_PAIRS 200

__global__ void empty() {}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static const char *ab_path;
static char stream_path[4096];

/* The "abswitch" lines the library has written to this process's stream so far. */
static int switches(void)
{
    FILE *f = fopen(stream_path, "r");
    if (!f)
        return 0;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, "abswitch\t", 9) == 0;
    fclose(f);
    return n;
}

static int done_switches;
static int memory_on = 1; /* no file at the start: collection on */

/* Memory collection on or off, waiting (at most 10 s) for the library to say it switched (it
 * writes a line only for a change). */
static void set_memory(int on)
{
    if (on == memory_on)
        return;
    memory_on = on;
    if (on)
        unlink(ab_path);
    else {
        FILE *f = fopen(ab_path, "w");
        if (!f) {
            perror(ab_path);
            exit(1);
        }
        fclose(f);
    }
    done_switches++;
    for (int waited = 0; switches() < done_switches; waited++) {
        if (waited > 5000) {
            fprintf(stderr, "memory_bench: no switch %d in %s after 10 s (run it under mmprof profile with "
                            "MMPROF_AB_FILE and MMPROF_AB_ONLY=memory)\n", done_switches, stream_path);
            exit(1);
        }
        usleep(2000);
    }
}

typedef struct {
    const char *name;
    int ops;
} workload;

/* One block of workload w: nanoseconds per operation. */
static double block(const workload *w, cudaStream_t s)
{
    double t0 = now_ns();
    if (strcmp(w->name, "launch") == 0) {
        for (int i = 0; i < w->ops; i++)
            empty<<<1, 1, 0, s>>>();
        CHECK(cudaGetLastError());
    } else if (strcmp(w->name, "alloc_async") == 0) {
        for (int i = 0; i < w->ops; i++) {
            void *p;
            CHECK(cudaMallocAsync(&p, 1u << 20, s));
            CHECK(cudaFreeAsync(p, s));
        }
    } else {
        for (int i = 0; i < w->ops; i++) {
            void *p;
            CHECK(cudaMalloc(&p, 2u << 20));
            CHECK(cudaFree(p));
        }
    }
    CHECK(cudaStreamSynchronize(s));
    return (now_ns() - t0) / w->ops;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int pairs = 30;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
        if (strcmp(argv[i], "--pairs") == 0)
            pairs = atoi(argv[i + 1]);
    }
    ab_path = getenv("MMPROF_AB_FILE");
    const char *dir = getenv("MMPROF_PROFILE_DIR");
    if (!out || pairs < 2 || pairs > MAX_PAIRS || !ab_path || !dir) {
        fprintf(stderr, "usage: MMPROF_AB_FILE=PATH MMPROF_AB_ONLY=memory mmprof profile -- memory_bench --out OUT.json "
                        "[--pairs N (2 to %d)]\n", MAX_PAIRS);
        return 2;
    }
    snprintf(stream_path, sizeof stream_path, "%s/%d.stream", dir, (int)getpid());
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long keep = ~0ull;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    const workload ws[] = {{"launch", LAUNCHES}, {"alloc_async", ASYNC}, {"alloc", SYNC}};
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return 1;
    }
    fprintf(f, "{");
    for (size_t w = 0; w < sizeof ws / sizeof ws[0]; w++) {
        block(&ws[w], s); /* warm: the pool, the module, the driver's caches */
        double on[MAX_PAIRS], off[MAX_PAIRS], cost[MAX_PAIRS];
        for (int p = 0; p < pairs; p++) {
            int first_on = p % 2 == 0;
            for (int half = 0; half < 2; half++) {
                int is_on = half == 0 ? first_on : !first_on;
                set_memory(is_on);
                (is_on ? on : off)[p] = block(&ws[w], s);
            }
            cost[p] = 100.0 * (on[p] / off[p] - 1);
        }
        qsort(cost, (size_t)pairs, sizeof *cost, cmp_double);
        fprintf(f, "%s\n \"%s\": {\"ops_per_block\": %d, \"median_cost_pct\": %.3f, \"q1_pct\": %.3f, \"q3_pct\": %.3f,\n  \"on_ns\": [",
                w ? "," : "", ws[w].name, ws[w].ops, cost[pairs / 2], cost[pairs / 4], cost[3 * pairs / 4]);
        for (int p = 0; p < pairs; p++)
            fprintf(f, "%s%.1f", p ? ", " : "", on[p]);
        fprintf(f, "],\n  \"off_ns\": [");
        for (int p = 0; p < pairs; p++)
            fprintf(f, "%s%.1f", p ? ", " : "", off[p]);
        fprintf(f, "]}");
        printf("%-12s median cost %+.2f%% (quartiles %+.2f..%+.2f%%) over %d pairs\n", ws[w].name, cost[pairs / 2],
               cost[pairs / 4], cost[3 * pairs / 4], pairs);
    }
    fprintf(f, "\n}\n");
    fclose(f);
    set_memory(1);
    return 0;
}
