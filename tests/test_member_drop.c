/* member_drop.h: the value of a document's top-level "analysis" left out as the text is read. On
 * documents with the brackets, quotes and escapes that could mislead a scanner (in strings, in
 * keys, in the left-out value), fed whole, in two pieces split at every byte and a byte at a
 * time: the kept text is the document with that value made null and its newlines kept, every
 * piece's output fits the room md_take promises, and each byte after the gap maps back to the
 * same byte of the document. A value of the same key deeper down, a scalar value and the key's
 * name as a string value are kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "member_drop.h"

/* doc through a fresh scanner in pieces of the sizes given (0-terminated), into out. */
static size_t feed(const char *doc, const size_t *sizes, char *out, member_drop *d)
{
    md_init(d, "analysis");
    size_t len = strlen(doc), at = 0, n = 0;
    for (int k = 0; at < len; k++) {
        size_t piece = sizes[k] ? sizes[k] : len - at;
        if (piece > len - at)
            piece = len - at;
        size_t w = md_take(d, doc + at, piece, out + n);
        assert_true(w <= piece + 4);
        n += w;
        at += piece;
    }
    out[n] = '\0';
    return n;
}

/* doc kept as want, fed every way; offsets past the gap map back onto the same bytes of doc. */
static void kept_as(const char *doc, const char *want)
{
    size_t len = strlen(doc);
    char *out = malloc(len + 8);
    assert_non_null(out);
    member_drop d;
    size_t whole[] = {0};
    feed(doc, whole, out, &d);
    assert_string_equal(out, want);
    /* Every kept byte but the null and newlines standing for the value is the document's, there. */
    for (size_t i = 0; i < strlen(out); i++) {
        bool stands_in = d.state == MD_DONE && i < d.gap_at && i + 4 + d.newlines >= d.gap_at;
        if (!stands_in) {
            assert_true(md_original(&d, i) < len);
            assert_int_equal(doc[md_original(&d, i)], out[i]);
        }
    }
    for (size_t cut = 1; cut < len; cut++) {
        size_t two[] = {cut, 0};
        feed(doc, two, out, &d);
        assert_string_equal(out, want);
    }
    size_t ones[4096];
    for (size_t i = 0; i < len && i < 4095; i++)
        ones[i] = 1;
    ones[len < 4095 ? len : 4095] = 0;
    feed(doc, ones, out, &d);
    assert_string_equal(out, want);
    free(out);
}

static void analysis_value_left_out(void **state)
{
    (void)state;
    kept_as("{\"a\": 1, \"analysis\": {\"x\": [1, {\"}\": \"{[\"}], \"s\": \"\\\"}\\\\\"}, \"b\": [2]}",
            "{\"a\": 1, \"analysis\": null, \"b\": [2]}");
    /* Brackets that do not pair up, in strings, and an escaped quote before one. */
    kept_as("{\"analysis\": {\"t\": \"{\"}, \"b\": 1}", "{\"analysis\": null, \"b\": 1}");
    kept_as("{\"analysis\": {\"e\": \"\\\"}\"}, \"b\": 2}", "{\"analysis\": null, \"b\": 2}");
    /* Its newlines stay, so the lines after it keep their numbers. */
    kept_as("{\n\"analysis\": {\n\"regions\": [\n1,\n2\n]\n},\n\"b\": \"]\"\n}\n",
            "{\n\"analysis\": null\n\n\n\n\n,\n\"b\": \"]\"\n}\n");
    /* Last, as a report writes it; an array too. */
    kept_as("{\"summary\": [1], \"events\": {\"analysis\": {\"k\": 1}}, \"analysis\": [[], {}]}",
            "{\"summary\": [1], \"events\": {\"analysis\": {\"k\": 1}}, \"analysis\": null}");
}

static void other_values_kept(void **state)
{
    (void)state;
    const char *const keep[] = {
        "{\"x\": {\"analysis\": {\"deep\": 1}}}",             /* not at the top */
        "{\"analysis\": 5, \"y\": {\"z\": 1}}",                /* a scalar */
        "{\"analysis\": \"{not a value to drop}\"}",           /* a string */
        "{\"k\": \"analysis\", \"v\": {\"w\": [1]}}",          /* the name as a value */
        "{\"analysis2\": {\"q\": 1}, \"ana\\\"lysis\": {}}",   /* other keys */
        "[{\"analysis\": {\"in\": \"an array\"}}]",            /* a document that is no object */
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        kept_as(keep[i], keep[i]);
    /* Only the first at the top is left out. */
    kept_as("{\"analysis\": {}, \"analysis\": {\"again\": 1}}", "{\"analysis\": null, \"analysis\": {\"again\": 1}}");
}

/* A document cut inside the value: what came before it is kept, with "null" where the value began,
 * and the scanner says it is still inside (the reader then finds the document unfinished). */
static void cut_inside_the_value(void **state)
{
    (void)state;
    const char *doc = "{\"a\": [1], \"analysis\": {\"regions\": [\n{\"x\": \"}\"}\n";
    char out[128];
    member_drop d;
    size_t whole[] = {0};
    feed(doc, whole, out, &d);
    assert_string_equal(out, "{\"a\": [1], \"analysis\": null\n\n");
    assert_int_equal(d.state, MD_SKIP);
    assert_int_equal(md_original(&d, 5), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(analysis_value_left_out),
        cmocka_unit_test(other_values_kept),
        cmocka_unit_test(cut_inside_the_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
