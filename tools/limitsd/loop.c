// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's event loop: the watched namespaces opened, signals
 * (SIGHUP: set every tap again; SIGTERM/SIGINT: exit), the control
 * socket, the periodic re-read, and one poll() over the namespaces'
 * rtnetlink sockets, the signalfd, the control socket and the QMP
 * conversations in flight.  --once leaves it when nothing is left to do.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "lib/clock.h"
#include "limitsd.h"

#define MAX_JOB_FDS	256

static struct netns *nss[LD_MAX_NETNS];
static size_t nns;

static void open_namespaces(const struct ld_options *o)
{
	size_t i;

	for (i = 0; i < (o->nnetns ? o->nnetns : 1); i++) {
		const char *name = o->nnetns ? o->netns_names[i] : NULL;
		struct netns *ns = calloc(1, sizeof(*ns));
		int ret;

		if (!ns)
			fail_errno("calloc");
		ret = netns_open(ns, name);
		if (ret) {
			netns_close(ns);
			free(ns);
			fail_msg("--netns %s: %s%s", name ? name : "(own)", strerror(-ret),
				 ret == -ENOENT ? " (no /run/netns/NAME: see `ip netns list`)" :
				 ret == -EPERM ? " (entering another namespace needs CAP_SYS_ADMIN; "
						 "without --netns the daemon does not)" : "");
		}
		nss[nns++] = ns;
	}
}

static int signals_open(void)
{
	sigset_t mask;
	int sfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		fail_errno("signalfd");
	return sfd;
}

/* Pending signals; false on one that ends the daemon. */
static bool signals_read(int sfd)
{
	struct signalfd_siginfo si;
	size_t i;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			ld_log("SIGHUP: setting every tap again");
			for (i = 0; i < nns; i++) {
				nss[i]->resync = true;
				nss[i]->dirty = true;
			}
			continue;
		}
		ld_log("exiting on signal %u", si.ssi_signo);
		return false;
	}
	return true;
}

/* A gso_max_size change sends no RTM_NEWLINK before the kernel series' fix. */
static void rescan_all(double now)
{
	size_t i;

	ld_count.rescans++;
	for (i = 0; i < nns; i++) {
		if (!nss[i]->dirty)
			nss[i]->first_event = now;
		nss[i]->dirty = nss[i]->rescan = true;
		nss[i]->last_event = now - ld_cfg.settle_s;
	}
}

/* Ready: every namespace read once and the control socket listening. */
static bool all_read(void)
{
	bool ready = true;
	size_t i;

	for (i = 0; i < nns; i++)
		ready &= nss[i]->links != NULL || !nss[i]->dirty;
	return ready;
}

static void loop(int sfd, int cfd)
{
	double next_rescan = clock_now_s() + ld_cfg.rescan_s, next_retry;
	bool ready = false;
	size_t i;

	for (;;) {
		struct pollfd pfd[LD_MAX_NETNS + 2 + MAX_JOB_FDS];
		struct job *jp[MAX_JOB_FDS];
		double now = clock_now_s(), next = now + 60;
		size_t n = 0, nj = 0;
		unsigned int k;
		int timeout;

		if (ld_cfg.rescan_s && !ld_cfg.once) {
			if (now >= next_rescan) {
				rescan_all(now);
				next_rescan = now + ld_cfg.rescan_s;
			}
			if (next_rescan < next)
				next = next_rescan;
		}
		for (i = 0; i < nns; i++) {
			double due = netns_due(nss[i]);

			if (due && due <= now)
				netns_process(nss[i]);
		}
		next_retry = sched_start_jobs(nss, nns, now);
		if (!ready && !ld_cfg.once && all_read()) {
			ready = true;
			ld_notify("READY=1");
		}
		for (k = 0; k < job_count(); k++)
			job_check_timeout(job_at(k), now);
		if (ld_cfg.once && sched_settled(nss, nns))
			return;

		for (i = 0; i < nns; i++) {
			double due = netns_due(nss[i]);

			pfd[n++] = (struct pollfd){ .fd = netns_event_fd(nss[i]), .events = POLLIN };
			if (due && due < next)
				next = due;
		}
		if (next_retry > now && next_retry < next)
			next = next_retry;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (cfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = cfd, .events = POLLIN };
		for (k = 0; k < job_count() && nj < MAX_JOB_FDS; k++) {
			struct job *j = job_at(k);

			if (job_deadline(j) < next)
				next = job_deadline(j);
			if (job_fd(j) < 0)
				continue;
			jp[nj++] = j;
			pfd[n++] = (struct pollfd){ .fd = job_fd(j), .events = job_events(j) };
		}
		timeout = next > now ? (int)((next - now) * 1000) + 1 : 0;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			fail_errno("poll");
		now = clock_now_s();

		for (i = 0; i < nns; i++)
			if (pfd[i].revents)
				netns_read_events(nss[i], now);
		if (pfd[nns].revents && !signals_read(sfd))
			return;
		if (cfd >= 0 && pfd[nns + 1].revents)
			control_serve(cfd, nss, nns);
		/* Jobs may end (and reorder the job table) while we go: match by pointer. */
		for (k = 0; k < nj; k++) {
			size_t slot = n - nj + k;
			unsigned int m;
			bool alive = false;

			if (!pfd[slot].revents)
				continue;
			for (m = 0; m < job_count(); m++)
				alive |= job_at(m) == jp[k];
			if (alive && job_fd(jp[k]) == pfd[slot].fd)
				job_io(jp[k], now);
		}
	}
}

int loop_run(const struct ld_options *o)
{
	int sfd, cfd = -1, rc = EXIT_SUCCESS;
	size_t i;

	open_namespaces(o);
	sfd = signals_open();
	if (!ld_cfg.once && strcmp(o->control, "none")) {
		cfd = control_listen(o->control);
		if (cfd < 0)
			fail_msg("control socket %s: %s", o->control, strerror(errno));
	}
	if (!ld_cfg.once)
		ld_log("watching %zu namespace(s)%s", nns, ld_cfg.dry_run ? " (dry run)" : "");

	loop(sfd, cfd);

	if (!ld_cfg.once)
		ld_notify("STOPPING=1");
	if (ld_cfg.once && ld_cfg.json)
		status_print(stdout, nss, nns);
	if (ld_cfg.once)
		rc = sched_once_status(nss, nns);
	if (cfd >= 0)
		unlink(o->control);
	while (job_count())
		job_cancel(job_at(0));
	for (i = 0; i < nns; i++) {
		netns_close(nss[i]);
		free(nss[i]);
	}
	nns = 0;
	close(sfd);
	if (fflush(stdout))
		fail_errno("stdout");
	return rc;
}
