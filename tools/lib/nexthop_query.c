// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTM_GETNEXTHOP dumps into struct nexthop_info (lib/nexthop_query.h), on
 * the socket of a struct link_query, and the resolution of routes'
 * RTA_NH_ID into devices.  Parsing follows iproute2's ip/ipnexthop.c:
 * NHA_ID, NHA_OIF, NHA_BLACKHOLE, NHA_GROUP as struct nexthop_grp records.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "link_query.h"
#include "nexthop_query.h"
#include "nl_attr.h"
#include "nl_dump.h"

#define RTN_BLACKHOLE_NUM	6

/* The attributes kept (lib/nl_attr.h): what struct nexthop_info holds. */
static const enum mnl_attr_data_type nexthop_policy[NHA_MAX + 1] = {
	[NHA_ID] = MNL_TYPE_U32,
	[NHA_OIF] = MNL_TYPE_U32,
	[NHA_BLACKHOLE] = MNL_TYPE_BINARY,	/* a flag: present or not */
	[NHA_GROUP] = MNL_TYPE_BINARY,		/* struct nexthop_grp records */
};

int nexthop_info_parse(const struct nlmsghdr *nlh, struct nexthop_info *nh)
{
	const struct nlattr *tb[NHA_MAX + 1] = { 0 };

	memset(nh, 0, sizeof(*nh));
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nhmsg))
		return -EINVAL;
	nl_attr_parse(nlh, sizeof(struct nhmsg), nexthop_policy, NHA_MAX, tb);
	if (!tb[NHA_ID])
		return -EINVAL;
	nh->id = mnl_attr_get_u32(tb[NHA_ID]);
	if (tb[NHA_OIF])
		nh->oif = (int)mnl_attr_get_u32(tb[NHA_OIF]);
	nh->blackhole = tb[NHA_BLACKHOLE] != NULL;
	if (tb[NHA_GROUP]) {
		const unsigned char *p = mnl_attr_get_payload(tb[NHA_GROUP]);
		size_t n = mnl_attr_get_payload_len(tb[NHA_GROUP]) / sizeof(struct nexthop_grp), i;

		nh->group = true;
		for (i = 0; i < n; i++) {
			struct nexthop_grp g;

			if (nh->nmembers == ROUTE_MAX_NEXTHOPS) {
				nh->truncated = true;
				break;
			}
			memcpy(&g, p + i * sizeof(g), sizeof(g));
			nh->members[nh->nmembers++] = g.id;
		}
	}
	return 0;
}

static int nexthop_parse_item(const struct nlmsghdr *nlh, void *item)
{
	return nexthop_info_parse(nlh, item);
}

int nexthop_query_dump(struct link_query *q, struct nexthop_info **nhs, size_t *count)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nl_dump_array list = { .msg_type = RTM_NEWNEXTHOP, .item_size = sizeof(**nhs),
				      .parse = nexthop_parse_item };
	int ret;

	ret = nl_dump_collect(q, nl_dump_request(buf, RTM_GETNEXTHOP, sizeof(struct nhmsg),
						 AF_UNSPEC), &list);
	/* A kernel without nexthop objects (before 5.3) has none to use. */
	if (ret == -EOPNOTSUPP)
		ret = 0;
	if (ret) {
		free(list.items);
		return ret;
	}
	*nhs = list.items;
	*count = list.count;
	return 0;
}

static const struct nexthop_info *find_nexthop(const struct nexthop_info *nhs, size_t count,
					       uint32_t id)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (nhs[i].id == id)
			return &nhs[i];
	return NULL;
}

/* Add @nh's device to @r; false if @nh is a group or unknown (not resolvable here). */
static bool add_device(struct route_info *r, const struct nexthop_info *nh)
{
	if (!nh || nh->group)
		return false;
	if (nh->oif <= 0)
		return true;	/* blackhole or fdb: no device */
	if (r->noif == ROUTE_MAX_NEXTHOPS)
		r->truncated = true;
	else
		r->oif[r->noif++] = nh->oif;
	return true;
}

void route_resolve_nexthops(struct route_info *routes, size_t nroutes,
			    const struct nexthop_info *nhs, size_t count)
{
	size_t i, k;

	for (i = 0; i < nroutes; i++) {
		struct route_info *r = &routes[i];
		const struct nexthop_info *nh;
		bool ok = true;

		if (!r->nexthop_object)
			continue;
		nh = find_nexthop(nhs, count, r->nh_id);
		if (!nh)
			continue;
		/*
		 * The object is the truth: with net.ipv4.nexthop_compat_mode
		 * (default 1) the dump also names its devices (RTA_OIF or
		 * RTA_MULTIPATH, fib_dump_info()), with 0 it does not.
		 */
		r->noif = 0;
		r->truncated = false;
		if (nh->blackhole)
			r->type = RTN_BLACKHOLE_NUM;
		if (nh->group) {
			for (k = 0; k < nh->nmembers; k++) {
				const struct nexthop_info *m = find_nexthop(nhs, count,
									     nh->members[k]);

				if (m && m->blackhole)
					continue;
				ok = add_device(r, m) && ok;
			}
			if (nh->truncated)
				r->truncated = true;
		} else {
			ok = add_device(r, nh);
		}
		r->nexthop_object = !ok;
	}
}
