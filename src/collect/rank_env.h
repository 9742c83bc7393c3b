/* Which rank of a distributed job this process is, from the variables its launcher sets
 * (torchrun, Open MPI's mpirun, MPICH/Intel MPI's PMI, Slurm's srun, PMIx), and the host's name.
 * Read in two places: by the injection library (each process of a profiled tree says its rank in
 * its stream) and by `mmprof profile` (a --json path's %r and %h). Needs only libc. */
#ifndef MMPROF_RANK_ENV_H
#define MMPROF_RANK_ENV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int rank;        /* -1: no launcher variable set */
    int world_size;  /* -1: unknown */
    int local_rank;  /* -1: unknown */
    char source[32]; /* the variable the rank came from, e.g. "RANK" */
    char host[256];  /* gethostname; "" when it failed */
} rank_env;

/* Fills r from the environment; true when a rank variable was set (and parsed). */
bool rank_env_read(rank_env *r);

/* pattern with %r (the rank), %h (the host) and %% (a %) replaced, into out; false with a reason
 * in why when out is too small, a % is followed by anything else, or %r is used and r has no
 * rank. */
bool rank_env_expand(const rank_env *r, const char *pattern, char *out, size_t len, char *why, size_t why_len);

#endif
