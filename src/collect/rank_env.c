/* See rank_env.h. */
#include "rank_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A non-negative decimal integer from variable name, or -1. */
static int env_int(const char *name)
{
    const char *v = getenv(name);
    if (!v || !v[0])
        return -1;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < 0 || x > 1 << 30)
        return -1;
    return (int)x;
}

/* The first of names that is set to a number: its value, and its name in *which. */
static int first_int(const char *const *names, const char **which)
{
    for (int i = 0; names[i]; i++) {
        int x = env_int(names[i]);
        if (x >= 0) {
            if (which)
                *which = names[i];
            return x;
        }
    }
    return -1;
}

bool rank_env_read(rank_env *r)
{
    /* torchrun first: under srun or mpirun torchrun's workers also inherit the launcher's
     * variables, which then name the node's agent, not the worker. */
    static const char *const ranks[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
    static const char *const sizes[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
    static const char *const locals[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                         "SLURM_LOCALID", NULL};
    const char *which = NULL;
    memset(r, 0, sizeof *r);
    r->rank = first_int(ranks, &which);
    r->world_size = first_int(sizes, NULL);
    r->local_rank = first_int(locals, NULL);
    if (which)
        snprintf(r->source, sizeof r->source, "%s", which);
    if (gethostname(r->host, sizeof r->host) != 0)
        r->host[0] = '\0';
    r->host[sizeof r->host - 1] = '\0';
    return r->rank >= 0;
}

bool rank_env_expand(const rank_env *r, const char *pattern, char *out, size_t len, char *why, size_t why_len)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        char num[16];
        const char *add = num;
        if (*p != '%') {
            num[0] = *p;
            num[1] = '\0';
        } else if (p[1] == 'r') {
            if (r->rank < 0) {
                snprintf(why, why_len,
                         "%%r names the rank, and no launcher variable gives one (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, "
                         "PMIX_RANK, SLURM_PROCID); run mmprof under the launcher (torchrun/mpirun/srun ... mmprof "
                         "profile ...) or name the file without %%r");
                return false;
            }
            snprintf(num, sizeof num, "%d", r->rank);
            p++;
        } else if (p[1] == 'h') {
            add = r->host[0] ? r->host : "unknown-host";
            p++;
        } else if (p[1] == '%') {
            add = "%";
            p++;
        } else {
            snprintf(why, why_len, "%% must be followed by r (rank), h (host) or %% (a %%)");
            return false;
        }
        size_t k = strlen(add);
        if (n + k >= len) {
            snprintf(why, why_len, "the expanded name is too long");
            return false;
        }
        memcpy(out + n, add, k);
        n += k;
    }
    out[n] = '\0';
    return true;
}
