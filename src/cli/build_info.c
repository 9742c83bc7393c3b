/* --version. The commit comes from build/gen/commit.h, which the Makefile rewrites only when the
 * commit changes (so this file, not the whole program, is recompiled); the CUDA version is the
 * toolkit's header at compile time, which may differ from the runtime a machine loads. */
#include "build_info.h"

#include <cuda_runtime_api.h>

#include "commit.h"
#include "model.h"

void print_version(FILE *out)
{
    fprintf(out, "mmprof %s (run file schema %d)\n", MMPROF_VERSION, MMPROF_SCHEMA_VERSION);
    fprintf(out, "commit %s\n", MMPROF_COMMIT);
    fprintf(out, "built with CUDA %d.%d (CUDART_VERSION %d)\n", CUDART_VERSION / 1000,
            CUDART_VERSION % 1000 / 10, CUDART_VERSION);
}
