/* cJSON values printed as cJSON_PrintUnformatted prints them, byte for byte, into a strbuf.
 *
 * json_writer.c printed each value of a run file through cJSON: a malloc'd copy per value, and
 * per number a sprintf("%1.15g"), an sscanf to see whether that reads back, and often a
 * sprintf("%1.17g"): most of the time of writing a long run's figures (its "analysis" is tens
 * of MB of numbers). Here a number is formatted with exact integer arithmetic where printf would
 * write it without an exponent (the figures' range), and read back with strtod, which is what
 * sscanf's %lg does; printf remains for the rest. cJSON's (1.7.15's) rules are kept: NaN and
 * infinities as null, every other number as %1.15g where that reads back, else %1.17g; strings
 * escaped as cJSON escapes them (control characters as \u00xx, other bytes as they are). */
#ifndef MMPROF_JSON_PRINT_H
#define MMPROF_JSON_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "strbuf.h"

/* Appends value as cJSON_PrintUnformatted would print it. False where cJSON would print nothing
 * (a raw value without text, an item of no type); b may then hold part of it. */
bool json_print(strbuf *b, const cJSON *value);

/* A number as cJSON prints it. buf: 32 bytes at least; returns the length written
 * (NUL-terminated). */
size_t json_print_number(char *buf, double d);

/* printf's %1.<precision>g of d, for precision 15 and 17 (the two cJSON uses); other precisions
 * and values go through snprintf. buf: 32 bytes at least; returns the length. */
size_t json_format_g(char *buf, double d, int precision);

#endif
