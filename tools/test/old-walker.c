// SPDX-License-Identifier: GPL-2.0-only
/*
 * old-walker: the cost model of the first host design, for gso-limitsd's
 * scale benchmark (tests/tools-daemon-scale.sh).
 *
 *   old-walker TAP
 *
 * What every QEMU with host_gso_auto=on did (qemu-patches/0006, before
 * issue 13): listen for every RTMGRP_LINK event of the namespace, wait for
 * 50 ms of quiet, then dump the whole link table and walk its own tap's
 * path.  One process per VM; a link event anywhere wakes all of them.
 * Prints "TAP SIZE SEGS t=WALLTIME" (stdout, one write per line) at start and each
 * time its tap's limits change; "TAP walks=N" on SIGUSR1, and on SIGTERM
 * before it exits.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/fail.h"
#include "lib/link_query.h"
#include "lib/path_limits.h"

#define SETTLE_S	0.05	/* QEMU's coalescing delay */

static volatile sig_atomic_t quit, report;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		quit = 1;
}

static void print_walks(const char *tap, unsigned long walks)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s walks=%lu\n", tap, walks);

	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		fail_errno("stdout");
}

/* Dump and walk; print when the limits differ from the last ones. */
static void walk(const char *tap, uint32_t *size, uint32_t *segs)
{
	struct link_query q;
	struct link_info *links;
	struct link_table t;
	struct path_limits p;
	const struct link_info *start;
	size_t count;
	char line[128];
	int n;

	link_query_init(&q);
	if (link_query_dump(&q, &links, &count))
		fail_msg("%s: link dump failed", tap);
	link_query_fini(&q);
	t = (struct link_table){ links, count };
	start = link_table_by_name(&t, tap);
	if (start) {
		path_limits_compute(&t, start, &p);
		if (p.status == PATH_OK && (p.max_size != *size || p.max_segs != *segs)) {
			*size = p.max_size;
			*segs = p.max_segs;
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			n = snprintf(line, sizeof(line), "%s %u %u t=%lld.%09ld\n", tap, *size, *segs,
				     (long long)ts.tv_sec, ts.tv_nsec);
			if (write(STDOUT_FILENO, line, (size_t)n) < 0)
				fail_errno("stdout");
		}
	}
	free(links);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct mnl_socket *nl;
	uint32_t size = 0, segs = 0;
	unsigned long walks = 0;
	double due = 0;
	char buf[MNL_SOCKET_BUFFER_SIZE];

	fail_prog = "old-walker";
	if (argc != 2)
		fail_msg("usage: old-walker TAP");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!nl || mnl_socket_bind(nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0)
		fail_errno("netlink");
	walk(argv[1], &size, &segs);
	walks++;
	while (!quit) {
		struct pollfd p = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };
		int timeout = -1;

		if (due) {
			double left = due - clock_now_s();

			timeout = left > 0 ? (int)(left * 1000) + 1 : 0;
		}
		if (report) {
			report = 0;
			print_walks(argv[1], walks);
		}
		if (poll(&p, 1, timeout) < 0)
			continue;
		if (p.revents) {
			/* Drain; an overrun (ENOBUFS) is one more reason to walk. */
			while (mnl_socket_recvfrom(nl, buf, sizeof(buf)) > 0 || errno == ENOBUFS)
				;
			if (!due)
				due = clock_now_s() + SETTLE_S;
		}
		if (due && clock_now_s() >= due) {
			due = 0;
			walk(argv[1], &size, &segs);
			walks++;
		}
	}
	print_walks(argv[1], walks);
	mnl_socket_close(nl);
	return EXIT_SUCCESS;
}
