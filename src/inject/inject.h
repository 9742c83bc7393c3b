/* Internals of libmmprof_inject.so, the library `mmprof profile` injects into the program it
 * runs (CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH both name it). Each part appends lines of
 * the record stream (stream_format.h) to this process's file. Nothing here is visible outside
 * the library: it is built with hidden visibility and exports only the two entry points. */
#ifndef MMPROF_INJECT_H
#define MMPROF_INJECT_H

#include <cupti.h>
#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"

/* CLOCK_REALTIME in nanoseconds: the clock CUPTI's timestamps are on. */
int64_t inject_now_ns(void);

/* The calling thread's kernel id (gettid), cached per thread. */
uint32_t inject_tid(void);

/* Appends b's lines to this process's stream with one write(2), so a line is never split by
 * another thread's and a process killed afterwards keeps them. Opens the file on first use (and
 * again in a forked child, under the child's pid). Empties b. False when the stream cannot be
 * written (no MMPROF_PROFILE_DIR, or the write failed): the program goes on unprofiled. */
bool inject_emit(strbuf *b);

/* Adds a "thread" line for tid the first time tid is seen in this process. */
void inject_thread_name(strbuf *b, uint32_t tid);
/* The same for the calling thread, checked without a lock after its first time. */
void inject_name_this_thread(strbuf *b);

/* Adds a "device" line for the CUDA device ordinal (the driver's attributes), once per device. */
void inject_device(strbuf *b, uint32_t device);

/* The PCI bus id of a device a "device" line described, into bus; false when none was. */
bool inject_device_bus(uint32_t device, char *bus, size_t len);

/* GPU memory (inject_memory.c, docs/memory.md). init reads MMPROF_MEMORY once (0: off) and says
 * whether memory is collected; on: and not paused by the cost benchmark; enable subscribes to the
 * allocation and free calls; callback handles them (call sites of allocations, the live set, a
 * failed allocation written at once with it); pause: the cost benchmark's switch (MMPROF_AB_FILE
 * with MMPROF_AB_ONLY=memory), the callbacks and the memory records off while paused. tick, from
 * the flusher every period: the devices' memory through NVML at a low rate
 * (inject_memory_nvml.c). */
bool inject_memory_init(void);
bool inject_memory_on(void);
void inject_memory_enable(CUpti_SubscriberHandle subscriber);
void inject_memory_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);
void inject_memory_pause(bool pause);
void inject_memory_tick(int64_t now);
/* A context was created: the device each thread remembers for its last context is asked again
 * (a new context may have a destroyed one's address). */
void inject_memory_context_created(void);
/* CUPTI's memory and memory-pool records wanted or not (inject_kinds.c): on with the other kinds
 * while tracing, from inject_memory_enable until a pause. */
void inject_memory_kinds(bool on);

/* The bound on each wait when the process leaves through _exit or a signal. */
#define INJECT_EXIT_FLUSH_MS 1000

/* Hands over the records CUPTI still holds and marks the exit (inject_cuda.c); sig: the terminating
 * signal that asked, 0 otherwise. Once per process; wait_ms bounds each wait (0: unbounded). */
void inject_finish(long wait_ms, int sig);

/* Takes SIGTERM, SIGINT and SIGHUP where they are still at their default, so a process they end
 * flushes first (finish: inject_finish) and then dies of the signal as before (inject_signal.c). */
void inject_catch_signals(void (*finish)(long wait_ms, int sig));

/* Which CUPTI activity kinds are on (inject_kinds.c). set_tracing turns the record kinds (and the
 * memory kinds with them) on or off, for the capture windows; before ready it only records the
 * wish, which ready then follows; turning off asks for a flush at once (flush_soon), so a window's
 * records are in the stream soon after it closes. ready: the buffer callbacks are registered, and
 * tracing starts now where now (no capture, or a window already open). collecting: some kind was
 * enabled. The errors of CUPTI calls go to the stream as "error" lines with CUPTI's own words. */
void inject_set_tracing(bool on);
void inject_kinds_ready(bool now, void (*flush_soon)(void));
bool inject_kinds_collecting(void);
void inject_cupti_error(const char *what, CUptiResult r);

/* The capture windows of profile --delay/--duration/--capture-range (inject_capture.c). init
 * reads the launcher's variables once (from the CUDA or the NVTX entry point, whichever runs
 * first) and says whether a capture was asked for; tracing_now whether tracing should be on now
 * (always without a capture); cuda_ready subscribes to what opens and closes windows and starts
 * the --delay timer; the nvtx hooks see every push (id 0) or start, pop or end with the thread's
 * depth before the push and after the pop; finish closes an open window as the program ends and
 * writes the count of calls made outside windows (wait_ms bounds the wait for the timer). */
bool inject_capture_init(void);
bool inject_capture_tracing_now(void);
void inject_capture_cuda_ready(CUpti_SubscriberHandle subscriber);
void inject_capture_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);
void inject_capture_nvtx_open(uint32_t tid, int depth, uint64_t id, const char *domain, const char *name);
void inject_capture_nvtx_close(uint32_t tid, int depth, uint64_t id);
void inject_capture_finish(long wait_ms);
/* `mmprof capture start|stop` (start true/false), the profile's number-th command; before_cuda:
 * the command came before this process initialised CUDA. And --max-size reached: the window
 * closes for good (capped_ns when the job's records reached max_bytes). Both under cap's lock;
 * called from the flusher thread, never from a CUPTI callback. */
void inject_capture_command(bool start, uint64_t number, bool before_cuda);
void inject_capture_capped(int64_t capped_ns, uint64_t max_bytes);

/* The profile's control block (inject_control.c, capture_control.h). wrote adds the bytes this
 * process appended to its stream to the job's total; capped says whether the total reached
 * --max-size (then NVTX lines are no longer written); pending returns a command not yet applied
 * (1 start, 0 stop, -1 none) and marks it applied. inject_capture_poll (inject_capture.c), from
 * the flusher every period, applies both to the capture windows. */
void inject_control_wrote(size_t bytes);
bool inject_control_capped(void);
uint64_t inject_control_max_bytes(void);
int64_t inject_control_capped_ns(void);
int inject_control_pending(uint64_t *number);
void inject_capture_poll(void);

/* Hardware counters of chosen launches (inject_counters.c). init reads the launcher's variables
 * and says whether counters were asked for; enable subscribes to the driver's launch calls;
 * callback handles them. */
bool inject_counters_init(void);
void inject_counters_enable(CUpti_SubscriberHandle subscriber);
void inject_counters_callback(CUpti_CallbackId cbid, const CUpti_CallbackData *d);
/* Whether the launch of this correlation id was profiled (its kernel record has no timestamps). */
bool inject_counters_replayed(uint32_t correlation);

/* Host stacks (docs/host-sampling.md): sites_enable subscribes to the launch, copy, memset and
 * synchronisation calls (MMPROF_SITES=0: not) and sites_callback writes each one's call site
 * (inject_sites.c); sampler_start starts the sampler thread at MMPROF_SAMPLE_HZ (inject_sampler.c);
 * host_finish stops it and writes what waits in the host buffer, wait_ms bounding the wait. */
void inject_sites_enable(CUpti_SubscriberHandle subscriber);
void inject_sites_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);
void inject_sampler_start(void);
void inject_host_finish(long wait_ms);

#endif
