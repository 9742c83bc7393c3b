/* The command line's side of the built-in run. See cli_builtin.h. */
#include "cli_builtin.h"

#include <string.h>

void cli_builtin_options(const cli_options *o, int argc, char **argv, bool progress, builtin_options *b)
{
    memset(b, 0, sizeof *b);
    b->argc = argc;
    b->argv = argv;
    b->n = o->n;
    memcpy(b->sizes, o->sizes, sizeof b->sizes);
    b->nsizes = o->nsizes;
    b->repeat = o->repeat;
    b->max_noise_pct = o->max_noise_pct;
    b->max_time_s = o->max_time_s;
    b->cold_l2 = o->cold_l2;
    b->counters = o->counters;
    b->host_memory = o->host_memory;
    b->seed_given = o->seed_given;
    b->seed = o->seed;
    b->device = o->device;
    b->all_devices = o->all_devices;
    memcpy(b->devices, o->devices, sizeof b->devices);
    b->ndevices = o->ndevices;
    memcpy(b->selected, o->selected, sizeof b->selected);
    b->nselected = o->nselected;
    b->require_gpu = o->require_gpu;
    b->no_cupti = o->no_cupti;
    b->timeout_s = o->timeout_s;
    b->progress = progress;
}

int builtin_exit_status(builtin_status s)
{
    switch (s) {
    case BUILTIN_OK: return EXIT_OK;
    case BUILTIN_WORKLOAD_FAILED: return EXIT_WORKLOAD_FAILED;
    case BUILTIN_NO_GPU: return EXIT_NO_GPU;
    case BUILTIN_BAD_REQUEST: break;
    }
    return EXIT_USAGE;
}
