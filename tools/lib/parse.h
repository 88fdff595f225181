/* SPDX-License-Identifier: GPL-2.0-only */
/* Strict parsing of numeric command-line arguments. */
#ifndef GSO_TOOLS_PARSE_H
#define GSO_TOOLS_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether @s is one or more decimal digits and nothing else (a /proc PID, an fd number). */
bool parse_all_digits(const char *s);

/*
 * Parse a decimal unsigned integer in [min, max] into *out.  Returns false
 * on empty input, trailing characters, a sign, or a value out of range:
 * strtoull() alone would accept " -1" as 2^64-1 and "12abc" as 12.
 */
bool parse_u64(const char *str, uint64_t min, uint64_t max, uint64_t *out);

/*
 * A pid file's text as QEMU writes it (-pidfile: "%d\n"), qemu-server's
 * /var/run/qemu-server/VMID.pid: "%d" of 1 to INT_MAX (no leading zero),
 * then nothing or one newline.  False on anything else (strtol() took
 * "12abc" as 12, " 12" and "+12" as 12, "" as 0).
 */
bool parse_pid_text(const char *text, pid_t *pid);

/*
 * Parse a non-negative decimal number of seconds ("60", "0.5") in
 * [0, max_s] into *out.
 */
bool parse_seconds(const char *str, double max_s, double *out);

/* --help: @usage on stdout, exit status 0 (a usage error prints it on stderr, status 1). */
_Noreturn void parse_help_exit(const char *usage) __attribute__((noreturn));	/* see fail.h */

/*
 * "PROG VERSION" on stdout and exit status 0 when argv[1] is --version
 * (PROG: fail_prog, set it first); otherwise nothing.  lib/version.c.
 */
void parse_version_exit(int argc, char **argv);

/*
 * The command line of the tools that take "[--json|-j] [--help] [IFACE]": sets
 * *json and *ifname (NULL when absent); a second IFACE or an unknown
 * option ends the program with USAGE.  IFACE is required when
 * iface_required is set.
 */
void parse_json_iface_args(int argc, char **argv, const char *usage,
			   bool iface_required, bool *json, const char **ifname);

#endif
