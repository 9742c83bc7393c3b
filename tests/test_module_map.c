/* The injection library's table of loaded modules (src/inject/module_map.c): the module and load
 * bias of an address agree with the dynamic loader's own (dladdr1's link map) for the program, libc
 * and a library loaded after the table was first read; an address in no module is refused; and a
 * lookup does not wait for another thread's dlopen (dladdr does: it takes the load lock, which
 * dlopen holds through the library's constructors, here 400 ms of them). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "module_map.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The loader's answer for addr: the module's path as the map names it and its bias. */
static void loader_says(const void *addr, char *path, size_t n, uintptr_t *bias)
{
    Dl_info info;
    struct link_map *map = NULL;
    assert_true(dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) && map);
    *bias = map->l_addr;
    if (map->l_prev == NULL) { /* the main program */
        ssize_t k = readlink("/proc/self/exe", path, n - 1);
        path[k > 0 ? k : 0] = '\0';
    } else
        snprintf(path, n, "%s", map->l_name);
}

static void agrees(const void *addr)
{
    char want[4096];
    uintptr_t want_bias, bias;
    const char *path;
    loader_says(addr, want, sizeof want, &want_bias);
    assert_true(module_map_find((uintptr_t)addr, &path, &bias));
    assert_string_equal(path, want);
    assert_true(bias == want_bias);
}

static void names_modules_as_the_loader_does(void **state)
{
    (void)state;
    agrees((const void *)names_modules_as_the_loader_does); /* the program */
    agrees((const void *)strlen);                           /* libc */
    agrees((const void *)dlopen);
    int stack_var = 0;
    const char *path;
    uintptr_t bias;
    assert_false(module_map_find((uintptr_t)&stack_var, &path, &bias)); /* the stack: no module */
    void *heap = malloc(64);
    assert_false(module_map_find((uintptr_t)heap, &path, &bias));
    free(heap);
}

/* Dynamic symbols as dladdr names them: the program's own (-rdynamic: none here, so a libc
 * function and the vDSO's clock_gettime), none outside every module. */
static void names_symbols_as_dladdr_does(void **state)
{
    (void)state;
    const void *fns[] = {(const void *)strlen, (const void *)dlopen, (const void *)pthread_create};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        Dl_info info;
        assert_true(dladdr((const char *)fns[i] + 1, &info) && info.dli_sname);
        const char *name = module_map_symbol((uintptr_t)fns[i] + 1);
        assert_non_null(name);
        assert_string_equal(name, info.dli_sname);
    }
    void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *fn = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
    if (fn) {
        Dl_info info;
        assert_true(dladdr((char *)fn + 1, &info) && info.dli_sname);
        const char *name = module_map_symbol((uintptr_t)fn + 1);
        assert_non_null(name);
        assert_string_equal(name, info.dli_sname);
    }
    int stack_var = 0;
    assert_null(module_map_symbol((uintptr_t)&stack_var));
}

static char lib_path[4096];

static void *open_slow(void *arg)
{
    (void)arg;
    return dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
}

/* A library loaded after the table was read is found (the loader's counts moved), and the lookups
 * made meanwhile from another thread do not wait for its constructor. */
static void does_not_wait_for_a_load(void **state)
{
    (void)state;
    const char *path;
    uintptr_t bias;
    assert_true(module_map_find((uintptr_t)strlen, &path, &bias)); /* the table read */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, open_slow, NULL), 0);
    usleep(100 * 1000); /* the load under way: its constructor sleeps 400 ms */
    double t0 = now_s();
    int stack_var = 0;
    /* a miss rereads the table: what a new frame in JIT code or a new module costs */
    assert_false(module_map_find((uintptr_t)&stack_var, &path, &bias));
    assert_true(module_map_find((uintptr_t)dlsym, &path, &bias));
    assert_non_null(module_map_symbol((uintptr_t)dlsym + 1));
    double waited = now_s() - t0;
    void *h = NULL;
    assert_int_equal(pthread_join(t, &h), 0);
    assert_non_null(h);
    print_message("lookups during the load took %.1f ms\n", 1e3 * waited);
    assert_true(waited < 0.1);
    void *marker = dlsym(h, "slow_ctor_marker");
    assert_non_null(marker);
    agrees(marker);
    dlclose(h);
}

int main(int argc, char **argv)
{
    (void)argc;
    /* the library beside this test */
    snprintf(lib_path, sizeof lib_path, "%s", argv[0]);
    char *slash = strrchr(lib_path, '/');
    snprintf(slash ? slash + 1 : lib_path, sizeof lib_path - (size_t)(slash ? slash + 1 - lib_path : 0), "libslow_ctor.so");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_modules_as_the_loader_does),
        cmocka_unit_test(does_not_wait_for_a_load),
        cmocka_unit_test(names_symbols_as_dladdr_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
