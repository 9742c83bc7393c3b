/* occupancy_of(), the header-only calculator over recorded device properties, against answers
 * the CUDA runtime gave on the H200:
 *  - every occupancy_check in the recorded runs (cudaOccupancyMaxActiveBlocksPerMultiprocessor
 *    for mmprof's own kernels, asked during the run);
 *  - the launches checked by hand there (shared/cupti-notes.md): 256 threads, 16 registers, 1 KB
 *    shared -> 8 blocks = 100%; with 128 registers -> 25%, limited by registers;
 *  - the cuBLAS kernels the sample recorded, worked out from the H200's limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "model_json.h"
#include "test_support.h"

typedef struct {
    int blocks;
    double pct;
    char limiter[32];
    char why[96];
    bool ok;
} occ;

static occ occupancy(const device_info *d, int threads, int regs, int static_smem, int dynamic_smem, bool optin)
{
    occ o;
    memset(&o, 0, sizeof o);
    o.blocks = -1;
    o.ok = occupancy_of(d, threads, regs, static_smem, dynamic_smem, optin, &o.blocks, &o.pct, o.limiter,
                        sizeof o.limiter, o.why, sizeof o.why);
    return o;
}

static void matches_runtime_in(const char *path)
{
    run_model m;
    load_run(path, &m);
    int checked = 0;
    for (int i = 0; i < m.builtin.nworkloads; i++) {
        const workload_run *w = &m.builtin.workloads[i];
        for (int k = 0; k < w->nocc; k++) {
            const occupancy_check *c = &w->occ[k];
            assert_true(w->device >= 0 && w->device < m.ndevices);
            occ o = occupancy(&m.devices[w->device], c->block_size, c->registers, c->static_smem,
                              c->dynamic_smem, false);
            print_message("%s: %d threads, %d regs, %d+%d B smem: runtime %d, calculator %d blocks/SM\n",
                          c->kernel, c->block_size, c->registers, c->static_smem, c->dynamic_smem,
                          c->runtime_blocks_per_sm, o.blocks);
            assert_true(o.ok);
            assert_int_equal(o.blocks, c->runtime_blocks_per_sm);
            checked++;
        }
    }
    assert_true(checked > 0); /* the run did record the runtime's answers */
    model_free(&m);
}

static void matches_runtime_in_sample(void **state)
{
    (void)state;
    matches_runtime_in(sample_path());
}

static void matches_runtime_in_ncu_sample(void **state)
{
    (void)state;
    matches_runtime_in(NCU_SAMPLE);
}

static run_model h200;

static int load_h200(void **state)
{
    (void)state;
    char err[512];
    /* The sample was recorded on a 2-GPU H200 machine: every device it lists is an H200. */
    return model_read_file(sample_path(), &h200, err, sizeof err) && h200.ndevices >= 1 ? 0 : -1;
}

static int free_h200(void **state)
{
    (void)state;
    model_free(&h200);
    return 0;
}

/* 256 threads = 8 warps; 2048 threads per SM = 64 warps. */
static void checked_by_hand_on_the_h200(void **state)
{
    (void)state;
    const device_info *d = &h200.devices[0];
    /* 16 registers and 1 KB: nothing but the thread count limits, 2048 / 256 = 8 blocks. */
    occ o = occupancy(d, 256, 16, 1024, 0, false);
    assert_true(o.ok);
    assert_int_equal(o.blocks, 8);
    assert_close(o.pct, 100.0, 0);
    assert_string_equal(o.limiter, "none");
    /* 128 registers x 256 threads = 32768 of 65536: 2 blocks, 16 of 64 warps. */
    o = occupancy(d, 256, 128, 1024, 0, false);
    assert_true(o.ok);
    assert_int_equal(o.blocks, 2);
    assert_close(o.pct, 25.0, 0);
    assert_string_equal(o.limiter, "registers");
}

static void cublas_kernels_of_the_sample(void **state)
{
    (void)state;
    const device_info *d = &h200.devices[0];
    /* cutlass_80_simt_sgemm_256x128: 202 registers (allocated as 208 per thread, 6656 per warp),
     * 8 warps = 53248 registers: one block; its 48 KB + 1 KB reserved would allow four. */
    occ o = occupancy(d, 256, 202, 0, 49152, false);
    assert_true(o.ok);
    assert_int_equal(o.blocks, 1);
    assert_close(o.pct, 12.5, 0);
    assert_string_equal(o.limiter, "registers");
    /* sm90 TF32 kernel: 168 registers x 384 threads = 64512 registers, and 226 KB of opt-in
     * shared memory + 1 KB reserved of 228 KB: either alone allows one block of 12 warps. */
    o = occupancy(d, 384, 168, 0, 231424, true);
    assert_true(o.ok);
    assert_int_equal(o.blocks, 1);
    assert_close(o.pct, 100.0 * 12 / 64, 0);
    assert_string_equal(o.limiter, "registers+shared memory");
    /* More than the default 48 KB per block is only possible after opting in, so the calculator
     * must be told even when the record's flag is missing. */
    occ same = occupancy(d, 384, 168, 0, 231424, false);
    assert_true(same.ok);
    assert_int_equal(same.blocks, 1);
}

/* Shared memory alone: 228 KB per SM, 1 KB reserved per block. */
static void shared_memory_limits(void **state)
{
    (void)state;
    const device_info *d = &h200.devices[0];
    /* 32 KB + 1 KB per block: 233472 / 33792 = 6 blocks of 4 warps = 24 of 64. */
    occ o = occupancy(d, 128, 32, 32768, 0, false);
    assert_true(o.ok);
    assert_int_equal(o.blocks, 6);
    assert_close(o.pct, 100.0 * 24 / 64, 0);
    assert_string_equal(o.limiter, "shared memory");
    /* Small blocks run into the 32 blocks per SM limit first: 32 x 1 warp = 50%. */
    o = occupancy(d, 32, 16, 0, 0, false);
    assert_true(o.ok);
    assert_int_equal(o.blocks, 32);
    assert_close(o.pct, 50.0, 0);
    assert_string_equal(o.limiter, "blocks");
}

/* A launch that cannot run either is refused with a reason or fits no block at all: never a
 * made-up occupancy. */
static void assert_none_run(occ o)
{
    if (o.ok) {
        assert_int_equal(o.blocks, 0);
        assert_close(o.pct, 0, 0);
    } else {
        assert_non_null(strstr(o.why, "refused"));
    }
}

static void refuses_impossible_launches(void **state)
{
    (void)state;
    const device_info *d = &h200.devices[0];
    /* More threads than a block may have, or none: refused with the device's limit named. */
    occ o = occupancy(d, 2048, 16, 0, 0, false);
    assert_false(o.ok);
    assert_non_null(strstr(o.why, "cannot launch (the device allows 1024)"));
    o = occupancy(d, 0, 16, 0, 0, false);
    assert_false(o.ok);
    assert_non_null(strstr(o.why, "cannot launch"));
    assert_none_run(occupancy(d, 256, 16, 0, 240 * 1024, true)); /* more shared memory than an SM */
    assert_none_run(occupancy(d, 1024, 128, 0, 0, false)); /* 128 x 1024 > 65536 registers */
    /* A device the calculator does not know. */
    device_info old = *d;
    old.cc_major = 1;
    old.cc_minor = 0;
    o = occupancy(&old, 256, 16, 0, 0, false);
    assert_false(o.ok);
    assert_non_null(strstr(o.why, "refused"));
}

int main(void)
{
    const struct CMUnitTest recorded[] = {
        cmocka_unit_test(matches_runtime_in_sample),
        cmocka_unit_test(matches_runtime_in_ncu_sample),
    };
    const struct CMUnitTest h200_limits[] = {
        cmocka_unit_test(checked_by_hand_on_the_h200),
        cmocka_unit_test(cublas_kernels_of_the_sample),
        cmocka_unit_test(shared_memory_limits),
        cmocka_unit_test(refuses_impossible_launches),
    };
    int failed = cmocka_run_group_tests_name("occupancy vs the runtime", recorded, NULL, NULL);
    failed += cmocka_run_group_tests_name("occupancy on the H200's limits", h200_limits, load_h200, free_h200);
    return failed;
}
