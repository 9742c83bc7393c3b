/* Atomic output files. See output_file.h. */
#include "output_file.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void dir_of(const char *path, char *dir, size_t len)
{
    char *copy = strdup(path);
    snprintf(dir, len, "%s", copy ? dirname(copy) : ".");
    free(copy);
}

bool output_path_ok(const char *what, const char *path, char *err, size_t errlen)
{
    if (!path[0]) {
        snprintf(err, errlen, "%s: the output path is empty", what);
        return false;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s '%s': is a directory", what, path);
        return false;
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s '%s': directory '%s' does not exist", what, path, dir);
        return false;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "%s '%s': directory '%s' is not writable", what, path, dir);
        return false;
    }
    return true;
}

bool write_file_atomic(const char *what, const char *path, const char *data, size_t len, char *err,
                       size_t errlen)
{
    char dir[4096], tmp[4200];
    dir_of(path, dir, sizeof dir);
    snprintf(tmp, sizeof tmp, "%s/.mmprof-XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s '%s': cannot create a temporary file in '%s': %s", what, path, dir,
                 strerror(errno));
        return false;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "%s '%s': write failed: %s", what, path, strerror(errno));
            close(fd);
            unlink(tmp);
            return false;
        }
        done += (size_t)w;
    }
    /* mkstemp makes the file 0600; a report is an ordinary file: 0644 less the umask. */
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, errlen, "%s '%s': write failed: %s", what, path, strerror(saved));
        unlink(tmp);
        return false;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s '%s': cannot replace the file: %s", what, path, strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}
