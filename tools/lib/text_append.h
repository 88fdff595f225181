/* SPDX-License-Identifier: GPL-2.0-only */
/* Building a line piece by piece in a fixed buffer. */
#ifndef GSO_TOOLS_TEXT_APPEND_H
#define GSO_TOOLS_TEXT_APPEND_H

#include <stddef.h>

/*
 * Append printf-formatted text to the NUL-terminated @buf of @len bytes,
 * whose first *used bytes are taken.  The text is cut at the end of the
 * buffer, never written past it; *used then stays at len - 1 (the
 * `used += snprintf()` idiom would step past the end and wrap).
 */
void text_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
