/* libFuzzer target for the Kineto importer: any bytes as a trace file must come back imported or
 * refused with a message, with no crash, leak or undefined behaviour (ASan and UBSan watch).
 *
 *   make fuzz-kineto            runs it for FUZZ_SECONDS (60) from the hand-made traces
 *
 * import_kineto reads a path, so each input goes to a memfd and is read through /proc/self/fd. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("trace", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    run_model m;
    model_init(&m);
    char err[512] = "";
    if (!import_kineto(path, &m, err, sizeof err)) {
        /* Refused: a message that names the file, and nothing left in the model. */
        if (strncmp(err, path, strlen(path)) != 0 || m.nregions || m.events.nkernels || m.ndevices)
            abort();
    }
    model_free(&m);
    return 0;
}
