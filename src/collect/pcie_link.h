/* A GPU's PCIe link as the system describes it in sysfs (/sys/bus/pci/devices/BUS/): what the
 * copy bandwidth is judged against. Host code: it needs the device's PCI bus id, not the GPU. */
#ifndef MMPROF_PCIE_LINK_H
#define MMPROF_PCIE_LINK_H

#include "model.h"

/* Fills d->pcie_gen and d->pcie_width from d->pci_bus_id: the link's maximum speed and width (an
 * idle GPU trains its link down, so the current speed under-reads the ceiling); both 0, with the
 * reason in d->pcie_why, when sysfs does not say. */
void pcie_link_read(device_info *d);

#endif
