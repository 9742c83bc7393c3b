/* The machine in the run file: the host, how the run was collected ("collection") and its GPUs
 * ("devices", which the events' device indices name). */
#include "model_json_parts.h"

#include <stdlib.h>

/* ---------- writing ---------- */

static cJSON *device_json(const device_info *d)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_num(o, "index", d->index) && mj_add_str(o, "name", d->name) &&
              mj_add_num(o, "cc_major", d->cc_major) && mj_add_num(o, "cc_minor", d->cc_minor) &&
              mj_add_num(o, "sm_count", d->sm_count) && mj_add_num(o, "clock_khz", d->clock_khz) &&
              mj_add_num(o, "mem_clock_khz", d->mem_clock_khz) && mj_add_num(o, "bus_width_bits", d->bus_width_bits) &&
              mj_add_num(o, "l2_bytes", d->l2_bytes) && mj_add_num(o, "total_mem", (double)d->total_mem) &&
              mj_add_num(o, "free_mem", (double)d->free_mem) &&
              mj_add_num(o, "max_threads_per_sm", d->max_threads_per_sm) &&
              mj_add_num(o, "max_threads_per_block", d->max_threads_per_block) &&
              mj_add_num(o, "max_blocks_per_sm", d->max_blocks_per_sm) &&
              mj_add_num(o, "regs_per_sm", d->regs_per_sm) && mj_add_num(o, "regs_per_block", d->regs_per_block) &&
              mj_add_num(o, "warp_size", d->warp_size) && mj_add_num(o, "smem_per_sm", (double)d->smem_per_sm) &&
              mj_add_num(o, "smem_per_block", (double)d->smem_per_block) &&
              mj_add_num(o, "smem_per_block_optin", (double)d->smem_per_block_optin) &&
              mj_add_num(o, "reserved_smem_per_block", (double)d->reserved_smem_per_block) &&
              mj_add_str(o, "pci_bus_id", d->pci_bus_id) &&
              mj_ok_add(o, "pcie_gen", d->pcie_gen > 0 ? cJSON_CreateNumber(d->pcie_gen) : cJSON_CreateNull()) &&
              mj_ok_add(o, "pcie_width", d->pcie_width > 0 ? cJSON_CreateNumber(d->pcie_width) : cJSON_CreateNull()) &&
              mj_add_str_or_null(o, "pcie_why", d->pcie_why) && mj_add_num(o, "driver_version", d->driver_version) &&
              mj_add_num(o, "runtime_version", d->runtime_version) &&
              (d->memory_bandwidth == 0 || mj_add_num(o, "memory_bandwidth", (double)d->memory_bandwidth));
    return mj_built(o, ok);
}

cJSON *make_device(const void *a, size_t i, int64_t e) { (void)e; return device_json(&((const device_info *)a)[i]); }

cJSON *host_json(const host_info *h)
{
    cJSON *o = cJSON_CreateObject();
    return mj_built(o, o && mj_add_str(o, "cpu_model", h->cpu_model) &&
                           mj_add_num(o, "logical_cores", h->logical_cores) && mj_add_bool(o, "avx2", h->has_avx2) &&
                           mj_add_bool(o, "avx512f", h->has_avx512f) && mj_add_str(o, "os", h->os));
}

cJSON *collection_json(const collection_info *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "source", timing_source_name(c->source)) &&
              mj_add_str_or_null(o, "reason", c->reason) && mj_add_num(o, "cupti_version", c->cupti_version) &&
              mj_add_num(o, "records", (double)c->records) && mj_add_num(o, "dropped", (double)c->dropped) &&
              mj_add_num(o, "lost_timestamps", (double)c->lost_timestamps) &&
              (c->replayed_kernels == 0 || mj_add_num(o, "replayed_kernels", (double)c->replayed_kernels)) &&
              mj_add_num(o, "overhead_records", (double)c->overhead_records) &&
              mj_add_num(o, "outside_workloads", (double)c->outside_workloads) &&
              mj_add_num(o, "overhead_ns", (double)c->overhead_ns) && mj_add_num(o, "flush_ms", c->flush_ms);
    return mj_built(o, ok);
}

/* ---------- reading ---------- */

static bool read_device(mj_reader *r, const cJSON *e, device_info *d)
{
    int64_t total, free_mem, smem_sm, smem_blk, smem_optin, reserved;
    const int64_t big = (int64_t)1 << 53;
    bool ok =
        mj_get_int(r, e, "index", 0, 1024, &d->index) && mj_get_str(r, e, "name", false, d->name, sizeof d->name) &&
        mj_get_int(r, e, "cc_major", 0, 100, &d->cc_major) && mj_get_int(r, e, "cc_minor", 0, 100, &d->cc_minor) &&
        mj_get_int(r, e, "sm_count", 0, 1 << 20, &d->sm_count) &&
        mj_get_int(r, e, "clock_khz", 0, INT32_MAX, &d->clock_khz) &&
        mj_get_int(r, e, "mem_clock_khz", 0, INT32_MAX, &d->mem_clock_khz) &&
        mj_get_int(r, e, "bus_width_bits", 0, 1 << 20, &d->bus_width_bits) &&
        mj_get_int(r, e, "l2_bytes", 0, INT32_MAX, &d->l2_bytes) && mj_get_i64(r, e, "total_mem", 0, big, &total) &&
        mj_get_i64(r, e, "free_mem", 0, big, &free_mem) &&
        mj_get_int(r, e, "max_threads_per_sm", 0, 1 << 20, &d->max_threads_per_sm) &&
        mj_get_int(r, e, "max_threads_per_block", 0, 1 << 20, &d->max_threads_per_block) &&
        mj_get_int(r, e, "max_blocks_per_sm", 0, 1 << 20, &d->max_blocks_per_sm) &&
        mj_get_int(r, e, "regs_per_sm", 0, 1 << 24, &d->regs_per_sm) &&
        mj_get_int(r, e, "regs_per_block", 0, 1 << 24, &d->regs_per_block) &&
        mj_get_int(r, e, "warp_size", 0, 1024, &d->warp_size) && mj_get_i64(r, e, "smem_per_sm", 0, big, &smem_sm) &&
        mj_get_i64(r, e, "smem_per_block", 0, big, &smem_blk) &&
        mj_get_i64(r, e, "smem_per_block_optin", 0, big, &smem_optin) &&
        mj_get_i64(r, e, "reserved_smem_per_block", 0, big, &reserved) &&
        mj_get_str(r, e, "pci_bus_id", false, d->pci_bus_id, sizeof d->pci_bus_id) &&
        mj_get_str(r, e, "pcie_why", true, d->pcie_why, sizeof d->pcie_why) &&
        mj_get_int(r, e, "driver_version", 0, INT32_MAX, &d->driver_version) &&
        mj_get_int(r, e, "runtime_version", 0, INT32_MAX, &d->runtime_version) &&
        (mj_absent(e, "memory_bandwidth") || mj_get_u64(r, e, "memory_bandwidth", &d->memory_bandwidth));
    if (!ok)
        return false;
    const cJSON *gen = mj_field(r, e, "pcie_gen"), *width = mj_field(r, e, "pcie_width");
    if (!gen || !width)
        return false;
    if ((!cJSON_IsNull(gen) && !mj_get_int(r, e, "pcie_gen", 1, 16, &d->pcie_gen)) ||
        (!cJSON_IsNull(width) && !mj_get_int(r, e, "pcie_width", 1, 64, &d->pcie_width)))
        return false;
    d->total_mem = (uint64_t)total;
    d->free_mem = (uint64_t)free_mem;
    d->smem_per_sm = (uint64_t)smem_sm;
    d->smem_per_block = (uint64_t)smem_blk;
    d->smem_per_block_optin = (uint64_t)smem_optin;
    d->reserved_smem_per_block = (uint64_t)reserved;
    return true;
}

static bool read_host(mj_reader *r, const cJSON *h, host_info *hi)
{
    hi->known = true;
    return mj_get_str(r, h, "cpu_model", false, hi->cpu_model, sizeof hi->cpu_model) &&
           mj_get_int(r, h, "logical_cores", 0, 1 << 20, &hi->logical_cores) &&
           mj_get_bool(r, h, "avx2", &hi->has_avx2) && mj_get_bool(r, h, "avx512f", &hi->has_avx512f) &&
           mj_get_str(r, h, "os", false, hi->os, sizeof hi->os);
}

static bool read_collection(mj_reader *r, const cJSON *c, collection_info *ci)
{
    char src[16];
    int64_t overhead_ns = 0;
    bool ok =
        mj_get_str(r, c, "source", false, src, sizeof src) &&
        mj_get_str(r, c, "reason", true, ci->reason, sizeof ci->reason) &&
        mj_get_int(r, c, "cupti_version", 0, INT32_MAX, &ci->cupti_version) &&
        mj_get_u64(r, c, "records", &ci->records) && mj_get_u64(r, c, "dropped", &ci->dropped) &&
        mj_get_u64(r, c, "lost_timestamps", &ci->lost_timestamps) &&
        (mj_absent(c, "replayed_kernels") || mj_get_u64(r, c, "replayed_kernels", &ci->replayed_kernels)) &&
        mj_get_u64(r, c, "overhead_records", &ci->overhead_records) &&
        (mj_v1_default(r, c, "outside_workloads") || mj_get_u64(r, c, "outside_workloads", &ci->outside_workloads)) &&
        mj_get_i64(r, c, "overhead_ns", 0, (int64_t)1 << 53, &overhead_ns) &&
        mj_get_num(r, c, "flush_ms", &ci->flush_ms);
    if (ok && !timing_source_parse(src, &ci->source))
        ok = mj_fail(r, "source", "expected none, cupti, cudaEvent or host-clock");
    ci->overhead_ns = overhead_ns;
    return ok;
}

bool read_host_obj(mj_reader *r, const cJSON *o, void *m)
{
    run_model *rm = m;
    /* Versions 1 and 2 kept the built-in run's BLAS here, and wrote a host for every source. */
    return read_host(r, o, &rm->host) && (r->version >= 3 || read_blas(r, o, "blas_", &rm->builtin.blas));
}
bool read_collection_obj(mj_reader *r, const cJSON *o, void *m) { return read_collection(r, o, &((run_model *)m)->collection); }

bool read_devices(mj_reader *r, const cJSON *root, run_model *m)
{
    const cJSON *devs = mj_get_array(r, root, "devices");
    if (!devs)
        return false;
    int nd = cJSON_GetArraySize(devs);
    if (nd > 0 && !(m->devices = calloc((size_t)nd, sizeof *m->devices)))
        return mj_fail(r, NULL, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, devs) {
        size_t s = mj_enter(r, "devices", m->ndevices);
        bool ok =
            cJSON_IsObject(e) ? read_device(r, e, &m->devices[m->ndevices]) : mj_fail(r, NULL, "expected an object");
        mj_leave(r, s);
        if (!ok)
            return false;
        m->ndevices++;
        r->ndevices = m->ndevices;
    }
    return true;
}
