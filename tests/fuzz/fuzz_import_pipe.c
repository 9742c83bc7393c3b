/* libFuzzer target: any input on a pipe, as `mmprof import -` or `<(...)` hands it over, through
 * import_file: detection peeks at the head and the importer reads the same stream once; an SQLite
 * export is copied for SQLite. Another thread writes the bytes and closes its end; an import that
 * stops early closes the read end, so the writer sees EPIPE rather than blocking. See
 * fuzz_import.h for what is checked. */
#include <pthread.h>
#include <signal.h>

#include "fuzz_import.h"

typedef struct {
    int fd;
    const uint8_t *data;
    size_t size;
} pipe_writer;

static void *write_all(void *arg)
{
    pipe_writer *w = arg;
    size_t done = 0;
    while (done < w->size) {
        ssize_t n = write(w->fd, w->data + done, w->size - done);
        if (n <= 0)
            break; /* the reader gave up */
        done += (size_t)n;
    }
    close(w->fd);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool once;
    if (!once) {
        signal(SIGPIPE, SIG_IGN);
        once = true;
    }
    int fds[2];
    if (pipe(fds) != 0)
        abort();
    pipe_writer w = {fds[1], data, size};
    pthread_t writer;
    if (pthread_create(&writer, NULL, write_all, &w) != 0)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    fuzz_import_path(import_file, path);
    close(fds[0]);
    pthread_join(writer, NULL);
    return 0;
}
