/* The record streams read while the profiled program runs (from its third second on), so that
 * its exit is followed by the report and not by the reading of a long run's hundreds of megabytes
 * of lines (and, through the hook, so that its native frames are named while their modules are
 * loaded and time is free).
 *
 * A thread reads the stream of the lowest pid (the program itself, where it is the launcher's
 * child: its workers and compilers come after it) as lines are completed, into the model; the
 * other files are read after the exit, in pid order, as stream_read_dir reads them, so the model
 * is the same as one read whole at the end. */
#ifndef MMPROF_STREAM_FOLLOW_H
#define MMPROF_STREAM_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "stream_read.h"

typedef struct stream_follow stream_follow;

/* Called on the follower's thread after each read that added lines, with the model (which no
 * other thread touches until stream_follow_finish). */
typedef void (*follow_hook)(run_model *m, void *ctx);

/* Starts following dir's streams into m (hook: NULL or as above). NULL where no thread could be
 * started: stream_follow_finish(NULL, ...) then reads everything itself. */
stream_follow *stream_follow_start(const char *dir, run_model *m, follow_hook hook, void *ctx);

typedef enum {
    FOLLOW_READ,   /* every stream is in m */
    FOLLOW_AGAIN,  /* read out of pid order (a lower pid came later): empty m, stream_read_dir it */
    FOLLOW_FAILED, /* err says why */
} follow_result;

/* After the program's exit: stops and frees f (it may be NULL), reads the rest of dir's streams
 * into m in pid order. */
follow_result stream_follow_finish(stream_follow *f, const char *dir, run_model *m, stream_summary *s, char *err,
                                   size_t errlen);

#endif
