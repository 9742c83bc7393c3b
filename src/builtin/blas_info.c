/* The OpenBLAS the built-in CPU workload multiplies with, read at run time: the library that is
 * loaded is the one that matters, not the one whose headers the binary was built against. */
#include "blas_info.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void blas_info_read(blas_info *b)
{
    memset(b, 0, sizeof *b);
    const char *config = openblas_get_config();
    copy_str(b->config, sizeof b->config, config ? config : "");
    /* Some builds put a trailing space on the config; keep the field tidy. */
    size_t n = strlen(b->config);
    while (n > 0 && b->config[n - 1] == ' ')
        b->config[--n] = '\0';
    blas_version_of(b->config, b->version, sizeof b->version);
    const char *core = openblas_get_corename();
    copy_str(b->core, sizeof b->core, core ? core : "");
    b->threads = openblas_get_num_threads();
    Dl_info info;
    if (dladdr((void *)openblas_get_config, &info) && info.dli_fname) {
        /* The real file, past the alternatives' symbolic links. */
        char *real = realpath(info.dli_fname, NULL);
        copy_str(b->library, sizeof b->library, real ? real : info.dli_fname);
        free(real);
    }
}
