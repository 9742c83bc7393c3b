/* Outputs named .gz or .zst are written compressed: a long run's run file (--json) shrinks by
 * about 6x more again (its event columns are runs of like numbers), and `mmprof report` reads
 * either back, told by content (trace_input.h). Other names are written as they are. */
#ifndef MMPROF_OUTPUT_COMPRESS_H
#define MMPROF_OUTPUT_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { COMPRESS_NONE = 0, COMPRESS_GZIP, COMPRESS_ZSTD } compress_kind;

/* What path's name asks for: COMPRESS_GZIP for *.gz, COMPRESS_ZSTD for *.zst (output_stream.h
 * writes it so: a gzip member at zlib's default level, a zstd frame at level 3). */
compress_kind output_compress_kind(const char *path);

#endif
