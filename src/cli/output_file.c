/* Output files. See output_file.h. */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fd_write.h"
#include "scratch_file.h"

/* The temporary file being written, for the signal handler: set only while it exists. */
static char tmp_path[PATH_MAX + 32];
static volatile sig_atomic_t tmp_live;

void output_remove_temporary(void)
{
    if (tmp_live) {
        unlink(tmp_path);
        tmp_live = 0;
    }
}

static void dir_of(const char *path, char *dir, size_t len)
{
    char *copy = strdup(path);
    snprintf(dir, len, "%s", copy ? dirname(copy) : ".");
    free(copy);
}

/* Follows path's symlinks (as many as the kernel would) to the name that is or will be a regular
 * file. A dangling link resolves to the missing file it names, which is then created. */
static bool resolve_links(const char *path, char *out, size_t len)
{
    if (snprintf(out, len, "%s", path) >= (int)len)
        return false;
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            return true;
        char link[PATH_MAX];
        ssize_t n = readlink(out, link, sizeof link - 1);
        if (n < 0)
            return false;
        link[n] = '\0';
        if (link[0] == '/') {
            snprintf(out, len, "%s", link);
        } else {
            char dir[PATH_MAX];
            dir_of(out, dir, sizeof dir);
            if (snprintf(out, len, "%s/%s", dir, link) >= (int)len)
                return false;
        }
    }
    errno = ELOOP;
    return false;
}

/* Whether the user may write the file st describes. Root may write anything, so for root the
 * mode bits decide: a file with no write bit at all was made read-only on purpose. */
static bool may_write(const char *path, const struct stat *st)
{
    if (geteuid() == 0)
        return (st->st_mode & 0222) != 0;
    return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

/* Paths under /dev and /proc (/dev/stdout, /proc/self/fd/N) name something the process already
 * has open, or a device: written in place even when they resolve to a regular file. */
static bool special_path(const char *path)
{
    return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

static bool open_in_place(output_file *o, char *err, size_t errlen)
{
    /* Non-blocking, so a FIFO nobody reads is an error now rather than a hang. */
    int fd = open(o->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | (S_ISREG(o->st.st_mode) ? O_APPEND : 0));
    if (fd < 0) {
        snprintf(err, errlen, "%s '%s': %s", o->what, o->path,
                 errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
        return false;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    o->fd = fd;
    o->in_place = true;
    return true;
}

bool output_open(output_file *o, const char *what, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    o->path = path;
    o->fd = -1;
    o->tmp_fd = -1;
    if (!path[0]) {
        snprintf(err, errlen, "%s: the output path is empty", what);
        return false;
    }
    if (strcmp(path, "-") == 0) {
        o->fd = STDOUT_FILENO;
        o->in_place = o->is_stdout = true;
        o->exists = fstat(STDOUT_FILENO, &o->st) == 0;
        return true;
    }
    o->exists = stat(path, &o->st) == 0;
    if (!o->exists && errno != ENOENT) {
        snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
        return false;
    }
    if (o->exists && S_ISDIR(o->st.st_mode)) {
        snprintf(err, errlen, "%s '%s': is a directory", what, path);
        return false;
    }
    if (o->exists && !may_write(path, &o->st)) {
        snprintf(err, errlen, "%s '%s': the file is read-only (mode %04o); not replacing it", what, path,
                 (unsigned)(o->st.st_mode & 07777));
        return false;
    }
    if (o->exists && (!S_ISREG(o->st.st_mode) || special_path(path)))
        return open_in_place(o, err, errlen);

    if (!resolve_links(path, o->target, sizeof o->target)) {
        snprintf(err, errlen, "%s '%s': cannot follow the symlink: %s", what, path, strerror(errno));
        return false;
    }
    char dir[PATH_MAX];
    struct stat dst;
    dir_of(o->target, dir, sizeof dir);
    if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
        snprintf(err, errlen, "%s '%s': directory '%s' does not exist", what, path, dir);
        return false;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "%s '%s': directory '%s' is not writable", what, path, dir);
        return false;
    }
    return true;
}

bool output_is(const output_file *o, const struct stat *st)
{
    return o->exists && o->st.st_dev == st->st_dev && o->st.st_ino == st->st_ino;
}

uint64_t output_free_space(const output_file *o)
{
    if (o->in_place)
        return UINT64_MAX;
    char dir[PATH_MAX];
    dir_of(o->target, dir, sizeof dir);
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0)
        return UINT64_MAX;
    return (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
}

static bool fail_errno(const output_file *o, int error, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s '%s': write failed: %s", o->what, o->path,
             error == EPIPE ? "the reader closed the pipe" : strerror(error));
    return false;
}

/* Begins a replacing write: a temporary beside the file, which output_commit renames over it.
 * The temporary gets the mode and owner of the file it replaces (a new file: 0666 less the umask,
 * as any program would create it). */
static bool begin_replacing(output_file *o, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    dir_of(o->target, dir, sizeof dir);
    /* Signals are held while the name is recorded, so the handler never sees half of it. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    snprintf(tmp_path, sizeof tmp_path, "%s/.mmprof-XXXXXX", dir);
    int fd = mkstemp(tmp_path);
    tmp_live = fd >= 0;
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        snprintf(err, errlen, "%s '%s': cannot create a temporary file in '%s': %s", o->what, o->path, dir,
                 strerror(saved));
        return false;
    }
    if (o->exists) {
        o->tmp_mode = o->st.st_mode & 07777;
        /* Only root can give a file away; anyone else keeps their own file theirs anyway. */
        if (fchown(fd, o->st.st_uid, o->st.st_gid) != 0 && geteuid() == 0)
            saved = errno;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        o->tmp_mode = 0666 & ~mask;
    }
    o->tmp_fd = fd;
    o->free_at_begin = output_free_space(o);
    return true;
}

bool output_begin(output_file *o, char *err, size_t errlen) { return o->in_place || begin_replacing(o, err, errlen); }

void output_abandon(output_file *o)
{
    if (o->in_place || o->tmp_fd < 0)
        return;
    close(o->tmp_fd);
    o->tmp_fd = -1;
    output_remove_temporary();
}

bool output_append(output_file *o, const char *data, size_t len, char *err, size_t errlen)
{
    int error = 0;
    if (fd_write_all(o->in_place ? o->fd : o->tmp_fd, data, len, &error))
        return true;
    if (error == ENOSPC && !o->in_place && o->free_at_begin != UINT64_MAX) {
        char dir[PATH_MAX];
        dir_of(o->target, dir, sizeof dir);
        snprintf(err, errlen, "%s '%s': the disk is full: %llu bytes were free in '%s' when writing began", o->what,
                 o->path, (unsigned long long)o->free_at_begin, dir);
    } else {
        fail_errno(o, error, err, errlen);
    }
    output_abandon(o);
    return false;
}

bool output_commit(output_file *o, char *err, size_t errlen)
{
    if (o->in_place)
        return true;
    int fd = o->tmp_fd, error = 0;
    o->tmp_fd = -1;
    bool ok = true;
    if (fchmod(fd, o->tmp_mode) != 0 || fsync(fd) != 0) {
        ok = false;
        error = errno;
    }
    if (close(fd) != 0 && ok) {
        ok = false;
        error = errno;
    }
    if (ok && rename(tmp_path, o->target) != 0) {
        snprintf(err, errlen, "%s '%s': cannot replace the file: %s", o->what, o->path, strerror(errno));
        output_remove_temporary();
        return false;
    }
    if (!ok) {
        output_remove_temporary();
        return fail_errno(o, error, err, errlen);
    }
    tmp_live = 0;
    return true;
}

bool output_room(const output_file *o, size_t len, char *err, size_t errlen)
{
    uint64_t space = output_free_space(o);
    if (space == UINT64_MAX || len <= space)
        return true;
    char dir[PATH_MAX];
    dir_of(o->target, dir, sizeof dir);
    snprintf(err, errlen, "%s '%s': %zu bytes to write and only %llu free in '%s'", o->what, o->path, len,
             (unsigned long long)space, dir);
    return false;
}

bool output_write(output_file *o, const char *data, size_t len, char *err, size_t errlen)
{
    return output_room(o, len, err, errlen) && output_begin(o, err, errlen) &&
           output_append(o, data, len, err, errlen) && output_commit(o, err, errlen);
}

int output_scratch(const output_file *o)
{
    char dir[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    if (o && !o->in_place)
        dir_of(o->target, dir, sizeof dir);
    else
        snprintf(dir, sizeof dir, "%s", tmp && tmp[0] ? tmp : "/tmp");
    return scratch_open(dir);
}

bool output_close(output_file *o, char *err, size_t errlen)
{
    if (!o->in_place || o->is_stdout || o->fd < 0)
        return true;
    int rc = close(o->fd);
    o->fd = -1;
    if (rc != 0 && errno != EINTR)
        return fail_errno(o, errno, err, errlen);
    return true;
}
