/* The GPU's state while a built-in workload was measured: clocks against their maxima, power,
 * temperature, why the clocks were held down, and other processes on the GPU. Read through NVML
 * (src/collect/nvml.c) around each GPU workload; a run file carries it per workload so a report
 * or a comparison can tell a slow kernel from a throttled or shared GPU. */
#ifndef MMPROF_DEVICE_STATE_H
#define MMPROF_DEVICE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One NVML reading. Clocks in MHz, power in mW, temperature in degrees C. */
typedef struct {
    int sm_mhz, mem_mhz;
    int power_mw;
    int temp_c;
} device_reading;

#define DEVICE_STATE_MAX_PIDS 8

typedef struct {
    bool recorded;  /* sampled (or tried to be) for this workload; false for CPU workloads,
                     * skipped ones and run files written before device state existed */
    bool valid;     /* NVML answered; reason says why not when !valid */
    char reason[200];
    int sm_clock_max_mhz, mem_clock_max_mhz; /* nvmlDeviceGetMaxClockInfo */
    int power_limit_mw;                       /* enforced limit, 0 when NVML gave none */
    int samples;    /* readings from "before" to "after" */
    device_reading before, after; /* the last reading before the compute phase, the first after */
    uint64_t before_reasons, after_reasons; /* clock event (throttle) reasons of those two */
    device_reading low, high;     /* lowest and highest of each figure from before to after */
    int busy_sm_min_mhz;          /* lowest SM clock among readings NVML did not mark "gpu idle";
                                   * -1 when every reading was idle */
    uint64_t reasons;             /* every reason seen from before to after (bitwise or) */
    int other_pids;               /* the most processes other than mmprof with a compute context
                                   * on the GPU at one reading */
    uint32_t other_pid[DEVICE_STATE_MAX_PIDS]; /* the first few of them */
} device_state;

/* NVML's clock event reason bits (nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*). */
#define CLOCK_REASON_GPU_IDLE        0x1ull
#define CLOCK_REASON_APP_CLOCKS      0x2ull
#define CLOCK_REASON_SW_POWER_CAP    0x4ull
#define CLOCK_REASON_HW_SLOWDOWN     0x8ull
#define CLOCK_REASON_SYNC_BOOST      0x10ull
#define CLOCK_REASON_SW_THERMAL      0x20ull
#define CLOCK_REASON_HW_THERMAL      0x40ull
#define CLOCK_REASON_HW_POWER_BRAKE  0x80ull
#define CLOCK_REASON_DISPLAY_CLOCKS  0x100ull

/* The name of reason bit i (0..63), e.g. "sw power cap"; NULL for a bit NVML does not define. */
const char *clock_reason_name(int bit);
/* The same, or "bit N" (written to buf) for a bit NVML does not define. */
const char *clock_reason_label(int bit, char buf[16]);
/* The names of every set bit, joined with ", " ("none" when mask is 0; an unknown bit as
 * "bit N"). */
void clock_reasons_text(uint64_t mask, char *buf, size_t len);
/* The bit of a name clock_reason_name gives; false for another string. */
bool clock_reason_parse(const char *name, uint64_t *bit);

#ifdef __cplusplus
}
#endif

#endif
