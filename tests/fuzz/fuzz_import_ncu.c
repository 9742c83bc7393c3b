/* libFuzzer target: Nsight Compute CSV exports, through import_ncu_csv (see fuzz_import.h). The
 * seeds are the two pages recorded on the H200 (samples/ncu/: the raw page, a row per launch and
 * 542 columns, and the details page, a row per metric), with ncu's and the program's lines
 * before the header as ncu writes them. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_import(import_ncu_csv, data, size);
}
