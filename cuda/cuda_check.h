/* Error checks for cuda/: every CUDA and cuBLAS call's status is looked at, and a failure is
 * reported with the call's text, so a message names what failed. */
#ifndef MMPROF_CUDA_CHECK_H
#define MMPROF_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>

/* Returns e after writing "what: message" to err when e is an error. */
static inline int cuda_fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
    /* A trap reads as a plain launch failure: say what traps on purpose. */
    const char *hint = e == cudaErrorLaunchFailure
                           ? " (a kernel faulted or trapped; cuda-tf32-wgmma traps when an mbarrier wait "
                             "passes its 10 s bound)"
                           : "";
    if (e != cudaSuccess && err)
        snprintf(err, errlen, "%s: %s%s", what, cudaGetErrorString(e), hint);
    return (int)e;
}

/* Inside a function returning int with err/errlen in scope. */
#define CUDA_TRY(call)                                                                            \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess)                                                                    \
            return cuda_fail(e_, #call, err, errlen);                                             \
    } while (0)

/* After a kernel launch: the launch's own error (bad configuration, too much shared memory). */
#define CUDA_TRY_LAUNCH(what)                                                                     \
    do {                                                                                          \
        cudaError_t e_ = cudaGetLastError();                                                      \
        if (e_ != cudaSuccess)                                                                    \
            return cuda_fail(e_, "launching " what, err, errlen);                                 \
    } while (0)

#endif
