// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/nexthop_query.c on made-up nexthop tables: the parser
 * on RTM_NEWNEXTHOP messages built here (an object with a device, a
 * group, a blackhole, a message without NHA_ID), and routes through
 * nexthop objects resolved into devices, then walked by
 * lib/path_limits.c's rule 6 (a routed tap).  tests/tools-paths.sh checks
 * the same on the kernel's own dump.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/nexthop_query.h"
#include "lib/path_limits.h"
#include "test/check.h"

#define RTN_UNICAST_NUM		1
#define RTN_BLACKHOLE_NUM	6
#define RT_TABLE_MAIN_NUM	254

/* An RTM_NEWNEXTHOP message in @buf: id @id, device @oif (0: none), group members @members. */
static struct nlmsghdr *nexthop_msg(char *buf, uint32_t id, uint32_t oif, bool blackhole,
				    const uint32_t *members, size_t nmembers)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nhmsg *nhm;
	size_t i;

	nlh->nlmsg_type = RTM_NEWNEXTHOP;
	nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	nhm->nh_family = AF_INET;
	if (id)
		mnl_attr_put_u32(nlh, NHA_ID, id);
	if (oif)
		mnl_attr_put_u32(nlh, NHA_OIF, oif);
	if (blackhole)
		mnl_attr_put(nlh, NHA_BLACKHOLE, 0, NULL);
	if (nmembers) {
		struct nexthop_grp grp[ROUTE_MAX_NEXTHOPS + 2];

		memset(grp, 0, sizeof(grp));
		for (i = 0; i < nmembers; i++)
			grp[i].id = members[i];
		mnl_attr_put(nlh, NHA_GROUP, nmembers * sizeof(grp[0]), grp);
	}
	return nlh;
}

static void check_parse(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t members[ROUTE_MAX_NEXTHOPS + 2];
	struct nexthop_info nh;
	size_t i;

	check(!nexthop_info_parse(nexthop_msg(buf, 7, 3, false, NULL, 0), &nh) && nh.id == 7 &&
	      nh.oif == 3 && !nh.group && !nh.blackhole, "parse: an object with a device");
	members[0] = 1;
	members[1] = 2;
	check(!nexthop_info_parse(nexthop_msg(buf, 10, 0, false, members, 2), &nh) &&
	      nh.id == 10 && nh.group && nh.nmembers == 2 && nh.members[0] == 1 &&
	      nh.members[1] == 2 && !nh.truncated, "parse: a group of two");
	for (i = 0; i < ROUTE_MAX_NEXTHOPS + 2; i++)
		members[i] = (uint32_t)i + 1;
	check(!nexthop_info_parse(nexthop_msg(buf, 11, 0, false, members, ROUTE_MAX_NEXTHOPS + 2),
				  &nh) && nh.nmembers == ROUTE_MAX_NEXTHOPS && nh.truncated,
	      "parse: a group larger than followed is truncated");
	check(!nexthop_info_parse(nexthop_msg(buf, 4, 0, true, NULL, 0), &nh) && nh.blackhole &&
	      !nh.oif, "parse: a blackhole");
	check(nexthop_info_parse(nexthop_msg(buf, 0, 3, false, NULL, 0), &nh) == -EINVAL,
	      "parse: no NHA_ID is refused");
}

static struct route_info nh_route(uint8_t a, uint8_t len, uint32_t nh_id)
{
	struct route_info r = { .family = AF_INET, .type = RTN_UNICAST_NUM,
				.table = RT_TABLE_MAIN_NUM, .dst_len = len, .dst = { a },
				.nh_id = nh_id, .nexthop_object = true };

	return r;
}

static void check_resolve(void)
{
	const struct nexthop_info nhs[] = {
		{ .id = 1, .oif = 2 },
		{ .id = 2, .oif = 3 },
		{ .id = 3, .blackhole = true },
		{ .id = 10, .group = true, .members = { 1, 2 }, .nmembers = 2 },
		{ .id = 11, .group = true, .members = { 1, 99 }, .nmembers = 2 },
	};
	struct route_info r[6] = {
		nh_route(198, 24, 1), nh_route(0, 0, 10), nh_route(203, 24, 3),
		nh_route(192, 24, 11), nh_route(10, 8, 42), nh_route(172, 12, 0),
	};
	struct link_info links[4];
	struct link_table t;
	struct path_limits p;
	int i;

	r[5].nexthop_object = false;
	r[5].oif[r[5].noif++] = 1;
	/* nexthop_compat_mode 1: the dump also named the object's device. */
	r[0].oif[r[0].noif++] = 2;
	route_resolve_nexthops(r, 6, nhs, sizeof(nhs) / sizeof(nhs[0]));
	check(!r[0].nexthop_object && r[0].noif == 1 && r[0].oif[0] == 2,
	      "resolve: an object's device, once (also named by the dump)");
	check(!r[1].nexthop_object && r[1].noif == 2 && r[1].oif[0] == 2 && r[1].oif[1] == 3,
	      "resolve: a group's members' devices");
	check(!r[2].nexthop_object && r[2].noif == 0 && r[2].type == RTN_BLACKHOLE_NUM,
	      "resolve: a blackhole object makes a blackhole route");
	check(r[3].nexthop_object, "resolve: a group with an unknown member stays unresolved");
	check(r[4].nexthop_object && r[4].noif == 0, "resolve: an unknown object stays unresolved");
	check(!r[5].nexthop_object && r[5].noif == 1 && r[5].oif[0] == 1,
	      "resolve: a route without an object is left alone");

	/* Rule 6 over the resolved routes: tap (1), eg0 (2, 60000), eg1 (3, 32 segments). */
	memset(links, 0, sizeof(links));
	for (i = 0; i < 3; i++) {
		links[i].ifindex = i + 1;
		links[i].type = 1;
		snprintf(links[i].name, sizeof(links[i].name), "%s", i ? (i == 1 ? "eg0" : "eg1") : "tap0");
		snprintf(links[i].kind, sizeof(links[i].kind), "%s", i ? "veth" : "tun");
	}
	links[1].gso_max_size = 60000;
	links[1].present |= LINK_HAS_GSO_MAX_SIZE;
	links[2].gso_max_segs = 32;
	links[2].present |= LINK_HAS_GSO_MAX_SEGS;
	t = (struct link_table){ .links = links, .count = 3, .routes = r, .nroutes = 3,
				 .routes_known = true };
	path_limits_compute(&t, &links[0], &p);
	check(p.status == PATH_OK && p.max_size == 60000 && p.max_segs == 32 && !p.incomplete &&
	      p.egress_count == 2, "path: routes through objects lead to their devices (%u %u%s)",
	      p.max_size, p.max_segs, p.incomplete ? " incomplete" : "");
	t.nroutes = 5;
	path_limits_compute(&t, &links[0], &p);
	check(p.status == PATH_OK && p.incomplete, "path: an unresolved object is incomplete");
}

int main(void)
{
	check_parse();
	check_resolve();
	return check_exit_status();
}
