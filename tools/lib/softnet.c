// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "softnet.h"

int softnet_parse(const char *text, struct softnet_cpu *cpus, size_t max)
{
	const char *line = text;
	size_t n = 0;

	while (*line) {
		unsigned long col[13];
		const char *p = line;
		int ncol = 0;

		while (*p && *p != '\n') {
			char *end;

			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p || *p == '\n')
				break;
			if (!isxdigit((unsigned char)*p))
				return -EINVAL;
			errno = 0;
			unsigned long v = strtoul(p, &end, 16);

			if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
				return -EINVAL;
			if (ncol < 13)
				col[ncol] = v;
			ncol++;
			p = end;
		}
		if (ncol) {
			if (ncol < 3 || n == max)
				return -EINVAL;
			cpus[n] = (struct softnet_cpu){
				/* Before 5.10 there is no CPU column: lines are CPUs in order. */
				.cpu = ncol >= 13 ? (unsigned int)col[12] : (unsigned int)n,
				.processed = (uint32_t)col[0],
				.dropped = (uint32_t)col[1],
				.time_squeeze = (uint32_t)col[2],
			};
			n++;
		}
		line = *p ? p + 1 : p;
	}
	return (int)n;
}

void softnet_skew_compute(const struct softnet_cpu *now, const struct softnet_cpu *before,
			  size_t count, struct softnet_skew *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->cpus = (unsigned int)count;
	for (i = 0; i < count; i++) {
		/* The counters are u32 and wrap: unsigned subtraction gives the delta. */
		uint64_t d = before ? (uint32_t)(now[i].dropped - before[i].dropped) : now[i].dropped;

		out->total_dropped += d;
		if (d)
			out->cpus_with_drops++;
		if (d > out->max_dropped) {
			out->max_dropped = d;
			out->max_cpu = now[i].cpu;
		}
	}
}
