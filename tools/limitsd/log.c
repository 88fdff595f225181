// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's log and its word to its service manager.
 *
 * Log lines go to stderr as "gso-limitsd: TEXT".  Under systemd, whose
 * journal reads stderr (JOURNAL_STREAM names that stream: device:inode),
 * each line starts with its syslog priority "<N>" (sd-daemon(3)), so that
 * `journalctl -p warning -u gso-limitsd` shows the problems: a tap not
 * reached or not trusted is a warning, a value set is info, path changes
 * (--verbose) are debug.
 *
 * Readiness: with NOTIFY_SOCKET set (Type=notify), "READY=1" is sent once
 * the first pass over every namespace is done and the control socket
 * listens, and "STOPPING=1" on the way out (sd_notify(3)'s protocol, no
 * libsystemd needed).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "limitsd.h"

static int journal = -1;	/* -1: not decided yet */

static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char *end;

	if (!js)
		return false;
	dev = strtoull(js, &end, 10);
	if (end == js || *end != ':')
		return false;
	js = end + 1;
	ino = strtoull(js, &end, 10);
	if (end == js || *end || fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void ld_logp(int prio, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (journal < 0)
		journal = stderr_is_journal();
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (journal)
		fprintf(stderr, "<%d>gso-limitsd: %s\n", prio, line);
	else
		fprintf(stderr, "gso-limitsd: %s\n", line);
}

void ld_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';	/* an abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		ld_logp(LD_WARNING, "sd_notify %s: %m", path);
	close(fd);
}
