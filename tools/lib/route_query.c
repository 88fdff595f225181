// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTM_GETROUTE dumps into struct route_info (lib/route_query.h), on the
 * socket of a struct link_query.  Parsing follows iproute2's
 * ip/iproute.c: RTA_TABLE wins over rtm_table (tables above 255), a
 * multipath route lists its nexthops in RTA_MULTIPATH as struct
 * rtnexthop records.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "link_query.h"
#include "nexthop_query.h"
#include "nl_attr.h"
#include "nl_dump.h"
#include "route_query.h"

/* Older uapi headers (Debian 12's 6.1 has it; named for clarity of the ABI number). */
#ifndef RTA_NH_ID
#define RTA_NH_ID	30
#endif

/* The attributes kept (lib/nl_attr.h): what struct route_info holds. */
static const enum mnl_attr_data_type route_policy[RTA_MAX + 1] = {
	[RTA_OIF] = MNL_TYPE_U32,
	[RTA_TABLE] = MNL_TYPE_U32,
	[RTA_PRIORITY] = MNL_TYPE_U32,
	[RTA_NH_ID] = MNL_TYPE_U32,
	[RTA_DST] = MNL_TYPE_BINARY,		/* its length checked against the family's */
	[RTA_MULTIPATH] = MNL_TYPE_BINARY,	/* struct rtnexthop records, checked one by one */
};

static void add_oif(struct route_info *ri, int ifindex)
{
	if (ifindex <= 0)
		return;
	if (ri->noif == ROUTE_MAX_NEXTHOPS) {
		ri->truncated = true;
		return;
	}
	ri->oif[ri->noif++] = ifindex;
}

/* RTA_MULTIPATH: struct rtnexthop records, each rtnh_len long (fib_nh_match()'s format). */
static void multipath_oifs(const struct nlattr *mp, struct route_info *ri)
{
	const unsigned char *p = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp);

	while (left >= sizeof(struct rtnexthop)) {
		struct rtnexthop nh;
		size_t step;

		memcpy(&nh, p, sizeof(nh));
		if (nh.rtnh_len < sizeof(nh) || nh.rtnh_len > left)
			break;
		add_oif(ri, nh.rtnh_ifindex);
		/* Records are 4-byte aligned (RTNH_ALIGN). */
		step = ((size_t)nh.rtnh_len + RTNH_ALIGNTO - 1) & ~(size_t)(RTNH_ALIGNTO - 1);
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
}

int route_info_parse(const struct nlmsghdr *nlh, struct route_info *ri)
{
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	const struct rtmsg *rtm = nl_inet_header(nlh, sizeof(*rtm));
	size_t addr_len;

	memset(ri, 0, sizeof(*ri));
	if (!rtm)
		return -EINVAL;
	ri->family = rtm->rtm_family;
	addr_len = ri->family == AF_INET ? 4 : 16;
	ri->dst_len = rtm->rtm_dst_len > addr_len * 8 ? (uint8_t)(addr_len * 8) : rtm->rtm_dst_len;
	ri->type = rtm->rtm_type;
	ri->table = rtm->rtm_table;
	nl_attr_parse(nlh, sizeof(*rtm), route_policy, RTA_MAX, tb);
	if (tb[RTA_TABLE])
		ri->table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (tb[RTA_PRIORITY])
		ri->priority = mnl_attr_get_u32(tb[RTA_PRIORITY]);
	if (tb[RTA_DST] && mnl_attr_get_payload_len(tb[RTA_DST]) == addr_len)
		memcpy(ri->dst, mnl_attr_get_payload(tb[RTA_DST]), addr_len);
	else
		ri->dst_len = 0;	/* no destination: a default route */
	if (tb[RTA_NH_ID]) {
		ri->nh_id = mnl_attr_get_u32(tb[RTA_NH_ID]);
		ri->nexthop_object = true;	/* until route_resolve_nexthops() */
	}
	if (tb[RTA_OIF])
		add_oif(ri, (int)mnl_attr_get_u32(tb[RTA_OIF]));
	if (tb[RTA_MULTIPATH])
		multipath_oifs(tb[RTA_MULTIPATH], ri);
	return 0;
}

static int route_parse_item(const struct nlmsghdr *nlh, void *item)
{
	return route_info_parse(nlh, item);
}

static int route_dump_family(struct link_query *q, unsigned char family, struct nl_dump_array *d)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	return nl_dump_collect(q, nl_dump_request(buf, RTM_GETROUTE, sizeof(struct rtmsg), family),
			       d);
}

int route_query_dump(struct link_query *q, struct route_info **routes, size_t *count)
{
	struct nl_dump_array list = { .msg_type = RTM_NEWROUTE, .item_size = sizeof(**routes),
				      .parse = route_parse_item };
	int ret;

	ret = route_dump_family(q, AF_INET, &list);
	if (!ret) {
		ret = route_dump_family(q, AF_INET6, &list);
		/* A kernel without IPv6 refuses the IPv6 dump: it has no IPv6 routes. */
		if (ret == -EAFNOSUPPORT)
			ret = 0;
	}
	if (!ret) {
		struct nexthop_info *nhs = NULL;
		size_t nnhs = 0;

		/* Devices of routes through nexthop objects (RTA_NH_ID). */
		ret = nexthop_query_dump(q, &nhs, &nnhs);
		if (!ret)
			route_resolve_nexthops(list.items, list.count, nhs, nnhs);
		free(nhs);
	}
	if (ret) {
		free(list.items);
		return ret;
	}
	*routes = list.items;
	*count = list.count;
	return 0;
}
