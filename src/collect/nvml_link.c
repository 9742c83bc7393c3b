/* The link between two GPUs, through NVML (opened as nvml.c opens it; types declared by hand from
 * NVIDIA's NVML API reference, as there). Read in this order, each step only when the one before
 * left the question open:
 *   1. NVLinks whose far end is the other GPU (nvmlDeviceGetNvLinkState and
 *      nvmlDeviceGetNvLinkRemotePciInfo_v2 on each of the first GPU's links): a direct NVLink;
 *   2. nvmlDeviceGetP2PStatus for the NVLink capability: NVLink through an NVSwitch (the links'
 *      far ends are switches, nvmlDeviceGetNvLinkRemoteDeviceType says so where it exists);
 *   3. otherwise PCIe, with the path nvmlDeviceGetTopologyCommonAncestor gives, named as
 *      `nvidia-smi topo -m` names it (PIX, PXB, PHB, NODE, SYS).
 * Only the link kind is claimed; the bandwidth is what the peer matrix measures. */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_P2P_CAPS_INDEX_NVLINK 2 /* nvmlGpuP2PCapsIndex_t */
#define NVML_P2P_STATUS_OK 0         /* nvmlGpuP2PStatus_t */
#define NVML_FEATURE_ENABLED 1       /* nvmlEnableState_t */
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2 /* nvmlIntNvLinkDeviceType_t */

/* nvmlPciInfo_t (the _v2 queries fill this layout). */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device;
    unsigned int pciDeviceId, pciSubSystemId;
    char busId[32];
} nvml_pci_info;

typedef struct {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*by_bus_id)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned int, int *);              /* optional */
    nvmlReturn_t (*remote_pci)(nvmlDevice_t, unsigned int, nvml_pci_info *);    /* optional */
    nvmlReturn_t (*remote_type)(nvmlDevice_t, unsigned int, int *);             /* optional */
    nvmlReturn_t (*p2p_status)(nvmlDevice_t, nvmlDevice_t, int, int *);         /* optional */
    nvmlReturn_t (*ancestor)(nvmlDevice_t, nvmlDevice_t, int *);                /* optional */
} link_api;

static const char *err_str(const link_api *a, nvmlReturn_t rc)
{
    const char *s = a->error_string ? a->error_string(rc) : NULL;
    return s ? s : "unknown NVML error";
}

/* "PXB (multiple PCIe bridges)" for a topology level, as nvidia-smi topo -m names them. */
static const char *level_name(int level)
{
    switch (level) {
    case 0: return "the same board";
    case 10: return "PIX (one PCIe bridge)";
    case 20: return "PXB (multiple PCIe bridges)";
    case 30: return "PHB (a PCIe host bridge)";
    case 40: return "NODE (host bridges within one NUMA node)";
    case 50: return "SYS (across NUMA nodes, over the CPU interconnect)";
    default: return "an unknown path";
    }
}

static bool same_bus(const nvml_pci_info *p, unsigned dom, unsigned bus, unsigned dev)
{
    return p->domain == dom && p->bus == bus && p->device == dev;
}

/* What NVML says of a and b, into kind and detail. */
static void read_link(const link_api *a, nvmlDevice_t da, nvmlDevice_t db, const char *bus_b, char *kind,
                      size_t klen, char *detail, size_t dlen)
{
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    bool parsed = sscanf(bus_b, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4;
    int active = 0, direct = 0, to_switch = 0;
    for (unsigned l = 0; a->link_state && l < NVML_NVLINK_MAX_LINKS; l++) {
        int on = 0;
        if (a->link_state(da, l, &on) != NVML_SUCCESS || on != NVML_FEATURE_ENABLED)
            continue;
        active++;
        nvml_pci_info pci;
        memset(&pci, 0, sizeof pci);
        if (parsed && a->remote_pci && a->remote_pci(da, l, &pci) == NVML_SUCCESS && same_bus(&pci, dom, bus, dev))
            direct++;
        int type = -1;
        if (a->remote_type && a->remote_type(da, l, &type) == NVML_SUCCESS && type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
            to_switch++;
    }
    if (direct > 0) {
        snprintf(kind, klen, "NVLink");
        snprintf(detail, dlen, "%d NVLink%s straight to the other GPU (of %d active)", direct, direct == 1 ? "" : "s",
                 active);
        return;
    }
    int p2p = -1;
    nvmlReturn_t rc = a->p2p_status ? a->p2p_status(da, db, NVML_P2P_CAPS_INDEX_NVLINK, &p2p) : -1;
    if (rc == NVML_SUCCESS && p2p == NVML_P2P_STATUS_OK && active > 0) {
        snprintf(kind, klen, "NVLink");
        if (to_switch > 0)
            snprintf(detail, dlen, "through NVSwitch: %d active NVLinks, %d to a switch", active, to_switch);
        else
            snprintf(detail, dlen, "NVML's P2P status says NVLink; %d active NVLinks, none straight to the other GPU",
                     active);
        return;
    }
    int level = -1;
    rc = a->ancestor ? a->ancestor(da, db, &level) : -1;
    snprintf(kind, klen, "PCIe");
    if (rc == NVML_SUCCESS)
        snprintf(detail, dlen, "no NVLink between them; PCIe path: %s", level_name(level));
    else
        snprintf(detail, dlen, "no NVLink between them; PCIe path not known (%s)",
                 a->ancestor ? err_str(a, rc) : "no nvmlDeviceGetTopologyCommonAncestor");
}

void nvml_link(const char *bus_a, const char *bus_b, char *kind, size_t klen, char *detail, size_t dlen)
{
    snprintf(kind, klen, "n/a");
    void *lib = nvml_library_open(detail, dlen);
    if (!lib)
        return;
    link_api a;
    memset(&a, 0, sizeof a);
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
    *(void **)&a.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&a.shutdown = dlsym(lib, "nvmlShutdown");
    *(void **)&a.error_string = dlsym(lib, "nvmlErrorString");
    *(void **)&a.by_bus_id = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&a.link_state = dlsym(lib, "nvmlDeviceGetNvLinkState");
    *(void **)&a.remote_pci = dlsym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    *(void **)&a.remote_type = dlsym(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
    *(void **)&a.p2p_status = dlsym(lib, "nvmlDeviceGetP2PStatus");
    *(void **)&a.ancestor = dlsym(lib, "nvmlDeviceGetTopologyCommonAncestor");
    if (!a.init || !a.shutdown || !a.by_bus_id) {
        snprintf(detail, dlen, "the NVML library lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetHandleByPciBusId_v2");
        dlclose(lib);
        return;
    }
    nvmlReturn_t rc = a.init();
    if (rc != NVML_SUCCESS) {
        snprintf(detail, dlen, "nvmlInit failed: %s", err_str(&a, rc));
        dlclose(lib);
        return;
    }
    nvmlDevice_t da, db;
    if ((rc = a.by_bus_id(bus_a, &da)) != NVML_SUCCESS || (rc = a.by_bus_id(bus_b, &db)) != NVML_SUCCESS)
        snprintf(detail, dlen, "NVML does not know the GPU at %s or %s: %s", bus_a, bus_b, err_str(&a, rc));
    else
        read_link(&a, da, db, bus_b, kind, klen, detail, dlen);
    a.shutdown();
    dlclose(lib);
}
