/* Outputs named .gz, .zst or .xz are written compressed: a long run's run file (--json) shrinks by
 * about 6x more again (its event columns are runs of like numbers), and `mmprof report` reads
 * each back, told by content (trace_input.h). Other names are written as they are. */
#ifndef MMPROF_OUTPUT_COMPRESS_H
#define MMPROF_OUTPUT_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { COMPRESS_NONE = 0, COMPRESS_GZIP, COMPRESS_ZSTD, COMPRESS_XZ } compress_kind;

/* What path's name asks for: COMPRESS_GZIP for *.gz, COMPRESS_ZSTD for *.zst, COMPRESS_XZ for *.xz
 * (output_stream.h writes it so: a gzip member at zlib's default level, a zstd frame at level 3, an
 * xz stream at preset 1, which is still smaller than zstd's: xz's default preset, 6, took 4.2 s
 * against 0.75 s and 92 MiB against 10 MiB for the sweep sample's 14 MB run file, for a file 18%
 * smaller). */
compress_kind output_compress_kind(const char *path);

#endif
