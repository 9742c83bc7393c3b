/* Output files: opened (checked) before any work, written whole or not at all.
 *
 * Where an output goes depends on what is at its path:
 *   "-"                        standard output
 *   nothing, or a regular file a temporary file beside it, then rename(2): an interrupted or
 *                              failed write never leaves half a report and never destroys the
 *                              file the user had; an existing file keeps its mode and owner
 *   a symlink                  followed: the file it names is replaced, in its own directory,
 *                              and the link stays a link
 *   a device, FIFO, socket or  opened and written in place (/dev/null, /dev/stdout, a pipe
 *   a /dev or /proc path       from >(cmd)), never replaced
 * A file the user may not write is refused even for root, from its mode bits: root could write a
 * 0444 file, but its owner made it read-only on purpose. Every write, flush and close is
 * checked: a full disk or a closed pipe is an error, not a silently short report. */
#ifndef MMPROF_OUTPUT_FILE_H
#define MMPROF_OUTPUT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

typedef struct {
    const char *what;       /* the option, for messages ("--json") */
    const char *path;       /* as the user gave it */
    int fd;                 /* in place: the open descriptor (1 for "-"); otherwise -1 */
    bool in_place;
    bool is_stdout;
    char target[PATH_MAX];  /* not in place: the regular file to replace, symlinks resolved */
    bool exists;            /* the path names something now */
    struct stat st;         /* what it names (stat: through symlinks), when it exists */
    /* A write in progress (output_begin): the temporary's descriptor (-1: none) and mode, and the
     * free space when it began (for the message when the disk fills). */
    int tmp_fd;
    mode_t tmp_mode;
    uint64_t free_at_begin;
} output_file;

/* Checks and opens path for what, before any work: a missing directory, a read-only file, a
 * directory, a FIFO without a reader are refused here with a message in err naming both. */
bool output_open(output_file *o, const char *what, const char *path, char *err, size_t errlen);

/* Whether len bytes fit where o is replaced (always, for a device or pipe); false with a message
 * naming the free space. */
bool output_room(const output_file *o, size_t len, char *err, size_t errlen);

/* Writes the whole of data; false with a message on any error (no space left, a closed pipe).
 * A regular file is replaced only once all of data is safely on disk. */
bool output_write(output_file *o, const char *data, size_t len, char *err, size_t errlen);

/* The same in pieces, for an output written as it is rendered (output_stream.h): begin, append
 * any number of times, then commit (a regular file is replaced only then) or abandon (the
 * temporary is removed; the file the user had stays). A failed append abandons by itself. */
bool output_begin(output_file *o, char *err, size_t errlen);
bool output_append(output_file *o, const char *data, size_t len, char *err, size_t errlen);
bool output_commit(output_file *o, char *err, size_t errlen);
void output_abandon(output_file *o);

/* A scratch file for a part of an output rendered before its place in the output comes (read
 * back and appended then): read-write, without a name (nothing is left behind), on the output's
 * file system where it is replaced (o NULL or in place: $TMPDIR, else /tmp). -1 with errno set
 * when it cannot be made. */
int output_scratch(const output_file *o);

/* Closes what output_open opened (not standard output); false with a message when the close
 * reports a lost write. */
bool output_close(output_file *o, char *err, size_t errlen);

/* True when o names the file st describes (same device and inode), whatever the path spelling. */
bool output_is(const output_file *o, const struct stat *st);

/* Free bytes where o will be written (UINT64_MAX when that cannot be told, or for a device or
 * pipe). */
uint64_t output_free_space(const output_file *o);

/* Removes the temporary file being written, if any. Async-signal-safe: the signal handler calls
 * it, so an interrupted run leaves nothing behind. */
void output_remove_temporary(void);

#endif
