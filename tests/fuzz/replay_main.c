/* Replays a fuzz target's checked-in corpus without libFuzzer, for make test.
 *
 *   replay_NAME DIR_OR_FILE...
 *
 * Every file named, or found (not recursively) in a directory named, is read into a buffer of
 * exactly its size (so AddressSanitizer sees a read past the input's end) and handed to the
 * target's LLVMFuzzerTestOneInput, in name order. The target is linked with the sanitized objects
 * make test builds for the unit tests (ASan and UBSan, UBSan fatal), so a corpus input that once
 * crashed crashes here again. Building the same targets for libFuzzer compiles the whole core a
 * third time with clang (about 50 s of make test's 5 minutes on two cores); `make fuzz` does that
 * and fuzzes. libFuzzer's own -runs=0 would replay the same way but needs that build.
 *
 * Prints "replayed N inputs" and exits 0; a file that cannot be read is an error (exit 2). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        perror(path);
        fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    /* malloc(0) may return NULL; the target still gets a valid pointer and size 0. */
    uint8_t *data = malloc(size ? size : 1);
    if (!data || fread(data, 1, size, f) != size) {
        fprintf(stderr, "%s: could not read %zu bytes\n", path, size);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }
static int not_dot(const struct dirent *e) { return e->d_name[0] != '.'; }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    long replayed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) != 0)
                return 2;
            replayed++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, not_dot, by_name);
        if (n < 0) {
            perror(argv[i]);
            return 2;
        }
        int bad = 0;
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
            if (!bad && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(path) != 0)
                    bad = 1;
                else
                    replayed++;
            }
            free(names[k]);
        }
        free(names);
        if (bad)
            return 2;
    }
    printf("replayed %ld inputs\n", replayed);
    return 0;
}
