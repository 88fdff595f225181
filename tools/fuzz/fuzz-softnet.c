// SPDX-License-Identifier: GPL-2.0-only
/* /proc/net/softnet_stat's parser (lib/softnet.c) and the skew over what it parsed. */
#include "fuzz/fuzz_input.h"
#include "lib/softnet.h"

#define FUZZ_CPUS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct softnet_cpu cpus[FUZZ_CPUS];
	struct softnet_skew skew;
	char *text = fuzz_cstring(data, size);
	int n = softnet_parse(text, cpus, FUZZ_CPUS);

	fuzz_assert(n <= FUZZ_CPUS);
	if (n > 0) {
		softnet_skew_compute(cpus, NULL, (size_t)n, &skew);
		fuzz_assert(skew.max_dropped <= skew.total_dropped && skew.cpus == (unsigned int)n);
		softnet_skew_compute(cpus, cpus, (size_t)n, &skew);
		fuzz_assert(skew.total_dropped == 0);
	}
	free(text);
	return 0;
}
