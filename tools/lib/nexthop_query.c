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

#include "fail.h"
#include "link_query.h"
#include "nexthop_query.h"

#define NEXTHOP_DUMP_TRIES	8
#define RTN_BLACKHOLE_NUM	6

static int nexthop_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NHA_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case NHA_ID:
	case NHA_OIF:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_OK;
		break;
	case NHA_BLACKHOLE:
	case NHA_GROUP:
		break;
	default:
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

int nexthop_info_parse(const struct nlmsghdr *nlh, struct nexthop_info *nh)
{
	const struct nlattr *tb[NHA_MAX + 1] = { 0 };

	memset(nh, 0, sizeof(*nh));
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nhmsg))
		return -EINVAL;
	mnl_attr_parse(nlh, sizeof(struct nhmsg), nexthop_attr_cb, tb);
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

struct nexthop_list {
	struct nexthop_info *nhs;
	size_t count, cap;
};

static int nexthop_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nexthop_list *list = data;

	if (nlh->nlmsg_type != RTM_NEWNEXTHOP)
		return MNL_CB_OK;
	if (list->count == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 16;
		struct nexthop_info *nhs = realloc(list->nhs, cap * sizeof(*nhs));

		if (!nhs)
			fail_errno("realloc");
		list->nhs = nhs;
		list->cap = cap;
	}
	if (!nexthop_info_parse(nlh, &list->nhs[list->count]))
		list->count++;
	return MNL_CB_OK;
}

int nexthop_query_dump(struct link_query *q, struct nexthop_info **nhs, size_t *count)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nexthop_list list = { 0 };
	int ret = -EINTR, tries;

	for (tries = 0; tries < NEXTHOP_DUMP_TRIES && ret == -EINTR; tries++) {
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct nhmsg *nhm;

		nlh->nlmsg_type = RTM_GETNEXTHOP;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		nlh->nlmsg_seq = ++q->seq;
		nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
		nhm->nh_family = AF_UNSPEC;
		list.count = 0;
		ret = link_query_request(q, nlh, nexthop_dump_cb, &list);
	}
	/* A kernel without nexthop objects (before 5.3) has none to use. */
	if (ret == -EOPNOTSUPP)
		ret = 0;
	if (ret) {
		free(list.nhs);
		return ret;
	}
	*nhs = list.nhs;
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
