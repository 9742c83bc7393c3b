/* Facts about the host: CPU, cores, OS, and which OpenBLAS is loaded and what it picked. */
#ifndef MMPROF_HOSTINFO_H
#define MMPROF_HOSTINFO_H

#include "model.h"

void host_info_read(host_info *h);

/* The version in an OpenBLAS config string ("OpenBLAS 0.3.26 DYNAMIC_ARCH ..." -> "0.3.26"). */
void blas_version_of(const char *config, char *buf, size_t len);

#endif
