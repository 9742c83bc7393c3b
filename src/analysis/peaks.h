/* A device's peak figures, computed from its record (model.h's device_info); the roofline's and
 * the ladder's ceilings. Pure functions. */
#ifndef MMPROF_PEAKS_H
#define MMPROF_PEAKS_H

#include "metric.h"
#include "model.h"

typedef struct {
    metric fp32_tflops; /* SMs x FP32 lanes per SM x 2 x clock */
    metric tf32_tflops; /* SMs x dense TF32 tensor FLOPs per SM per clock x clock */
    metric l2_gbps;     /* the L2's peak bandwidth, as the counter pass read it */
    metric l1_gbps;     /* SMs x L1/shared bytes per SM per clock x clock */
    metric hbm_gbps;    /* 2 x memory clock x bus width */
    metric link_gbps;   /* PCIe, per direction */
    int fp32_lanes_per_sm;
} device_peaks;

double product_flops(int n);
int fp32_lanes_per_sm(int cc_major, int cc_minor); /* 0 when unknown */
device_peaks device_peaks_of(const device_info *d);

#endif
