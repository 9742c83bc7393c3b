/* Helpers shared by the C tests: running the real binary, reading files, loading the sample. */
#ifndef MMPROF_TEST_SUPPORT_H
#define MMPROF_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

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

/* The whole file, NUL-terminated (NULL when unreadable); *len gets its length when non-NULL. */
char *read_file(const char *path, size_t *len);
bool write_text(const char *path, const char *text);

/* A path relative to the directory of the binary under test ("tests/nvtx_demo" gives
 * build/tests/nvtx_demo), in a static buffer. */
const char *beside_bin(const char *rel);

/* True when `mmprof --require-gpu` runs a tiny GPU workload: the GPU tests' gate. */
bool gpu_usable(void);

/* dir/name, malloc'd (fails the test when memory ran out). */
char *path_in(const char *dir, const char *name);

/* A fresh temporary directory (removed by rm_rf). */
char *make_temp_dir(void);
void rm_rf(const char *dir);

/* cmocka setup and teardown around a test that needs a temporary directory: *state is its path. */
int temp_dir_setup(void **state);
int temp_dir_teardown(void **state);

/* The second recorded run: made under Nsight Compute, so timed by cudaEvents, not CUPTI. */
#define NCU_SAMPLE "samples/h200-512-under-ncu.json"
/* A run made under Nsight Systems (nsys profile): CUDA_INJECTION64_PATH named nsys's library. */
#define NSYS_SAMPLE "samples/h200-512-under-nsys.json"

/* Loads a run file; fails the test with the reader's message when it cannot. */
void load_run(const char *path, run_model *m);

/* Loads the sample run; fails the test with the reader's message when it cannot. */
void load_sample(run_model *m);

/* got equals want within a relative tolerance rel (0: exactly). cmocka's own float assertion
 * compares in single precision, too coarse for figures derived from nanoseconds. */
#define assert_close(got, want, rel) assert_close_at((got), (want), (rel), #got, __FILE__, __LINE__)
void assert_close_at(double got, double want, double rel, const char *what, const char *file, int line);

#endif
