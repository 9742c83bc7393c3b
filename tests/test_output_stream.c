/* output_stream.h, an output written as it is rendered: text handed over in many pieces, plain,
 * gzip, zstd and xz, reads back as the text whole (compressed read back with the libraries, as
 * `mmprof report` reads it); a newline ends it; a file is replaced only once it is complete (an
 * abandoned or failed stream keeps the user's file and leaves no temporary); a write that fails
 * (/dev/full, written in place) is said, naming the option and path; the scratch file leaves no
 * name behind. */
#include <fcntl.h>
#include <sys/stat.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "output_stream.h"
#include "test_support.h"

/* A text of n bytes that compresses unevenly (lines of numbers, as a run file's columns). */
static char *some_text(size_t n)
{
    char *t = malloc(n + 1);
    assert_non_null(t);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t[i] = (i % 61 == 60) ? '\n' : (char)('0' + (x % 10 < 7 ? x % 3 : x % 10));
    }
    t[n] = '\0';
    return t;
}

/* Writes text through a stream to path in pieces of 1, 2, 3, ... bytes wrapping at most (70,000:
 * many pieces), or (most n) in one piece whose compressed bytes fill the stream's buffer several
 * times over; then closes it. */
static void stream_to(const char *path, const char *text, size_t n, size_t most)
{
    output_file o;
    char err[512];
    assert_true(output_open(&o, "--json", path, err, sizeof err));
    output_stream *s = output_stream_open(&o, output_compress_kind(path), err, sizeof err);
    assert_non_null(s);
    text_sink sink = output_stream_sink(s);
    /* Each piece from a buffer overwritten once it is handed over, as a renderer reuses its own. */
    char *buf = malloc(most ? most : 1);
    assert_non_null(buf);
    size_t piece = most < n ? 1 : n;
    for (size_t at = 0; at < n; at += piece, piece = piece % most + 1) {
        size_t len = at + piece <= n ? piece : n - at;
        memcpy(buf, text + at, len);
        assert_true(sink_write(&sink, buf, len));
        memset(buf, 'X', len);
    }
    free(buf);
    assert_int_equal(output_stream_bytes(s), n);
    assert_true(output_stream_close(s, err, sizeof err));
    assert_true(output_close(&o, err, sizeof err));
}

static char *gunzip(const char *bytes, size_t len, size_t *out_len)
{
    size_t cap = 64u << 20;
    char *out = malloc(cap);
    assert_non_null(out);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)bytes;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = cap - z.avail_out;
    inflateEnd(&z);
    return out;
}

static char *unzstd(const char *bytes, size_t len, size_t *out_len)
{
    size_t cap = 64u << 20;
    char *out = malloc(cap);
    assert_non_null(out);
    size_t n = ZSTD_decompress(out, cap, bytes, len);
    assert_false(ZSTD_isError(n));
    *out_len = n;
    return out;
}

static char *unxz(const char *bytes, size_t len, size_t *out_len)
{
    size_t cap = 64u << 20, in_pos = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    uint64_t memlimit = UINT64_MAX;
    *out_len = 0;
    assert_int_equal(lzma_stream_buffer_decode(&memlimit, 0, NULL, (const uint8_t *)bytes, &in_pos, len,
                                               (uint8_t *)out, out_len, cap),
                     LZMA_OK);
    assert_int_equal(in_pos, len);
    return out;
}

static void pieces_read_back_whole(void **state)
{
    (void)state;
    size_t n = 3u << 20;
    char *text = some_text(n);
    text[n - 1] = '\n';
    const char *names[] = {"run.json", "run.json.gz", "run.json.zst", "run.json.xz"};
    char *(*const unpack[])(const char *, size_t, size_t *) = {NULL, gunzip, unzstd, unxz};
    for (int k = 0; k < 8; k++) {
        int i = k % 4;
        char *path = path_in(test_tmp, names[i]);
        stream_to(path, text, n, k < 4 ? 70000 : n);
        size_t len = 0, got_len = 0;
        char *bytes = read_file(path, &len);
        assert_non_null(bytes);
        char *got = i == 0 ? bytes : unpack[i](bytes, len, &got_len);
        if (i == 0)
            got_len = len;
        else
            assert_true(len < n / 2); /* compressed indeed */
        assert_int_equal(got_len, n);
        assert_memory_equal(got, text, n);
        if (got != bytes)
            free(got);
        free(bytes);
        free(path);
    }
    free(text);
}

static void a_newline_ends_it(void **state)
{
    (void)state;
    char *path = path_in(test_tmp, "t.txt");
    stream_to(path, "no newline", 10, 3);
    char *got = read_file(path, NULL);
    assert_string_equal(got, "no newline\n");
    free(got);
    stream_to(path, "", 0, 1);
    got = read_file(path, NULL);
    assert_string_equal(got, "\n");
    free(got);
    free(path);
}

/* Abandoned half way: the user's file as it was, and no temporary beside it. */
static void abandoned_keeps_the_old_file(void **state)
{
    (void)state;
    char *dir = path_in(test_tmp, "keep");
    assert_int_equal(mkdir(dir, 0755), 0);
    char *path = path_in(dir, "run.json.zst");
    assert_true(write_text(path, "old run\n"));
    output_file o;
    char err[512];
    assert_true(output_open(&o, "--json", path, err, sizeof err));
    output_stream *s = output_stream_open(&o, COMPRESS_ZSTD, err, sizeof err);
    assert_non_null(s);
    char *text = some_text(2u << 20);
    text_sink sink = output_stream_sink(s);
    assert_true(sink_write(&sink, text, 2u << 20));
    int temporaries = 0;
    assert_int_equal(dir_entries(dir, &temporaries), 2); /* the file and the temporary being written */
    assert_int_equal(temporaries, 1);
    output_stream_abandon(s);
    char *kept = read_file(path, NULL);
    assert_string_equal(kept, "old run\n");
    assert_int_equal(dir_entries(dir, &temporaries), 1);
    assert_int_equal(temporaries, 0);
    free(kept);
    free(text);
    free(path);
    free(dir);
}

/* /dev/full is written in place, and every write to it fails: the close says so. */
static void a_failed_write_is_said(void **state)
{
    (void)state;
    output_file o;
    char err[512];
    if (!output_open(&o, "--trace", "/dev/full", err, sizeof err))
        skip();
    output_stream *s = output_stream_open(&o, COMPRESS_NONE, err, sizeof err);
    assert_non_null(s);
    text_sink sink = output_stream_sink(s);
    char *text = some_text(2u << 20);
    assert_false(sink_write(&sink, text, 2u << 20));
    assert_true(output_stream_failed(s));
    assert_false(sink_write(&sink, "x", 1)); /* once failed, always */
    assert_false(output_stream_close(s, err, sizeof err));
    print_message("%s\n", err);
    assert_non_null(strstr(err, "--trace '/dev/full'"));
    assert_non_null(strstr(err, "write failed"));
    output_close(&o, err, sizeof err);
    free(text);
}

/* The scratch file is read-write and has no name: the directory stays empty. */
static void scratch_has_no_name(void **state)
{
    (void)state;
    char *dir = path_in(test_tmp, "scratch");
    assert_int_equal(mkdir(dir, 0755), 0);
    char *path = path_in(dir, "run.json");
    output_file o;
    char err[512];
    assert_true(output_open(&o, "--json", path, err, sizeof err));
    int fd = output_scratch(&o);
    assert_true(fd >= 0);
    assert_int_equal(dir_entries(dir, NULL), 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    char back[4] = {0};
    assert_int_equal(read(fd, back, 3), 3);
    assert_string_equal(back, "abc");
    close(fd);
    assert_int_equal(dir_entries(dir, NULL), 0);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pieces_read_back_whole),
        cmocka_unit_test(a_newline_ends_it),
        cmocka_unit_test(abandoned_keeps_the_old_file),
        cmocka_unit_test(a_failed_write_is_said),
        cmocka_unit_test(scratch_has_no_name),
    };
    return cmocka_run_group_tests(tests, test_tmp_setup, test_tmp_teardown);
}
