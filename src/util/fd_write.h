/* All of a buffer written to a descriptor, through short writes and signals: what output files
 * and scratch files need of write(2). */
#ifndef MMPROF_FD_WRITE_H
#define MMPROF_FD_WRITE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

/* False with errno's value in *error (ENOSPC where write made no progress) when it could not. */
static inline bool fd_write_all(int fd, const char *data, size_t len, int *error)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            *error = w < 0 ? errno : ENOSPC;
            return false;
        }
        done += (size_t)w;
    }
    return true;
}

#endif
