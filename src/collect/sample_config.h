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
/* For the cost benchmark only (tests/bench_host.py), not an option of profile: "python" or "cpu"
 * turns that mechanism of the sampler off, so its share of the cost can be told apart. */
#define SAMPLE_ENV_OFF "MMPROF_SAMPLE_OFF"

#endif
