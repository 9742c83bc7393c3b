/* Outputs named .gz or .zst are written compressed: a long run's run file (--json) shrinks by
 * about 6x more again (its event columns are runs of like numbers), and `mmprof report` reads
 * either back, told by content (trace_input.h). Other names are written as they are. */
#ifndef MMPROF_OUTPUT_COMPRESS_H
#define MMPROF_OUTPUT_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { COMPRESS_NONE = 0, COMPRESS_GZIP, COMPRESS_ZSTD } compress_kind;

/* What path's name asks for: COMPRESS_GZIP for *.gz, COMPRESS_ZSTD for *.zst. */
compress_kind output_compress_kind(const char *path);

/* data[0, len) compressed as kind (a gzip member at zlib's default level, a zstd frame at
 * level 3), into a buffer the caller frees, its size in *out_len; NULL when memory ran out or
 * the library failed. */
char *output_compress(compress_kind kind, const char *data, size_t len, size_t *out_len);

#endif
