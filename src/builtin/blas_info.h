/* Which OpenBLAS is loaded and what it picked (the built-in run's CPU workload). */
#ifndef MMPROF_BLAS_INFO_H
#define MMPROF_BLAS_INFO_H

#include "model.h"

void blas_info_read(blas_info *b);

/* The version in an OpenBLAS config string ("OpenBLAS 0.3.26 DYNAMIC_ARCH ..." -> "0.3.26"). */
void blas_version_of(const char *config, char *buf, size_t len);

#endif
