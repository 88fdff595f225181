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

#include "fail.h"
#include "link_query.h"
#include "nexthop_query.h"
#include "route_query.h"
#include "rule_query.h"

#define ROUTE_DUMP_TRIES	8

/* Older uapi headers (Debian 12's 6.1 has it; named for clarity of the ABI number). */
#ifndef RTA_NH_ID
#define RTA_NH_ID	30
#endif

static int route_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, RTA_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case RTA_OIF:
	case RTA_TABLE:
	case RTA_PRIORITY:
	case RTA_NH_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_OK;
		break;
	case RTA_DST:
	case RTA_MULTIPATH:
		break;
	default:
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

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
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	size_t addr_len;

	memset(ri, 0, sizeof(*ri));
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return -EINVAL;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return -EINVAL;
	ri->family = rtm->rtm_family;
	addr_len = ri->family == AF_INET ? 4 : 16;
	ri->dst_len = rtm->rtm_dst_len > addr_len * 8 ? (uint8_t)(addr_len * 8) : rtm->rtm_dst_len;
	ri->type = rtm->rtm_type;
	ri->table = rtm->rtm_table;
	mnl_attr_parse(nlh, sizeof(*rtm), route_attr_cb, tb);
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

struct route_list {
	struct route_info *routes;
	size_t count, cap;
};

static int route_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct route_list *list = data;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	if (list->count == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 16;
		struct route_info *routes = realloc(list->routes, cap * sizeof(*routes));

		if (!routes)
			fail_errno("realloc");
		list->routes = routes;
		list->cap = cap;
	}
	if (!route_info_parse(nlh, &list->routes[list->count]))
		list->count++;
	return MNL_CB_OK;
}

static int route_dump_family(struct link_query *q, unsigned char family, struct route_list *list)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	size_t start = list->count;
	int ret = -EINTR, tries;

	for (tries = 0; tries < ROUTE_DUMP_TRIES && ret == -EINTR; tries++) {
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct rtmsg *rtm;

		nlh->nlmsg_type = RTM_GETROUTE;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		nlh->nlmsg_seq = ++q->seq;
		rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		rtm->rtm_family = family;
		list->count = start;
		ret = link_query_request(q, nlh, route_dump_cb, list);
	}
	return ret;
}

int route_query_dump(struct link_query *q, struct route_info **routes, size_t *count)
{
	struct route_list list = { 0 };
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
			route_resolve_nexthops(list.routes, list.count, nhs, nnhs);
		free(nhs);
	}
	if (!ret) {
		bool rules = false;

		ret = rule_query_policy(q, &rules);
		if (!ret && rules) {
			/* The marker entry (route_query.h): one more slot, no route. */
			struct route_info *grown = realloc(list.routes,
							   (list.count + 1) * sizeof(*grown));

			if (!grown)
				fail_errno("realloc");
			list.routes = grown;
			memset(&list.routes[list.count], 0, sizeof(*grown));
			list.routes[list.count++].policy_rules = true;
		}
	}
	if (ret) {
		free(list.routes);
		return ret;
	}
	*routes = list.routes;
	*count = list.count;
	return 0;
}
