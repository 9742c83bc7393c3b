/* What an Nsight Systems export holds beyond the program's own CUDA work, taken out once every
 * table is read (nsys_sqlite.c calls these; docs/formats.md says why each is needed):
 *  - a CUDA call recorded twice: with call stacks on (nsys's default --cudabacktrace), each call
 *    has a "CUDA backtrace" row (eventClass 67, the plain name, "cudaMalloc") around its own
 *    runtime row (eventClass 0, "cudaMalloc_v3020"), both with one correlation id;
 *  - PROCESSES and ThreadNames list every process and thread the capture saw (a public export:
 *    1667 processes, of which one ran CUDA). */
#ifndef MMPROF_NSYS_TIDY_H
#define MMPROF_NSYS_TIDY_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* Of the calls of one thread with one correlation id whose intervals nest, keeps the innermost
 * (the call's own record) and drops those around it. *dropped gets how many went; false when
 * memory ran out. */
bool nsys_drop_nested_calls(event_list *e, size_t *dropped);

/* Keeps the processes that did CUDA work (an API call, a synchronization or a GPU event) and, of
 * those, the threads that made CUDA calls or synchronized or opened NVTX ranges; a process or
 * thread that did so but that the tables do not name is added, unnamed. Table order first, the
 * rest by id. false when memory ran out. */
bool nsys_keep_cuda_processes(run_model *m);

#endif
