/* device_check.h's warnings. */
#include "device_check.h"

#include <stdio.h>
#include <string.h>

/* The SM clock fell more than CLOCK_DROP_PCT below its maximum while the GPU was busy (readings
 * NVML marked "gpu idle" do not count: an idle GPU lowers its clocks by design). */
static bool clock_dropped(const device_state *d)
{
    return d->sm_clock_max_mhz > 0 && d->busy_sm_min_mhz >= 0 &&
           d->busy_sm_min_mhz < d->sm_clock_max_mhz * (1.0 - CLOCK_DROP_PCT / 100.0);
}

bool device_state_warnings(const run_model *m, bool (*add)(void *ctx, const char *text), void *ctx)
{
    char buf[600];
    const char *na_reason = NULL;
    int na_count = 0;
    bool na_same = true;
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        const workload_run *w = &m->builtin.workloads[i];
        const device_state *d = &w->device_state;
        if (!d->recorded)
            continue;
        char label[64];
        workload_label(w, label, sizeof label);
        if (!d->valid) {
            if (na_reason && strcmp(na_reason, d->reason) != 0)
                na_same = false;
            if (!na_reason)
                na_reason = d->reason;
            na_count++;
            continue;
        }
        if (clock_dropped(d)) {
            char reasons[200];
            clock_reasons_text(d->reasons & ~CLOCK_REASON_GPU_IDLE, reasons, sizeof reasons);
            snprintf(buf, sizeof buf, "%s: SM clock fell to %d MHz during the measurement, %.0f%% below its "
                                      "maximum of %d MHz (clock event reasons: %s); its times are not the GPU's best",
                     label, d->busy_sm_min_mhz, 100.0 * (d->sm_clock_max_mhz - d->busy_sm_min_mhz) / d->sm_clock_max_mhz,
                     d->sm_clock_max_mhz, reasons);
            if (!add(ctx, buf))
                return false;
        }
        if (d->other_pids > 0) {
            char pids[120] = "";
            size_t at = 0;
            for (int p = 0; p < DEVICE_STATE_MAX_PIDS && d->other_pid[p] && at < sizeof pids; p++)
                at += (size_t)snprintf(pids + at, sizeof pids - at, "%s%u", p ? ", " : "", d->other_pid[p]);
            snprintf(buf, sizeof buf, "%s: %d other process%s used the GPU during the measurement%s%s%s; its times "
                                      "may include theirs",
                     label, d->other_pids, d->other_pids == 1 ? "" : "es", pids[0] ? " (pid " : "", pids,
                     pids[0] ? ")" : "");
            if (!add(ctx, buf))
                return false;
        }
    }
    if (na_count == 0)
        return true;
    if (na_same) {
        snprintf(buf, sizeof buf, "device state (clocks, power, other processes) n/a for %d GPU workload%s: %s",
                 na_count, na_count == 1 ? "" : "s", na_reason);
        return add(ctx, buf);
    }
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        const workload_run *w = &m->builtin.workloads[i];
        if (!w->device_state.recorded || w->device_state.valid)
            continue;
        char label[64];
        workload_label(w, label, sizeof label);
        snprintf(buf, sizeof buf, "%s: device state n/a: %s", label, w->device_state.reason);
        if (!add(ctx, buf))
            return false;
    }
    return true;
}
