/* A C program with no Python for tests/test_host_inject.sh: loads tests/host_probe.so (argv[1]),
 * starts the sampler, takes a call site from a named function, burns CPU in the probe and ends.
 * Built with -rdynamic so dladdr names its functions as the injection library would name a
 * program's exported ones. */
#include <dlfcn.h>
#include <stdio.h>

static void (*site)(unsigned);

__attribute__((noinline)) void host_main_launcher(void)
{
    site(7); /* the call site the test looks for */
}

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (!h) {
        fprintf(stderr, "host_probe_main: %s\n", dlerror());
        return 1;
    }
    void (*start)(void) = (void (*)(void))dlsym(h, "probe_start");
    void (*finish)(void) = (void (*)(void))dlsym(h, "probe_finish");
    double (*burn)(unsigned) = (double (*)(unsigned))dlsym(h, "probe_burn");
    site = (void (*)(unsigned))dlsym(h, "probe_site");
    start();
    host_main_launcher();
    burn(300);
    finish();
    return 0;
}
