/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libvirtd's status file of a running domain (/run/libvirt/qemu/DOMAIN.xml,
 * written by virDomainObjFormat()): which QEMU runs it and which device
 * holds a tap.  gso-limitsd believes these records, not what a tap's
 * holder says of itself (limitsd/manager.c reads the files).  The text is
 * another process's output, and part of it (the domain's name, its
 * <metadata>) is its owner's, so the reader is pure and fuzzed
 * (fuzz/fuzz-libvirt-status.c).
 */
#ifndef GSO_TOOLS_LIBVIRT_STATUS_H
#define GSO_TOOLS_LIBVIRT_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LIBVIRT_NAME_MAX	256	/* a longer domain name does not count */
#define LIBVIRT_ALIAS_MAX	248	/* "host" + alias is the netdev, within 256 */

struct libvirt_status {
	pid_t pid;			/* <domstatus pid='...'>: its QEMU */
	char name[LIBVIRT_NAME_MAX];	/* <domain><name> */
	char alias[LIBVIRT_ALIAS_MAX];	/* the interface's <alias name='...'/> */
};

/*
 * In status text @xml (@len bytes, need not be NUL-terminated): the domain
 * whose <domain><devices><interface> has <target dev='@ifname'/>, with
 * the QEMU pid, the domain's name and the interface's alias, into @st.
 * Read as XML, by position only: the root <domstatus>, its <domain>, that
 * one's <name> and <devices>, each <interface> directly inside, and the
 * <target>/<alias> directly inside that (a disk's or console's <target>,
 * anything in <metadata> or the status' own records, never counts).
 * Attributes in any order, quoted with ' or ", the five named entities
 * and character references decoded, comments, CDATA, <?...?> and
 * <!DOCTYPE> skipped.  True only with all four known: a pid of 1 to
 * INT_MAX in digits, a non-empty name and an alias that fit, the alias
 * a QEMU id (a letter, then letters, digits, "-._": it goes into QOM
 * paths and JSON); false on malformed text.  The first such interface counts.  Linear in @len.
 */
bool libvirt_status_find(const char *xml, size_t len, const char *ifname,
			 struct libvirt_status *st);

#endif
