/* The terminal report: fits 100 columns; color only when asked (the caller decides from the
 * terminal, NO_COLOR and --color). */
#ifndef MMPROF_REPORT_TEXT_H
#define MMPROF_REPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"

#define TEXT_WIDTH 100

void render_text(const analysis *a, FILE *out, bool color);

#endif
