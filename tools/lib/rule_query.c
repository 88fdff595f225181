// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTM_GETRULE dumps into struct rule_info (lib/rule_query.h), on the
 * socket of a struct link_query.  What a rule carries in a dump is what
 * fib_nl_fill_rule() puts: FRA_TABLE, FRA_PRIORITY, FRA_PROTOCOL and the
 * two suppressors always (a suppressor at -1 is unset), FRA_GOTO for a
 * goto, FRA_DST for a destination prefix, FRA_L3MDEV for a VRF rule, and
 * each other attribute only when that selector is set.  So any attribute
 * not named here is a selector, including ones newer than this code: it
 * makes the rule conditional, which the evaluation treats conservatively.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "link_query.h"
#include "nl_attr.h"
#include "nl_dump.h"
#include "rule_query.h"

struct rule_scan {
	struct rule_info *ri;
	size_t addr_len;
	bool dst_ok;
};

static bool u32_attr(const struct nlattr *attr, uint32_t *out)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return false;
	*out = mnl_attr_get_u32(attr);
	return true;
}

static int rule_attr_cb(const struct nlattr *attr, void *data)
{
	struct rule_scan *s = data;
	struct rule_info *ri = s->ri;
	uint32_t v;

	switch (mnl_attr_get_type(attr)) {
	case FRA_TABLE:
		if (u32_attr(attr, &v))
			ri->table = v;
		break;
	case FRA_PRIORITY:
		if (u32_attr(attr, &v))
			ri->priority = v;
		break;
	case FRA_GOTO:
		if (u32_attr(attr, &v))
			ri->goto_target = v;
		break;
	case FRA_DST:
		s->dst_ok = mnl_attr_get_payload_len(attr) == s->addr_len;
		if (s->dst_ok)
			memcpy(ri->dst, mnl_attr_get_payload(attr), s->addr_len);
		break;
	case FRA_L3MDEV:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0 || !mnl_attr_get_u8(attr))
			ri->conditional = true;
		else
			ri->l3mdev = true;
		break;
	case FRA_PROTOCOL:	/* who added the rule: no effect on matching */
	case FRA_PAD:
		break;
	case FRA_SUPPRESS_PREFIXLEN:
	case FRA_SUPPRESS_IFGROUP:
		/* Set, it refuses some of the table's answers and the walk goes on. */
		if (!u32_attr(attr, &v) || v != UINT32_MAX)
			ri->conditional = true;
		break;
	default:
		ri->conditional = true;
	}
	return MNL_CB_OK;
}

int rule_info_parse(const struct nlmsghdr *nlh, struct rule_info *ri)
{
	const struct fib_rule_hdr *frh = nl_inet_header(nlh, sizeof(*frh));
	struct rule_scan s = { .ri = ri };

	memset(ri, 0, sizeof(*ri));
	if (!frh)
		return -EINVAL;
	ri->family = frh->family;
	ri->action = frh->action;
	ri->table = frh->table;
	s.addr_len = ri->family == AF_INET ? 4 : 16;
	mnl_attr_parse(nlh, sizeof(*frh), rule_attr_cb, &s);
	ri->dst_len = frh->dst_len > s.addr_len * 8 ? (uint8_t)(s.addr_len * 8) : frh->dst_len;
	if (ri->dst_len && !s.dst_ok) {
		/* A prefix length without its address: the rule may match anything. */
		ri->dst_len = 0;
		ri->conditional = true;
	}
	if (frh->src_len || frh->tos || (frh->flags & FIB_RULE_INVERT))
		ri->conditional = true;
	return 0;
}

static int rule_parse_item(const struct nlmsghdr *nlh, void *item)
{
	return rule_info_parse(nlh, item);
}

/*
 * A kernel built without policy routing (no CONFIG_FIB_RULES) has no
 * RTM_GETRULE handler and refuses the dump with EOPNOTSUPP; one without
 * IPv6 refuses the IPv6 dump with EAFNOSUPPORT.  Either way that family
 * has no rules: the kernel looks up its tables without them.
 */
static int rule_dump_family(struct link_query *q, unsigned char family, struct nl_dump_array *d)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	ret = nl_dump_collect(q, nl_dump_request(buf, RTM_GETRULE, sizeof(struct fib_rule_hdr),
						 family), d);
	return ret == -EOPNOTSUPP || ret == -EAFNOSUPPORT ? 0 : ret;
}

int rule_query_dump(struct link_query *q, struct rule_info **rules, size_t *count)
{
	struct nl_dump_array list = { .msg_type = RTM_NEWRULE, .item_size = sizeof(**rules),
				      .parse = rule_parse_item };
	int ret;

	ret = rule_dump_family(q, AF_INET, &list);
	if (!ret)
		ret = rule_dump_family(q, AF_INET6, &list);
	if (ret) {
		free(list.items);
		return ret;
	}
	*rules = list.items;
	*count = list.count;
	return 0;
}
