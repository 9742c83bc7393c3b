/* What `mmprof profile --no-sample / --sample-rate HZ` asks of the injection library's host
 * sampler (inject_sampler.c, docs/host-sampling.md), named once for the launcher and the library. */
#ifndef MMPROF_SAMPLE_CONFIG_H
#define MMPROF_SAMPLE_CONFIG_H

/* The rate in Hz, decimal; 0: no sampling (--no-sample). Unset: SAMPLE_DEFAULT_HZ. */
#define SAMPLE_ENV_HZ "MMPROF_SAMPLE_HZ"
/* 100 Hz: a look every 10 ms, which names a stretch of 50 ms by five looks; its cost on the H200
 * is in docs/host-sampling.md (make bench). */
#define SAMPLE_DEFAULT_HZ 100
#define SAMPLE_MAX_HZ 1000
/* For the cost benchmark only (tests/bench_host_ab.py), not an option of profile: "python" or
 * "cpu" turns that mechanism of the sampler off, so its share of the cost can be told apart. With
 * "python" the look still runs as under --no-sample (every 100 ms, no sample written): it fills the
 * code cache that call sites name Python frames from, without which they would all be native. */
#define SAMPLE_ENV_OFF "MMPROF_SAMPLE_OFF"
/* For the cost benchmark only (tests/bench_host_ab.py), not an option of profile: a path. While
 * that file exists, sampling and call sites are off as under --no-sample with MMPROF_SITES=0 (CPU
 * timers disarmed, the sites' CUPTI callbacks disabled), so one process times steps with them on
 * and off in alternate blocks; each switch is an "abswitch TS on|off" line in the stream. */
#define SAMPLE_ENV_AB "MMPROF_AB_FILE"

#endif
