/* memory_activity (memory_activity.h) in the run file: the "memory" member, written and read apart
 * from the rest of model_json.c, as host_json.c does for the host activity, and in its way: every
 * record an array of values in a fixed order (a trace of PyTorch's caching allocator holds an
 * event per tensor):
 *   "memory": {"names": ["libtorch_cuda.so", "cudaMalloc", ...], "nvml_why": "...",
 *     "events":   [[ts_ns, op, kind, pid, tid, device, stream, correlation, address, bytes,
 *                   allocator, pool, pool_size, total_allocated, total_reserved], ...],
 *     "pools":    [[ts_ns, op, pid, device, correlation, managed, address, size, utilized,
 *                   release_threshold], ...],
 *     "failures": [[ts_ns, pid, tid, device, correlation, kind, bytes, error, api, error_name,
 *                   live_count, live_bytes, untracked, nlive], ...],
 *     "live":     [[frame, device, kind, count, bytes], ...],
 *     "samples":  [[ts_ns, pid, device, used, total], ...]}
 * op "alloc" | "free" (pools: "created" | "destroyed" | "trimmed"); kind "unknown", "pageable",
 * "pinned", "device", "array" or "managed"; allocator, api and error_name index names (null: not
 * known); pool_size, total_allocated and total_reserved null where not given; an address (and a
 * pool's) a number, or a "0x..." string past 2^53, which a JSON number would round; live_count,
 * live_bytes and untracked null where the failure came without its live set; each failure's nlive
 * groups follow the previous failure's in "live", each frame an index into host_activity.frames
 * of the failure's process (-1: not known). Times relative to epoch_ns, as the events'. A run
 * without memory data has no such member, so files from before it read as they did. */
#ifndef MMPROF_MEMORY_JSON_H
#define MMPROF_MEMORY_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "host_json.h"
#include "json_writer.h"
#include "memory_activity.h"

/* Writes m as the open object's "memory" member, or nothing when m is empty. False when memory ran
 * out. */
bool memory_json_write(const memory_activity *m, int64_t epoch, json_writer *w);

/* Reads root's "memory" member into m (empty where absent); its "events" and "samples" from split
 * where it has them (host_json.h's way; NULL: all from the tree). h: the host activity read
 * before it, whose frames the live groups name. On failure returns false with err saying where
 * ("memory.events[3][1]: expected \"alloc\" or \"free\"") and leaves what was read in m for the
 * caller to free. */
bool memory_json_read(const cJSON *root, int64_t epoch, const host_split *split, const host_activity *h,
                      memory_activity *m, char *err, size_t errlen);

#endif
