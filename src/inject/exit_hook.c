/* libmmprof_exit.so: preloaded (LD_PRELOAD) into the programs `mmprof profile` runs, so a process
 * that leaves through _exit still hands over its last CUDA records. Python's multiprocessing
 * workers end with os._exit, which runs no atexit handler: without this, the records CUPTI held
 * since the injection library's last periodic flush were lost (seen on the H200: a worker's
 * kernels missing entirely).
 *
 * It defines _exit, calls the injection library's mmprof_inject_flush when that library is in the
 * process (looked up at the call, so this library needs no libcupti: it must not load a copy of
 * CUPTI before the program loads its own), then ends the process as _exit would. Not async-signal-
 * safe, unlike the real _exit: a program that calls _exit from a signal handler in the middle of
 * a CUPTI call could deadlock in the flush; the child of a fork without CUDA is unaffected (the
 * injection library is not loaded there, or not its owner: the flush returns at once).
 *
 * Its constructor starts the injection library's host sampler early, in the process `mmprof
 * profile` started (MMPROF_EARLY_PID, set by the launcher between fork and exec, names it) where
 * that process is Python: CUDA loads the injection library only inside cuInit, and a PyTorch
 * program's torch.cuda.init() spent about 160 ms there before any sampler ran, reported "not
 * known". The library can be loaded this early because it opens CUPTI only at CUDA's start
 * (src/collect/cupti_load.h). Only Python, and only that process: a shell that runs the program
 * would otherwise be sampled instead of it (bash -c execs its last command in the same process,
 * which then starts its own), and every compiler or tool the program runs would carry a sampler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((constructor)) static void start_early(void)
{
    const char *want = getenv("MMPROF_EARLY_PID"), *lib = getenv("CUDA_INJECTION64_PATH");
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    /* Python 3.11 and later export Py_Version from the interpreter, present before it runs. */
    if (!want || strcmp(want, pid) != 0 || !lib || !lib[0] || !dlsym(RTLD_DEFAULT, "Py_Version"))
        return;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    void (*early)(void) = h ? (void (*)(void))dlsym(h, "mmprof_inject_early") : NULL;
    if (early)
        early();
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
    /* The CUDA driver loads the injection library privately (its symbols are not global), so it
     * is found by the path the driver loaded it from, and only if it is already loaded. */
    const char *lib = getenv("CUDA_INJECTION64_PATH");
    void *h = lib && lib[0] ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void (*flush)(void) = h ? (void (*)(void))dlsym(h, "mmprof_inject_flush") : NULL;
    if (flush)
        flush();
    for (;;)
        syscall(SYS_exit_group, status);
}
