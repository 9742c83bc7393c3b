/* A fake NVML for the tests (built as build/tests/libfake_nvml.so and opened through
 * MMPROF_NVML_LIBRARY): the entry points mmprof uses, answering from environment variables so a
 * test sets the device's state it wants to see decoded.
 *
 *   FAKE_NVML_BUS_ID      the only PCI bus id it knows (default 0000:65:00.0)
 *   FAKE_NVML_SM_MHZ, FAKE_NVML_SM_MAX_MHZ, FAKE_NVML_MEM_MHZ, FAKE_NVML_MEM_MAX_MHZ
 *   FAKE_NVML_POWER_MW, FAKE_NVML_POWER_LIMIT_MW, FAKE_NVML_TEMP_C
 *   FAKE_NVML_REASONS     the clock event reasons bitmask (decimal or 0x hex)
 *   FAKE_NVML_PIDS        comma-separated pids with a compute context; "self" is the caller's pid
 *   FAKE_NVML_INIT_FAIL   when set, nvmlInit_v2 fails with NVML_ERROR_DRIVER_NOT_LOADED (9)
 * A second GPU, for the link between two (nvml_link):
 *   FAKE_NVML_PEER_BUS_ID the other GPU's PCI bus id
 *   FAKE_NVML_NVLINKS     how many NVLinks of the first GPU are active
 *   FAKE_NVML_NVLINK_TO   where they lead: "peer" (the other GPU) or "switch" (an NVSwitch)
 *   FAKE_NVML_P2P_NVLINK  "ok" when the P2P status for NVLink is OK
 *   FAKE_NVML_TOPO        the common ancestor's topology level (10 PIX, 20 PXB, ... 50 SYS)
 * An unset figure answers NVML_ERROR_NOT_SUPPORTED (3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} process_info;

static int device_token, peer_token; /* the handles handed out: their addresses */

static int from_env(const char *name, unsigned long long *out)
{
    const char *v = getenv(name);
    if (!v || !v[0])
        return 3;
    *out = strtoull(v, NULL, 0);
    return 0;
}

static int uint_from_env(const char *name, unsigned int *out)
{
    unsigned long long v = 0;
    int rc = from_env(name, &v);
    if (rc == 0)
        *out = (unsigned int)v;
    return rc;
}

int nvmlInit_v2(void) { return getenv("FAKE_NVML_INIT_FAIL") ? 9 : 0; }
int nvmlShutdown(void) { return 0; }

const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case 3: return "Not Supported";
    case 6: return "Not Found";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
    const char *known = getenv("FAKE_NVML_BUS_ID");
    const char *peer = getenv("FAKE_NVML_PEER_BUS_ID");
    if (peer && strcmp(bus, peer) == 0) {
        *dev = &peer_token;
        return 0;
    }
    if (strcmp(bus, known && known[0] ? known : "0000:65:00.0") != 0)
        return 6;
    *dev = &device_token;
    return 0;
}

/* nvmlPciInfo_t */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} pci_info;

static int nvlinks(void)
{
    unsigned int n = 0;
    return uint_from_env("FAKE_NVML_NVLINKS", &n) == 0 ? (int)n : -1;
}

int nvmlDeviceGetNvLinkState(void *dev, unsigned int link, int *active)
{
    (void)dev;
    if (nvlinks() < 0)
        return 3;
    *active = (int)link < nvlinks();
    return 0;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(void *dev, unsigned int link, pci_info *pci)
{
    (void)dev;
    const char *to = getenv("FAKE_NVML_NVLINK_TO"), *peer = getenv("FAKE_NVML_PEER_BUS_ID");
    if ((int)link >= nvlinks() || !to)
        return 3;
    memset(pci, 0, sizeof *pci);
    const char *bus = strcmp(to, "peer") == 0 && peer ? peer : "0000:ff:00.0";
    snprintf(pci->busId, sizeof pci->busId, "%s", bus);
    if (sscanf(bus, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device) != 3)
        return 999;
    return 0;
}

int nvmlDeviceGetNvLinkRemoteDeviceType(void *dev, unsigned int link, int *type)
{
    (void)dev;
    const char *to = getenv("FAKE_NVML_NVLINK_TO");
    if ((int)link >= nvlinks() || !to)
        return 3;
    *type = strcmp(to, "switch") == 0 ? 2 : 0;
    return 0;
}

int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status)
{
    (void)a, (void)b;
    const char *v = getenv("FAKE_NVML_P2P_NVLINK");
    if (index != 2 || !v)
        return 3;
    *status = strcmp(v, "ok") == 0 ? 0 : 4;
    return 0;
}

int nvmlDeviceGetTopologyCommonAncestor(void *a, void *b, int *level)
{
    (void)a, (void)b;
    unsigned int v = 0;
    int rc = uint_from_env("FAKE_NVML_TOPO", &v);
    if (rc == 0)
        *level = (int)v;
    return rc;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned int *mhz)
{
    (void)dev;
    return uint_from_env(type == 1 ? "FAKE_NVML_SM_MHZ" : type == 2 ? "FAKE_NVML_MEM_MHZ" : "FAKE_NVML_NONE", mhz);
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned int *mhz)
{
    (void)dev;
    return uint_from_env(type == 1 ? "FAKE_NVML_SM_MAX_MHZ" : type == 2 ? "FAKE_NVML_MEM_MAX_MHZ" : "FAKE_NVML_NONE", mhz);
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw) { (void)dev; return uint_from_env("FAKE_NVML_POWER_MW", mw); }
int nvmlDeviceGetEnforcedPowerLimit(void *dev, unsigned int *mw) { (void)dev; return uint_from_env("FAKE_NVML_POWER_LIMIT_MW", mw); }

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned int *c)
{
    (void)dev;
    return sensor == 0 ? uint_from_env("FAKE_NVML_TEMP_C", c) : 3;
}

/* Only the older name, so the loader's fallback to it is what the tests exercise. */
int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *reasons)
{
    (void)dev;
    return from_env("FAKE_NVML_REASONS", reasons);
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *count, process_info *infos)
{
    (void)dev;
    const char *v = getenv("FAKE_NVML_PIDS");
    unsigned int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v ? v : "");
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n < *count) {
            memset(&infos[n], 0, sizeof infos[n]);
            infos[n].pid = strcmp(tok, "self") == 0 ? (unsigned int)getpid() : (unsigned int)strtoul(tok, NULL, 10);
        }
        n++;
    }
    int rc = n > *count ? 7 : 0;
    *count = n;
    return rc;
}
