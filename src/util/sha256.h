/* SHA-256 (FIPS 180-4), for keys of content: a run stored in a database is keyed by the hash of
 * its rows (run_rows.h), so storing it twice is a no-op. Incremental, so the rows are hashed as
 * they are walked, never joined into one text. */
#ifndef MMPROF_SHA256_H
#define MMPROF_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char buf[64];
    size_t nbuf;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_add(sha256_ctx *c, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(sha256_ctx *c, char out[65]);

#endif
