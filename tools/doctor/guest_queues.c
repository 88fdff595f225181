// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest-queues, guest-rings (seed 002), inside a guest:
 *
 * - guest-queues: queue pairs in use (`ethtool -l`: combined) against the
 *   vCPUs and the device's maximum.  Fewer in use than min(vCPUs, maximum):
 *   warning, fixed in the guest with `ethtool -L`.  A maximum of one with
 *   several vCPUs: warning, fixed only on the host (queues=N); with one
 *   vCPU multi-queue cannot help and nothing is said.
 * - guest-rings: ring sizes (`ethtool -g`) below their maximum: warning,
 *   `ethtool -G`.  A virtio-net receive ring maximum below 1024 (QEMU's
 *   default rx_queue_size is 256): info, raised on the host with
 *   rx_queue_size=1024.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"

static const char host_queues_fix[] =
	"on the host, with the VM shut down: Proxmox `qm set <VMID> --net<N> virtio=<MAC>,"
	"bridge=<BRIDGE>,queues=%u`; QEMU `-netdev tap,...,queues=%u -device virtio-net-pci,...,"
	"mq=on,vectors=%u`";

static void check_channels(struct doctor_ctx *ctx, const struct doctor_guest_dev *d)
{
	struct ethtool_channels_info c;
	struct doctor_finding *f;
	unsigned int ncpu = ctx->online_cpus, cur, max, want;
	bool combined;

	if (ethtool_query_channels(&ctx->eth, d->ifname, &c))
		return;
	combined = c.max_combined > 0;
	cur = combined ? c.combined : c.rx;
	max = combined ? c.max_combined : c.max_rx;
	if (!max || ncpu < 2)
		return;
	want = max < ncpu ? max : ncpu;

	if (cur < want) {
		f = doctor_report_add(&ctx->report, "guest-queues", DOCTOR_WARNING, d->ifname,
				      "%u queue pair%s in use, the device offers %u and the guest has %u "
				      "vCPUs", cur, cur == 1 ? "" : "s", max, ncpu);
		doctor_fix(f, "ethtool -L %s %s %u", d->ifname, combined ? "combined" : "rx", want);
		if (max < ncpu)
			doctor_fix(f, host_queues_fix, ncpu, ncpu, 2 * ncpu + 2);
	} else if (max < ncpu) {
		f = doctor_report_add(&ctx->report, "guest-queues",
				      max == 1 ? DOCTOR_WARNING : DOCTOR_INFO, d->ifname,
				      "the device offers %u queue pair%s for %u vCPUs: receive "
				      "processing %s", max, max == 1 ? "" : "s", ncpu,
				      max == 1 ? "runs on one vCPU" : "cannot use every vCPU");
		doctor_fix(f, host_queues_fix, ncpu, ncpu, 2 * ncpu + 2);
		if (max == 1)
			doctor_fix(f, "meanwhile in the guest: RPS (see guest-rps-unset)");
	} else {
		return;
	}
	doctor_ev_str(f, "driver", "%s", d->driver);
	doctor_ev_u64(f, combined ? "combined" : "rx", cur);
	doctor_ev_u64(f, combined ? "max_combined" : "max_rx", max);
	doctor_ev_u64(f, "online_cpus", ncpu);
}

static void check_rings(struct doctor_ctx *ctx, const struct doctor_guest_dev *d)
{
	struct ethtool_rings_info r;
	struct doctor_finding *f;

	if (ethtool_query_rings(&ctx->eth, d->ifname, &r))
		return;
	if ((r.rx_max && r.rx < r.rx_max) || (r.tx_max && r.tx < r.tx_max)) {
		f = doctor_report_add(&ctx->report, "guest-rings", DOCTOR_WARNING, d->ifname,
				      "rings below their maximum (rx %u of %u, tx %u of %u): bursts "
				      "overflow them", r.rx, r.rx_max, r.tx, r.tx_max);
		doctor_fix(f, "ethtool -G %s rx %u tx %u", d->ifname, r.rx_max, r.tx_max);
	} else if (!strcmp(d->driver, "virtio_net") && r.rx_max && r.rx_max < 1024) {
		f = doctor_report_add(&ctx->report, "guest-rings", DOCTOR_INFO, d->ifname,
				      "the receive ring is at its maximum of %u; the host can offer "
				      "up to 1024", r.rx_max);
		doctor_fix(f, "on the host: QEMU `-device virtio-net-pci,...,rx_queue_size=1024` "
			   "(Proxmox: `qm set <VMID> --args ...` or a hookscript), then "
			   "`ethtool -G %s rx 1024`", d->ifname);
	} else {
		return;
	}
	doctor_ev_str(f, "driver", "%s", d->driver);
	doctor_ev_u64(f, "rx", r.rx);
	doctor_ev_u64(f, "rx_max", r.rx_max);
	doctor_ev_u64(f, "tx", r.tx);
	doctor_ev_u64(f, "tx_max", r.tx_max);
}

void doctor_guest_queues_run(struct doctor_ctx *ctx, const struct doctor_guest *g)
{
	size_t i;

	doctor_report_check(&ctx->report, "guest-queues");
	doctor_report_check(&ctx->report, "guest-rings");
	for (i = 0; i < g->count; i++) {
		check_channels(ctx, &g->devs[i]);
		check_rings(ctx, &g->devs[i]);
	}
}
