/* The PCIe link from sysfs. See pcie_link.h. */
#include "pcie_link.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sysfs_read(const char *dir, const char *file, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

void pcie_link_read(device_info *d)
{
    char dir[96], lower[32], speed[64], width[16];
    size_t i;
    for (i = 0; d->pci_bus_id[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)tolower((unsigned char)d->pci_bus_id[i]);
    lower[i] = '\0';
    snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", lower);
    sysfs_read(dir, "max_link_speed", speed, sizeof speed);
    sysfs_read(dir, "max_link_width", width, sizeof width);
    double gts = atof(speed);
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int k = 0; k < 6; k++)
        if (fabs(gts - rates[k]) < 0.01)
            d->pcie_gen = k + 1;
    d->pcie_width = atoi(width);
    if (d->pcie_gen == 0 || d->pcie_width <= 0) {
        d->pcie_gen = d->pcie_width = 0;
        snprintf(d->pcie_why, sizeof d->pcie_why, "PCIe link speed and width not readable in sysfs for %.16s",
                 lower);
    }
}
