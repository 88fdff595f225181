// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rtnetlink link parser (lib/link_parse.c) on arbitrary netlink
 * buffers, as the dump loop hands them to it: mnl_cb_run() splits the
 * buffer into messages (after nl_batch_ok(): libmnl 1.0.4 walks off a
 * buffer whose message claims 2^31 bytes or more; crash-* in the corpus),
 * link_info_parse() reads each RTM_NEWLINK, route_info_parse()
 * (lib/route_query.c) each RTM_NEWROUTE, nexthop_info_parse()
 * (lib/nexthop_query.c) each RTM_NEWNEXTHOP, rule_info_parse()
 * (lib/rule_query.c) each RTM_NEWRULE.
 */
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "fuzz/fuzz_input.h"
#include "lib/link_query.h"
#include "lib/nexthop_query.h"
#include "lib/nl_batch.h"
#include "lib/route_query.h"
#include "lib/rule_query.h"

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_info li;
	size_t i;

	(void)data;
	if (nlh->nlmsg_type == RTM_NEWROUTE) {
		struct route_info ri;

		if (!route_info_parse(nlh, &ri)) {
			fuzz_assert(ri.noif <= ROUTE_MAX_NEXTHOPS);
			fuzz_assert(ri.dst_len <= (ri.family == AF_INET ? 32 : 128));
		}
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type == RTM_NEWRULE) {
		struct rule_info ru;

		if (!rule_info_parse(nlh, &ru))
			fuzz_assert(ru.dst_len <= (ru.family == AF_INET ? 32 : 128));
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type == RTM_NEWNEXTHOP) {
		struct nexthop_info nh;

		if (!nexthop_info_parse(nlh, &nh))
			fuzz_assert(nh.nmembers <= ROUTE_MAX_NEXTHOPS);
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK || link_info_parse(nlh, &li))
		return MNL_CB_OK;
	fuzz_assert(li.ifindex > 0);
	fuzz_assert(memchr(li.name, '\0', sizeof(li.name)) != NULL);
	fuzz_assert(memchr(li.kind, '\0', sizeof(li.kind)) != NULL);
	fuzz_assert(memchr(li.slave_kind, '\0', sizeof(li.slave_kind)) != NULL);
	for (i = 0; i < link_fields_count; i++)
		if (li.present & link_fields[i].present_bit)
			(void)link_field_value(&li, &link_fields[i]);
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* As link_query_run() does; seq and port 0: mnl_cb_run() checks neither. */
	if (nl_batch_ok(data, size))
		mnl_cb_run(data, size, 0, 0, link_cb, NULL);
	return 0;
}
