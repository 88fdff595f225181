// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-doctor: find the virtio-net pitfalls of seeds 000, 002 and 003 on a
 * host or in a guest, with the evidence read and the command that fixes
 * each.
 *
 *   gso-doctor [--json] [--host|--guest] [--sample-ms MS] [IFACE...]
 *
 * Host mode (taps exist): the GSO limits of each tap's host path
 * (gso-path-limit), offloads off on bridge ports and NICs (gro-off,
 * tso-off), single-queue taps of multi-vCPU VMs (single-queue-tap), an
 * idle firewall bridge hop (fwbr-hop).  Guest mode (a virtio_net device
 * exists): queues, rings, offloads, RPS, softnet drops, rx_dropped and the
 * GSO limits (guest-*).  The checks live in doctor/, one file per family;
 * the findings and their JSON in doctor/report.c; docs/doctor.md.
 *
 * Read-only: rtnetlink RTM_GETLINK, ethtool ETHTOOL_G* ioctls,
 * nfnetlink/getsockopt rule dumps, sysfs and procfs reads.  Nothing is
 * ever set.  Exit status: 0 nothing at warning or above, 1 something
 * found, 2 usage or system error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doctor/doctor.h"
#include "lib/clock.h"
#include "lib/fail.h"
#include "lib/parse.h"
#include "lib/route_query.h"
#include "lib/rule_query.h"
#include "lib/sysfs.h"

#define DOCTOR_EXIT_ERROR	2
#define DOCTOR_DEFAULT_SAMPLE_MS 1000
#define DOCTOR_MAX_SAMPLE_MS	10000

static const char usage[] =
	"usage: gso-doctor [--json] [--host|--guest] [--sample-ms MS] [IFACE...]\n"
	"  --host        check taps, bridge ports and NICs (default when a tap exists)\n"
	"  --guest       check virtio_net devices (default when no tap but a virtio_net device exists)\n"
	"  --sample-ms   guest counters sampling interval, 0..10000 ms (default 1000)\n"
	"  --limitsd P   gso-limitsd's control socket, asked what it set (default\n"
	"                /run/gso-limitsd/control; none: do not ask)\n"
	"  --json, -j    one JSON object (docs/doctor.md)\n"
	"  IFACE         host: taps (or stand-ins) and devices to check; guest: devices to check\n"
	"exit status: 0 nothing at warning or above, 1 warnings or errors found, 2 usage/system error\n";

static bool any_tap(const struct doctor_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->link_count; i++)
		if (path_is_tap(&ctx->links[i]))
			return true;
	return false;
}

static bool any_virtio(struct doctor_ctx *ctx)
{
	char driver[32];
	size_t i;

	for (i = 0; i < ctx->link_count; i++)
		if (doctor_is_virtio_net(ctx, &ctx->links[i], driver, sizeof(driver)))
			return true;
	return false;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void run_host(struct doctor_ctx *ctx)
{
	doctor_host_path_run(ctx);
	doctor_host_offload_run(ctx);
	doctor_host_queues_run(ctx);
	doctor_host_fwbr_run(ctx);
}

static void run_guest(struct doctor_ctx *ctx)
{
	struct doctor_guest g;
	double start, spent_ms;

	doctor_guest_devs_init(ctx, &g);
	start = clock_now_s();
	doctor_guest_rx_init(ctx, &g);
	doctor_guest_queues_run(ctx, &g);
	doctor_guest_offload_run(ctx, &g);
	/* The queue/offload checks took some of the interval; sleep the rest. */
	spent_ms = (clock_now_s() - start) * 1000;
	if (spent_ms < ctx->sample_ms)
		sleep_ms(ctx->sample_ms - (unsigned int)spent_ms);
	doctor_guest_rx_fini(ctx, &g);
	doctor_guest_devs_fini(&g);
}

static const char *mode_name(enum doctor_mode m)
{
	switch (m) {
	case DOCTOR_MODE_HOST:
		return "host";
	case DOCTOR_MODE_GUEST:
		return "guest";
	case DOCTOR_MODE_NONE:
		break;
	}
	return "none";
}

int main(int argc, char **argv)
{
	struct doctor_ctx ctx = { .sample_ms = DOCTOR_DEFAULT_SAMPLE_MS,
				  .limitsd_control = "/run/gso-limitsd/control" };
	struct link_query q;
	bool json = false;
	uint64_t ms;
	size_t i;
	int err, status;

	fail_prog = "gso-doctor";
	parse_version_exit(argc, argv);
	fail_status = DOCTOR_EXIT_ERROR;
	ctx.ifaces = calloc((size_t)argc, sizeof(*ctx.ifaces));
	if (!ctx.ifaces)
		fail_errno("calloc");
	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			json = true;
		} else if (!strcmp(a, "--host") || !strcmp(a, "--guest")) {
			enum doctor_mode m = a[2] == 'h' ? DOCTOR_MODE_HOST : DOCTOR_MODE_GUEST;

			if (ctx.mode && ctx.mode != m)
				fail_usage(usage, "--host and --guest exclude each other");
			ctx.mode = m;
		} else if (!strcmp(a, "--sample-ms")) {
			if (++i == (size_t)argc ||
			    !parse_u64(argv[i], 0, DOCTOR_MAX_SAMPLE_MS, &ms))
				fail_usage(usage, "--sample-ms needs a number of milliseconds, "
					   "0..%u", DOCTOR_MAX_SAMPLE_MS);
			ctx.sample_ms = (unsigned int)ms;
		} else if (!strcmp(a, "--limitsd")) {
			if (++i == (size_t)argc)
				fail_usage(usage, "--limitsd needs the daemon's control socket");
			ctx.limitsd_control = argv[i];
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			parse_help_exit(usage);
		} else if (a[0] == '-') {
			fail_usage(usage, "unknown option '%s'", a);
		} else {
			ctx.ifaces[ctx.iface_count++] = argv[i];
		}
	}

	link_query_init(&q);
	err = link_query_dump(&q, &ctx.links, &ctx.link_count);
	if (err) {
		errno = -err;
		fail_errno("RTM_GETLINK dump");
	}
	/* Routes: a routed tap's egress, a tunnel's underlay (lib/path_limits.c, rules 5, 6). */
	err = route_query_dump(&q, &ctx.routes, &ctx.route_count);
	if (err) {
		errno = -err;
		fail_errno("RTM_GETROUTE dump");
	}
	/* Rules: the tables a routed tap's packets are looked up in (rule 7). */
	err = rule_query_dump(&q, &ctx.rules, &ctx.rule_count);
	link_query_fini(&q);
	if (err) {
		errno = -err;
		fail_errno("RTM_GETRULE dump");
	}
	ctx.table = (struct link_table){ .links = ctx.links, .count = ctx.link_count,
					 .routes = ctx.routes, .nroutes = ctx.route_count,
					 .rules = ctx.rules, .nrules = ctx.rule_count,
					 .routes_known = true };
	for (i = 0; i < ctx.iface_count; i++)
		if (!link_table_by_name(&ctx.table, ctx.ifaces[i]))
			fail_msg("%s: No such device", ctx.ifaces[i]);
	ethtool_query_init(&ctx.eth);
	ctx.online_cpus = sysfs_online_cpus();
	doctor_report_init(&ctx.report);

	if (!ctx.mode) {
		if (any_tap(&ctx))
			ctx.mode = DOCTOR_MODE_HOST;
		else if (any_virtio(&ctx))
			ctx.mode = DOCTOR_MODE_GUEST;
	}
	if (ctx.mode == DOCTOR_MODE_HOST)
		run_host(&ctx);
	else if (ctx.mode == DOCTOR_MODE_GUEST)
		run_guest(&ctx);

	if (json) {
		doctor_report_print_json(&ctx.report, mode_name(ctx.mode),
					 ctx.mode == DOCTOR_MODE_GUEST ? ctx.sample_ms : 0);
	} else {
		if (ctx.mode == DOCTOR_MODE_NONE)
			printf("gso-doctor: no tap and no virtio_net device in this network "
			       "namespace: nothing to check (give --host or --guest)\n");
		doctor_report_print_text(&ctx.report, mode_name(ctx.mode));
	}
	if (fflush(stdout))
		fail_errno("stdout");
	status = doctor_report_status(&ctx.report);
	doctor_report_fini(&ctx.report);
	jv_free(ctx.limitsd);
	ethtool_query_fini(&ctx.eth);
	free(ctx.links);
	free(ctx.routes);
	free(ctx.rules);
	free(ctx.ifaces);
	return status;
}
