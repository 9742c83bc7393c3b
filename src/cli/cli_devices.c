/* --devices all|0,1,...: the GPUs a built-in run uses, each alone and all at once. The list is
 * checked here for what needs no GPU (a number, named once, below MAX_RUN_DEVICES); whether each
 * index exists on this machine is checked by the runner once the devices are counted. */
#include <string.h>

#include "cli_devices.h"
#include "cli_numbers.h"

bool parse_devices(const char *arg, cli_options *o, FILE *err)
{
    o->all_devices = false;
    o->ndevices = 0;
    if (strcmp(arg, "all") == 0) {
        o->all_devices = true;
        return true;
    }
    const char *p = arg;
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[16];
        long v = -1;
        if (len > 0 && len < sizeof item) {
            memcpy(item, p, len);
            item[len] = '\0';
            if (strcmp(item, "0") == 0)
                v = 0;
            else if (!parse_positive(item, 1L << 30, &v))
                v = -1;
        }
        if (v < 0) {
            fprintf(err, "mmprof: --devices '%s': '%.*s' is not a device index (expected all, or indices "
                         "from 0 separated by commas, e.g. 0,1)\n", arg, (int)(len < 32 ? len : 32), p);
            return false;
        }
        if (v >= MAX_RUN_DEVICES) {
            fprintf(err, "mmprof: --devices '%s': device %ld is out of range (at most %d devices, 0 to %d)\n", arg,
                    v, MAX_RUN_DEVICES, MAX_RUN_DEVICES - 1);
            return false;
        }
        for (int i = 0; i < o->ndevices; i++)
            if (o->devices[i] == (int)v) {
                fprintf(err, "mmprof: --devices '%s': device %ld is named twice\n", arg, v);
                return false;
            }
        o->devices[o->ndevices++] = (int)v;
        if (p[len] == '\0')
            return true;
        p += len + 1;
    }
}
