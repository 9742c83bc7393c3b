// cuBLAS's SGEMM, with default (true FP32) math and with TF32 tensor-op math.
//
// cuBLAS is column-major. A row-major n x n matrix read column-major is its transpose, so
// C = A x B row-major is C^T = B^T x A^T column-major: call sgemm with B first, then A.
#include <cublas_v2.h>

#include "cuda_check.h"
#include "gpu_compute.h"

static cublasHandle_t handle;

static int cublas_fail(cublasStatus_t s, const char *what, char *err, size_t errlen)
{
    if (s != CUBLAS_STATUS_SUCCESS && err)
        snprintf(err, errlen, "%s: %s", what, cublasGetStatusString(s));
    return (int)s;
}

#define CUBLAS_TRY(call)                                                                          \
    do {                                                                                          \
        cublasStatus_t s_ = (call);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                          \
            return cublas_fail(s_, #call, err, errlen);                                           \
    } while (0)

extern "C" int cublas_open(void *stream, char *err, size_t errlen)
{
    if (!handle)
        CUBLAS_TRY(cublasCreate(&handle));
    CUBLAS_TRY(cublasSetStream(handle, (cudaStream_t)stream));
    return 0;
}

extern "C" void cublas_close(void)
{
    if (handle)
        cublasDestroy(handle);
    handle = NULL;
}

static int sgemm(cublasMath_t math, const float *A, const float *B, float *C, int n, void *stream,
                 char *err, size_t errlen)
{
    if (!handle) {
        snprintf(err, errlen, "cuBLAS handle not created");
        return -1;
    }
    const float one = 1.0f, zero = 0.0f;
    // Both workloads share the handle: set the math mode on every call (a host-side flag).
    CUBLAS_TRY(cublasSetStream(handle, (cudaStream_t)stream));
    CUBLAS_TRY(cublasSetMathMode(handle, math));
    CUBLAS_TRY(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
    CUDA_TRY_LAUNCH("cublasSgemm");
    return 0;
}

static int fp32_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    return sgemm(CUBLAS_DEFAULT_MATH, A, B, C, n, stream, err, errlen);
}

static int tf32_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    return sgemm(CUBLAS_TF32_TENSOR_OP_MATH, A, B, C, n, stream, err, errlen);
}

extern "C" const gpu_compute gpu_cublas_sgemm = {PREC_FP32, fp32_launch, NULL, NULL, true};
extern "C" const gpu_compute gpu_cublas_tf32 = {PREC_TF32, tf32_launch, NULL, NULL, true};
