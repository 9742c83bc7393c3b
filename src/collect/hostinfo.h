/* Facts about the host mmprof runs on: CPU, cores, instruction sets, OS. */
#ifndef MMPROF_HOSTINFO_H
#define MMPROF_HOSTINFO_H

#include "model.h"

/* Fills h and marks it known; a fact the system does not give stays "" (or 0 cores). */
void host_info_read(host_info *h);

#endif
