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
#include <zlib.h>
#include <zstd.h>

#define GZ_BUFFER (1u << 20) /* zlib's read buffer: large reads of large traces */

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

/* Up to n bytes of zstd-decoded content. */
static size_t zstd_read(trace_input *in, unsigned char *buf, size_t n)
{
    ZSTD_outBuffer out = {buf, n, 0};
    while (out.pos < out.size && !in->failed) {
        if (in->zpos == in->zlen) {
            if (in->eof)
                break;
            in->zpos = 0;
            in->zlen = raw_read(in, in->zbuf, in->zcap);
            if (in->zlen == 0)
                break;
        }
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

static size_t content_read(trace_input *in, unsigned char *buf, size_t n)
{
    return in->zstd ? zstd_read(in, buf, n) : raw_read(in, buf, n);
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
    /* The first bytes after gzip tell zstd; otherwise they are the content's own. */
    in->head_len = raw_read(in, in->head, 4);
    in->compression = gzdirect(in->gz) ? TI_PLAIN : TI_GZIP;
    static const unsigned char zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    if (!in->failed && in->head_len == 4 && memcmp(in->head, zstd_magic, 4) == 0) {
        in->compression = TI_ZSTD;
        in->zstd = ZSTD_createDStream();
        in->zcap = ZSTD_DStreamInSize();
        in->zbuf = malloc(in->zcap);
        if (!in->zstd || !in->zbuf || ZSTD_isError(ZSTD_initDStream(in->zstd))) {
            snprintf(err, errlen, "%s: out of memory", in->name);
            ti_close(in);
            return false;
        }
        memcpy(in->zbuf, in->head, 4);
        in->zlen = 4;
        in->head_len = 0;
    }
    return true;
}

void ti_close(trace_input *in)
{
    if (in->gz)
        gzclose(in->gz);
    ZSTD_freeDStream(in->zstd);
    free(in->zbuf);
    in->gz = NULL;
    in->zstd = NULL;
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
    return in->compression == TI_GZIP ? "gzip" : in->compression == TI_ZSTD ? "zstd" : NULL;
}
