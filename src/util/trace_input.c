/* Traces as users have them: see trace_input.h. */
#include "trace_input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#define GZ_BUFFER (1u << 20) /* zlib's read buffer: large reads of large traces */
#define XZ_IN (1u << 17)     /* xz's compressed bytes read at a time (zstd's: ZSTD_DStreamInSize) */
/* The most memory an xz stream may have liblzma take: its header names its dictionary (up to
 * 1.5 GiB), which is allocated whole. xz -9 needs 65 MiB; libzstd likewise refuses frames whose
 * window passes 128 MiB. */
#define XZ_MEMLIMIT_MIB 256u

static bool fail(trace_input *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(trace_input *in, const char *fmt, ...)
{
    if (in->failed)
        return false;
    in->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->error, sizeof in->error, fmt, ap);
    va_end(ap);
    return false;
}

/* Up to n bytes after zlib: the gzip stream decompressed, or the file's own bytes. */
static size_t raw_read(trace_input *in, unsigned char *buf, size_t n)
{
    if (in->failed || n == 0)
        return 0;
    size_t got = 0;
    while (got < n) {
        unsigned ask = n - got > (size_t)INT_MAX ? (unsigned)INT_MAX : (unsigned)(n - got);
        int r = gzread(in->gz, buf + got, ask);
        int code = Z_OK;
        const char *why = gzerror(in->gz, &code);
        if (r < 0 || (code != Z_OK && code != Z_BUF_ERROR)) {
            if (code == Z_ERRNO)
                fail(in, "read error: %s", strerror(errno));
            else {
                /* zlib prefixes its message with the name it was given: "<fd:3>: ". */
                const char *said = why && strncmp(why, "<fd:", 4) == 0 && strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
                fail(in, "damaged gzip data: %s", said && said[0] ? said : "?");
            }
            return got;
        }
        got += (size_t)r;
        if ((unsigned)r < ask) {
            /* The end: zlib reports a gzip stream cut off in its middle as Z_BUF_ERROR. */
            if (code == Z_BUF_ERROR)
                fail(in, "the gzip data ends early: the file is cut short");
            in->eof = true;
            break;
        }
    }
    return got;
}

/* Compressed bytes in zbuf to decode, read from the file once the last were decoded; false at the
 * file's end or on a read error. */
static bool packed_fill(trace_input *in)
{
    if (in->zpos < in->zlen)
        return true;
    if (in->eof)
        return false;
    in->zpos = 0;
    in->zlen = raw_read(in, in->zbuf, in->zcap);
    return in->zlen > 0;
}

/* Up to n bytes of zstd-decoded content. */
static size_t zstd_read(trace_input *in, unsigned char *buf, size_t n)
{
    ZSTD_outBuffer out = {buf, n, 0};
    while (out.pos < out.size && !in->failed) {
        if (!packed_fill(in))
            break;
        ZSTD_inBuffer zin = {in->zbuf, in->zlen, in->zpos};
        size_t hint = ZSTD_decompressStream(in->zstd, &out, &zin);
        in->zpos = zin.pos;
        if (ZSTD_isError(hint))
            fail(in, "damaged zstd data: %s", ZSTD_getErrorName(hint));
        else
            in->zframe_open = hint != 0; /* 0: a frame ended; the next bytes may begin another */
    }
    if (!in->failed && out.pos < out.size && in->zpos == in->zlen && in->eof && in->zframe_open)
        fail(in, "the zstd data ends early: the file is cut short");
    return out.pos;
}

/* Up to n bytes of xz-decoded content. */
static size_t xz_read(trace_input *in, unsigned char *buf, size_t n)
{
    lzma_stream *xz = in->xz;
    xz->next_out = buf;
    xz->avail_out = n;
    while (xz->avail_out > 0 && !in->failed && !in->xz_end) {
        bool more = packed_fill(in);
        if (in->failed)
            break;
        xz->next_in = in->zbuf + in->zpos;
        xz->avail_in = in->zlen - in->zpos;
        /* Decoded output may still be held inside liblzma once the input is all in, so it is asked
         * again (LZMA_FINISH) until it says the last stream ended, or that it cannot (cut short). */
        lzma_ret r = lzma_code(xz, more ? LZMA_RUN : LZMA_FINISH);
        in->zpos = in->zlen - xz->avail_in;
        if (r == LZMA_STREAM_END)
            in->xz_end = true;
        else if (r == LZMA_BUF_ERROR)
            fail(in, "the xz data ends early: the file is cut short");
        else if (r == LZMA_MEMLIMIT_ERROR)
            fail(in, "the xz data needs %llu MiB of memory to decode, more than the %u MiB allowed",
                 (unsigned long long)(lzma_memusage(xz) >> 20), XZ_MEMLIMIT_MIB);
        else if (r == LZMA_MEM_ERROR)
            fail(in, "out of memory decoding the xz data");
        else if (r != LZMA_OK)
            fail(in, "damaged xz data: %s",
                 r == LZMA_OPTIONS_ERROR ? "options this liblzma does not support" : "corrupt data");
    }
    return n - xz->avail_out;
}

static size_t content_read(trace_input *in, unsigned char *buf, size_t n)
{
    return in->zstd ? zstd_read(in, buf, n) : in->xz ? xz_read(in, buf, n) : raw_read(in, buf, n);
}

/* A decoder for the content's compression, told from its first bytes (in->head): zstd or xz. The
 * bytes read so far are the compressed stream's first, moved to zbuf to be decoded with the rest.
 * false only for want of memory. */
static bool packed_begin(trace_input *in)
{
    static const unsigned char zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    static const unsigned char xz_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    bool ok;
    if (in->head_len >= sizeof zstd_magic && memcmp(in->head, zstd_magic, sizeof zstd_magic) == 0) {
        in->compression = TI_ZSTD;
        in->zstd = ZSTD_createDStream();
        in->zcap = ZSTD_DStreamInSize();
        ok = in->zstd && !ZSTD_isError(ZSTD_initDStream(in->zstd));
    } else if (in->head_len >= sizeof xz_magic && memcmp(in->head, xz_magic, sizeof xz_magic) == 0) {
        in->compression = TI_XZ;
        lzma_stream *xz = malloc(sizeof *xz);
        if (xz)
            *xz = (lzma_stream)LZMA_STREAM_INIT;
        in->xz = xz;
        in->zcap = XZ_IN;
        /* LZMA_CONCATENATED: streams one after another are one content, as xz -d reads them. */
        ok = xz && lzma_stream_decoder(xz, (uint64_t)XZ_MEMLIMIT_MIB << 20, LZMA_CONCATENATED) == LZMA_OK;
    } else {
        return true;
    }
    in->zbuf = malloc(in->zcap);
    if (!ok || !in->zbuf)
        return false;
    memcpy(in->zbuf, in->head, in->head_len);
    in->zlen = in->head_len;
    in->head_len = 0;
    return true;
}

bool ti_open(trace_input *in, const char *path, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    bool stdin_path = strcmp(path, "-") == 0;
    snprintf(in->name, sizeof in->name, "%s", stdin_path ? "standard input" : path);
    /* zlib closes what it reads, so standard input is read through a copy of its descriptor. */
    int fd = stdin_path ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", in->name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: Is a directory", in->name);
        close(fd);
        return false;
    }
    in->regular = S_ISREG(st.st_mode);
    in->fd = fd;
    in->gz = gzdopen(fd, "rb");
    if (!in->gz) {
        snprintf(err, errlen, "%s: out of memory", in->name);
        close(fd);
        return false;
    }
    gzbuffer(in->gz, GZ_BUFFER);
    /* The first bytes after gzip tell zstd or xz (xz's magic is 6 bytes); otherwise they are the
     * content's own. */
    in->head_len = raw_read(in, in->head, 6);
    in->compression = gzdirect(in->gz) ? TI_PLAIN : TI_GZIP;
    if (!in->failed && !packed_begin(in)) {
        snprintf(err, errlen, "%s: out of memory", in->name);
        ti_close(in);
        return false;
    }
    return true;
}

void ti_close(trace_input *in)
{
    if (in->gz)
        gzclose(in->gz);
    ZSTD_freeDStream(in->zstd);
    if (in->xz)
        lzma_end(in->xz);
    free(in->xz);
    free(in->zbuf);
    in->gz = NULL;
    in->zstd = NULL;
    in->xz = NULL;
    in->zbuf = NULL;
}

size_t ti_peek(trace_input *in, const unsigned char **head, size_t want)
{
    if (want > TI_PEEK_MAX)
        want = TI_PEEK_MAX;
    /* The head is only ever read ahead at the start: move what is left to the front first. */
    if (in->head_pos > 0) {
        memmove(in->head, in->head + in->head_pos, in->head_len - in->head_pos);
        in->head_len -= in->head_pos;
        in->head_pos = 0;
    }
    while (in->head_len < want && !in->failed) {
        size_t got = content_read(in, in->head + in->head_len, want - in->head_len);
        if (got == 0)
            break;
        in->head_len += got;
    }
    *head = in->head;
    return in->head_len < want ? in->head_len : want;
}

size_t ti_read(trace_input *in, void *buf, size_t n)
{
    size_t from_head = in->head_len - in->head_pos;
    if (from_head > 0) {
        if (from_head > n)
            from_head = n;
        memcpy(buf, in->head + in->head_pos, from_head);
        in->head_pos += from_head;
        return from_head;
    }
    return content_read(in, buf, n);
}

bool ti_failed(const trace_input *in) { return in->failed; }

const char *ti_error(const trace_input *in) { return in->error; }

const char *ti_compression_name(const trace_input *in)
{
    static const char *const names[] = {[TI_GZIP] = "gzip", [TI_ZSTD] = "zstd", [TI_XZ] = "xz"};
    return names[in->compression]; /* TI_PLAIN: NULL */
}
