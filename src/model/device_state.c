/* Names of NVML's clock event reasons (device_state.h). */
#include "device_state.h"

#include <stdio.h>
#include <string.h>

/* Indexed by bit number, as NVML documents the bits. */
static const char *const reason_names[] = {
    "gpu idle",      "applications clocks setting", "sw power cap", "hw slowdown", "sync boost",
    "sw thermal",    "hw thermal",                  "hw power brake", "display clocks",
};
#define NREASONS ((int)(sizeof reason_names / sizeof reason_names[0]))

const char *clock_reason_name(int bit)
{
    return bit >= 0 && bit < NREASONS ? reason_names[bit] : NULL;
}

const char *clock_reason_label(int bit, char buf[16])
{
    const char *name = clock_reason_name(bit);
    if (name)
        return name;
    snprintf(buf, 16, "bit %d", bit);
    return buf;
}

void clock_reasons_text(uint64_t mask, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (!mask) {
        snprintf(buf, len, "none");
        return;
    }
    size_t at = 0;
    for (int b = 0; b < 64; b++) {
        if (!(mask & (1ull << b)))
            continue;
        char unknown[16];
        int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", clock_reason_label(b, unknown));
        if (w < 0 || (size_t)w >= len - at)
            return; /* cut short; snprintf terminated it */
        at += (size_t)w;
    }
}

bool clock_reason_parse(const char *name, uint64_t *bit)
{
    for (int b = 0; b < NREASONS; b++)
        if (strcmp(name, reason_names[b]) == 0) {
            *bit = 1ull << b;
            return true;
        }
    return false;
}
