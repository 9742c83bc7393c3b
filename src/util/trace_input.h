/* A trace to import as users have it: a file, standard input ("-"), a pipe or FIFO (/dev/stdin,
 * <(...)), a device; plain, gzip (torch.profiler's tensorboard handler writes .json.gz), zstd or
 * xz (as the large committed samples are).
 * Compression is told by the content's first bytes, never by the name, and undone as the bytes
 * are read, so a trace of any size streams through in bounded memory.
 *
 * The importers read everything through one trace_input: the format is told from its first bytes
 * (ti_peek, which consumes nothing) and then parsed from the same stream, so a pipe, read once,
 * works as a file does. zlib's gz* functions read gzip (and plain bytes unchanged) from any file
 * descriptor; libzstd's streaming decoder sits on top for zstd frames, liblzma's for xz streams. */
#ifndef MMPROF_TRACE_INPUT_H
#define MMPROF_TRACE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { TI_PLAIN = 0, TI_GZIP, TI_ZSTD, TI_XZ } ti_compression;

#define TI_PEEK_MAX 4096 /* what ti_peek can show: the format sniff's window */

typedef struct {
    const char *path; /* as the user gave it ("-" for standard input) */
    char name[256];   /* how messages name it: the path, or "standard input" */
    int fd;           /* the descriptor read (zlib's until ti_close) */
    bool regular;     /* a regular file, which another reader (SQLite) can map through fd */
    ti_compression compression;
    void *gz;         /* zlib's gzFile: gzip or plain bytes */
    void *zstd;       /* ZSTD_DStream when the content is zstd */
    void *xz;         /* lzma_stream when the content is xz */
    unsigned char *zbuf; /* zstd's or xz's compressed bytes, zbuf[zpos, zlen) not yet decoded */
    size_t zpos, zlen, zcap;
    bool zframe_open; /* a zstd frame has begun and not ended */
    bool xz_end;      /* liblzma said the last xz stream ended whole */
    unsigned char head[TI_PEEK_MAX]; /* content read ahead for ti_peek, handed out first */
    size_t head_pos, head_len;
    bool eof, failed;
    char error[256];  /* what went wrong reading, for "NAME: <error>" */
} trace_input;

/* Opens path ("-": standard input) and tells its compression. false with "NAME: why" in err. */
bool ti_open(trace_input *in, const char *path, char *err, size_t errlen);
void ti_close(trace_input *in);

/* Up to want (at most TI_PEEK_MAX) bytes of the content from its start, without consuming them;
 * fewer at its end or on a read error (ti_failed). */
size_t ti_peek(trace_input *in, const unsigned char **head, size_t want);

/* Up to n bytes of the content; 0 at its end or on a read error (ti_failed says which). */
size_t ti_read(trace_input *in, void *buf, size_t n);

/* Whether reading failed, and why ("gzip: unexpected end of file", "read error: ..."). */
bool ti_failed(const trace_input *in);
const char *ti_error(const trace_input *in);

/* "gzip", "zstd" or "xz" for messages about compressed content; NULL for plain content. */
const char *ti_compression_name(const trace_input *in);

#endif
