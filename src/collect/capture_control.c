/* The profile's shared control block. See capture_control.h. */
#include "capture_control.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool capture_control_create(const char *dir, bool manual, uint64_t max_bytes, pid_t launcher, char *why, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CONTROL_FILE);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return false;
    }
    capture_shared s;
    memset(&s, 0, sizeof s);
    memcpy(s.magic, CONTROL_MAGIC, sizeof s.magic);
    s.manual = manual;
    s.launcher = launcher;
    s.max_bytes = max_bytes;
    bool ok = write(fd, &s, sizeof s) == (ssize_t)sizeof s;
    if (!ok)
        snprintf(why, len, "%s: %s", path, strerror(errno ? errno : EIO));
    close(fd);
    return ok;
}

capture_shared *capture_control_map(const char *dir, char *why, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CONTROL_FILE);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size == (off_t)sizeof(capture_shared))
        p = mmap(NULL, sizeof(capture_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED || memcmp(((capture_shared *)p)->magic, CONTROL_MAGIC, 8) != 0) {
        if (p != MAP_FAILED)
            munmap(p, sizeof(capture_shared));
        snprintf(why, len, "%s is not an mmprof profile's control file", path);
        return NULL;
    }
    return p;
}

void capture_control_unmap(capture_shared *s)
{
    if (s)
        munmap(s, sizeof *s);
}

uint64_t capture_control_command(capture_shared *s, bool start)
{
    uint64_t old = __atomic_load_n(&s->command, __ATOMIC_ACQUIRE), new;
    do
        new = (((old >> 1) + 1) << 1) | (start ? 1 : 0);
    while (!__atomic_compare_exchange_n(&s->command, &old, new, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return new;
}

bool capture_control_add_bytes(capture_shared *s, uint64_t n, int64_t now_ns)
{
    uint64_t max = s->max_bytes; /* written once, by the launcher, before any process starts */
    uint64_t total = __atomic_add_fetch(&s->bytes, n, __ATOMIC_RELAXED);
    if (max == 0 || total < max)
        return false;
    int64_t zero = 0;
    __atomic_compare_exchange_n(&s->capped_ns, &zero, now_ns, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return true;
}

/* pid's mapping of a file named CONTROL_FILE: its directory (/proc/PID/maps lists mapped files by
 * path; the launcher keeps the control block mapped while it waits). */
static bool dir_from_maps(long pid, char *dir, size_t dirlen, char *why, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(why, len, "no process %ld can be read (%s: %s)", pid, path, strerror(errno));
        return false;
    }
    char line[PATH_MAX + 128];
    bool found = false;
    size_t tail = strlen("/" CONTROL_FILE);
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *file = strchr(line, '/');
        size_t n = file ? strlen(file) : 0;
        if (n <= tail || strcmp(file + n - tail, "/" CONTROL_FILE) != 0)
            continue;
        file[n - tail] = '\0';
        const char *base = strrchr(file, '/');
        if (base && strncmp(base + 1, "mmprof-profile-", 15) == 0 && strlen(file) < dirlen) {
            snprintf(dir, dirlen, "%s", file);
            found = true;
        }
    }
    fclose(f);
    if (!found)
        snprintf(why, len, "process %ld is not an mmprof profile (it maps no profile control file): give the pid "
                           "that mmprof profile printed, or its profile directory", pid);
    return found;
}

bool capture_control_find(const char *target, char *dir, size_t dirlen, char *why, size_t len)
{
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", target, CONTROL_FILE);
        if (access(path, F_OK) != 0) {
            snprintf(why, len, "%s is not a running profile's directory (no %s file in it)", target, CONTROL_FILE);
            return false;
        }
        if (strlen(target) >= dirlen) {
            snprintf(why, len, "%s: path too long", target);
            return false;
        }
        snprintf(dir, dirlen, "%s", target);
        return true;
    }
    char *end;
    errno = 0;
    long pid = strtol(target, &end, 10);
    if (!isdigit((unsigned char)target[0]) || *end || errno || pid <= 0) {
        snprintf(why, len, "'%s' is neither a profile directory nor a process id", target);
        return false;
    }
    return dir_from_maps(pid, dir, dirlen, why, len);
}

bool capture_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    const char *units = "KMGT";
    if (*end) {
        const char *u = strchr(units, toupper((unsigned char)*end));
        if (!u || end[1])
            return false;
        shift = 10 * (unsigned)(u - units + 1);
    }
    const unsigned long long max = 1ULL << 50;
    if (v == 0 || v > (max >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}
