/* See output_compress.h: the choice by name (output_stream.c compresses). */
#include "output_compress.h"

#include <string.h>


static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

compress_kind output_compress_kind(const char *path)
{
    if (!path)
        return COMPRESS_NONE;
    return ends_with(path, ".gz")    ? COMPRESS_GZIP
           : ends_with(path, ".zst") ? COMPRESS_ZSTD
           : ends_with(path, ".xz")  ? COMPRESS_XZ
                                     : COMPRESS_NONE;
}
