/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /proc/net/softnet_stat: one line per online CPU of hex columns
 * (net/core/net-procfs.c softnet_seq_show()): packets processed, dropped
 * (backlog full), time_squeeze, ..., and since Linux 5.10 the CPU number
 * in column 13.  Pure parser, so the unit test feeds it text.
 */
#ifndef GSO_TOOLS_SOFTNET_H
#define GSO_TOOLS_SOFTNET_H

#include <stddef.h>
#include <stdint.h>

#define SOFTNET_MAX_CPUS	1024

struct softnet_cpu {
	unsigned int cpu;
	uint32_t processed;
	uint32_t dropped;
	uint32_t time_squeeze;
};

/* Parse @text into @cpus (at most @max lines).  Returns the count, or -EINVAL. */
int softnet_parse(const char *text, struct softnet_cpu *cpus, size_t max);

/*
 * Where the drops are: the total and the CPU with the most.  With @before
 * (same CPUs, same order) the deltas are used, else the absolute counts.
 */
struct softnet_skew {
	uint64_t total_dropped;
	uint64_t max_dropped;
	unsigned int max_cpu;
	unsigned int cpus;
	unsigned int cpus_with_drops;
};
void softnet_skew_compute(const struct softnet_cpu *now, const struct softnet_cpu *before,
			  size_t count, struct softnet_skew *out);

#endif
