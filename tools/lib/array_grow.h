/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Growing a malloc()ed array by doubling, for the lists the tools build
 * one element at a time (netlink dumps, gso-doctor's findings): one place
 * that checks the byte size for overflow, so no caller multiplies a
 * capacity it did not check.
 */
#ifndef GSO_TOOLS_ARRAY_GROW_H
#define GSO_TOOLS_ARRAY_GROW_H

#include <stddef.h>

/*
 * Room for one more element after the @count in use in @items, an array
 * of *@cap elements of @size bytes (NULL and 0 at first): when full, it
 * is reallocated at twice its capacity (16 elements at first) and *@cap
 * updated.  Returns the array, possibly moved.  Ends the process with a
 * message if the new size does not fit in size_t or memory runs out: a
 * list cut short would give a wrong answer silently.
 */
void *array_grow(void *items, size_t count, size_t *cap, size_t size);

#endif
