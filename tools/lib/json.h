/* SPDX-License-Identifier: GPL-2.0-only */
/* The one JSON need the tools have that printf() does not cover: strings. */
#ifndef GSO_TOOLS_JSON_H
#define GSO_TOOLS_JSON_H

#include <stdio.h>

/* Print @s as a quoted JSON string; interface and file names may hold '"' or '\'. */
void json_print_string(FILE *out, const char *s);

#endif
