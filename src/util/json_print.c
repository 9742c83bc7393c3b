/* See json_print.h. */
#include "json_print.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static u128 pow10_of(int k)
{
    u128 p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* %1.<prec>g of d, 1e-4 <= d < 1e15, where printf writes no exponent: d is m * 2^-s exactly
 * (m < 2^53, 3 <= s <= 66 in this range), so d * 10^k (k <= 20) is m * 10^k / 2^s, whose
 * quotient and remainder are exact in 128 bits; rounded half to even, as glibc's printf rounds
 * the exact value. Returns 0 where printf would write an exponent after all (the caller then
 * asks printf). */
static size_t fixed_g(char *buf, double d, int prec)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    int s = 1075 - (int)((bits >> 52) & 0x7ff);
    if (s < 1 || s > 100)
        return 0;
    u128 lo = pow10_of(prec - 1), hi = lo * 10, t = 0;
    int e10 = (int)floor(log10(d)), k = 0;
    bool up = false;
    for (int tries = 0;; tries++) {
        k = prec - 1 - e10;
        if (tries > 3 || k < 0 || k > 20)
            return 0;
        u128 x = (u128)m * pow10_of(k);
        t = x >> s;
        if (t >= hi) {
            e10++;
            continue;
        }
        if (t < lo) {
            e10--;
            continue;
        }
        u128 rem = x & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
        up = rem > half || (rem == half && (t & 1));
        break;
    }
    t += up;
    if (t == hi) {
        t = lo;
        e10++;
    }
    if (e10 < -4 || e10 >= prec)
        return 0;
    char dig[24];
    for (int i = prec - 1; i >= 0; i--, t /= 10)
        dig[i] = (char)('0' + (int)(t % 10));
    int last = prec - 1; /* the last digit kept: %g drops trailing zeros of the fraction */
    while (last > (e10 > 0 ? e10 : 0) && dig[last] == '0')
        last--;
    size_t n = 0;
    if (e10 >= 0) {
        memcpy(buf, dig, (size_t)e10 + 1);
        n = (size_t)e10 + 1;
        if (last > e10) {
            buf[n++] = '.';
            memcpy(buf + n, dig + e10 + 1, (size_t)(last - e10));
            n += (size_t)(last - e10);
        }
    } else {
        buf[n++] = '0';
        buf[n++] = '.';
        for (int z = 0; z < -e10 - 1; z++)
            buf[n++] = '0';
        memcpy(buf + n, dig, (size_t)last + 1);
        n += (size_t)last + 1;
    }
    buf[n] = '\0';
    return n;
}

size_t json_format_g(char *buf, double d, int precision)
{
    if ((precision == 15 || precision == 17) && isfinite(d)) {
        double a = fabs(d);
        if (a >= 1e-4 && a < 1e15) {
            size_t n = fixed_g(buf + (d < 0), a, precision);
            if (n > 0) {
                if (d < 0)
                    buf[0] = '-';
                return n + (d < 0);
            }
        }
    }
    int n = snprintf(buf, 32, "%1.*g", precision, d);
    return n > 0 ? (size_t)n : 0;
}

/* cJSON's check that the shorter form reads back (compare_double in cJSON.c). */
static bool reads_back(double a, double b)
{
    double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= max * DBL_EPSILON;
}

static size_t int_text(char *buf, int64_t v)
{
    char tmp[24];
    size_t n = 0, len = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        buf[len++] = '-';
    while (n > 0)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

size_t json_print_number(char *buf, double d)
{
    if (isnan(d) || isinf(d)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    /* Whole numbers of at most 15 digits: what %1.15g writes of them, and they read back. */
    if (d != 0 && fabs(d) < 1e15 && d == (double)(int64_t)d)
        return int_text(buf, (int64_t)d);
    size_t n = json_format_g(buf, d, 15);
    if (reads_back(strtod(buf, NULL), d))
        return n;
    return json_format_g(buf, d, 17);
}

/* cJSON's print_string_ptr: NULL as "", quote, backslash and \b \f \n \r \t escaped by letter,
 * other bytes below 32 as \u00xx, everything else as it is. */
static void print_string(strbuf *b, const char *s)
{
    sb_addn(b, "\"", 1);
    if (s) {
        const char *run = s;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            if (*p >= 32 && *p != '"' && *p != '\\')
                continue;
            sb_addn(b, run, (size_t)((const char *)p - run));
            char esc[8];
            switch (*p) {
            case '"': sb_addn(b, "\\\"", 2); break;
            case '\\': sb_addn(b, "\\\\", 2); break;
            case '\b': sb_addn(b, "\\b", 2); break;
            case '\f': sb_addn(b, "\\f", 2); break;
            case '\n': sb_addn(b, "\\n", 2); break;
            case '\r': sb_addn(b, "\\r", 2); break;
            case '\t': sb_addn(b, "\\t", 2); break;
            default:
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                sb_addn(b, esc, 6);
            }
            run = (const char *)p + 1;
        }
        sb_add(b, run);
    }
    sb_addn(b, "\"", 1);
}

bool json_print(strbuf *b, const cJSON *v)
{
    char num[32];
    switch (v->type & 0xFF) {
    case cJSON_NULL: sb_addn(b, "null", 4); return true;
    case cJSON_False: sb_addn(b, "false", 5); return true;
    case cJSON_True: sb_addn(b, "true", 4); return true;
    case cJSON_Number: sb_addn(b, num, json_print_number(num, v->valuedouble)); return true;
    case cJSON_Raw:
        if (!v->valuestring)
            return false;
        sb_add(b, v->valuestring);
        return true;
    case cJSON_String: print_string(b, v->valuestring); return true;
    case cJSON_Array:
    case cJSON_Object: {
        bool object = (v->type & 0xFF) == cJSON_Object;
        sb_addn(b, object ? "{" : "[", 1);
        for (const cJSON *c = v->child; c; c = c->next) {
            if (object) {
                print_string(b, c->string);
                sb_addn(b, ":", 1);
            }
            if (!json_print(b, c))
                return false;
            if (c->next)
                sb_addn(b, ",", 1);
        }
        sb_addn(b, object ? "}" : "]", 1);
        return true;
    }
    default: return false;
    }
}
