/* Sampling until the noise is low enough or the time is up. See sampling.h. */
#include "sampling.h"

#include "stats.h"

/* The next batch: up to the minimum first, then as many again as taken (few synchronizations on
 * a GPU, and the noise is checked often enough early on), never past the cap or, by the expected
 * sample time, past the time left. */
static int next_batch(const sample_rule *r, int taken, double est_ms, double elapsed_ms)
{
    int want = taken < r->min_samples ? r->min_samples - taken : taken;
    if (want < 1)
        want = 1;
    if (want > r->max_samples - taken)
        want = r->max_samples - taken;
    if (est_ms > 0) {
        double left = r->max_time_ms - elapsed_ms;
        int fit = left > est_ms ? (int)(left / est_ms) : 1;
        if (want > fit)
            want = fit;
    }
    return want;
}

int sample_until(const sample_rule *r, double est_ms, sample_take_fn take, sample_clock_fn now, void *ctx,
                 double *ms, sample_result *out)
{
    out->samples = 0;
    out->noise_pct = -1;
    out->stopped_by = STOP_UNKNOWN;
    if (r->fixed > 0) {
        if (take(ctx, 0, r->fixed, ms) != 0)
            return -1;
        out->samples = r->fixed;
        out->noise_pct = relative_noise_pct(ms, r->fixed);
        out->stopped_by = STOP_REPEAT;
        return 0;
    }
    double t0 = now(ctx);
    int taken = 0;
    for (;;) {
        int count = next_batch(r, taken, est_ms, now(ctx) - t0);
        if (take(ctx, taken, count, ms + taken) != 0)
            return -1;
        taken += count;
        out->samples = taken;
        out->noise_pct = relative_noise_pct(ms, taken);
        if (taken >= r->min_samples && out->noise_pct >= 0 && out->noise_pct <= r->max_noise_pct) {
            out->stopped_by = STOP_NOISE;
            return 0;
        }
        if (taken >= r->max_samples) {
            out->stopped_by = STOP_MAX_SAMPLES;
            return 0;
        }
        if (taken >= 2 && now(ctx) - t0 >= r->max_time_ms) {
            out->stopped_by = STOP_TIME;
            return 0;
        }
    }
}
