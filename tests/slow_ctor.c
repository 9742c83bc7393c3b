/* A shared object whose constructor takes SLOW_CTOR_MS (tests/test_module_map.c): dlopen holds the
 * loader's load lock all that while, as it does while it maps and relocates a large library. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>

#define SLOW_CTOR_MS 400

int slow_ctor_marker(void) { return 42; }

__attribute__((constructor)) static void slow(void)
{
    struct timespec t = {0, SLOW_CTOR_MS * 1000000L};
    nanosleep(&t, NULL);
}
