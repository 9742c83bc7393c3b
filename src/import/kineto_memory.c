/* PyTorch's memory events in a Kineto trace (torch.profiler with profile_memory=True): an instant
 * "[memory]" per allocation and free of the caching allocator, its args
 *   {"Total Reserved": 2097152, "Total Allocated": 1048576, "Bytes": 4096, "Addr": 139637976727552,
 *    "Device Id": 0, "Device Type": 1, "Ev Idx": 12}
 * Bytes positive for an allocation, negative for a free; the totals are the allocator's own
 * account after it (what torch.cuda.memory_allocated() and memory_reserved() say), which the
 * analysis takes as the live and reserved bytes of the device: an allocation made before the
 * profiler started is in them though its event is not. Device Type 1 is CUDA (c10::DeviceType);
 * CPU memory (type 0, Device Id -1) is host memory and is left out, counted. */
#include <string.h>

#include "kineto_reader.h"

#define EXACT 9007199254740992.0 /* 2^53: the integers a JSON number holds exactly */

/* An optional integer arg within [lo, hi] into *out (untouched where absent). */
static bool arg(kineto_reader *r, const cJSON *args, const char *key, double lo, double hi, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!v)
        return true;
    if (!cJSON_IsNumber(v))
        return kr_bad_event(r, "args.%s is %s, not a number", key, kr_type_name(v));
    if (!(v->valuedouble >= lo && v->valuedouble <= hi) || v->valuedouble != (double)(int64_t)v->valuedouble)
        return kr_bad_event(r, "args.%s %.17g is not a whole number in range", key, v->valuedouble);
    *out = v->valuedouble;
    return true;
}

bool kr_read_memory(kineto_reader *r, const cJSON *args, uint32_t pid, uint32_t tid, int64_t ts)
{
    double type = -1, device = -1, addr = 0, bytes = 0, allocated = -1, reserved = -1;
    if (!arg(r, args, "Device Type", -1, 255, &type) || !arg(r, args, "Device Id", -1, 4294967295.0, &device) ||
        !arg(r, args, "Addr", 0, EXACT, &addr) || !arg(r, args, "Bytes", -EXACT, EXACT, &bytes) ||
        !arg(r, args, "Total Allocated", -1, EXACT, &allocated) || !arg(r, args, "Total Reserved", -1, EXACT, &reserved))
        return false;
    if (!cJSON_GetObjectItemCaseSensitive(args, "Bytes"))
        return kr_bad_event(r, "a [memory] event without args.Bytes");
    if (type != 1 || device < 0) {
        r->host_memory_events++;
        return true;
    }
    if (bytes == 0)
        return true; /* nothing allocated or freed */
    memory_activity *m = &r->m->memory;
    mem_event e = {
        .ts_ns = ts, .address = (uint64_t)addr, .bytes = (uint64_t)(bytes < 0 ? -bytes : bytes),
        .pool_size = -1, .total_allocated = (int64_t)allocated, .total_reserved = (int64_t)reserved,
        .pid = pid, .tid = tid, .device = (uint32_t)device,
        .allocator = memory_name(m, "PyTorch caching allocator"),
        .op = bytes < 0 ? MEMOP_FREE : MEMOP_ALLOC, .kind = MEM_DEVICE,
    };
    if (e.allocator < 0 || !memory_add_event(m, &e))
        return kr_no_memory(r);
    return true;
}
