// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receive path inside a guest (seed 002):
 *
 * - guest-rps-unset: a device with one receive queue, several vCPUs and
 *   no RPS (rx-0/rps_cpus all zero): every received packet is processed
 *   on the one vCPU that takes the interrupt.
 * - guest-softnet-skew: /proc/net/softnet_stat's per-CPU "dropped"
 *   column (backlog full), since boot: drops on one CPU (>= 90% of them)
 *   while the others have none to speak of mean the receive path is not
 *   spread; drops spread evenly mean the guest is out of CPU in general.
 * - guest-rx-dropped: the device's rx_dropped rising during the sample
 *   (two readings --sample-ms apart).  A snapshot says nothing: the count
 *   may be old.
 *
 * _init takes the first readings, _fini the second ones after the
 * caller's one shared sleep, and reports.
 *
 * Test hook: GSO_DOCTOR_SOFTNET_STAT=FILE reads FILE instead of
 * /proc/net/softnet_stat (the host tests cannot make this machine's
 * backlog overflow on one CPU on purpose).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/fail.h"
#include "lib/softnet.h"
#include "lib/sysfs.h"

#define SKEW_SHARE	0.9

struct guest_rx_state {
	uint64_t *rx_dropped;		/* per device, first reading */
	bool *rx_dropped_ok;
	struct softnet_cpu *softnet;	/* first reading */
	int softnet_count;		/* < 0: unreadable */
};

static int read_softnet(struct softnet_cpu *cpus, size_t max)
{
	static char text[SOFTNET_MAX_CPUS * 128];
	const char *path = getenv("GSO_DOCTOR_SOFTNET_STAT");

	if (!path || !path[0])
		path = "/proc/net/softnet_stat";
	int ret = sysfs_read(path, text, sizeof(text));

	return ret ? ret : softnet_parse(text, cpus, max);
}

void doctor_guest_rx_init(struct doctor_ctx *ctx, struct doctor_guest *g)
{
	struct guest_rx_state *st = calloc(1, sizeof(*st));
	size_t i;

	(void)ctx;
	if (!st)
		fail_errno("calloc");
	st->rx_dropped = calloc(g->count ? g->count : 1, sizeof(*st->rx_dropped));
	st->rx_dropped_ok = calloc(g->count ? g->count : 1, sizeof(*st->rx_dropped_ok));
	st->softnet = calloc(SOFTNET_MAX_CPUS, sizeof(*st->softnet));
	if (!st->rx_dropped || !st->rx_dropped_ok || !st->softnet)
		fail_errno("calloc");
	for (i = 0; i < g->count; i++)
		st->rx_dropped_ok[i] = !sysfs_netdev_u64(g->devs[i].ifname, "statistics/rx_dropped",
							  &st->rx_dropped[i]);
	st->softnet_count = read_softnet(st->softnet, SOFTNET_MAX_CPUS);
	g->rx_state = st;
}

static void rps_mask(unsigned int ncpu, char *buf, size_t len)
{
	if (ncpu >= 64)
		snprintf(buf, len, "<mask of all CPUs>");
	else
		snprintf(buf, len, "%llx", (1ULL << ncpu) - 1);
}

static void check_rps(struct doctor_ctx *ctx, const struct doctor_guest_dev *d)
{
	unsigned int rxq = 0, txq = 0;
	struct doctor_finding *f;
	char mask[4096], m[32];	/* 8192 CPUs: 2048 hex digits and 255 commas */
	int any;

	if (ctx->online_cpus < 2 || sysfs_netdev_queues(d->ifname, &rxq, &txq) || rxq != 1)
		return;
	if (sysfs_netdev_read(d->ifname, "queues/rx-0/rps_cpus", mask, sizeof(mask)))
		return;		/* no CONFIG_RPS */
	any = sysfs_cpumask_any(mask);
	if (any != 0)
		return;
	rps_mask(ctx->online_cpus, m, sizeof(m));
	f = doctor_report_add(&ctx->report, "guest-rps-unset", DOCTOR_WARNING, d->ifname,
			      "one receive queue and no RPS: all receive processing runs on the vCPU "
			      "that takes the interrupt, %u vCPUs available", ctx->online_cpus);
	doctor_ev_str(f, "driver", "%s", d->driver);
	doctor_ev_u64(f, "rx_queues", rxq);
	doctor_ev_str(f, "rps_cpus", "%s", mask);
	doctor_ev_u64(f, "online_cpus", ctx->online_cpus);
	doctor_fix(f, "echo %s > /sys/class/net/%s/queues/rx-0/rps_cpus", m, d->ifname);
	doctor_fix(f, "and RFS: sysctl -w net.core.rps_sock_flow_entries=32768; "
		   "echo 32768 > /sys/class/net/%s/queues/rx-0/rps_flow_cnt", d->ifname);
	doctor_fix(f, "better, multi-queue on the host (see guest-queues)");
}

static void check_softnet(struct doctor_ctx *ctx, struct guest_rx_state *st)
{
	static struct softnet_cpu now[SOFTNET_MAX_CPUS];
	struct softnet_skew all, sample;
	struct doctor_finding *f;
	int n = read_softnet(now, SOFTNET_MAX_CPUS);
	double share;

	if (n < 2)
		return;		/* unreadable, or one CPU: nothing to be skewed */
	softnet_skew_compute(now, NULL, (size_t)n, &all);
	if (st->softnet_count == n)
		softnet_skew_compute(now, st->softnet, (size_t)n, &sample);
	else
		memset(&sample, 0, sizeof(sample));
	if (!all.total_dropped)
		return;
	share = (double)all.max_dropped / (double)all.total_dropped;
	if (share < SKEW_SHARE)
		return;
	f = doctor_report_add(&ctx->report, "guest-softnet-skew", DOCTOR_WARNING, NULL,
			      "%.0f%% of the backlog drops since boot are on CPU %u "
			      "(%llu of %llu): the receive path is not spread over the vCPUs",
			      share * 100, all.max_cpu, (unsigned long long)all.max_dropped,
			      (unsigned long long)all.total_dropped);
	doctor_ev_u64(f, "cpus", all.cpus);
	doctor_ev_u64(f, "dropped", all.total_dropped);
	doctor_ev_u64(f, "max_cpu", all.max_cpu);
	doctor_ev_u64(f, "max_cpu_dropped", all.max_dropped);
	doctor_ev_double(f, "max_cpu_share", share);
	doctor_ev_u64(f, "cpus_with_drops", all.cpus_with_drops);
	doctor_ev_u64(f, "sample_dropped", sample.total_dropped);
	doctor_fix(f, "spread receive processing: multi-queue (see guest-queues) or RPS "
		   "(see guest-rps-unset)");
	doctor_fix(f, "and a longer backlog: sysctl -w net.core.netdev_max_backlog=4096");
}

static void check_rx_dropped(struct doctor_ctx *ctx, const struct doctor_guest_dev *d,
			     bool ok, uint64_t before)
{
	struct doctor_finding *f;
	uint64_t after, delta;

	if (!ok || sysfs_netdev_u64(d->ifname, "statistics/rx_dropped", &after) || after <= before)
		return;
	delta = after - before;
	f = doctor_report_add(&ctx->report, "guest-rx-dropped", DOCTOR_WARNING, d->ifname,
			      "rx_dropped rose by %llu in %u ms: the guest drops received packets "
			      "now", (unsigned long long)delta, ctx->sample_ms);
	doctor_ev_str(f, "driver", "%s", d->driver);
	doctor_ev_u64(f, "rx_dropped_before", before);
	doctor_ev_u64(f, "rx_dropped", after);
	doctor_ev_u64(f, "delta", delta);
	doctor_ev_u64(f, "sample_ms", ctx->sample_ms);
	doctor_fix(f, "ethtool -G %s rx <max from ethtool -g>, multi-queue or RPS "
		   "(see guest-rings, guest-queues, guest-rps-unset), offloads on "
		   "(guest-offloads-off)", d->ifname);
	doctor_fix(f, "then watch it settle: ip -s link show dev %s", d->ifname);
}

void doctor_guest_rx_fini(struct doctor_ctx *ctx, struct doctor_guest *g)
{
	struct guest_rx_state *st = g->rx_state;
	size_t i;

	doctor_report_check(&ctx->report, "guest-rps-unset");
	doctor_report_check(&ctx->report, "guest-softnet-skew");
	doctor_report_check(&ctx->report, "guest-rx-dropped");
	for (i = 0; i < g->count; i++) {
		check_rps(ctx, &g->devs[i]);
		check_rx_dropped(ctx, &g->devs[i], st->rx_dropped_ok[i], st->rx_dropped[i]);
	}
	check_softnet(ctx, st);
	free(st->rx_dropped);
	free(st->rx_dropped_ok);
	free(st->softnet);
	free(st);
	g->rx_state = NULL;
}
