/* CUPTI for the injection library, opened at CUDA's start instead of linked.
 *
 * The injection library is loaded before CUDA starts in a Python program (libmmprof_exit.so's
 * constructor starts the host sampler with the interpreter, so that CUDA's own start, 0.2 s of a
 * PyTorch program's torch.cuda.init(), is sampled). Linked against libcupti.so.13 it would load a
 * CUPTI then, before the program loads its own: PyTorch's libraries would bind to the toolkit's
 * copy by its soname instead of the copy their wheel ships. So the library does not link CUPTI:
 * cupti_load(), at InitializeInjection, opens libcupti.so.13 (the program's copy where it loaded
 * one, else the toolkit's through this library's run path) and looks up each function below.
 *
 * In the files compiled into the injection library (MMPROF_CUPTI_DLOPEN, set by the Makefile's
 * rule for it) each CUPTI function used is a macro for its pointer; mmprof's own collector, linked
 * against CUPTI, calls them directly. Include after <cupti.h> and the other CUPTI headers. A
 * function used anywhere in the library and missing here fails the link (-z defs). */
#ifndef MMPROF_CUPTI_LOAD_H
#define MMPROF_CUPTI_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens CUPTI once per process; false (why in `why`) when it or one of the functions is missing. */
bool cupti_load(char *why, size_t why_len);

#ifdef MMPROF_CUPTI_DLOPEN
#include <cupti.h>

/* The functions of <cupti.h> the library calls. */
#define CUPTI_CORE_FNS(X)                                                                                              \
    X(cuptiActivityDisable) X(cuptiActivityEnable) X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord)                \
    X(cuptiActivityGetNumDroppedRecords) X(cuptiActivityRegisterCallbacks) X(cuptiEnableCallback) X(cuptiEnableDomain)  \
    X(cuptiGetCallbackName) X(cuptiGetCallbackState) X(cuptiGetDeviceId) X(cuptiGetResultString)                         \
    X(cuptiSetThreadIdType) X(cuptiSubscribe)

#define CUPTI_PTR(name) __typeof__(&name) name;
struct cupti_core_fns {
    CUPTI_CORE_FNS(CUPTI_PTR)
};
extern struct cupti_core_fns cupti_core;

#ifndef MMPROF_CUPTI_LOAD_IMPL /* cupti_load.c names the functions themselves */
#define cuptiActivityDisable (*cupti_core.cuptiActivityDisable)
#define cuptiActivityEnable (*cupti_core.cuptiActivityEnable)
#define cuptiActivityFlushAll (*cupti_core.cuptiActivityFlushAll)
#define cuptiActivityGetNextRecord (*cupti_core.cuptiActivityGetNextRecord)
#define cuptiActivityGetNumDroppedRecords (*cupti_core.cuptiActivityGetNumDroppedRecords)
#define cuptiActivityRegisterCallbacks (*cupti_core.cuptiActivityRegisterCallbacks)
#define cuptiEnableCallback (*cupti_core.cuptiEnableCallback)
#define cuptiEnableDomain (*cupti_core.cuptiEnableDomain)
#define cuptiGetCallbackName (*cupti_core.cuptiGetCallbackName)
#define cuptiGetCallbackState (*cupti_core.cuptiGetCallbackState)
#define cuptiGetDeviceId (*cupti_core.cuptiGetDeviceId)
#define cuptiGetResultString (*cupti_core.cuptiGetResultString)
#define cuptiSetThreadIdType (*cupti_core.cuptiSetThreadIdType)
#define cuptiSubscribe (*cupti_core.cuptiSubscribe)
#endif

/* The range profiler's (counters.cpp, profile --counters): its headers are C++ only, so its
 * table is declared and filled there (cupti_load_counters). */
bool cupti_load_counters(void *lib, char *why, size_t why_len);
#endif

#ifdef __cplusplus
}
#endif

#endif
