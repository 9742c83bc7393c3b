/* A program for the profile tests that calls the CUDA injection entry point itself, as the driver
 * would at cuInit: it dlopens $CUDA_INJECTION64_PATH and calls InitializeInjection. On a machine
 * without a GPU CUPTI cannot start, so this exercises the library's path where collection fails
 * (an "error" line, the exit still marked); "exit" leaves through _exit, as multiprocessing
 * workers do, so no exit handler runs. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *lib = getenv("CUDA_INJECTION64_PATH");
    void *h = lib ? dlopen(lib, RTLD_NOW) : NULL;
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (!init) {
        fprintf(stderr, "inject_probe: no InitializeInjection in %s\n", lib ? lib : "(CUDA_INJECTION64_PATH unset)");
        return 1;
    }
    printf("InitializeInjection returned %d\n", init());
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        _exit(5);
    return 0;
}
