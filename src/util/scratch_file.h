/* An unnamed scratch file in a directory: what output_file.c's scratch (the run file's model half
 * while the analysis runs) and spill.c's file-backed arrays need. */
#ifndef MMPROF_SCRATCH_FILE_H
#define MMPROF_SCRATCH_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A read-write descriptor of a new empty file in dir that has no name, or -1 (errno set).
 * Unnamed from the start (O_TMPFILE), or named and unlinked at once where the file system has no
 * O_TMPFILE: nothing is left behind whatever happens to the process. */
static inline int scratch_open(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/.mmprof-scratch-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC); /* as O_TMPFILE's: addr2line and the program are not to hold it */
    if (fd >= 0)
        unlink(path);
    return fd;
}

#endif
