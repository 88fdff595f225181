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

#define LIBVIRT_NAME_MAX	256	/* a longer domain name is cut (for display) */
#define LIBVIRT_ALIAS_MAX	248	/* "host" + alias is the netdev, within 256 */
#define LIBVIRT_UUID_LEN	36	/* virUUIDFormat(): 8-4-4-4-12 hex digits */

struct libvirt_status {
	pid_t pid;			/* <domstatus pid='...'>: its QEMU */
	char name[LIBVIRT_NAME_MAX];	/* <domain><name>: for messages only */
	char uuid[LIBVIRT_UUID_LEN + 1];	/* <domain><uuid>: what names the domain to virsh */
	char alias[LIBVIRT_ALIAS_MAX];	/* the interface's <alias name='...'/> */
};

/*
 * In status text @xml (@len bytes, need not be NUL-terminated): the domain
 * whose <domain><devices><interface> has <target dev='@ifname'/>, with
 * the QEMU pid, the domain's UUID and name and the interface's alias,
 * into @st.  Read as XML, by position only: the root <domstatus>, its
 * <domain>, that one's <name>, <uuid> and <devices>, each <interface>
 * directly inside, and the <target>/<alias> directly inside that (a
 * disk's or console's <target>, anything in <metadata> or the status' own
 * records, never counts).  Attributes in any order, quoted with ' or ",
 * the five named entities and character references decoded, comments,
 * CDATA, <?...?> and <!DOCTYPE> skipped; each end tag must name the
 * element it closes (below the first 8 levels, where nothing counts,
 * elements are only counted: any depth is read).  True only with all
 * five known: a pid of 1 to INT_MAX in digits, a non-empty name (cut to
 * LIBVIRT_NAME_MAX - 1 bytes on a whole UTF-8 character: a name is for
 * messages, virsh would take a name "7" as domain ID 7, one like another
 * domain's UUID as that domain, one like "--help" as an option), a
 * canonical UUID (the domain's identity), an alias that fits and is a
 * QEMU id (a letter, then letters, digits, "-._": it goes into QOM paths
 * and JSON); false on malformed text.  The first such interface counts.
 * Linear in @len.
 */
bool libvirt_status_find(const char *xml, size_t len, const char *ifname,
			 struct libvirt_status *st);

#endif
