/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loud failure helpers shared by the gso-* tools.
 *
 * The tools run unattended in test harnesses, so every failure has to
 * name its cause on stderr and end the process with a non-zero status:
 * a silent wrong number would be worse than no number.
 */
#ifndef GSO_TOOLS_FAIL_H
#define GSO_TOOLS_FAIL_H

/* Name printed in front of usage errors; each tool sets it in main(). */
extern const char *fail_prog;

/*
 * Exit status of the fail_*() helpers, EXIT_FAILURE unless a tool whose
 * status 1 means something else (gso-doctor: "found a problem") sets it.
 */
extern int fail_status;

/*
 * The attribute noreturn repeats _Noreturn for cppcheck 2.10, which reads
 * only the attribute: without it, it reports a NULL dereference after
 * every `if (!p) fail_errno(...)`.
 */

/* perror(what) and exit(EXIT_FAILURE): for failed system calls. */
_Noreturn void fail_errno(const char *what) __attribute__((noreturn));

/* "<prog>: <message>" and exit(EXIT_FAILURE): for errors without errno. */
_Noreturn void fail_msg(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/*
 * "<prog>: <message>", then the tool's usage text, then exit(EXIT_FAILURE):
 * for bad command lines, so the user sees the expected format at once.
 */
_Noreturn void fail_usage(const char *usage, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * fail_usage() with its own exit status, for a tool whose usage errors
 * must be told from its other failures (gso-limitsd: 2); @msg formatted.
 */
_Noreturn void fail_usage_status(int status, const char *usage, const char *msg)
	__attribute__((noreturn));

/* Room for a formatted usage message (longer ones are cut). */
#define FAIL_MSG_MAX	1024

#endif
