// SPDX-License-Identifier: GPL-2.0-only
/*
 * --version of every tool.  The string comes from tools/VERSION through
 * the Makefile (GSO_TOOLS_VERSION), the one place a release changes it;
 * debian/changelog's version must match (tests/tools-package.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fail.h"
#include "lib/parse.h"

/* Set by tools/Makefile; the fallback is for analysers that compile alone. */
#ifndef GSO_TOOLS_VERSION
#define GSO_TOOLS_VERSION "unknown"
#endif

void parse_version_exit(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--version"))
		return;
	printf("%s %s\n", fail_prog, GSO_TOOLS_VERSION);
	if (fflush(stdout))
		fail_errno("stdout");
	exit(EXIT_SUCCESS);
}
