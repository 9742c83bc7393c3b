/* Arrays that grow with a run's events, kept in a file once large.
 *
 * A report holds a few arrays whose length is the number of events: the run model's events
 * (48 bytes an API call), the run file's text while it is read, the analysis' per-call arrays.
 * An hour of a training loop has ~150 M API calls: gigabytes, more than the machine may have,
 * and on the heap (anonymous memory) nothing can page them out where there is no swap. Once
 * such an array reaches spill_min_bytes it moves into a shared mapping of an unnamed file
 * (scratch_file.h) in TMPDIR, else /var/tmp: its pages are then the page cache's, which the
 * kernel writes back and drops under memory pressure (a memory cgroup's limit, a small machine)
 * and reads again when touched, so the report's own memory stays what it shows (names, regions, the
 * timeline's resolution) and the events cost disk. While memory is plentiful nothing is written
 * at all: the file is unnamed and its dirty pages die with it. The analysis walks these arrays
 * mostly in order, which is what the page cache serves well.
 *
 * Small arrays stay on the heap (malloc), so a short run touches no file. An array made here is
 * grown with spill_resize and freed with spill_free, never realloc or free: spill_free of a heap
 * pointer frees it, so arrays filled elsewhere (tests, by hand) may be freed here too. Where no
 * file can be made or grown (no directory, no space, a directory in memory: tmpfs) the array
 * stays on, or moves back to, the heap: spilling saves memory, it never fails a report.
 * Thread-safe. */
#ifndef MMPROF_SPILL_H
#define MMPROF_SPILL_H

#include <stdbool.h>
#include <stddef.h>

#define SPILL_MIN_BYTES ((size_t)8 << 20)

/* The size from which an array moves to a file: SPILL_MIN_BYTES, or the environment's
 * MMPROF_SPILL_MIN (read at the first allocation); tests lower it. */
extern size_t spill_min_bytes;

/* p (NULL, or an array of this file's with its first used bytes in use) with room for bytes,
 * its first used bytes kept; NULL when memory ran out, p then unchanged. Never shrinks a file's
 * array. */
void *spill_resize(void *p, size_t used, size_t bytes);
void spill_free(void *p);
/* A new array of bytes (as malloc), or of n zeroed elements of size (as calloc), of this file's. */
void *spill_alloc(size_t bytes);
void *spill_calloc(size_t n, size_t size);

/* Whether p is held in a file (tests), and the bytes all files hold now (MMPROF_TIMINGS). */
bool spill_in_file(const void *p);
size_t spill_file_bytes(void);

#endif
