/* Theoretical occupancy through the CUDA toolkit's header-only calculator (cuda_occupancy.h).
 *
 * CUPTI's kernel records carry no occupancy, only the launch shape and resources. The same
 * calculator the runtime's occupancy API is built on turns those and the device's recorded
 * limits into active blocks per SM and the factor that limits them. It is plain C over the
 * model's numbers: no CUDA runtime is needed, so this runs on recorded runs anywhere. */
#include "analysis.h"

#include <cuda_occupancy.h>
#include <stdio.h>
#include <string.h>

static void limiter_names(unsigned factors, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {OCC_LIMIT_REGISTERS, "registers"}, {OCC_LIMIT_SHARED_MEMORY, "shared memory"},
        {OCC_LIMIT_WARPS, "warps"},         {OCC_LIMIT_BLOCKS, "blocks"},
        {OCC_LIMIT_BARRIERS, "barriers"},   {OCC_LIMIT_VIRTUAL_RESOURCES, "virtual"},
    };
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(factors & names[i].bit))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[i].name);
    }
}

bool occupancy_of(const device_info *d, int block_threads, int registers, int static_smem,
                  int dynamic_smem, bool smem_optin, int *blocks_per_sm, double *pct,
                  char *limiter, size_t limiter_len, char *why, size_t why_len)
{
    /* The calculator answers "0 blocks, limited by warps" for a block the device cannot launch at
     * all; say that plainly instead. */
    if (block_threads <= 0 || block_threads > d->max_threads_per_block) {
        snprintf(why, why_len, "a block of %d threads cannot launch (the device allows %d)", block_threads,
                 d->max_threads_per_block);
        return false;
    }
    /* An imported trace may not describe every limit; the calculator divides by some of them. */
    if (d->max_threads_per_sm <= 0 || d->warp_size <= 0 || d->regs_per_sm <= 0 || d->regs_per_block <= 0 ||
        d->smem_per_sm == 0 || d->cc_major <= 0) {
        snprintf(why, why_len, "the device's limits were not recorded (threads, registers, shared memory per SM)");
        return false;
    }
    cudaOccDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    prop.computeMajor = d->cc_major;
    prop.computeMinor = d->cc_minor;
    prop.maxThreadsPerBlock = d->max_threads_per_block;
    prop.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
    prop.regsPerBlock = d->regs_per_block;
    prop.regsPerMultiprocessor = d->regs_per_sm;
    prop.warpSize = d->warp_size;
    prop.sharedMemPerBlock = d->smem_per_block;
    prop.sharedMemPerMultiprocessor = d->smem_per_sm;
    prop.numSms = d->sm_count;
    prop.sharedMemPerBlockOptin = d->smem_per_block_optin;
    prop.reservedSharedMemPerBlock = d->reserved_smem_per_block;

    cudaOccFuncAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.maxThreadsPerBlock = block_threads;
    attr.numRegs = registers;
    attr.sharedSizeBytes = (size_t)static_smem;
    attr.partitionedGCConfig = PARTITIONED_GC_OFF;
    /* A launch above the default 48 KB per block only happens after the kernel opted in, and the
     * dynamic size it launched with is within the limit it set. */
    bool optin = smem_optin || (uint64_t)(static_smem + dynamic_smem) > d->smem_per_block;
    attr.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    attr.maxDynamicSharedSizeBytes = (size_t)dynamic_smem;
    attr.numBlockBarriers = 1;

    cudaOccDeviceState state;
    memset(&state, 0, sizeof state);
    state.cacheConfig = CACHE_PREFER_NONE;
    state.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;

    cudaOccResult res;
    memset(&res, 0, sizeof res);
    cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state,
                                                               block_threads, (size_t)dynamic_smem);
    if (err != CUDA_OCC_SUCCESS) {
        snprintf(why, why_len, "occupancy calculator refused the launch (%s)",
                 err == CUDA_OCC_ERROR_UNKNOWN_DEVICE ? "unknown device" : "invalid input");
        return false;
    }
    int warps_per_block = (block_threads + d->warp_size - 1) / d->warp_size;
    int max_warps = d->max_threads_per_sm / d->warp_size;
    *blocks_per_sm = res.activeBlocksPerMultiprocessor;
    *pct = max_warps > 0 ? 100.0 * res.activeBlocksPerMultiprocessor * warps_per_block / max_warps : 0;
    if (*pct >= 100.0)
        copy_str(limiter, limiter_len, "none");
    else
        limiter_names(res.limitingFactors, limiter, limiter_len);
    return true;
}

void kernel_occupancy(const run_model *m, const kernel_event *k, metric *pct, int *blocks, char *limiter,
                      size_t limiter_len)
{
    *blocks = 0;
    limiter[0] = '\0';
    if (!k->has_resources) {
        metric_na(pct, "registers and shared memory not recorded");
        return;
    }
    if ((int64_t)k->device >= m->ndevices) {
        metric_na(pct, "device %u not described in the run", k->device);
        return;
    }
    double v;
    char why[96];
    int threads = k->block[0] * k->block[1] * k->block[2];
    if (occupancy_of(&m->devices[k->device], threads, k->registers, k->static_smem, k->dynamic_smem, k->smem_optin,
                     blocks, &v, limiter, limiter_len, why, sizeof why))
        metric_set(pct, v);
    else
        metric_na(pct, "%s", why);
}
