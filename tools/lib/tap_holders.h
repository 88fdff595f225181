/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every process holding a tap open, in one pass over /proc.
 *
 * A tap is held through a /dev/net/tun file descriptor whose fdinfo
 * names it (drivers/net/tun.c tun_chr_show_fdinfo(): "iff:\tNAME").  Tap
 * names are per network namespace, so each descriptor's tap is placed in
 * its namespace: the tun device's own (TUNGETDEVNETNS on a copy of the
 * descriptor taken with pidfd_getfd(), Linux 5.6), else, where that is
 * not allowed, the holder's (what vmm.c assumes: a VMM opens its taps
 * where it runs).  One scan serves every tap of a namespace: a host with
 * a thousand VMs is read once, not once per tap.
 *
 * A macvtap is held through its character device /dev/tapIFINDEX (libvirt's
 * type='direct'): such a holder's ifname is tap_holder_macvtap_key(IFINDEX),
 * placed in the holder's namespace.
 *
 * Read-only: the copied descriptor is closed at once (the tap is not
 * attached or detached by that: it is the same open file).  Needs root
 * (or CAP_SYS_PTRACE) to see other users' processes.
 */
#ifndef GSO_TOOLS_TAP_HOLDERS_H
#define GSO_TOOLS_TAP_HOLDERS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TAP_HOLDER_MAX_FDS	16	/* queues of one tap in one process counted */

struct tap_holder {
	char ifname[IF_NAMESIZE];
	pid_t pid;
	unsigned long long starttime;	/* /proc/PID/stat field 22: a new QEMU has another */
	int fds[TAP_HOLDER_MAX_FDS];	/* its descriptor numbers for this tap */
	size_t nfds;
};

struct tap_holders {
	struct tap_holder *h;
	size_t count;
	unsigned long fds_examined;	/* descriptors looked at: the scan's cost */
};

/* The taps of network namespace (@ns_dev, @ns_ino) and their holders.  0 or -errno. */
int tap_holders_scan(dev_t ns_dev, ino_t ns_ino, struct tap_holders *out);
void tap_holders_free(struct tap_holders *t);

/*
 * The holder of tap @ifname: process @prefer if it is one (several
 * processes may hold a tap for a moment: a fork, a descriptor being passed,
 * another tool's copy), else the first found.  NULL if none.
 */
const struct tap_holder *tap_holders_find(const struct tap_holders *t, const char *ifname,
					  pid_t prefer);

/* The key a macvtap's holders are filed under (not an interface name). */
void tap_holder_macvtap_key(int ifindex, char *key, size_t len);

/* The tap name in fdinfo text @info ("iff:\tNAME" line), into @name; false if none. */
bool tap_fdinfo_iff(const char *info, char *name, size_t len);

/* Field 22 of /proc/PID/stat (start time in clock ticks); 0 if unreadable. */
unsigned long long tap_holder_starttime(pid_t pid);

#endif
