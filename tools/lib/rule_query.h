/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only rtnetlink policy rule queries (RTM_GETRULE) for the routed
 * path rule (lib/path_limits.c, rule 7): which tables a forwarded packet
 * can be looked up in.  Only what that evaluation reads is kept: family,
 * priority, action, table, goto target and destination prefix; every
 * other selector (source prefix, iif/oif, fwmark, TOS/DSCP, IP protocol,
 * ports, UID range, tunnel id, realm), an inverted rule and a
 * suppressor that can refuse the table's answer only make the rule
 * `conditional`: it may or may not apply to a given packet.
 */
#ifndef GSO_TOOLS_RULE_QUERY_H
#define GSO_TOOLS_RULE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct link_query;
struct nlmsghdr;

struct rule_info {
	uint8_t family;		/* AF_INET, AF_INET6 */
	uint8_t action;		/* FR_ACT_* */
	uint8_t dst_len;	/* destination prefix length; 0: any destination */
	uint8_t dst[16];	/* FRA_DST */
	uint32_t priority;	/* FRA_PRIORITY */
	uint32_t table;		/* FRA_TABLE, else the header's table */
	uint32_t goto_target;	/* FRA_GOTO: the priority a goto continues at */
	bool conditional;	/* a selector beyond the destination, inverted, or a suppressor */
	bool l3mdev;		/* FRA_L3MDEV: the table of the packet's VRF device */
};

/*
 * Fill @ri from one RTM_NEWRULE message.  0, or -EINVAL for a message too
 * short for its struct fib_rule_hdr or of a family other than IPv4/IPv6.
 * Pure: no socket (fuzzed with the link parser's messages).
 */
int rule_info_parse(const struct nlmsghdr *nlh, struct rule_info *ri);

/*
 * Every IPv4 and IPv6 rule of the current network namespace, in the
 * kernel's order (by priority, which is the order it tries them in), in a
 * malloc()ed array the caller frees.  A kernel without policy routing
 * (no CONFIG_FIB_RULES: the project's own guest and host-VM kernel) or
 * without IPv6 has no rules of that family: none are returned for it, and
 * lib/path_limits.c then uses the lookup such a kernel does.  0 or -errno.
 */
int rule_query_dump(struct link_query *q, struct rule_info **rules, size_t *count);

#endif
