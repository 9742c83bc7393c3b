/* A device's peak figures from what its record says (FP32 FLOP/s, HBM and PCIe bandwidth), and
 * the FLOPs of the built-in product. See peaks.h. */
#include "peaks.h"

#include <string.h>

#define set metric_set
#define na metric_na

double product_flops(int n)
{
    return 2.0 * (double)n * (double)n * (double)n;
}

int fp32_lanes_per_sm(int major, int minor)
{
    /* FP32 units per SM by compute capability, from the CUDA C programming guide's table of
     * arithmetic instruction throughput. */
    switch (major) {
    case 5: return 128;
    case 6: return minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9: return 128;
    case 10: return 128;
    case 12: return 128;
    default: return 0;
    }
}

device_peaks device_peaks_of(const device_info *d)
{
    device_peaks p;
    memset(&p, 0, sizeof p);
    p.fp32_lanes_per_sm = fp32_lanes_per_sm(d->cc_major, d->cc_minor);
    if (d->cc_major <= 0) /* a trace of an AMD GPU, or one that did not record it */
        na(&p.fp32_tflops, "compute capability not reported");
    else if (p.fp32_lanes_per_sm == 0)
        na(&p.fp32_tflops, "FP32 lanes per SM not known for compute capability %d.%d", d->cc_major, d->cc_minor);
    else if (d->clock_khz <= 0 || d->sm_count <= 0)
        na(&p.fp32_tflops, "SM clock or count not reported");
    else
        set(&p.fp32_tflops, (double)d->sm_count * p.fp32_lanes_per_sm * 2.0 * d->clock_khz * 1e3 / 1e12);
    if (d->mem_clock_khz > 0 && d->bus_width_bits > 0) /* double data rate */
        set(&p.hbm_gbps, 2.0 * d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0) / 1e9);
    else if (d->memory_bandwidth > 0) /* what the source reports, the same product computed there */
        set(&p.hbm_gbps, (double)d->memory_bandwidth / 1e9);
    else
        na(&p.hbm_gbps, "memory clock or bus width not reported");
    /* PCIe per direction: transfer rate per lane (GT/s) x encoding efficiency x lanes / 8 bits. */
    static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    if (d->pcie_gen >= 1 && d->pcie_gen <= 6 && d->pcie_width > 0) {
        double enc = d->pcie_gen <= 2 ? 0.8 : (d->pcie_gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0);
        set(&p.link_gbps, gts[d->pcie_gen] * enc * d->pcie_width / 8.0);
    } else {
        na(&p.link_gbps, "%s", d->pcie_why[0] ? d->pcie_why : "PCIe link not reported");
    }
    return p;
}
