/* libFuzzer target for the Nsight Systems importer: any bytes as a database file must come back
 * imported or refused with a message, with no crash, leak or undefined behaviour (ASan and UBSan
 * watch). Mutated databases mostly reach SQLite's own corruption checks; those that stay readable
 * carry values of the wrong type, NULLs and out-of-range numbers into the importer's checks.
 *
 *   make fuzz-nsys            runs it for FUZZ_SECONDS (60) from the SQL seeds in tests/data/nsys
 *
 * import_nsys_sqlite reads a path, so each input goes to one temporary file (removed at exit). A
 * memfd's /proc/self/fd path will not do here: SQLite resolves the link to a name that does not
 * exist. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"

static char path[] = "/tmp/mmprof-fuzz-nsys-XXXXXX";

static void remove_file(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0) {
        fd = mkstemp(path);
        if (fd < 0)
            abort();
        atexit(remove_file);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    run_model m;
    model_init(&m);
    char err[512] = "";
    if (!import_nsys_sqlite(path, &m, err, sizeof err)) {
        /* Refused: a message that names the file, and nothing left in the model. */
        if (strncmp(err, path, strlen(path)) != 0 || m.nregions || m.events.nkernels || m.ndevices || m.nwarnings)
            abort();
    }
    model_free(&m);
    return 0;
}
