// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-limitsd: keep every virtio-net device's GSO limits equal to the
 * limits of its tap's host path, for every QEMU on the host.
 *
 *   gso-limitsd [OPTIONS]             run (foreground; systemd unit in tools/systemd/)
 *   gso-limitsd --once [--json] ...   one pass: compute, set, print, exit
 *   gso-limitsd status [--control P]  a running daemon's state, as JSON
 *
 * One rtnetlink listener per watched network namespace replaces one in
 * every QEMU: QEMU only takes the values over QMP (qom-set
 * host_gso_max, docs/qemu.md).  Read-only towards the network: it
 * dumps links and never changes one.  Design, options, Proxmox and libvirt
 * set-up: docs/daemon.md.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/fail.h"
#include "lib/parse.h"
#include "limitsd/limitsd.h"

#define MAX_NETNS	64
#define DEFAULT_CONTROL	"/run/gso-limitsd/control"

static const char usage[] =
	"usage: gso-limitsd [--netns NAME]... [--dry-run] [--control PATH|none]\n"
	"                   [--proxmox-run-dir DIR] [--libvirt-run-dir DIR] [--virsh PATH]\n"
	"                   [--qmp-socket GLOB]... [--settle MS]\n"
	"                   [--qmp-timeout MS] [--rescan S] [--verbose]\n"
	"       gso-limitsd --once [--json] [--dry-run] [--netns NAME]...\n"
	"       gso-limitsd status [--control PATH] [--timeout MS]\n"
	"  --netns NAME       watch network namespace NAME (/run/netns/NAME); repeatable;\n"
	"                     default: the daemon's own namespace\n"
	"  --dry-run          print what would be set, set nothing\n"
	"  --once             one pass, then exit (status 0: every tap with a VM synced)\n"
	"  --json             with --once: print the state as JSON\n"
	"  --control PATH     status socket (default " DEFAULT_CONTROL ")\n"
	"  --timeout MS       status: give up after MS (default 5000): never blocks a hook\n"
	"  --proxmox-run-dir  where Proxmox's VMID.qmp sockets are (default /var/run/qemu-server)\n"
	"  --libvirt-run-dir  libvirtd's domain status files (default /run/libvirt/qemu)\n"
	"  --virsh PATH       virsh for libvirt guests (default virsh)\n"
	"  --qmp-socket GLOB  a QEMU outside Proxmox and libvirt is managed only if its\n"
	"                     -qmp socket matches GLOB (fnmatch); repeatable; default none\n"
	"  --settle MS        quiet time after link events before acting (default 100)\n"
	"  --qmp-timeout MS   per QMP step (default 5000)\n"
	"  --rescan S         re-read every namespace every S seconds: Linux before the\n"
	"                     project's notification patch sends no event when a\n"
	"                     gso_max_*/tso_max_* changes (default 10; 0: never)\n"
	"  --verbose, -v      log path changes and taps going away\n";

static double parse_ms(const char *arg, const char *opt)
{
	uint64_t v;

	if (!parse_u64(arg, 0, 600000, &v))
		fail_usage(usage, "%s: milliseconds expected (0..600000), got '%s'", opt, arg);
	return v / 1000.0;
}

static struct netns *nss[MAX_NETNS];
static size_t nns;

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "once", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "control", required_argument, NULL, 'c' },
		{ "proxmox-run-dir", required_argument, NULL, 'p' },
		{ "virsh", required_argument, NULL, 'V' },
		{ "libvirt-run-dir", required_argument, NULL, 'L' },
		{ "qmp-socket", required_argument, NULL, 'Q' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "settle", required_argument, NULL, 's' },
		{ "qmp-timeout", required_argument, NULL, 't' },
		{ "rescan", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *netns_names[MAX_NETNS], *control = DEFAULT_CONTROL;
	static const char *qmp_globs[64];
	size_t nqmp = 0;
	size_t nnames = 0, i;
	bool json = false, status_cmd = false;
	int c, sfd, cfd = -1, rc = EXIT_SUCCESS;
	sigset_t mask;
	double next_rescan, status_timeout = 5.0, next_retry = 0;
	bool ready = false;

	fail_prog = "gso-limitsd";
	parse_version_exit(argc, argv);
	{
		const char *e = getenv("GSO_LIMITSD_UNOPTIMISED");

		ld_cfg.unoptimised = e && !strcmp(e, "1");
	}
	if (argc > 1 && !strcmp(argv[1], "status")) {
		status_cmd = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "vjh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (nnames == MAX_NETNS)
				fail_usage(usage, "at most %d --netns", MAX_NETNS);
			netns_names[nnames++] = optarg;
			break;
		case 'd':
			ld_cfg.dry_run = true;
			break;
		case 'o':
			ld_cfg.once = true;
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			control = optarg;
			break;
		case 'p':
			ld_cfg.proxmox_run_dir = optarg;
			break;
		case 'V':
			ld_cfg.virsh = optarg;
			break;
		case 'T':
			status_timeout = parse_ms(optarg, "--timeout");
			break;
		case 'L':
			ld_cfg.libvirt_run_dir = optarg;
			break;
		case 'Q':
			if (nqmp == sizeof(qmp_globs) / sizeof(qmp_globs[0]))
				fail_usage(usage, "--qmp-socket: at most 64");
			qmp_globs[nqmp++] = optarg;
			ld_cfg.qmp_sockets = qmp_globs;
			ld_cfg.nqmp_sockets = nqmp;
			break;
		case 's':
			ld_cfg.settle_s = parse_ms(optarg, "--settle");
			if (ld_cfg.max_settle_s < 10 * ld_cfg.settle_s)
				ld_cfg.max_settle_s = 10 * ld_cfg.settle_s;
			break;
		case 't':
			ld_cfg.qmp_timeout_s = parse_ms(optarg, "--qmp-timeout");
			break;
		case 'r': {
			uint64_t v;

			if (!parse_u64(optarg, 0, 86400, &v))
				fail_usage(usage, "--rescan: seconds expected (0..86400), got '%s'", optarg);
			ld_cfg.rescan_s = (double)v;
			break;
		}
		case 'v':
			ld_cfg.verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_SUCCESS;
		default:
			fail_usage(usage, "unknown option");
		}
	}
	if (optind != argc)
		fail_usage(usage, "unexpected argument '%s'", argv[optind]);
	if (status_cmd)
		return control_client(control, status_timeout);
	if (json && !ld_cfg.once)
		fail_usage(usage, "--json needs --once (a running daemon: gso-limitsd status)");
	ld_cfg.json = json;

	for (i = 0; i < (nnames ? nnames : 1); i++) {
		struct netns *ns = calloc(1, sizeof(*ns));
		int ret;

		if (!ns)
			fail_errno("calloc");
		ret = netns_open(ns, nnames ? netns_names[i] : NULL);
		if (ret) {
			netns_close(ns);
			free(ns);
			fail_msg("--netns %s: %s%s", nnames ? netns_names[i] : "(own)", strerror(-ret),
				 ret == -ENOENT ? " (no /run/netns/NAME: see `ip netns list`)" :
				 ret == -EPERM ? " (entering another namespace needs CAP_SYS_ADMIN; "
						 "without --netns the daemon does not)" : "");
		}
		nss[nns++] = ns;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		fail_errno("signalfd");
	if (!ld_cfg.once && strcmp(control, "none")) {
		cfd = control_listen(control);
		if (cfd < 0)
			fail_msg("control socket %s: %s", control, strerror(errno));
	}
	if (!ld_cfg.once)
		ld_log("watching %zu namespace(s)%s", nns, ld_cfg.dry_run ? " (dry run)" : "");

	next_rescan = clock_now_s() + ld_cfg.rescan_s;
	for (;;) {
		struct pollfd pfd[MAX_NETNS + 2 + 256];
		struct job *jp[256];
		double now = clock_now_s(), next = now + 60;

		if (ld_cfg.rescan_s && !ld_cfg.once && next_rescan < next)
			next = next_rescan;
		size_t n = 0, nj = 0;
		unsigned int k;
		int timeout;

		if (ld_cfg.rescan_s && !ld_cfg.once && now >= next_rescan) {
			/* A gso_max_size change sends no RTM_NEWLINK before the kernel series' fix. */
			ld_count.rescans++;
			next_rescan = now + ld_cfg.rescan_s;
			for (i = 0; i < nns; i++) {
				if (!nss[i]->dirty)
					nss[i]->first_event = now;
				nss[i]->dirty = nss[i]->rescan = true;
				nss[i]->last_event = now - ld_cfg.settle_s;
			}
		}
		for (i = 0; i < nns; i++) {
			double due = netns_due(nss[i]);

			if (due && due <= now)
				netns_process(nss[i]);
		}
		next_retry = sched_start_jobs(nss, nns, now);
		if (!ready && !ld_cfg.once) {
			/* Ready: every namespace read once and the control socket listening. */
			for (i = 0, ready = true; i < nns; i++)
				ready &= nss[i]->links != NULL || !nss[i]->dirty;
			if (ready)
				ld_notify("READY=1");
		}
		for (k = 0; k < job_count(); k++)
			job_check_timeout(job_at(k), now);
		if (ld_cfg.once && sched_settled(nss, nns))
			break;

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
		for (k = 0; k < job_count() && nj < 256; k++) {
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
		if (pfd[nns].revents) {
			struct signalfd_siginfo si;

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
				goto out;
			}
		}
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
out:
	if (!ld_cfg.once)
		ld_notify("STOPPING=1");
	if (ld_cfg.once && json)
		status_print(stdout, nss, nns);
	if (ld_cfg.once)
		rc = sched_once_status(nss, nns);
	if (cfd >= 0)
		unlink(control);
	while (job_count())
		job_cancel(job_at(0));
	for (i = 0; i < nns; i++) {
		netns_close(nss[i]);
		free(nss[i]);
	}
	if (fflush(stdout))
		fail_errno("stdout");
	return rc;
}
