/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit tests' one assertion: print "ok: WHAT" or "FAIL: WHAT" and
 * count the failures (tests/tools-unit.sh reads these lines), and the
 * exit status that goes with the count.
 */
#ifndef GSO_TOOLS_TEST_CHECK_H
#define GSO_TOOLS_TEST_CHECK_H

#include <stdbool.h>

void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* EXIT_SUCCESS if every check passed, else a summary line and EXIT_FAILURE. */
int check_exit_status(void);

#endif
