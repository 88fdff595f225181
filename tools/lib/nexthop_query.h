/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only rtnetlink nexthop object queries (RTM_GETNEXTHOP): a route
 * that names a nexthop object (RTA_NH_ID, `ip route add ... nhid N`)
 * carries no device of its own; the object does (NHA_OIF), or, for a
 * group, each member object does (NHA_GROUP: groups hold plain nexthops
 * only, nh_check_attr_group()).  lib/route_query.c resolves each route's
 * object into its devices with these, so the path rules
 * (lib/path_limits.c) read them like any multipath route's.
 */
#ifndef GSO_TOOLS_NEXTHOP_QUERY_H
#define GSO_TOOLS_NEXTHOP_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route_query.h"

struct link_query;
struct nlmsghdr;

struct nexthop_info {
	uint32_t id;				/* NHA_ID */
	int oif;				/* NHA_OIF; 0: none (group, blackhole, fdb) */
	bool blackhole;				/* NHA_BLACKHOLE: what uses it is dropped */
	bool group;				/* NHA_GROUP present */
	uint32_t members[ROUTE_MAX_NEXTHOPS];	/* the group's member ids */
	size_t nmembers;
	bool truncated;				/* more members than members[] holds */
};

/*
 * Fill @nh from one RTM_NEWNEXTHOP message.  0, or -EINVAL for a message
 * too short for its struct nhmsg or without an NHA_ID.  Pure: no socket.
 */
int nexthop_info_parse(const struct nlmsghdr *nlh, struct nexthop_info *nh);

/*
 * Every nexthop object of the current network namespace, in a malloc()ed
 * array the caller frees (NULL and 0 on a kernel without nexthop objects).
 * 0 or -errno.
 */
int nexthop_query_dump(struct link_query *q, struct nexthop_info **nhs, size_t *count);

/*
 * For each route of @routes that uses a nexthop object (nh_id), the
 * object's devices (a group's: its members') as the route's oif[] (in
 * place of what the dump named), and
 * nexthop_object cleared; a blackhole object makes the route a blackhole
 * (RTN_BLACKHOLE).  A route whose object, or one of whose members, is not
 * in @nhs keeps nexthop_object set (lib/path_limits.c: incomplete).
 */
void route_resolve_nexthops(struct route_info *routes, size_t nroutes,
			    const struct nexthop_info *nhs, size_t count);

#endif
