/* The profile's shared control block: one small file, MMPROF_PROFILE_DIR/control, that the
 * launcher creates, every profiled process of the job maps (MAP_SHARED) and `mmprof capture
 * start|stop` writes. Two jobs, one file:
 *
 *   - start and stop from outside (--capture-range manual): `mmprof capture start TARGET` bumps
 *     the command word; each process's flusher thread reads it every flush period (a load from
 *     shared memory, no system call) and opens or closes its window. Chosen over a signal because
 *     a signal would land in the user's program (whose handlers we do not own) or would have to be
 *     relayed by the launcher to processes it does not know (ranks forked by torchrun, a shell's
 *     children); a file in the profile directory reaches every process that writes records there,
 *     including one that starts after the command (it reads the last command at its start);
 *   - --max-size: every process adds the bytes it appends to its stream to one counter (an atomic
 *     add, the same instruction whichever process runs it), so the cap is on the job's total,
 *     known without a stat of every file at each flush; the first write past it stamps capped_ns,
 *     and each process's flusher closes its window ("max-size") at its next period.
 *
 * Plain C without CUPTI: the launcher, `mmprof capture` and the tests use it too. The layout is
 * fixed-size and versioned by its magic; all fields are read and written with __atomic builtins
 * (lock-free at these sizes, so coherent across processes). */
#ifndef MMPROF_CAPTURE_CONTROL_H
#define MMPROF_CAPTURE_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CONTROL_FILE "control"
#define CONTROL_MAGIC "mmprofc1"

typedef struct {
    char magic[8];       /* CONTROL_MAGIC */
    uint32_t manual;     /* the profile was started with --capture-range manual */
    uint32_t reserved;
    int64_t launcher;    /* the launcher's pid */
    uint64_t command;    /* (commands so far << 1) | 1 for start, 0 for stop */
    uint64_t max_bytes;  /* --max-size (0: no cap) */
    uint64_t bytes;      /* bytes appended to the job's stream files so far */
    int64_t capped_ns;   /* when bytes first reached max_bytes (CLOCK_REALTIME; 0: not yet) */
    uint64_t spare;      /* zero; keeps the block 64 bytes */
} capture_shared;

/* Creates DIR/control for a profile (launcher); false with the reason in why. */
bool capture_control_create(const char *dir, bool manual, uint64_t max_bytes, pid_t launcher, char *why,
                            size_t len);

/* Maps DIR/control read-write; NULL with the reason in why (missing, not a control block). */
capture_shared *capture_control_map(const char *dir, char *why, size_t len);
void capture_control_unmap(capture_shared *s);

/* Appends a start (true) or stop command; returns its command word. */
uint64_t capture_control_command(capture_shared *s, bool start);

/* Adds n bytes to the job's total and stamps capped_ns (with now_ns) when the total first
 * reaches the cap; true when the cap has been reached (by this add or before). */
bool capture_control_add_bytes(capture_shared *s, uint64_t n, int64_t now_ns);

/* The profile directory TARGET names: a directory holding a control file, or the pid of a
 * process that maps one (the launcher, or any profiled process of the job), found through
 * /proc/PID/maps. False with the reason in why. */
bool capture_control_find(const char *target, char *dir, size_t dirlen, char *why, size_t len);

/* --max-size's value: a whole number of bytes with an optional K, M, G or T suffix (powers of
 * 1024; "500M", "2G", "1048576"); false when malformed, zero or beyond 1 PiB. */
bool capture_parse_size(const char *s, uint64_t *out);

#endif
