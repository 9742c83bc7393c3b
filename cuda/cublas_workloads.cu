// cuBLAS's SGEMM, with default (true FP32) math and with TF32 tensor-op math.
//
// cuBLAS is column-major. A row-major n x n matrix read column-major is its transpose, so
// C = A x B row-major is C^T = B^T x A^T column-major: call sgemm with B first, then A.
//
// libcublas is opened with dlopen when the first cuBLAS workload needs it, not linked: loading it
// costs about 0.4 s (its initialisers touch some 25,000 pages), which `mmprof --help`, `mmprof
// report` and runs without a cuBLAS workload should not pay. The cost then shows in the run as
// the cublas-init tool phase.
#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>

#include "cuda_check.h"
#include "gpu_compute.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define CUBLAS_SONAME "libcublas.so." STR(CUBLAS_VER_MAJOR)

// The entry points mmprof calls, typed from the header's own declarations.
static struct {
    void *lib;
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSetMathMode) set_math_mode;
    decltype(&cublasSgemm_v2) sgemm;
    decltype(&cublasGetStatusString) status_string;
} api;

// A handle per host thread (a --devices run drives each GPU from its own thread); the library is
// loaded once, under a lock, by whichever thread comes first.
static thread_local cublasHandle_t handle;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static int load_cublas_locked(char *err, size_t errlen)
{
    if (api.lib)
        return 0;
    void *lib = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errlen, "cannot load %s: %s", CUBLAS_SONAME, dlerror());
        return -1;
    }
    struct { void **slot; const char *name; } syms[] = {
        {(void **)&api.create, "cublasCreate_v2"},
        {(void **)&api.destroy, "cublasDestroy_v2"},
        {(void **)&api.set_stream, "cublasSetStream_v2"},
        {(void **)&api.set_math_mode, "cublasSetMathMode"},
        {(void **)&api.sgemm, "cublasSgemm_v2"},
        {(void **)&api.status_string, "cublasGetStatusString"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(err, errlen, "%s has no %s", CUBLAS_SONAME, syms[i].name);
            dlclose(lib);
            return -1;
        }
    }
    api.lib = lib;
    return 0;
}

static int load_cublas(char *err, size_t errlen)
{
    pthread_mutex_lock(&load_lock);
    int rc = load_cublas_locked(err, errlen);
    pthread_mutex_unlock(&load_lock);
    return rc;
}

static int cublas_fail(cublasStatus_t s, const char *what, char *err, size_t errlen)
{
    if (s != CUBLAS_STATUS_SUCCESS && err)
        snprintf(err, errlen, "%s: %s", what, api.status_string(s));
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
    if (load_cublas(err, errlen) != 0)
        return -1;
    if (!handle)
        CUBLAS_TRY(api.create(&handle));
    CUBLAS_TRY(api.set_stream(handle, (cudaStream_t)stream));
    return 0;
}

extern "C" void cublas_close(void)
{
    if (handle)
        api.destroy(handle);
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
    CUBLAS_TRY(api.set_stream(handle, (cudaStream_t)stream));
    CUBLAS_TRY(api.set_math_mode(handle, math));
    CUBLAS_TRY(api.sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
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
