/* The GPU's state during each measurement, through NVML (libnvidia-ml.so.1, opened with dlopen so
 * mmprof runs, and says why the state is n/a, where the driver's library is missing).
 *
 * A watch samples one device: a reading when a workload begins, one every period_ms on a thread
 * while it runs, one when it ends. nvml_watch_end keeps the readings around the workload's compute
 * phase: the last before it, every one inside, the first after (device_state.h). Readings are
 * stamped with the caller's clock (the collector's), the clock the phases are on.
 *
 * MMPROF_NVML_LIBRARY names another library to open instead; it exists for the tests, which point
 * it at a fake NVML (tests/fake_nvml.c). */
#ifndef MMPROF_NVML_H
#define MMPROF_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct nvml_watch nvml_watch;

/* Loads NVML, initialises it and finds the device with this PCI bus id ("0000:65:00.0").
 * period_ms 0 samples only when asked (nvml_watch_begin, nvml_watch_sample, nvml_watch_end).
 * Returns NULL with the reason in why ("libnvidia-ml.so.1 not found: <dlerror>", NVML's error). */
nvml_watch *nvml_watch_open(const char *pci_bus_id, int period_ms, int64_t (*now)(void), char *why, size_t len);
void nvml_watch_close(nvml_watch *w);

/* Drops earlier readings, takes one and starts the sampling thread. */
void nvml_watch_begin(nvml_watch *w);
/* One reading now (tests; the thread calls the same). */
void nvml_watch_sample(nvml_watch *w);
/* Stops the thread, takes a last reading and fills wl->device_state from the readings around the
 * compute phase of wl (its whole span when it has none). With w NULL, marks the state n/a with why. */
void nvml_watch_end(nvml_watch *w, workload_run *wl, const char *why);

/* dlopen of NVML (MMPROF_NVML_LIBRARY or libnvidia-ml.so.1); NULL with the reason in why. */
void *nvml_library_open(char *why, size_t len);

/* The link between the GPUs at two PCI bus ids, as NVML sees it (nvml_link.c): kind is "NVLink",
 * "PCIe" or "n/a"; detail says how it was read (links, NVSwitch, the PCIe path) or why it is n/a
 * (no NVML, a call that failed). */
void nvml_link(const char *bus_a, const char *bus_b, char *kind, size_t klen, char *detail, size_t dlen);

/* A reading with its time and what came with it; exposed for the reduction's tests. */
typedef struct {
    int64_t t_ns;
    device_reading r;
    uint64_t reasons;
    int npids;
    uint32_t pids[DEVICE_STATE_MAX_PIDS]; /* other processes' pids */
} nvml_sample;

/* The reduction nvml_watch_end applies: readings (in time order) around [from_ns, to_ns]. */
void device_state_reduce(const nvml_sample *s, int n, int64_t from_ns, int64_t to_ns, device_state *out);

#endif
