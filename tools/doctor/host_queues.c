// SPDX-License-Identifier: GPL-2.0-only
/*
 * single-queue-tap (seed 003): a VM with several vCPUs whose virtio-net
 * NIC has one queue pair gets one vhost thread (one tap queue) on the
 * host for all its traffic: that thread saturates one core ("one vhost
 * thread at 97%").
 *
 * What is read, all without the VM's help:
 * - the tap's queues as the kernel reports them for a multi_queue tap
 *   (rtnetlink IFLA_TUN_NUM_QUEUES, iproute2's "numqueues": queues
 *   attached now, one per QEMU queue pair; QEMU creates the tap
 *   multi_queue only for queues > 1).  A tap created without multi_queue
 *   has one queue at most: attached when a process holds it;
 * - the process holding the tap (lib/vmm.c, /proc/PID/fdinfo "iff:") and
 *   its vCPUs (threads "CPU N/KVM", else its -smp argument).
 *
 * It fires (warning) when one queue is attached and either the VM is
 * seen with more than one vCPU, or the tap was created multi_queue (a
 * multi-queue setup with a single queue left).  A tap nobody holds, or a
 * single-queue tap whose VM is not visible (another PID namespace, no
 * permission), is not judged: the vCPU count is unknown.
 */
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/sysfs.h"
#include "lib/vmm.h"

/* Proxmox names taps tap<VMID>i<N> for the VM's netN. */
static bool proxmox_tap(const char *name, unsigned int *vmid, unsigned int *net)
{
	char tail;

	return sscanf(name, "tap%ui%u%c", vmid, net, &tail) == 2;
}

/* The bridge the VM is attached to: the tap's master, or behind a fwbr hop the vmbr. */
const char *doctor_vm_bridge(const struct doctor_ctx *ctx, const struct link_info *tap)
{
	const struct link_info *m = tap->master ? link_table_by_index(&ctx->table, tap->master) : NULL;
	size_t i;

	if (!m)
		return "<bridge>";
	for (i = 0; i < ctx->link_count; i++) {
		const struct link_info *port = &ctx->links[i], *peer, *pm;

		if (port->master != m->ifindex || strcmp(port->kind, "veth") || !port->lower ||
		    port->lower_in_other_netns)
			continue;
		peer = link_table_by_index(&ctx->table, port->lower);
		pm = peer && peer->master ? link_table_by_index(&ctx->table, peer->master) : NULL;
		if (pm && !strcmp(pm->kind, "bridge"))
			return pm->name;
	}
	return m->name;
}

static void check_tap(struct doctor_ctx *ctx, const struct link_info *tap)
{
	struct vmm_info vmm;
	struct doctor_finding *f;
	unsigned int vmid, net, rxq = 0, txq = 0;
	enum doctor_severity sev;
	char want[16], vectors[24];
	const char *why;

	unsigned int queues;

	if (vmm_find_by_tap(tap->name, &vmm))
		memset(&vmm, 0, sizeof(vmm));
	if (tap->tun_multi_queue && (tap->present & LINK_HAS_TUN_QUEUES))
		queues = tap->tun_num_queues;
	else
		queues = vmm.pid ? 1 : 0;
	if (!queues) {
		/* Nobody holds it: no VM to judge. */
		vmm_info_free(&vmm);
		return;
	}

	if (queues == 1 && vmm.vcpus > 1) {
		sev = DOCTOR_WARNING;
		why = "one queue for a VM with several vCPUs";
	} else if (queues == 1 && tap->tun_multi_queue && !vmm.vcpus) {
		sev = DOCTOR_WARNING;
		why = "created multi_queue, but only one queue is attached";
	} else if (vmm.vcpus > 1 && queues < vmm.vcpus) {
		sev = DOCTOR_INFO;
		why = "fewer queues than the VM has vCPUs";
	} else {
		vmm_info_free(&vmm);
		return;
	}
	if (vmm.vcpus) {
		snprintf(want, sizeof(want), "%u", vmm.vcpus);
		snprintf(vectors, sizeof(vectors), "%u", 2 * vmm.vcpus + 2);
	} else {
		snprintf(want, sizeof(want), "<vCPUs>");
		snprintf(vectors, sizeof(vectors), "<2*vCPUs+2>");
	}

	f = doctor_report_add(&ctx->report, "single-queue-tap", sev, tap->name,
			      "%s: all of its traffic goes through %u tap queue%s (one vhost thread "
			      "each)", why, queues, queues == 1 ? "" : "s");
	doctor_ev_u64(f, "numqueues", queues);
	doctor_ev_u64(f, "numdisabled", tap->tun_num_disabled_queues);
	doctor_ev_bool(f, "multi_queue", tap->tun_multi_queue);
	if (!sysfs_netdev_queues(tap->name, &rxq, &txq))
		doctor_ev_u64(f, "tx_queues", txq);
	doctor_ev_u64(f, "vmm_pid", vmm.pid);
	doctor_ev_str(f, "vmm_comm", "%s", vmm.comm);
	doctor_ev_u64(f, "vcpus", vmm.vcpus);
	doctor_ev_str(f, "vcpus_from", "%s", vmm_vcpu_source_name(vmm.vcpu_source));

	if (proxmox_tap(tap->name, &vmid, &net)) {
		doctor_fix(f, "Proxmox, with the VM shut down (keep net%u's other options, see "
			   "`qm config %u`): qm shutdown %u && qm set %u --net%u virtio=<MAC>,bridge=%s,"
			   "queues=%s && qm start %u", net, vmid, vmid, vmid, net,
			   doctor_vm_bridge(ctx, tap), want, vmid);
	}
	doctor_fix(f, "QEMU: -netdev tap,...,queues=%s -device virtio-net-pci,...,mq=on,"
		   "vectors=%s", want, vectors);
	doctor_fix(f, "then in the guest, if it did not enable them all: "
		   "ethtool -L <guest-if> combined %s", want);
	vmm_info_free(&vmm);
}

void doctor_host_queues_run(struct doctor_ctx *ctx)
{
	size_t i;

	doctor_report_check(&ctx->report, "single-queue-tap");
	for (i = 0; i < ctx->link_count; i++) {
		const struct link_info *li = &ctx->links[i];

		if (strcmp(li->kind, "tun"))
			continue;
		if (ctx->iface_count ? doctor_iface_selected(ctx, li->name) : path_is_tap(li))
			check_tap(ctx, li);
	}
}
