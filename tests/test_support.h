/* Helpers shared by the C tests: running the real binary, reading files, loading the sample. */
#ifndef MMPROF_TEST_SUPPORT_H
#define MMPROF_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "strbuf.h"
#include "text_sink.h"

/* The binary under test: $MMPROF_BIN, else build/mmprof (tests run from the repository root). */
const char *mmprof_bin(void);

/* The recorded H200 run the tests analyse: $MMPROF_SAMPLE, else samples/h200-2048.json. */
const char *sample_path(void);

typedef struct {
    int status;  /* exit status, or 128 + signal */
    char *out;   /* standard output */
    char *err;   /* standard error */
} cmd_result;

/* Runs argv (argv[0] searched on PATH) with stdout and stderr captured, env adds NAME=VALUE
 * entries (NULL-terminated, may be NULL). */
cmd_result run_argv(const char *const *argv, const char *const *env);
void cmd_free(cmd_result *r);
/* Runs a shell command line (printf's format; for pipes and FIFOs) with $MMPROF naming the binary
 * under test, its output captured. */
cmd_result run_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The whole file, NUL-terminated (NULL when unreadable); *len gets its length when non-NULL. */
char *read_file(const char *path, size_t *len);
/* The file at path parsed with cJSON (the caller deletes it), or NULL when it cannot be read or
 * parsed. */
struct cJSON *read_json(const char *path);
bool write_text(const char *path, const char *text);

/* A path relative to the directory of the binary under test ("tests/nvtx_demo" gives
 * build/tests/nvtx_demo), in a static buffer. */
const char *beside_bin(const char *rel);

/* True when `mmprof --require-gpu` runs a tiny GPU workload: the GPU tests' gate. */
bool gpu_usable(void);
/* How many GPU workloads `mmprof --list-workloads` lists. */
int gpu_workload_count(void);

/* Entries of dir (. and .. aside); *temporaries (may be NULL) gets how many are mmprof's
 * temporary output files (".mmprof-..."). */
int dir_entries(const char *dir, int *temporaries);

/* An xz-compressed file decompressed into dir/name with xz -dc, for a test that reads its text
 * itself (mmprof and model_read_file read xz as it is): the path, malloc'd, or NULL when xz
 * failed. */
char *unxz_sample(const char *xz_path, const char *dir, const char *name);

/* dir/name, malloc'd (fails the test when memory ran out). */
char *path_in(const char *dir, const char *name);

/* A fresh temporary directory (removed by rm_rf). */
char *make_temp_dir(void);
void rm_rf(const char *dir);

/* cmocka setup and teardown around a test that needs a temporary directory: *state is its path. */
int temp_dir_setup(void **state);
/* A temporary directory for tests that name files in it: test_tmp, made by test_tmp_setup and
 * removed by test_tmp_teardown (as a group's or a test's setup and teardown). */
extern char *test_tmp;
int test_tmp_setup(void **state);
int test_tmp_teardown(void **state);
int temp_dir_teardown(void **state);

/* The second recorded run: made under Nsight Compute, so timed by cudaEvents, not CUPTI. */
#define NCU_SAMPLE "samples/h200-512-under-ncu.json"
/* A version 1 run file, recorded on the H200 by an earlier mmprof (before the timeline model):
 * later readers must still load it. */
#define V1_SAMPLE "tests/data/v1/h200-2048.json"
/* A version 2 run file (each workload's events inside it, the built-in settings at the top),
 * recorded on the H200 by an earlier mmprof: a 2048 built-in run, xz-compressed (unxz_sample). */
#define V2_BUILTIN_XZ "tests/data/same-code/h200-2048-same-code-a.json.xz"
/* A run made under Nsight Systems (nsys profile): CUDA_INJECTION64_PATH named nsys's library. */
#define NSYS_SAMPLE "samples/h200-512-under-nsys.json"

/* A copy of the events of the store that workload w owns (its region's), in store order: what a
 * test checks one workload's figures against. events_clear frees it. */
event_list owned_events(const run_model *m, const workload_run *w);

/* Loads a run file; fails the test with the reader's message when it cannot. */
void load_run(const char *path, run_model *m);

/* Loads the sample run; fails the test with the reader's message when it cannot. */
void load_sample(run_model *m);

/* A built-in run made here, whose figures can be worked out by hand (n = 1024, one H200-like
 * device, PCIe 5 x16, 2 products per workload, phases exactly around their events):
 *   cpu-openblas              10 ms per product
 *   cuda-naive    pageable    H2D 4.0 ms, kernel 3.0 ms, D2H 1.0 ms   copy-bound (5.0 > 3.0)
 *   cuda-naive    pinned      H2D 0.6 ms, kernel 3.0 ms, D2H 0.3 ms   compute-bound
 *   cublas-sgemm  pageable    H2D 4.0 ms, kernel 0.5 ms, D2H 1.0 ms   copy-bound
 *   cublas-sgemm  pinned      H2D 0.6 ms, kernel 0.5 ms, D2H 0.3 ms   copy-bound (0.9 > 0.5)
 * H2D moves 8 MiB (A and B), D2H 4 MiB (C). Regions are finished. */
void small_builtin_run(run_model *m);
/* Adds to small_builtin_run's cuda-naive (pageable) a cudaMemset of bytes of device memory, 0.1 ms
 * at the start of its first phase. */
void add_device_memset(run_model *m, uint64_t bytes);

/* A profiled program made here: one NVTX range "train" on thread 1 holding 10 launches of
 * "gemm_kernel" (2 ms each) and one of "relu" (0.5 ms), each launched by cudaLaunchKernel_v7000
 * (10 us), and one pageable H2D copy of 64 MiB taking 30 ms before them: the run is copy-bound
 * (30 ms of copies against 20.5 ms of kernels). */
void small_profiled_run(run_model *m);

/* The text report of a (no colour), as a string to free. */
struct analysis;
char *text_report_of(const struct analysis *a);

/* A recorded run for the tests that check figures against the file itself: read by the model
 * reader into m and analysed into a, and parsed apart with cJSON into *raw. False (with the
 * reason on stderr) when any step fails; recorded_free undoes it. */
struct cJSON;
bool recorded_load(const char *path, run_model *m, struct analysis *a, struct cJSON **raw);
void recorded_free(run_model *m, struct analysis *a, struct cJSON *raw);

/* got equals want within a relative tolerance rel (0: exactly). cmocka's own float assertion
 * compares in single precision, too coarse for figures derived from nanoseconds. */
#define assert_close(got, want, rel) assert_close_at((got), (want), (rel), #got, __FILE__, __LINE__)
void assert_close_at(double got, double want, double rel, const char *what, const char *file, int line);

/* What a renderer handed to a sink (render_json_to, render_trace_to): the text, and in how many
 * pieces. kept_sink's sink fills k (sb_init'd here; sb_free its text). */
typedef struct {
    strbuf text;
    int pieces;
} kept_text;
text_sink kept_sink(kept_text *k);
/* k's text is whole (the document rendered at once), handed over in at least `least` pieces;
 * frees both. what names the document in the message. */
void assert_kept_whole(kept_text *k, char *whole, int least, const char *what);

#endif
