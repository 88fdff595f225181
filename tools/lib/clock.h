/* SPDX-License-Identifier: GPL-2.0-only */
/* Monotonic time in seconds: durations must not jump with the wall clock. */
#ifndef GSO_TOOLS_CLOCK_H
#define GSO_TOOLS_CLOCK_H

#include <time.h>

#include "fail.h"

static inline double clock_now_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		fail_errno("clock_gettime");
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
