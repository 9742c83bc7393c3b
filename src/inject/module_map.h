/* The loaded modules' address ranges, for naming a native frame's module and offset in the
 * injection library's sampler thread without the dynamic loader's load lock.
 *
 * Why not dladdr: glibc's dladdr takes the loader's load lock, which dlopen holds for a whole
 * load. A sampler naming a new frame while the program loads a large library (numba's libNVVM,
 * libcuda at torch.cuda.init) waited out the load: 135 ms with no sample of any thread, seen on
 * the H200, and under the host lock, so a launch from another thread waited too. dl_iterate_phdr
 * takes only the loader's write lock, held while a module is linked into the list. */
#ifndef MMPROF_MODULE_MAP_H
#define MMPROF_MODULE_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* The module holding addr: its path (the main program's from /proc/self/exe) and load bias (what
 * the module's own addresses are offset by). False where no loaded module holds it (JIT code).
 * Not thread-safe: the injection library calls it under its host lock. The path stays valid until
 * the next call. */
bool module_map_find(uintptr_t addr, const char **path, uintptr_t *bias);

/* The dynamic symbol covering addr as dladdr names it ("" where none: the module is stripped of
 * it, or it is a local function the symbolizer names after the run), NULL where no module holds
 * addr; from the module's dynamic section in memory, without the load lock either (the vDSO's
 * functions, clock_gettime, are named here: no file holds them for the symbolizer). Not
 * thread-safe: the result is in a static buffer until the next call. */
const char *module_map_symbol(uintptr_t addr);

#endif
