// SPDX-License-Identifier: GPL-2.0-only
#include <stdbool.h>

#include "json.h"

/*
 * Length of the well-formed UTF-8 sequence at @p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if there is none.
 */
static int utf8_sequence_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* The second byte's range rules out overlongs, surrogates and > U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	/* A NUL ends the loop here too: it is not a continuation byte. */
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

void json_print_string(FILE *out, const char *s)
{
	const unsigned char *p;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		int len;

		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else if (*p >= 0x20 && *p < 0x7f) {
			fputc(*p, out);
		} else if (*p >= 0x80 && (len = utf8_sequence_len(p))) {
			fwrite(p, 1, (size_t)len, out);
			p += len - 1;
		} else {
			/*
			 * A control character, or a byte that is not UTF-8 (names
			 * are bytes to the kernel): the byte as a code point.
			 */
			fprintf(out, "\\u%04x", *p);
		}
	}
	fputc('"', out);
}
