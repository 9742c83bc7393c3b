/* A small run model whose every outside string is hostile: markup, quotes, ampersands, control
 * characters and bytes that are not UTF-8. The HTML and trace tests render it and check that
 * nothing of it escapes into markup or breaks the JSON. Header-only, so each test binary takes
 * it without a Makefile rule of its own. */
#ifndef MMPROF_TEST_HOSTILE_MODEL_H
#define MMPROF_TEST_HOSTILE_MODEL_H

#include <stdlib.h>
#include <string.h>

#include "model.h"

#define HOSTILE_KERNEL "<script>alert(1)</script>"
#define HOSTILE_KERNEL_JSONISH "k\"e\\y\x01\xff<script>"
#define HOSTILE_COMMAND "mmprof --html \"a&b.html\" 'x\"y' <b>bold</b> --trace t&amp;.json"
#define HOSTILE_DEVICE "<img src=x onerror=alert(2)>"
#define HOSTILE_WORKLOAD "cuda-\"><svg onload=alert(3)>"
#define HOSTILE_WARNING "<b>warned</b> & \"quoted\""
#define HOSTILE_API "cudaLaunch<i>Kernel</i>"

static inline void hostile_phase(workload_run *w, const char *name, int64_t start, int64_t end)
{
    phase *p = workload_add_phase(w, name);
    if (p) {
        p->start_ns = start;
        p->end_ns = end;
    }
}

/* n = 64; a CPU baseline and one GPU workload with two hostile kernels, three copies and a
 * hostile API call; times in ns from an epoch of 1e12. */
static inline void hostile_model(run_model *m)
{
    model_init(m);
    const int64_t t0 = 1000000000000LL;
    m->epoch_ns = t0;
    m->builtin.n = 64;
    m->command_line = strdup(HOSTILE_COMMAND);
    copy_str(m->started_at, sizeof m->started_at, "2026-01-02T03:04:05Z");
    copy_str(m->host.cpu_model, sizeof m->host.cpu_model, "CPU <&> \"x\"");
    copy_str(m->builtin.blas.library, sizeof m->builtin.blas.library, "/opt/<lib>/libopenblas&.so");
    m->host.logical_cores = 2;
    m->collection.source = TIMING_CUPTI;
    m->devices = calloc(1, sizeof *m->devices);
    m->ndevices = 1;
    device_info *d = &m->devices[0];
    copy_str(d->name, sizeof d->name, HOSTILE_DEVICE);
    d->cc_major = 9;
    d->sm_count = 132;
    d->clock_khz = 1980000;
    d->max_threads_per_sm = 2048;
    d->max_threads_per_block = 1024;
    d->max_blocks_per_sm = 32;
    d->regs_per_sm = d->regs_per_block = 65536;
    d->warp_size = 32;
    d->smem_per_sm = 233472;
    d->smem_per_block = 49152;
    d->smem_per_block_optin = 232448;
    d->reserved_smem_per_block = 1024;
    model_add_warning(m, "%s", HOSTILE_WARNING);
    m->builtin.tool_phases[0] = (phase){"cuda-init", t0, t0 + 1000000};
    m->builtin.ntool_phases = 1;

    workload_run *cpu = model_add_workload(m);
    copy_str(cpu->name, sizeof cpu->name, "cpu-openblas");
    cpu->device = -1;
    cpu->repeat = 2;
    cpu->timing = TIMING_HOST_CLOCK;
    hostile_phase(cpu, "compute", t0 + 2000000, t0 + 3000000);
    workload_add_product_ms(cpu, 0.5);
    workload_add_product_ms(cpu, 0.5);
    cpu->verified = true;
    cpu->rel_error = 1e-7;
    cpu->error_bound = 1e-5;

    workload_run *w = model_add_workload(m);
    copy_str(w->name, sizeof w->name, HOSTILE_WORKLOAD);
    w->needs_gpu = true;
    w->host_memory = MEM_PINNED;
    w->device = 0;
    w->repeat = 2;
    w->launched = 2;
    w->timing = TIMING_CUPTI;
    w->verified = true;
    w->rel_error = 2e-7;
    w->error_bound = 1e-5;
    int64_t s = t0 + 4000000;
    hostile_phase(w, "copy-in", s, s + 100000);
    hostile_phase(w, "compute", s + 100000, s + 400000);
    hostile_phase(w, "<i>odd</i>", s + 400000, s + 450000);
    hostile_phase(w, "copy-out", s + 450000, s + 550000);
    const char *names[2] = {HOSTILE_KERNEL, HOSTILE_KERNEL_JSONISH};
    for (int i = 0; i < 2; i++) {
        kernel_event k = {.name = (char *)names[i], .start_ns = s + 100000 + i * 150000,
                          .end_ns = s + 200000 + i * 150000, .stream = 7, .correlation = (uint32_t)(10 + i),
                          .grid = {2, 2, 1}, .block = {16, 16, 1}, .has_resources = true, .registers = 32};
        workload_add_kernel(w, &k);
    }
    copy_event in1 = {.dir = COPY_H2D, .src = MEM_PINNED, .dst = MEM_DEVICE, .bytes = 16384, .start_ns = s + 10000,
                         .end_ns = s + 40000, .device = 0, .stream = 7, .correlation = 1};
    copy_event in2 = {.dir = COPY_H2D, .src = MEM_PINNED, .dst = MEM_DEVICE, .bytes = 16384, .start_ns = s + 50000,
                         .end_ns = s + 80000, .device = 0, .stream = 7, .correlation = 2};
    copy_event out = {.dir = COPY_D2H, .src = MEM_DEVICE, .dst = MEM_PINNED, .bytes = 16384, .start_ns = s + 460000,
                         .end_ns = s + 490000, .device = 0, .stream = 7, .correlation = 3};
    workload_add_copy(w, &in1);
    workload_add_copy(w, &in2);
    workload_add_copy(w, &out);
    api_event a = {.name = (char *)HOSTILE_API, .start_ns = s + 90000, .end_ns = s + 99000, .thread = 1,
                   .correlation = 10};
    workload_add_api(w, &a);
    model_finish_regions(m, "mmprof run"); /* the regions, and the workload's events into the store */
}

#endif
