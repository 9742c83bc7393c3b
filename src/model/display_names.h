/* The names a report shows for CUDA API calls and kernels. */
#ifndef MMPROF_DISPLAY_NAMES_H
#define MMPROF_DISPLAY_NAMES_H

#include <stddef.h>

/* A CUDA API call's name without CUPTI's version suffix: "cudaLaunchKernel_v7000" reads
 * "cudaLaunchKernel" (the suffix tells ABI versions apart, not calls). */
void api_display_name(const char *name, char *buf, size_t len);

/* A readable kernel name: demangled, without the parameter list and ABI tags. */
void kernel_display_name(const char *mangled, char *buf, size_t len);

#endif
