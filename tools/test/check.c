// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "test/check.h"

static int check_failures;

void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		check_failures++;
}

int check_exit_status(void)
{
	if (!check_failures)
		return EXIT_SUCCESS;
	printf("FAIL: %d check(s) failed\n", check_failures);
	return EXIT_FAILURE;
}
