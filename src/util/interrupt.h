/* SIGINT and SIGTERM during a run: nothing left behind, the GPU released, exit 128 + signal
 * (130 for ^C, 143 for kill).
 *
 * Without a GPU in use the handler ends the process itself (after the cleanup hook removes a
 * temporary output file): a CPU product can run for seconds inside OpenBLAS, where no flag would
 * be seen. While a GPU is in use the handler only records the signal; the runner sees it between
 * workloads, resets the device and returns, and main exits. A second signal ends the process at
 * once. */
#ifndef MMPROF_INTERRUPT_H
#define MMPROF_INTERRUPT_H

#include <stdbool.h>

/* Installs the handlers. cleanup (may be NULL) must be async-signal-safe. */
void interrupt_install(void (*cleanup)(void));

/* While on, a signal is recorded for interrupt_pending() instead of ending the process. */
void interrupt_defer(bool on);

/* The signal received (SIGINT or SIGTERM), or 0. */
int interrupt_pending(void);

/* The exit status for the signal received: 128 + its number. */
int interrupt_status(void);

#endif
