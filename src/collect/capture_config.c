/* The capture settings and their environment variables. See capture_config.h. */
#include "capture_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void capture_config_init(capture_config *c)
{
    memset(c, 0, sizeof *c);
    c->count = 1;
}

bool capture_parse_range(const char *arg, capture_config *c, char *why, size_t len)
{
    if (strcmp(arg, "cuda-profiler") == 0) {
        c->mode = CAPTURE_CUDA_PROFILER;
        return true;
    }
    if (strcmp(arg, "manual") == 0) {
        c->mode = CAPTURE_MANUAL;
        return true;
    }
    if (strncmp(arg, "nvtx:", 5) != 0) {
        snprintf(why, len, "expected cuda-profiler, manual or nvtx:NAME[@DOMAIN]");
        return false;
    }
    const char *name = arg + 5, *at = strrchr(name, '@');
    size_t nlen = at ? (size_t)(at - name) : strlen(name);
    const char *domain = at ? at + 1 : "";
    if (nlen == 0) {
        snprintf(why, len, "nvtx: needs the range's name (nvtx:NAME or nvtx:NAME@DOMAIN)");
        return false;
    }
    if (at && !*domain) {
        snprintf(why, len, "nothing after '@': name the domain, or leave '@' out for the default domain");
        return false;
    }
    if (nlen >= CAPTURE_NAME_MAX || strlen(domain) >= CAPTURE_NAME_MAX) {
        snprintf(why, len, "the name and the domain may have at most %d characters each", CAPTURE_NAME_MAX - 1);
        return false;
    }
    c->mode = CAPTURE_NVTX;
    memcpy(c->nvtx_name, name, nlen);
    c->nvtx_name[nlen] = '\0';
    snprintf(c->nvtx_domain, sizeof c->nvtx_domain, "%s", domain);
    return true;
}

static bool set_i64(const char *var, int64_t v)
{
    char s[24];
    snprintf(s, sizeof s, "%lld", (long long)v);
    return setenv(var, s, 1) == 0;
}

bool capture_config_setenv(const capture_config *c)
{
    if (c->mode == CAPTURE_ALL)
        return true;
    bool ok = set_i64(CAPTURE_ENV_START, c->start_ns) && (c->max_bytes == 0 || set_i64(CAPTURE_ENV_MAX_BYTES, (int64_t)c->max_bytes));
    if (c->mode == CAPTURE_TIME)
        return ok && set_i64(CAPTURE_ENV_DELAY, c->delay_ns) && set_i64(CAPTURE_ENV_DURATION, c->duration_ns);
    char range[2 * CAPTURE_NAME_MAX + 8];
    if (c->mode == CAPTURE_CUDA_PROFILER || c->mode == CAPTURE_MANUAL)
        snprintf(range, sizeof range, "%s", c->mode == CAPTURE_MANUAL ? "manual" : "cuda-profiler");
    else
        snprintf(range, sizeof range, "nvtx:%s%s%s", c->nvtx_name, c->nvtx_domain[0] ? "@" : "", c->nvtx_domain);
    return ok && setenv(CAPTURE_ENV_RANGE, range, 1) == 0 && set_i64(CAPTURE_ENV_COUNT, c->count) &&
           set_i64(CAPTURE_ENV_SKIP, c->skip);
}

/* A variable as a whole number in [lo, hi]; false when missing or malformed. */
static bool get_i64(const char *var, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = getenv(var);
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

void capture_config_from_env(capture_config *c)
{
    capture_config_init(c);
    capture_config r;
    capture_config_init(&r);
    int64_t max_ns = (int64_t)(CAPTURE_MAX_SECONDS * 1e9), count, skip;
    if (!get_i64(CAPTURE_ENV_START, 0, INT64_MAX, &r.start_ns))
        return;
    int64_t max_bytes = 0;
    if (getenv(CAPTURE_ENV_MAX_BYTES) && !get_i64(CAPTURE_ENV_MAX_BYTES, 1, INT64_MAX, &max_bytes))
        return;
    r.max_bytes = (uint64_t)max_bytes;
    const char *range = getenv(CAPTURE_ENV_RANGE);
    if (range && *range) {
        char why[160];
        if (!capture_parse_range(range, &r, why, sizeof why) || !get_i64(CAPTURE_ENV_COUNT, 1, CAPTURE_MAX_COUNT, &count) ||
            !get_i64(CAPTURE_ENV_SKIP, 0, CAPTURE_MAX_COUNT, &skip))
            return;
        r.count = (long)count;
        r.skip = (long)skip;
    } else {
        if (!get_i64(CAPTURE_ENV_DELAY, 0, max_ns, &r.delay_ns) || !get_i64(CAPTURE_ENV_DURATION, 0, max_ns, &r.duration_ns))
            return;
        r.mode = CAPTURE_TIME;
    }
    *c = r;
}

void capture_describe(const capture_config *c, char *out, size_t len)
{
    char skip[64] = "";
    if (c->skip > 0)
        snprintf(skip, sizeof skip, " after skipping %ld", c->skip);
    switch (c->mode) {
    case CAPTURE_ALL: snprintf(out, len, "everything"); break;
    case CAPTURE_TIME:
        if (c->duration_ns > 0)
            snprintf(out, len, "from %g s after launch for %g s", c->delay_ns / 1e9, c->duration_ns / 1e9);
        else if (c->delay_ns > 0)
            snprintf(out, len, "from %g s after launch to the end", c->delay_ns / 1e9);
        else
            snprintf(out, len, "everything"); /* --max-size alone */
        break;
    case CAPTURE_CUDA_PROFILER:
        snprintf(out, len, "the first %ld cudaProfilerStart/Stop range(s)%s", c->count, skip);
        break;
    case CAPTURE_NVTX:
        snprintf(out, len, "the first %ld instance(s) of NVTX range '%s' (%s%s)%s", c->count, c->nvtx_name,
                 c->nvtx_domain[0] ? "domain " : "default domain", c->nvtx_domain, skip);
        break;
    case CAPTURE_MANUAL: snprintf(out, len, "between mmprof capture start and stop"); break;
    }
    size_t used = strlen(out);
    char size[32];
    capture_size_words(c->max_bytes, size, sizeof size);
    if (c->max_bytes > 0 && used < len)
        snprintf(out + used, len - used, "%s up to %s of records (--max-size)",
                 c->mode == CAPTURE_TIME && c->delay_ns == 0 && c->duration_ns == 0 ? "" : ",", size);
}

void capture_size_words(uint64_t bytes, char *out, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 5)
        v /= 1024, u++;
    snprintf(out, len, "%.4g %s", v, units[u]);
}
