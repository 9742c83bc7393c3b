/* Host facts, read where mmprof runs: the built-in run's and a profiled program's machine. */
#include "hostinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* /proc/cpuinfo's model name; "" where it gives none (some Arm kernels). */
static void cpu_model(char *buf, size_t len)
{
    copy_str(buf, len, "");
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
        copy_str(buf, len, pretty[0] ? pretty : kernel);
}

void host_info_read(host_info *h)
{
    memset(h, 0, sizeof *h);
    h->known = true;
    cpu_model(h->cpu_model, sizeof h->cpu_model);
    os_name(h->os, sizeof h->os);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    h->logical_cores = cores > 0 ? (int)cores : 0;
    __builtin_cpu_init();
    h->has_avx2 = __builtin_cpu_supports("avx2");
    h->has_avx512f = __builtin_cpu_supports("avx512f");
}
