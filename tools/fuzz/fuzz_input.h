/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the libFuzzer harnesses share: the input as a C string, and a
 * check that aborts (libFuzzer then keeps the input as a crash).
 */
#ifndef GSO_TOOLS_FUZZ_INPUT_H
#define GSO_TOOLS_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @size bytes at @data, NUL-terminated, in a buffer of exactly @size + 1 bytes (ASan sees past it). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An invariant the code under test promises: a violation is a finding. */
#define fuzz_assert(cond)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "fuzz_assert failed: %s (%s:%d)\n", #cond,	\
				__FILE__, __LINE__);				\
			abort();						\
		}								\
	} while (0)

#endif
