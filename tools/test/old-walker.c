// SPDX-License-Identifier: GPL-2.0-only
/*
 * old-walker: the cost model of the first host design, for gso-limitsd's
 * scale benchmark (tests/tools-daemon-scale.sh).
 *
 *   old-walker TAP...
 *
 * What every QEMU with host_gso_auto=on did (qemu-patches/0006, before
 * issue 13), for each TAP as if it were its own QEMU: a socket listening
 * to every RTMGRP_LINK event of the namespace, 50 ms of quiet, then a dump
 * of the whole link table and a walk of that tap's path.  One process
 * plays all the QEMUs, one after the other (a machine shared with other
 * work must not get a thousand processes): its CPU time is the sum of
 * theirs, its wall time an upper bound of theirs.
 *
 * Prints "TAP SIZE SEGS t=WALLTIME" (stdout, one write per line) at start
 * and each time a tap's limits change; "TAP walks=N" for every tap on
 * SIGUSR1, and on SIGTERM before it exits.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/fail.h"
#include "lib/link_query.h"
#include "lib/path_limits.h"

#define SETTLE_S	0.05	/* QEMU's coalescing delay */

struct walker {
	const char *tap;
	struct mnl_socket *nl;	/* this "QEMU"'s own event socket */
	bool pending;		/* events received, walk due */
	uint32_t size, segs;
	unsigned long walks;
};

static volatile sig_atomic_t quit, report;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		quit = 1;
}

static void print_line(const char *line, int n)
{
	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		fail_errno("stdout");
}

/* One QEMU's walk: a dump of every link, then its own tap's path. */
static void walk(struct walker *w)
{
	struct link_query q;
	struct link_info *links;
	struct link_table t;
	struct path_limits p;
	const struct link_info *start;
	size_t count;
	char line[128];

	w->walks++;
	link_query_init(&q);
	if (link_query_dump(&q, &links, &count))
		fail_msg("%s: link dump failed", w->tap);
	link_query_fini(&q);
	t = (struct link_table){ .links = links, .count = count };
	start = link_table_by_name(&t, w->tap);
	if (start) {
		path_limits_compute(&t, start, &p);
		if (p.status == PATH_OK && (p.max_size != w->size || p.max_segs != w->segs)) {
			struct timespec ts;

			w->size = p.max_size;
			w->segs = p.max_segs;
			clock_gettime(CLOCK_REALTIME, &ts);
			print_line(line, snprintf(line, sizeof(line), "%s %u %u t=%lld.%09ld\n",
						  w->tap, w->size, w->segs,
						  (long long)ts.tv_sec, ts.tv_nsec));
		}
	}
	free(links);
}

static void print_walks(const struct walker *w, size_t n)
{
	char line[128];
	size_t i;

	for (i = 0; i < n; i++)
		print_line(line, snprintf(line, sizeof(line), "%s walks=%lu\n", w[i].tap,
					  w[i].walks));
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	size_t n = (size_t)argc - 1, i;
	struct walker *w;
	struct pollfd *pfd;
	struct rlimit rl;
	double due = 0;
	char buf[MNL_SOCKET_BUFFER_SIZE];

	fail_prog = "old-walker";
	if (argc < 2)
		fail_msg("usage: old-walker TAP...");
	/* A socket per tap. */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	w = calloc(n, sizeof(*w));
	pfd = calloc(n, sizeof(*pfd));
	if (!w || !pfd)
		fail_errno("calloc");
	for (i = 0; i < n; i++) {
		w[i].tap = argv[i + 1];
		w[i].nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (!w[i].nl || mnl_socket_bind(w[i].nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0)
			fail_errno("netlink");
		pfd[i] = (struct pollfd){ .fd = mnl_socket_get_fd(w[i].nl), .events = POLLIN };
	}
	for (i = 0; i < n; i++)
		walk(&w[i]);	/* each QEMU walks once at realize */

	while (!quit) {
		int timeout = -1;

		if (report) {
			report = 0;
			print_walks(w, n);
		}
		if (due) {
			double left = due - clock_now_s();

			timeout = left > 0 ? (int)(left * 1000) + 1 : 0;
		}
		if (poll(pfd, n, timeout) < 0)
			continue;
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			/* Drain; an overrun (ENOBUFS) is one more reason to walk. */
			while (mnl_socket_recvfrom(w[i].nl, buf, sizeof(buf)) > 0 || errno == ENOBUFS)
				;
			w[i].pending = true;
			if (!due)
				due = clock_now_s() + SETTLE_S;
		}
		if (due && clock_now_s() >= due) {
			due = 0;
			for (i = 0; i < n; i++) {
				if (!w[i].pending)
					continue;
				w[i].pending = false;
				walk(&w[i]);
			}
		}
	}
	print_walks(w, n);
	for (i = 0; i < n; i++)
		mnl_socket_close(w[i].nl);
	free(w);
	free(pfd);
	return EXIT_SUCCESS;
}
