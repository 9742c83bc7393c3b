/* libFuzzer target: compressed traces, through import_file (format and compression told by
 * content): the seeds are gzip, zstd and xz files of small Kineto traces and of an nsys export, so
 * mutations land in the compressed data, its headers and trailers, and what the decompressed
 * text then is. See fuzz_import.h for what is checked. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_import(import_file, data, size);
}
