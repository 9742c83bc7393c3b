/* json_print.h against cJSON and printf themselves: %1.15g and %1.17g of millions of doubles
 * (random bits over the range written without an exponent and past it, integers with a binary
 * fraction whose digits end in a 5 where rounding cuts (ties, to even), values next to powers of
 * ten, where rounding adds a digit); numbers as cJSON prints them; and whole documents (a tree
 * with every type, escapes and odd strings, and the recorded sample run file) printed byte for
 * byte as cJSON_PrintUnformatted prints them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_print.h"
#include "test_support.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static void same_as_printf(double d)
{
    for (int prec = 15; prec <= 17; prec += 2) {
        char want[64], got[64];
        snprintf(want, sizeof want, "%1.*g", prec, d);
        size_t n = json_format_g(got, d, prec);
        if (strcmp(want, got) != 0 || n != strlen(want))
            fail_msg("%%1.%dg of %a: printf writes '%s', json_format_g '%s' (%zu)", prec, d, want, got, n);
    }
}

static void format_g_as_printf(void **state)
{
    (void)state;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    /* Any bits, over 1e-6 .. 1e17 (both sides of the fast range's ends). */
    for (int i = 0; i < 2000000; i++) {
        double d = pow(10, -6 + 23.0 * (double)(rnd(&s) % 1000000) / 1e6);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        bits ^= rnd(&s) & ((UINT64_C(1) << 52) - 1);
        memcpy(&d, &bits, sizeof d);
        same_as_printf(rnd(&s) & 1 ? -d : d);
    }
    /* Integers and binary fractions: their exact digits end early, so a cut may fall on a 5. */
    for (int i = 0; i < 500000; i++) {
        double whole = (double)(rnd(&s) % 100000000000000000ull), frac = (double)(rnd(&s) % 64) / 64.0;
        same_as_printf(ldexp(whole, -(int)(rnd(&s) % 40)) + frac);
    }
    /* 5 * 10^k / 2^j: exactly a 5 past the 15th or 17th digit for the right j. */
    for (int k = 0; k < 18; k++)
        for (int j = 0; j < 60; j++)
            for (int digits = 1; digits < 4; digits++)
                same_as_printf(ldexp((double)digits * 5 * pow(10, k), -j) + 1e3);
    /* Next to powers of ten, where rounding carries into a new digit. */
    for (int e = -6; e <= 17; e++) {
        double p = pow(10, e), d = p;
        for (int i = 0; i < 40; i++) {
            same_as_printf(d);
            d = nextafter(d, 0);
        }
        d = p;
        for (int i = 0; i < 40; i++) {
            same_as_printf(d);
            d = nextafter(d, INFINITY);
        }
        same_as_printf(p * (1 - 5e-16));
        same_as_printf(p * (1 - 5e-18));
    }
    /* Durations as the figures hold them: ns / 1e6 and their means. */
    for (int i = 0; i < 200000; i++) {
        int64_t ns = (int64_t)(rnd(&s) % 100000000000ull);
        same_as_printf((double)ns / 1e6);
        same_as_printf((double)ns / 1e6 / (double)(1 + rnd(&s) % 1000));
    }
}

/* The number cJSON would print for d, through cJSON itself. */
static void number_as_cjson(double d)
{
    cJSON *n = cJSON_CreateNumber(d);
    assert_non_null(n);
    char *want = cJSON_PrintUnformatted(n), got[32];
    assert_non_null(want);
    json_print_number(got, n->valuedouble);
    if (strcmp(want, got) != 0)
        fail_msg("%a: cJSON prints '%s', json_print_number '%s'", d, want, got);
    free(want);
    cJSON_Delete(n);
}

static void numbers_as_cjson(void **state)
{
    (void)state;
    double fixed[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1e-5, 1e15, 1e15 - 1, 1e16, 1e300, -1e-300, 5e-324,
                      2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0, 4e9, 9007199254740993.0,
                      1.0 / 3, 2.0 / 3, 100.0 / 7, NAN, INFINITY, -INFINITY, 0.30000000000000004,
                      123456789.123456789};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        number_as_cjson(fixed[i]);
    uint64_t s = 12345;
    for (int i = 0; i < 300000; i++) {
        double d = (double)(int64_t)(rnd(&s) % 2000000001) / pow(10, (double)(rnd(&s) % 12));
        number_as_cjson(rnd(&s) & 1 ? -d : d);
    }
}

static void printed_as_cjson(const cJSON *v)
{
    char *want = cJSON_PrintUnformatted(v);
    assert_non_null(want);
    strbuf b;
    sb_init(&b);
    assert_true(json_print(&b, v));
    char *got = sb_finish(&b);
    assert_non_null(got);
    if (strcmp(want, got) != 0) {
        size_t at = 0;
        while (want[at] && want[at] == got[at])
            at++;
        fail_msg("differs at byte %zu: cJSON '%.60s', json_print '%.60s'", at, want + at, got + at);
    }
    free(want);
    free(got);
}

static void every_type_as_cjson(void **state)
{
    (void)state;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNullToObject(root, "null");
    cJSON_AddTrueToObject(root, "yes");
    cJSON_AddFalseToObject(root, "no");
    cJSON_AddNumberToObject(root, "n", 12.5);
    cJSON_AddNumberToObject(root, "big", 1e20);
    cJSON_AddNumberToObject(root, "nan", NAN);
    cJSON_AddStringToObject(root, "esc", "quote \" backslash \\ \b\f\n\r\t \x01\x1f \x7f caf\xc3\xa9 \xff");
    cJSON_AddStringToObject(root, "", "empty key");
    cJSON_AddStringToObject(root, "key \"quoted\"\n", "");
    cJSON_AddRawToObject(root, "raw", "[1,2, 3]");
    cJSON_AddObjectToObject(root, "empty_object");
    cJSON_AddArrayToObject(root, "empty_array");
    cJSON *a = cJSON_AddArrayToObject(root, "nested");
    for (int i = 0; i < 5; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "i", i);
        cJSON_AddItemToObject(o, "list", cJSON_CreateDoubleArray((double[]){0.5, -1e-7, 3e12}, 3));
        cJSON_AddItemToArray(a, o);
    }
    cJSON *s = cJSON_CreateString("x");
    free(s->valuestring);
    s->valuestring = NULL; /* printed as "" by cJSON */
    cJSON_AddItemToObject(root, "null_string", s);
    printed_as_cjson(root);
    cJSON *raw = cJSON_CreateRaw("1");
    free(raw->valuestring);
    raw->valuestring = NULL;
    strbuf b;
    sb_init(&b);
    assert_false(json_print(&b, raw)); /* cJSON prints nothing either */
    assert_null(cJSON_PrintUnformatted(raw));
    sb_free(&b);
    cJSON_Delete(raw);
    cJSON_Delete(root);
}

/* A whole recorded run file, its every figure and string. */
static void sample_as_cjson(void **state)
{
    (void)state;
    cJSON *root = read_json(sample_path());
    assert_non_null(root);
    printed_as_cjson(root);
    cJSON_Delete(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(format_g_as_printf),
        cmocka_unit_test(numbers_as_cjson),
        cmocka_unit_test(every_type_as_cjson),
        cmocka_unit_test(sample_as_cjson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
