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
#include "lib/qemu_cmdline.h"
#include "lib/vmm.h"

static void check_tap(struct doctor_ctx *ctx, const struct link_info *tap)
{
	struct vmm_info vmm;
	struct doctor_finding *f;
	unsigned int vmid, net, rxq = 0, txq = 0;
	enum doctor_severity sev;
	char want[16], vectors[24];
	const char *why;
	unsigned int queues;

	/* Only a tun/tap has tap queues (an IFACE argument may be anything). */
	if (!link_is_kind(tap, "tun"))
		return;
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

	if (qemu_proxmox_tap_name(tap->name, &vmid, &net)) {
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
	doctor_report_check(&ctx->report, "single-queue-tap");
	doctor_for_each_tap(ctx, check_tap);
}
