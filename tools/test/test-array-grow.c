// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/array_grow.c: the array doubles from 16 only when
 * full, keeps what it held, and a capacity whose byte size would not fit
 * in size_t ends the process with a message instead of a short array.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/array_grow.h"
#include "test/check.h"

/* Whether array_grow() on a full array of @cap elements of @size bytes ends the process. */
static bool grow_dies(size_t cap, size_t size)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(EXIT_FAILURE);
	}
	if (!pid) {
		/* No memory is asked for: the size check comes before realloc(). */
		array_grow(NULL, cap, &cap, size);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) != 0;
}

int main(void)
{
	size_t cap = 0, i, caps_seen = 0;
	uint32_t *v = NULL;
	bool kept = true;

	v = array_grow(v, 0, &cap, sizeof(*v));
	check(v && cap == 16, "first growth: 16 elements (cap %zu)", cap);
	for (i = 0; i < 100; i++) {
		size_t before = cap;

		v = array_grow(v, i, &cap, sizeof(*v));
		if (cap != before)
			caps_seen++;
		check(i < before ? cap == before : cap == 2 * before,
		      "%zu in use: capacity %zu -> %zu", i, before, cap);
		v[i] = (uint32_t)i;
	}
	for (i = 0; i < 100; i++)
		kept = kept && v[i] == i;
	check(kept, "the 100 elements kept across %zu reallocations", caps_seen);
	check(cap == 128, "100 elements: capacity 128 (%zu)", cap);
	free(v);
	check(grow_dies(SIZE_MAX / 2 + 1, 1), "a capacity past SIZE_MAX / 2: refused");
	check(grow_dies(SIZE_MAX / 8, 16), "a byte size over SIZE_MAX: refused");
	return check_exit_status();
}
