/* The thread that owns the GPU in a single-device run.
 *
 * The GPU runner keeps its state per host thread (thread_local in cuda/: the stream, buffers,
 * events, cuBLAS handle), so that --devices can drive each GPU from a thread of its own. The
 * watchdog (--timeout) needs to stop waiting for a GPU call that hangs without taking that state
 * away from the thread that made it. So in a single-device run every GPU call goes through this
 * one thread: the runner hands it a task and waits, bounded where the call is a workload. */
#ifndef MMPROF_DEVICE_THREAD_H
#define MMPROF_DEVICE_THREAD_H

#include <stdbool.h>

typedef void (*device_task)(void *arg);

/* Starts the thread. False when it could not be made: tasks then run on the caller's thread. */
bool device_thread_start(void);

/* Runs task(arg) on the device thread and waits at most timeout_s seconds (0: as long as it
 * takes). True when it returned. False when it did not in time: the thread is left with it (and
 * with arg, which must outlive the call), and every later call returns false at once. */
bool device_thread_call(device_task task, void *arg, int timeout_s);

/* True once a call was abandoned. */
bool device_thread_hung(void);

/* Ends the thread and waits for it; nothing when it hangs or was never started. */
void device_thread_stop(void);

#endif
