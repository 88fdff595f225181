// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "parse.h"

bool parse_u64(const char *str, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long val;
	char *end;

	if (!str || !isdigit((unsigned char)str[0]))
		return false;
	errno = 0;
	val = strtoull(str, &end, 10);
	if (errno || *end != '\0' || val < min || val > max)
		return false;
	*out = val;
	return true;
}

bool parse_seconds(const char *str, double max_s, double *out)
{
	double val;
	char *end;

	if (!str || !(isdigit((unsigned char)str[0]) || str[0] == '.'))
		return false;
	errno = 0;
	val = strtod(str, &end);
	if (errno || *end != '\0' || !isfinite(val) || val < 0 || val > max_s)
		return false;
	*out = val;
	return true;
}
