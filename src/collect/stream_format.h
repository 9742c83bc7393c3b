/* The record stream `mmprof profile` collects: one file per process, written by the injection
 * library (libmmprof_inject.so) inside the profiled program and read back by the launcher.
 *
 * Why a line format of its own, not JSON: the library runs inside someone else's program and
 * must need nothing but libc and libcupti (the program may have no cJSON), and timestamps are
 * nanoseconds on CLOCK_REALTIME (about 1.8e18), which a JSON reader holding numbers as doubles
 * would round. Every line is complete or absent: a process that crashes mid-write leaves a last
 * line without its newline, which the reader drops and counts.
 *
 * File: MMPROF_PROFILE_DIR/<pid>.stream. Lines are tab-separated fields, the first naming the
 * line. Text fields (names, command lines) come last or are escaped: backslash, tab, newline and
 * carriage return become \\ \t \n \r. Integers are decimal. Times are CLOCK_REALTIME ns (CUPTI's
 * timestamps are on that clock on Linux).
 *
 *   mmprof-stream 1                                   first line: format and version
 *   process PID PPID START_NS CMDLINE                 CMDLINE: the arguments joined by spaces
 *   rank    RANK WORLD LOCAL SOURCE HOST              the launcher's rank variables (-1: unset),
 *                                                     the variable read, the host's name
 *   thread  TID NAME
 *   cuda    TS                                         InitializeInjection ran (cuInit)
 *   device  ID CC_MAJ CC_MIN SMS CLOCK_KHZ MEM_CLOCK_KHZ BUS_WIDTH L2 THREADS_PER_BLOCK
 *           THREADS_PER_SM BLOCKS_PER_SM REGS_PER_SM REGS_PER_BLOCK SMEM_PER_SM SMEM_PER_BLOCK
 *           SMEM_OPTIN SMEM_RESERVED WARP GLOBAL_MEM DRIVER_VERSION PCI_BUS_ID NAME
 *   kernel  START END DEVICE STREAM CORR GX GY GZ BX BY BZ REGS SSMEM DSMEM OPTIN LMEM NAME
 *   copy    START END DEVICE STREAM CORR DIR SRC DST BYTES
 *   memset  START END DEVICE STREAM CORR MEM BYTES
 *   api     START END KIND TID CORR NAME              KIND: 0 runtime, 1 driver
 *   sync    START END KIND STREAM CORR
 *   stats   RECORDS DROPPED LOST OVERHEAD_RECORDS OVERHEAD_NS   per buffer; the reader sums
 *   error   MESSAGE                                   the library could not do something
 *   push    TS TID DOMAIN NAME                        NVTX push/pop range (DOMAIN empty: default)
 *   pop     TS TID DOMAIN
 *   start   TS TID ID DOMAIN NAME                     NVTX start/end range, ID unique per process
 *   end     TS TID ID
 *   exit    TS                                        the atexit handler flushed everything
 *   ctrconf MAX REGEX                                 profile --counters: at most MAX launches
 *                                                     (-1: all), kernels matching REGEX ("" all)
 *   replayed COUNT                                    kernel records of profiled launches, which
 *                                                     came without timestamps (kernel replay)
 *   counters CORR DEVICE V0 ... V18 NAME              one profiled launch: model.h's counter_id
 *                                                     order, "nan" where not collected; NAME
 *                                                     demangled
 *   capconf TEXT                                      profile --delay/--duration/--capture-range:
 *                                                     what was asked, in words (capture_config.h)
 *   capture TS EDGE WINDOW REASON CALLS DETAIL        a capture window's begin or end (EDGE), its
 *                                                     number WINDOW from 1, REASON one word (delay,
 *                                                     start, duration, cuda-profiler-start,
 *                                                     cuda-profiler-stop, nvtx-begin, nvtx-end,
 *                                                     exit), CALLS the CUDA runtime calls made
 *                                                     outside windows so far, DETAIL in words.
 *                                                     Begin is timed before tracing starts, end
 *                                                     after it stopped
 *   capcalls TS CALLS                                 at exit: the CUDA runtime calls made outside
 *                                                     every window
 *   frame   ID PARENT KIND LINE OFFSET FUNCTION FILE MODULE
 *                                                     a node of the host call tree (host_activity.h):
 *                                                     ID from 1, unique in the process, written
 *                                                     before any line names it; PARENT the caller's
 *                                                     node (0: outermost). KIND py: LINE, FUNCTION
 *                                                     (co_qualname, else co_name), FILE, OFFSET 0,
 *                                                     MODULE "". KIND native: LINE 0, OFFSET of
 *                                                     (return address - 1) from the module's load
 *                                                     base, FUNCTION dladdr's symbol ("": none),
 *                                                     FILE "", MODULE its path (the executable's
 *                                                     real path for the main program)
 *   site    CORR NODE                                 the host stack (innermost NODE) of the CUDA
 *                                                     call with correlation id CORR
 *   sample  TS TID NODE SOURCE STATE                  a look at thread TID: NODE its innermost node
 *                                                     (0: no stack), SOURCE cpu (a CPU-time timer
 *                                                     fired on it) | py (the Python sampler's wall-
 *                                                     clock look), STATE the kernel's state letter
 *                                                     (R, S, D...; "-" unknown)
 *   sampler HZ MECHANISM DETAIL                       once per process: the rate asked (0: none
 *                                                     ran), how, in a few words ("cpu-timer",
 *                                                     "off"), and why it fell back or was off
 *                                                     (DETAIL, "" when it did not)
 *   sitestat TAKEN SKIPPED [OFF_NS]                   at exit: calls whose host stack was taken,
 *                                                     calls left without one to hold the cost of
 *                                                     sites, and the time the sites' callbacks
 *                                                     were off for it (host_collect_stats)
 *   hspan   START END TID NODE NAME                   host work the thread's stack does not show, as
 *                                                     Python told it: NAME "gc" (a garbage
 *                                                     collection, gc.callbacks) or "time.sleep" (the
 *                                                     library's wrapper of it);
 *                                                     NODE the thread's Python stack then (0: none)
 *   samplestat NOGIL GIL LEFT_OUT TORN                at exit, Python programs: looks without and
 *                                                     with the GIL; thread samples left out (a
 *                                                     code object not named yet), torn reads
 *   mem     TS OP KIND DEVICE STREAM CORR ADDR BYTES POOL POOL_SIZE SOURCE
 *                                                     a memory record (CUPTI's MEMORY2): OP alloc |
 *                                                     free, KIND model.h's mem_kind number, CORR the
 *                                                     allocating call's, POOL the stream-ordered
 *                                                     pool's address (0: none) and POOL_SIZE its size
 *                                                     then (-1: none), SOURCE the library CUPTI names
 *                                                     as the one that asked ("" not named)
 *   mempool TS OP DEVICE CORR ADDR SIZE UTILIZED THRESHOLD MANAGED
 *                                                     a memory pool created, destroyed or trimmed
 *                                                     (OP), its size and bytes in use after it,
 *                                                     MANAGED 1 for a pool of managed memory
 *   memfail TS TID DEVICE CORR KIND BYTES ERROR COUNT LIVE UNTRACKED API ERRNAME
 *                                                     an allocation call that failed (its return, in
 *                                                     the library's callback): BYTES asked, ERROR the
 *                                                     CUDA error code; the live set the library held
 *                                                     then (COUNT allocations, LIVE bytes; UNTRACKED
 *                                                     ones it could not hold, its table full); API the
 *                                                     call, ERRNAME the error's name ("" unknown)
 *   memlive CORR NODE DEVICE KIND COUNT BYTES         one group of that live set, after its memfail:
 *                                                     the allocations of call site NODE (0: none
 *                                                     taken), device and kind
 *   memnvml TS DEVICE USED TOTAL                      the device's memory as NVML reads it, everyone's
 *   memnvmloff REASON                                 once: NVML could not be read, and why
 *   A site or sample naming a node no frame line gave is malformed (counted, skipped).
 *
 * A reader skips lines it does not know, so later versions may add some. */
#ifndef MMPROF_STREAM_FORMAT_H
#define MMPROF_STREAM_FORMAT_H

#include "model.h"
#include "strbuf.h"

#define STREAM_MAGIC "mmprof-stream"
#define STREAM_VERSION 1
#define STREAM_SUFFIX ".stream"
#define STREAM_DIR_ENV "MMPROF_PROFILE_DIR"

/* s escaped as a stream text field; NULL adds nothing (an empty field). */
void stream_escape(strbuf *b, const char *s);
/* Undoes stream_escape in place. */
void stream_unescape(char *s);

/* The kernel, copy, memset, api and sync lines of e (its pids are not written: the file is the
 * process's). */
void stream_format_events(strbuf *b, const event_list *e);

/* The device line of d. */
void stream_format_device(strbuf *b, const device_info *d);

/* A capture window's begin or end line (profile --delay/--duration/--capture-range): window its
 * number from 1, reason one word, calls the CUDA runtime calls made outside windows so far,
 * detail in words. */
void stream_format_capture(strbuf *b, int64_t ts, bool begin, int window, const char *reason, uint64_t calls,
                           const char *detail);

/* The host activity lines (frame, site, sample, sampler), as the reader takes them: id and
 * parent are the process's node ids (parent 0: outermost), node 0 a sample without a stack,
 * state 0 unknown. */
void stream_format_frame(strbuf *b, uint64_t id, uint64_t parent, const host_frame *f);
void stream_format_site(strbuf *b, uint32_t correlation, uint64_t node);
void stream_format_sample(strbuf *b, int64_t ts, uint32_t tid, uint64_t node, host_sample_source source, char state);
void stream_format_sampler(strbuf *b, double hz, const char *mechanism, const char *detail);
void stream_format_hspan(strbuf *b, int64_t start, int64_t end, uint32_t tid, uint64_t node, const char *name);
/* The sitestat line where st has sites' counts, the samplestat line where it has looks'. */
void stream_format_host_stats(strbuf *b, const host_collect_stats *st);

/* The memory lines (memory_activity.h): the mem and mempool lines of m's events and pools (their
 * pids are not written); a failed allocation's memfail line, api and errname its call's and
 * error's names (errname NULL: unknown); one memlive group of its live set (node 0: no site); an
 * NVML reading. */
void stream_format_memory(strbuf *b, const memory_activity *m);
void stream_format_memfail(strbuf *b, const mem_failure *f, const char *api, const char *errname);
void stream_format_memlive(strbuf *b, uint32_t correlation, uint64_t node, uint32_t device, int kind, uint64_t count,
                           uint64_t bytes);
void stream_format_memnvml(strbuf *b, int64_t ts, uint32_t device, uint64_t used, uint64_t total);

#endif
