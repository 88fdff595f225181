// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTM_GETRULE dumps (lib/rule_query.h), on the socket of a struct
 * link_query.  The defaults are what fib_default_rules_init() and
 * fib6_rules_net_init() install; the attributes such a rule carries in a
 * dump are those fib_nl_fill_rule() always puts (FRA_TABLE, FRA_PRIORITY,
 * FRA_PROTOCOL, FRA_SUPPRESS_PREFIXLEN at -1: unset); any other one, or a
 * suppressor that is set, is a selector or an action of its own.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "link_query.h"
#include "nl_dump.h"
#include "rule_query.h"

struct rule_scan {
	bool other_attr;
	uint32_t table;
};

static int rule_attr_cb(const struct nlattr *attr, void *data)
{
	struct rule_scan *s = data;

	switch (mnl_attr_get_type(attr)) {
	case FRA_TABLE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			s->table = mnl_attr_get_u32(attr);
		break;
	case FRA_PRIORITY:
	case FRA_PROTOCOL:
		break;
	case FRA_SUPPRESS_PREFIXLEN:
	case FRA_SUPPRESS_IFGROUP:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0 || mnl_attr_get_u32(attr) != UINT32_MAX)
			s->other_attr = true;
		break;
	default:
		s->other_attr = true;
	}
	return MNL_CB_OK;
}

bool rule_is_default(const struct nlmsghdr *nlh)
{
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	struct rule_scan s = { 0 };

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || mnl_nlmsg_get_payload_len(nlh) < sizeof(*frh))
		return false;
	s.table = frh->table;
	mnl_attr_parse(nlh, sizeof(*frh), rule_attr_cb, &s);
	return frh->action == FR_ACT_TO_TBL && !frh->src_len && !frh->dst_len && !frh->tos &&
	       !(frh->flags & FIB_RULE_INVERT) && !s.other_attr &&
	       (s.table == RT_TABLE_LOCAL || s.table == RT_TABLE_MAIN ||
		s.table == RT_TABLE_DEFAULT);
}

static int rule_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	bool *present = data;

	if (nlh->nlmsg_type == RTM_NEWRULE && !rule_is_default(nlh))
		*present = true;
	return MNL_CB_OK;
}

static void rule_dump_restart(void *data)
{
	*(bool *)data = false;
}

static int rule_dump_family(struct link_query *q, unsigned char family, bool *present)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	bool found = false;
	int ret;

	ret = nl_dump_retry(q, nl_dump_request(buf, RTM_GETRULE, sizeof(struct fib_rule_hdr),
					       family),
			    rule_dump_cb, &found, rule_dump_restart);
	if (!ret && found)
		*present = true;
	return ret;
}

/*
 * A kernel built without policy routing (no CONFIG_FIB_RULES: the
 * project's own guest and host-VM kernel, many embedded ones) has no
 * RTM_GETRULE handler and refuses the dump with EOPNOTSUPP; one without
 * IPv6 refuses the IPv6 dump with EAFNOSUPPORT.  Either way that family
 * has no rules beyond the implicit local and main tables.
 */
static int rule_dump_or_none(struct link_query *q, unsigned char family, bool *present)
{
	int ret = rule_dump_family(q, family, present);

	return ret == -EOPNOTSUPP || ret == -EAFNOSUPPORT ? 0 : ret;
}

int rule_query_policy(struct link_query *q, bool *present)
{
	int ret;

	*present = false;
	ret = rule_dump_or_none(q, AF_INET, present);
	if (!ret)
		ret = rule_dump_or_none(q, AF_INET6, present);
	return ret;
}
