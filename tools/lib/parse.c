// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "parse.h"

bool parse_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool parse_pid_text(const char *text, pid_t *pid)
{
	size_t n = strlen(text);
	uint64_t v;
	char digits[16];

	if (n && text[n - 1] == '\n')
		n--;
	if (!n || n >= sizeof(digits) || text[0] == '0')
		return false;
	memcpy(digits, text, n);
	digits[n] = '\0';
	if (!parse_all_digits(digits) || !parse_u64(digits, 1, INT_MAX, &v))
		return false;
	*pid = (pid_t)v;
	return true;
}

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

void parse_help_exit(const char *usage)
{
	fputs(usage, stdout);
	if (fflush(stdout))
		fail_errno("stdout");
	exit(EXIT_SUCCESS);
}

void parse_json_iface_args(int argc, char **argv, const char *usage,
			   bool iface_required, bool *json, const char **ifname)
{
	int i;

	*json = false;
	*ifname = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			*json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			parse_help_exit(usage);
		else if (argv[i][0] == '-')
			fail_usage(usage, "unknown option '%s'", argv[i]);
		else if (*ifname)
			fail_usage(usage, "one IFACE only, got '%s' and '%s'", *ifname, argv[i]);
		else
			*ifname = argv[i];
	}
	if (iface_required && !*ifname)
		fail_usage(usage, "missing IFACE");
}
