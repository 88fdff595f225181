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

/*
 * In "info network" text @info (lines ending in "\r\n" or "\n"): the
 * name of the first netdev that is tap @ifname or holds one of @fds, into
 * @out.  QEMU prints each net client as "NAME: index=N,type=TYPE,INFO",
 * after " \ " under its NIC or a hub port's " \ PORT: "; a tap's INFO is
 * "ifname=TAP,script=...,downscript=..." when QEMU opened it, "fd=N" when
 * it was given one.  Only such a line counts: type=tap in its place and
 * INFO's own first item, never text later on the line (a script's path)
 * nor a filter's line.  Names are QEMU's: letters, digits, '_', '.',
 * '-', '#'.  False if none, or the name does not fit @len.
 */
bool qemu_info_network_tap(const char *info, const char *ifname, const int *fds, size_t nfds,
			   char *out, size_t len);

#endif
