/* What `mmprof profile --delay/--duration/--capture-range` asks of the injection library: when
 * its capture window(s) open and close. The launcher parses the options into a capture_config
 * and hands it over as environment variables (capture_config_setenv); the library reads them back
 * (capture_config_from_env) in the program. One definition of the settings and their checks, so
 * the two sides cannot disagree. Plain C, no CUPTI: the CLI and the tests use it too.
 *
 * The behaviour is nsys's (--delay, --duration, --capture-range cudaProfilerApi / nvtx with
 * --capture-range-end repeat:N), except that the program is never ended: the window closes and the
 * program runs on at near-native speed (nsys's --kill none). */
#ifndef MMPROF_CAPTURE_CONFIG_H
#define MMPROF_CAPTURE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    CAPTURE_ALL = 0,       /* no capture option: everything, from cuInit to exit */
    CAPTURE_TIME,          /* --delay and/or --duration: one window, by the clock */
    CAPTURE_CUDA_PROFILER, /* --capture-range cuda-profiler: between cudaProfilerStart and Stop */
    CAPTURE_NVTX,          /* --capture-range nvtx:NAME[@DOMAIN]: during instances of that range */
    CAPTURE_MANUAL,        /* --capture-range manual: between `mmprof capture start` and `stop`
                            * (capture_control.h) */
} capture_mode;

#define CAPTURE_NAME_MAX 256

typedef struct {
    capture_mode mode;
    int64_t start_ns;    /* the launcher's clock (CLOCK_REALTIME) when it started the program: what
                          * --delay and --duration count from */
    int64_t delay_ns;    /* --delay: the window opens this long after start (0: at cuInit) */
    int64_t duration_ns; /* --duration: and closes this long after it opened (0: at exit) */
    char nvtx_name[CAPTURE_NAME_MAX];   /* the range's message */
    char nvtx_domain[CAPTURE_NAME_MAX]; /* its domain; "" is NVTX's default domain */
    long count;          /* --capture-count: windows to record (ranges: instances); default 1 */
    long skip;           /* --capture-skip: instances passed over first (warm-up) */
    uint64_t max_bytes;  /* --max-size: recording stops when the job's record files reach this
                          * many bytes (0: no cap); alone, it makes one window from CUDA's start
                          * (CAPTURE_TIME without delay or duration) */
} capture_config;

/* The variables capture_config_setenv sets. */
#define CAPTURE_ENV_START "MMPROF_CAPTURE_START_NS"
#define CAPTURE_ENV_DELAY "MMPROF_CAPTURE_DELAY_NS"
#define CAPTURE_ENV_DURATION "MMPROF_CAPTURE_DURATION_NS"
#define CAPTURE_ENV_RANGE "MMPROF_CAPTURE_RANGE"
#define CAPTURE_ENV_COUNT "MMPROF_CAPTURE_COUNT"
#define CAPTURE_ENV_SKIP "MMPROF_CAPTURE_SKIP"
#define CAPTURE_ENV_MAX_BYTES "MMPROF_CAPTURE_MAX_BYTES"

#define CAPTURE_MAX_SECONDS 604800.0 /* --delay and --duration: at most a week */
#define CAPTURE_MAX_COUNT 1000000L

void capture_config_init(capture_config *c); /* CAPTURE_ALL, count 1 */

/* --capture-range's value: "cuda-profiler", "manual" or "nvtx:NAME[@DOMAIN]" (the last '@'
 * splits; NAME must not be empty). False with the reason in why. */
bool capture_parse_range(const char *arg, capture_config *c, char *why, size_t len);

/* Sets the variables for c (none for CAPTURE_ALL); false when setenv failed. */
bool capture_config_setenv(const capture_config *c);

/* Reads them back; a variable that is missing or malformed leaves CAPTURE_ALL (record everything:
 * a profiler that cannot tell what was asked must not record nothing). */
void capture_config_from_env(capture_config *c);

/* What was asked, in words for the report and the stream's capconf line: "the first 2 instances of
 * NVTX range step (domain train) after skipping 1", "from 2 s after launch for 5 s". */
void capture_describe(const capture_config *c, char *out, size_t len);

/* A size in words: "500 MiB", "1.5 GiB", "2 KiB", "1 B" (powers of 1024, as --max-size reads). */
void capture_size_words(uint64_t bytes, char *out, size_t len);

#endif
