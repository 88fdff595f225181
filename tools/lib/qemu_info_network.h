/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QEMU's HMP "info network" text (net/net-hmp-cmds.c, print_net_client()
 * in net/net.c): which netdev holds a tap.  gso-limitsd asks the VM's QEMU
 * (human-monitor-command) and takes that netdev's device; the text is
 * another process's output, and part of it (a script's path, a filter's
 * properties) its command line's, so the reader is pure and fuzzed
 * (fuzz/fuzz-qemu-info-network.c).
 */
#ifndef GSO_TOOLS_QEMU_INFO_NETWORK_H
#define GSO_TOOLS_QEMU_INFO_NETWORK_H

#include <stdbool.h>
#include <stddef.h>

/* What "info network" says of a tap. */
enum qemu_tap_holder {
	QEMU_TAP_NONE,		/* no line is the tap's, or the name does not fit */
	QEMU_TAP_NETDEV,	/* a netdev holds it: the NIC on that netdev is its device */
	QEMU_TAP_HUB,		/* a hub's port holds it: legacy -net, or -netdev hubport */
};

/*
 * In "info network" text @info (lines ending in "\r\n" or "\n"): what
 * holds tap @ifname or one of @fds, the first line that is the tap's.
 * QEMU prints each net client as "NAME: index=N,type=TYPE,INFO", after
 * " \ " under its NIC, or after " \ PORT: " under "hub N" for the client
 * on a hub's port; a tap's INFO is "ifname=TAP,script=...,downscript=..."
 * when QEMU opened it, "fd=N" when it was given one.  Only such a line
 * counts: type=tap in its place and INFO's own first item, never text
 * later on the line (a script's path) nor a filter's line.
 *
 * QEMU_TAP_NETDEV: the netdev's NAME into @out.  QEMU_TAP_HUB: the hub
 * port's name (legacy "-net nic -net tap" puts both on "hub0port0",
 * "hub0port1", ...; -netdev hubport names its own) into @out: the NICs
 * on that hub are on hub ports too, which have no virtio-net header, so
 * QEMU offers them no offload at all (no GSO, and no GSO limits:
 * docs/qemu.md), and none sits on the tap's netdev.  Names are QEMU's:
 * letters, digits, '_', '.', '-', '#'.  QEMU_TAP_NONE if no line is the
 * tap's, or the name does not fit @len.
 */
enum qemu_tap_holder qemu_info_network_tap(const char *info, const char *ifname, const int *fds,
					   size_t nfds, char *out, size_t len);

#endif
