/* See output_stream.h. zlib's, libzstd's and liblzma's streaming interfaces compress; output_file.c
 * writes. */
#include "output_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#define PACKED_BUF (256u << 10) /* compressed bytes gathered before each write */

struct output_stream {
    output_file *o;
    compress_kind kind;
    z_stream z;
    bool z_live;
    ZSTD_CCtx *zc;
    lzma_stream xz;
    bool xz_live;
    char *packed; /* PACKED_BUF */
    uint64_t bytes;
    char last;    /* the text's last byte so far */
    bool failed;
    char err[512];
};

static bool fail(output_stream *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->err, sizeof s->err, "%s", msg);
    s->failed = true;
    return false;
}

static bool put(output_stream *s, const char *data, size_t len)
{
    char err[512];
    if (len && !output_append(s->o, data, len, err, sizeof err))
        return fail(s, err);
    return true;
}

/* Compresses data (end: and finishes the stream), writing each full buffer. */
static bool gzip_feed(output_stream *s, const char *data, size_t len, bool end)
{
    z_stream *z = &s->z;
    const char *p = data;
    size_t left = len;
    for (;;) {
        /* avail_in is 32 bits: a piece may be larger, so it goes in slices. */
        if (z->avail_in == 0 && left > 0) {
            size_t take = left > (1u << 30) ? (1u << 30) : left;
            z->next_in = (Bytef *)p;
            z->avail_in = (uInt)take;
            p += take;
            left -= take;
        }
        z->next_out = (Bytef *)s->packed;
        z->avail_out = PACKED_BUF;
        int r = deflate(z, end && left == 0 ? Z_FINISH : Z_NO_FLUSH);
        if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
            return fail(s, "gzip compression failed");
        if (!put(s, s->packed, PACKED_BUF - z->avail_out))
            return false;
        if (r == Z_STREAM_END || (!end && left == 0 && z->avail_in == 0 && z->avail_out > 0))
            return true;
    }
}

static bool zstd_feed(output_stream *s, const char *data, size_t len, bool end)
{
    ZSTD_inBuffer in = {data, len, 0};
    for (;;) {
        ZSTD_outBuffer out = {s->packed, PACKED_BUF, 0};
        size_t r = ZSTD_compressStream2(s->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r))
            return fail(s, "zstd compression failed");
        if (!put(s, s->packed, out.pos))
            return false;
        if (end ? r == 0 : in.pos == in.size)
            return true;
    }
}

static bool xz_feed(output_stream *s, const char *data, size_t len, bool end)
{
    lzma_stream *x = &s->xz;
    x->next_in = (const uint8_t *)data;
    x->avail_in = len;
    for (;;) {
        x->next_out = (uint8_t *)s->packed;
        x->avail_out = PACKED_BUF;
        lzma_ret r = lzma_code(x, end ? LZMA_FINISH : LZMA_RUN);
        if (r != LZMA_OK && r != LZMA_STREAM_END)
            return fail(s, r == LZMA_MEM_ERROR ? "out of memory for xz compression" : "xz compression failed");
        if (!put(s, s->packed, PACKED_BUF - x->avail_out))
            return false;
        if (end ? r == LZMA_STREAM_END : x->avail_in == 0)
            return true;
    }
}

static bool feed(output_stream *s, const char *data, size_t len, bool end)
{
    if (s->failed)
        return false;
    switch (s->kind) {
    case COMPRESS_GZIP:
        return gzip_feed(s, data, len, end);
    case COMPRESS_ZSTD:
        return zstd_feed(s, data, len, end);
    case COMPRESS_XZ:
        return xz_feed(s, data, len, end);
    default:
        return put(s, data, len);
    }
}

static bool stream_write(void *ctx, const char *data, size_t len)
{
    output_stream *s = ctx;
    if (len == 0)
        return !s->failed;
    s->bytes += len;
    s->last = data[len - 1];
    return feed(s, data, len, false);
}

text_sink output_stream_sink(output_stream *s) { return (text_sink){stream_write, s}; }

uint64_t output_stream_bytes(const output_stream *s) { return s->bytes; }

bool output_stream_failed(const output_stream *s) { return s->failed; }

static void stream_free(output_stream *s)
{
    if (s->z_live)
        deflateEnd(&s->z);
    ZSTD_freeCCtx(s->zc);
    if (s->xz_live)
        lzma_end(&s->xz);
    free(s->packed);
    free(s);
}

output_stream *output_stream_open(output_file *o, compress_kind kind, char *err, size_t errlen)
{
    output_stream *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s '%s': out of memory", o->what, o->path);
        return NULL;
    }
    s->o = o;
    s->kind = kind;
    bool ok = true;
    if (kind != COMPRESS_NONE) {
        s->packed = malloc(PACKED_BUF);
        ok = s->packed != NULL;
    }
    /* 15 + 16: a gzip header and trailer around the deflate stream, as gzip(1) writes; zlib's
     * default level, zstd's level 3 and xz's preset 1, with xz's default CRC64 (output_compress.h). */
    if (ok && kind == COMPRESS_GZIP)
        ok = s->z_live = deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    if (ok && kind == COMPRESS_ZSTD)
        ok = (s->zc = ZSTD_createCCtx()) != NULL && !ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_compressionLevel, 3));
    if (ok && kind == COMPRESS_XZ) {
        s->xz = (lzma_stream)LZMA_STREAM_INIT;
        ok = s->xz_live = lzma_easy_encoder(&s->xz, 1, LZMA_CHECK_CRC64) == LZMA_OK;
    }
    if (!ok) {
        snprintf(err, errlen, "%s '%s': out of memory for the compressor", o->what, o->path);
        stream_free(s);
        return NULL;
    }
    if (!output_begin(o, err, errlen)) {
        stream_free(s);
        return NULL;
    }
    return s;
}

bool output_stream_close(output_stream *s, char *err, size_t errlen)
{
    /* A text file ends with a newline. */
    if ((s->bytes == 0 || s->last != '\n') && !s->failed)
        stream_write(s, "\n", 1);
    bool ok = feed(s, NULL, 0, true);
    if (ok) {
        ok = output_commit(s->o, err, errlen);
    } else {
        snprintf(err, errlen, "%s", s->err);
        output_abandon(s->o);
    }
    stream_free(s);
    return ok;
}

void output_stream_abandon(output_stream *s)
{
    output_abandon(s->o);
    stream_free(s);
}
