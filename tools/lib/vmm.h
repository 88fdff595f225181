/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VMM (QEMU) process behind a tap, found read-only through procfs:
 * a process holding /dev/net/tun open whose fdinfo names the tap
 * (drivers/net/tun.c tun_chr_show_fdinfo(): "iff:\tNAME").  From it, the
 * vCPU count (threads named "CPU N/KVM" or "CPU N/TCG", which QEMU names
 * with `-name ...,debug-threads=on` as Proxmox starts every VM, else
 * QEMU's `-smp` argument) and its command line.
 *
 * Only processes in the caller's network namespace count (tap names are
 * per namespace).  Only visible when the caller shares the VMM's PID
 * namespace and may read its /proc/PID/fd (root, or the same user).
 */
#ifndef GSO_TOOLS_VMM_H
#define GSO_TOOLS_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "qemu_cmdline.h"

enum vmm_vcpu_source {
	VMM_VCPUS_UNKNOWN,
	VMM_VCPUS_THREADS,	/* counted "CPU N/..." threads */
	VMM_VCPUS_SMP,		/* from -smp on the command line */
};

/* Descriptor numbers of one tap kept per process (multiqueue: one per queue). */
#define VMM_MAX_TAP_FDS	16

struct vmm_info {
	pid_t pid;			/* 0: no process holds the tap (or none visible) */
	char comm[32];
	unsigned int tap_fds;		/* fds of that process attached to the tap (queues) */
	int tap_fd[VMM_MAX_TAP_FDS];	/* their numbers (the first VMM_MAX_TAP_FDS): a */
	size_t ntap_fd;			/* -netdev tap,fd=N names the tap by them */
	unsigned int vcpus;		/* 0: unknown */
	enum vmm_vcpu_source vcpu_source;
	char *cmdline;			/* arguments joined by spaces, malloc()ed, or NULL */
	struct qemu_args args;		/* the arguments (lib/qemu_cmdline.h), or empty */
};

#define VMM_MAX_VCPUS	65536	/* larger -smp counts are not believed */

/* Find the process holding tap @ifname.  0 (pid 0 if none found) or -errno. */
int vmm_find_by_tap(const char *ifname, struct vmm_info *out);
void vmm_info_free(struct vmm_info *v);

/*
 * The number in QEMU's -smp argument ("4", "cpus=4,sockets=1", "4,cores=4");
 * 0 if none, or not a plain decimal in 1..VMM_MAX_VCPUS.
 */
unsigned int vmm_parse_smp(const char *smp);

/* The argument after "-ARG" (or "--ARG") in @v's command line (the first), or NULL. */
const char *vmm_cmdline_arg(const struct vmm_info *v, const char *arg, char *buf, size_t len);

/*
 * The property @prop ("host_gso_max_size") of the -device bound to tap
 * @tap: the device whose netdev= is the id of the -netdev that is the tap
 * (lib/qemu_cmdline.c: ifname=TAP, or fd=N/fds=N:... with N one of the
 * holder's descriptors @fds of that tap, as libvirt passes taps; QemuOpts
 * or JSON syntax).  A property of another NIC of the same VM never counts.
 * False when there is no such netdev, device or property.
 */
bool vmm_tap_device_prop(const struct qemu_args *args, const char *tap, const int *fds,
			 size_t nfds, const char *prop, char *buf, size_t len);

const char *vmm_vcpu_source_name(enum vmm_vcpu_source s);

#endif
