/* Output files are written whole or not at all: into a temporary file beside the target, then
 * renamed over it, so an interrupted or failed write never leaves half a report and never
 * destroys the file the user had. */
#ifndef MMPROF_OUTPUT_FILE_H
#define MMPROF_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Checks, before any work, that path can be written: its directory exists and is writable and
 * path is not a directory. what names the option ("--json") for the message. */
bool output_path_ok(const char *what, const char *path, char *err, size_t errlen);

/* Writes data to path through a temporary file and rename(2). */
bool write_file_atomic(const char *what, const char *path, const char *data, size_t len, char *err,
                       size_t errlen);

#endif
