// The peer matrix: copies from one GPU to another with cudaMemcpyPeerAsync, timed between
// cudaEvents on the source GPU's stream, with peer access off (the driver stages the copy, through
// host memory where the GPUs cannot reach each other) and on (cudaDeviceEnablePeerAccess both
// ways: the copy goes straight over NVLink or PCIe). Every large copy is checked: the source is
// filled with a pattern that names the pair, the destination is zeroed before, and after the
// timed copies it is read back to the host and compared word by word.
//
// Runs on the calling thread with no other work on either GPU (the runner calls it after the
// device threads have joined), and leaves peer access as it found it: off.
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu_runner.h"

// A word no other pair or position has: the pair in the top byte, the index below.
__host__ __device__ static inline uint32_t pattern_word(uint32_t pair, size_t i)
{
    return (pair << 24) ^ (uint32_t)(i * 2654435761u);
}

__global__ void mmprof_peer_fill(uint32_t *p, size_t words, uint32_t pair)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = pattern_word(pair, i);
}

typedef struct {
    int src, dst;
    uint32_t pair;
    void *s_buf, *d_buf;
    uint32_t *host;          // read-back of the destination
    cudaStream_t stream;     // on the source GPU
    cudaEvent_t ev[2];
} peer_job;

static int set_access(int from, int to, bool on, char *err, size_t errlen)
{
    CUDA_TRY(cudaSetDevice(from));
    cudaError_t e = on ? cudaDeviceEnablePeerAccess(to, 0) : cudaDeviceDisablePeerAccess(to);
    // Already on (or already off) is the state asked for: clear that error so no later check sees it.
    if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
        cudaGetLastError();
        return 0;
    }
    return cuda_fail(e, on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess", err, errlen);
}

static int timed_copies(peer_job *j, uint64_t bytes, int reps, double *ms, char *err, size_t errlen)
{
    float f = 0;
    CUDA_TRY(cudaSetDevice(j->src));
    CUDA_TRY(cudaEventRecord(j->ev[0], j->stream));
    for (int i = 0; i < reps; i++)
        CUDA_TRY(cudaMemcpyPeerAsync(j->d_buf, j->dst, j->s_buf, j->src, bytes, j->stream));
    CUDA_TRY(cudaEventRecord(j->ev[1], j->stream));
    CUDA_TRY(cudaEventSynchronize(j->ev[1]));
    CUDA_TRY(cudaEventElapsedTime(&f, j->ev[0], j->ev[1]));
    *ms = f;
    return 0;
}

// One mode: zero the destination, one untimed copy (the first pays for mappings), the timed
// bandwidth copies, the check, then the latency copies.
static int measure(peer_job *j, const multi_gpu_info *cfg, peer_copy *out, char *err, size_t errlen)
{
    double ms = 0;
    CUDA_TRY(cudaSetDevice(j->dst));
    CUDA_TRY(cudaMemset(j->d_buf, 0, cfg->copy_bytes));
    CUDA_TRY(cudaDeviceSynchronize());
    if (timed_copies(j, cfg->copy_bytes, 1, &ms, err, errlen) != 0 ||
        timed_copies(j, cfg->copy_bytes, cfg->copy_reps, &ms, err, errlen) != 0)
        return -1;
    out->gbps = ms > 0 ? (double)cfg->copy_bytes * cfg->copy_reps / (ms * 1e6) : 0;
    CUDA_TRY(cudaSetDevice(j->dst));
    CUDA_TRY(cudaMemcpy(j->host, j->d_buf, cfg->copy_bytes, cudaMemcpyDeviceToHost));
    size_t words = cfg->copy_bytes / sizeof(uint32_t), bad = 0, first = 0;
    for (size_t i = 0; i < words; i++)
        if (j->host[i] != pattern_word(j->pair, i) && bad++ == 0)
            first = i;
    out->verified = bad == 0;
    if (bad)
        snprintf(out->why, sizeof out->why, "%zu of %zu words arrived wrong (the first at byte %zu)", bad, words,
                 first * sizeof(uint32_t));
    if (timed_copies(j, cfg->latency_bytes, cfg->latency_reps, &ms, err, errlen) != 0)
        return -1;
    out->latency_us = ms * 1e3 / cfg->latency_reps;
    out->measured = true;
    return 0;
}

static int pair_run(peer_job *j, const multi_gpu_info *cfg, peer_pair *p, char *err, size_t errlen)
{
    CUDA_TRY(cudaSetDevice(j->src));
    CUDA_TRY(cudaMalloc(&j->s_buf, cfg->copy_bytes));
    CUDA_TRY(cudaStreamCreateWithFlags(&j->stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&j->ev[0]));
    CUDA_TRY(cudaEventCreate(&j->ev[1]));
    mmprof_peer_fill<<<1024, 256, 0, j->stream>>>((uint32_t *)j->s_buf, cfg->copy_bytes / sizeof(uint32_t), j->pair);
    CUDA_TRY_LAUNCH("mmprof_peer_fill");
    CUDA_TRY(cudaStreamSynchronize(j->stream));
    CUDA_TRY(cudaSetDevice(j->dst));
    CUDA_TRY(cudaMalloc(&j->d_buf, cfg->copy_bytes));
    CUDA_TRY(cudaMallocHost((void **)&j->host, cfg->copy_bytes));
    int can = 0;
    CUDA_TRY(cudaDeviceCanAccessPeer(&can, j->src, j->dst));
    p->can_access_peer = can != 0;

    char why[256] = "";
    if (set_access(j->src, j->dst, false, why, sizeof why) != 0 || set_access(j->dst, j->src, false, why, sizeof why) != 0 ||
        measure(j, cfg, &p->copy[PEER_STAGED], why, sizeof why) != 0)
        snprintf(p->copy[PEER_STAGED].why, sizeof p->copy[PEER_STAGED].why, "%s", why);
    if (!p->can_access_peer) {
        snprintf(p->copy[PEER_DIRECT].why, sizeof p->copy[PEER_DIRECT].why,
                 "cudaDeviceCanAccessPeer: GPU %d cannot access GPU %d", j->src, j->dst);
        return 0;
    }
    why[0] = '\0';
    int rc = set_access(j->src, j->dst, true, why, sizeof why);
    rc = rc ? rc : set_access(j->dst, j->src, true, why, sizeof why);
    rc = rc ? rc : measure(j, cfg, &p->copy[PEER_DIRECT], why, sizeof why);
    if (rc != 0)
        snprintf(p->copy[PEER_DIRECT].why, sizeof p->copy[PEER_DIRECT].why, "%s", why);
    char off[256] = "";
    set_access(j->src, j->dst, false, off, sizeof off);
    set_access(j->dst, j->src, false, off, sizeof off);
    return 0;
}

extern "C" bool gpu_peer_pair(const multi_gpu_info *cfg, int src, int dst, peer_pair *p, char *why, size_t len)
{
    peer_job j;
    memset(&j, 0, sizeof j);
    j.src = src, j.dst = dst;
    j.pair = (uint32_t)(src * MAX_RUN_DEVICES + dst + 1) & 0xFF;
    p->src = src, p->dst = dst;
    int rc = pair_run(&j, cfg, p, why, len);
    // Release in any case, on the device each thing belongs to.
    cudaSetDevice(src);
    if (j.ev[0])
        cudaEventDestroy(j.ev[0]);
    if (j.ev[1])
        cudaEventDestroy(j.ev[1]);
    if (j.stream)
        cudaStreamDestroy(j.stream);
    cudaFree(j.s_buf);
    cudaSetDevice(dst);
    cudaFree(j.d_buf);
    cudaFreeHost(j.host);
    return rc == 0;
}
