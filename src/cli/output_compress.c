/* See output_compress.h. zlib and libzstd do the work; this picks one by the name and sizes the
 * buffer. */
#include "output_compress.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

compress_kind output_compress_kind(const char *path)
{
    if (!path)
        return COMPRESS_NONE;
    return ends_with(path, ".gz") ? COMPRESS_GZIP : ends_with(path, ".zst") ? COMPRESS_ZSTD : COMPRESS_NONE;
}

static char *gzip_bytes(const char *data, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip header and trailer around the deflate stream, as gzip(1) writes. */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    char *out = malloc(cap);
    bool ok = out != NULL;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    const char *p = data;
    size_t left = len;
    int r = Z_OK;
    /* avail_in is 32 bits: a run file may pass 4 GB, so it goes in slices. */
    while (ok && r != Z_STREAM_END) {
        if (z.avail_in == 0 && left > 0) {
            size_t take = left > (1u << 30) ? (1u << 30) : left;
            z.next_in = (Bytef *)p;
            z.avail_in = (uInt)take;
            p += take;
            left -= take;
        }
        if (z.avail_out == 0) {
            size_t used = (size_t)((char *)z.next_out - out);
            size_t more = cap - used;
            z.avail_out = (uInt)(more > UINT32_MAX ? UINT32_MAX : more);
            ok = z.avail_out > 0;
        }
        r = deflate(&z, left == 0 ? Z_FINISH : Z_NO_FLUSH);
        ok = ok && (r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR);
    }
    *out_len = (size_t)((char *)z.next_out - out);
    deflateEnd(&z);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

char *output_compress(compress_kind kind, const char *data, size_t len, size_t *out_len)
{
    if (kind == COMPRESS_GZIP)
        return gzip_bytes(data, len, out_len);
    if (kind != COMPRESS_ZSTD)
        return NULL;
    size_t cap = ZSTD_compressBound(len);
    char *out = malloc(cap ? cap : 1);
    if (!out)
        return NULL;
    size_t n = ZSTD_compress(out, cap, data, len, 3);
    if (ZSTD_isError(n)) {
        free(out);
        return NULL;
    }
    *out_len = n;
    return out;
}
