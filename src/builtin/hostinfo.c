/* Host facts, read at run time: the OpenBLAS that is loaded is the one that matters, not the
 * one whose headers the binary was built against. */
#include "hostinfo.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void cpu_model(char *buf, size_t len)
{
    copy_str(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        copy_str(buf, len, v);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

static void os_name(char *buf, size_t len)
{
    char pretty[96] = "";
    FILE *f = fopen("/etc/os-release", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
                char *v = line + 12;
                v += (*v == '"');
                v[strcspn(v, "\"\n")] = '\0';
                copy_str(pretty, sizeof pretty, v);
            }
        fclose(f);
    }
    struct utsname u;
    char kernel[160] = "";
    if (uname(&u) == 0)
        snprintf(kernel, sizeof kernel, "%.60s %.90s", u.sysname, u.release);
    if (pretty[0] && kernel[0])
        snprintf(buf, len, "%.60s, %.60s", pretty, kernel);
    else
        copy_str(buf, len, pretty[0] ? pretty : (kernel[0] ? kernel : "unknown OS"));
}

void blas_version_of(const char *config, char *buf, size_t len)
{
    copy_str(buf, len, "");
    const char *p = strstr(config, "OpenBLAS ");
    if (!p)
        return;
    p += strlen("OpenBLAS ");
    size_t n = strcspn(p, " ");
    copy_str(buf, n + 1 < len ? n + 1 : len, p);
}

void host_info_read(host_info *h)
{
    memset(h, 0, sizeof *h);
    cpu_model(h->cpu_model, sizeof h->cpu_model);
    os_name(h->os, sizeof h->os);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    h->logical_cores = cores > 0 ? (int)cores : 0;
    __builtin_cpu_init();
    h->has_avx2 = __builtin_cpu_supports("avx2");
    h->has_avx512f = __builtin_cpu_supports("avx512f");
    const char *config = openblas_get_config();
    copy_str(h->blas_config, sizeof h->blas_config, config ? config : "");
    /* Some builds put a trailing space on the config; keep the field tidy. */
    size_t n = strlen(h->blas_config);
    while (n > 0 && h->blas_config[n - 1] == ' ')
        h->blas_config[--n] = '\0';
    blas_version_of(h->blas_config, h->blas_version, sizeof h->blas_version);
    const char *core = openblas_get_corename();
    copy_str(h->blas_core, sizeof h->blas_core, core ? core : "");
    h->blas_threads = openblas_get_num_threads();
    Dl_info info;
    if (dladdr((void *)openblas_get_config, &info) && info.dli_fname) {
        /* The real file, past the alternatives' symbolic links. */
        char *real = realpath(info.dli_fname, NULL);
        copy_str(h->blas_library, sizeof h->blas_library, real ? real : info.dli_fname);
        free(real);
    }
}
