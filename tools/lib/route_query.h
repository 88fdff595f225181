/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only rtnetlink route queries (RTM_GETROUTE) for the path rules
 * that depend on routing (lib/path_limits.c): a routed tap's egress
 * devices, and the underlay of a VXLAN or Geneve device that names no
 * link.  Only what those rules read is kept: family, table, type,
 * destination prefix and the output devices, one per nexthop.
 */
#ifndef GSO_TOOLS_ROUTE_QUERY_H
#define GSO_TOOLS_ROUTE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct link_query;
struct nlmsghdr;

#define ROUTE_MAX_NEXTHOPS	16	/* more multipath nexthops: the route is marked truncated */

struct route_info {
	uint8_t family;			/* AF_INET, AF_INET6 */
	uint8_t dst_len;		/* prefix length; 0 for a default route */
	uint8_t type;			/* RTN_* (only RTN_UNICAST routes leave by a device) */
	uint32_t table;			/* RTA_TABLE, else rtm_table */
	uint32_t priority;		/* RTA_PRIORITY (metric) */
	uint8_t dst[16];		/* RTA_DST, zero for a default route */
	int oif[ROUTE_MAX_NEXTHOPS];	/* RTA_OIF, or each RTA_MULTIPATH nexthop's ifindex */
	size_t noif;
	uint32_t nh_id;			/* RTA_NH_ID: the nexthop object the route uses, 0: none */
	bool nexthop_object;		/* uses an object whose devices are not resolved (yet) */
	bool truncated;			/* more nexthops than oif[] holds */
};

/*
 * Fill @ri from one RTM_NEWROUTE message.  0, or -EINVAL for a message
 * too short for its struct rtmsg or of a family other than IPv4/IPv6.
 * Pure: no socket (fuzzed with the link parser's messages).
 */
int route_info_parse(const struct nlmsghdr *nlh, struct route_info *ri);

/*
 * Every IPv4 and IPv6 route of the current network namespace (all tables)
 * in a malloc()ed array the caller frees, a route through a nexthop object
 * with that object's devices (lib/nexthop_query.h).  Which tables a
 * packet is looked up in is the policy rules' choice (lib/rule_query.h,
 * dumped apart).  0 or -errno.
 */
int route_query_dump(struct link_query *q, struct route_info **routes, size_t *count);

#endif
