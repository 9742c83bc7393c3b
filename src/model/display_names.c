/* The names a report shows for CUDA API calls and kernels. See display_names.h. */
#include "display_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declared by libstdc++'s ABI; the CUDA parts of the program already link it. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

void api_display_name(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s", name ? name : "");
    char *v = strrchr(buf, '_');
    if (!v || v == buf || v[1] != 'v' || v[2] == '\0')
        return;
    for (const char *d = v + 2; *d; d++)
        if (*d < '0' || *d > '9')
            return;
    *v = '\0';
}

void kernel_display_name(const char *mangled, char *buf, size_t len)
{
    int status = -1;
    char *dem = (mangled && mangled[0] == '_' && mangled[1] == 'Z')
                    ? __cxa_demangle(mangled, NULL, NULL, &status) : NULL;
    const char *s = (dem && status == 0) ? dem : (mangled ? mangled : "");
    /* Drop a leading "void " and the parameter list: the name and template arguments are what
     * tell kernels apart. */
    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    size_t end = strlen(s);
    if (end > 0 && s[end - 1] == ')') {
        int depth = 0;
        for (size_t i = end; i-- > 0;) {
            if (s[i] == ')')
                depth++;
            else if (s[i] == '(' && --depth == 0) {
                end = i;
                break;
            }
        }
    }
    /* ABI tags go too: numba appends "[abi:v1][abi:cw51cXTL...]" (a hash of the argument types,
     * up to 100 characters) that says nothing a reader can use; the mangled name keeps it. */
    size_t o = 0;
    for (size_t i = 0; i < end && o + 1 < len;) {
        if (strncmp(s + i, "[abi:", 5) == 0) {
            const char *close = memchr(s + i, ']', end - i);
            if (close) {
                i = (size_t)(close - s) + 1;
                continue;
            }
        }
        buf[o++] = s[i++];
    }
    buf[o] = '\0';
    free(dem);
}
