// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fail.h"

const char *fail_prog = "gso-tool";
int fail_status = EXIT_FAILURE;

void fail_errno(const char *what)
{
	perror(what);
	exit(fail_status);
}

void fail_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", fail_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(fail_status);
}

void fail_usage_status(int status, const char *usage, const char *msg)
{
	fprintf(stderr, "%s: %s\n%s", fail_prog, msg, usage);
	exit(status);
}

void fail_usage(const char *usage, const char *fmt, ...)
{
	char msg[FAIL_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail_usage_status(fail_status, usage, msg);
}
