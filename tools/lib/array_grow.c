// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdlib.h>

#include "array_grow.h"
#include "fail.h"

#define ARRAY_GROW_FIRST	16

void *array_grow(void *items, size_t count, size_t *cap, size_t size)
{
	size_t new_cap;

	if (count < *cap)
		return items;
	new_cap = *cap ? *cap : ARRAY_GROW_FIRST / 2;
	/* Doubled, new_cap * size must still fit: checked before either multiplication. */
	if (!size || new_cap > SIZE_MAX / 2 / size)
		fail_msg("growing an array of %zu elements of %zu bytes: too large", *cap, size);
	new_cap *= 2;
	items = realloc(items, new_cap * size);
	if (!items)
		fail_errno("realloc");
	*cap = new_cap;
	return items;
}
