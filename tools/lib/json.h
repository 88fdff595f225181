/* SPDX-License-Identifier: GPL-2.0-only */
/* The one JSON need the tools have that printf() does not cover: strings. */
#ifndef GSO_TOOLS_JSON_H
#define GSO_TOOLS_JSON_H

#include <stdio.h>

/*
 * Print @s as a quoted JSON string.  Interface and file names may hold
 * '"', '\', control characters and bytes that are not UTF-8 (the kernel
 * takes any bytes but '/' and whitespace): JSON must be UTF-8, so such a
 * byte is written as \u00XX, its value read as a code point (Latin-1).
 */
void json_print_string(FILE *out, const char *s);

#endif
