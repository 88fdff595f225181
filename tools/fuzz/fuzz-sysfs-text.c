// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parsers of sysfs and procfs text (lib/sysfs.c): CPU lists
 * ("0-3,5"), CPU masks ("00000000,00000003") and decimal counters.
 */
#include <errno.h>

#include "fuzz/fuzz_input.h"
#include "lib/sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstring(data, size);
	uint64_t v;
	int n;

	n = sysfs_cpulist_count(text);
	fuzz_assert(n == -EINVAL || (n >= 0 && (unsigned long)n <= SYSFS_MAX_CPU + 1));
	n = sysfs_cpumask_any(text);
	fuzz_assert(n == -EINVAL || n == 0 || n == 1);
	if (!sysfs_parse_u64(text, &v)) {
		char back[32];

		/* Decimal only: the number prints back as the text, but for leading zeros. */
		snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
		fuzz_assert(strlen(back) <= strlen(text));
	}
	free(text);
	return 0;
}
