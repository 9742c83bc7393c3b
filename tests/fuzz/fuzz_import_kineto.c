/* libFuzzer target: PyTorch profiler (Kineto) traces, through import_kineto (see fuzz_import.h). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_import(import_kineto, data, size);
}
