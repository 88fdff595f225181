// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/rule_query.c on made-up RTM_NEWRULE messages, as
 * fib_nl_fill_rule() writes them: the three rules every namespace starts
 * with parse as unconditional lookups; a destination prefix is kept; any
 * other selector (source prefix, iif, fwmark, TOS, inverted, a set
 * suppressor) makes the rule conditional; goto targets, VRF rules and
 * drop actions are read.  tests/tools-paths.sh checks the kernel's dump.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/rule_query.h"
#include "test/check.h"

/* An RTM_NEWRULE message in @buf with what every rule carries, no selector. */
static struct nlmsghdr *rule_msg(char *buf, uint8_t family, uint8_t action, uint32_t table,
				 uint32_t prio)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct fib_rule_hdr *frh;

	nlh->nlmsg_type = RTM_NEWRULE;
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = family;
	frh->action = action;
	frh->table = table < 256 ? (uint8_t)table : RT_TABLE_COMPAT;
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	if (prio)
		mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, UINT32_MAX);	/* -1: unset */
	mnl_attr_put_u8(nlh, FRA_PROTOCOL, RTPROT_KERNEL);
	return nlh;
}

static struct fib_rule_hdr *frh_of(struct nlmsghdr *nlh)
{
	return mnl_nlmsg_get_payload(nlh);
}

/* Whether @nlh parses as a rule that is (@want) conditional. */
static bool parses_conditional(const struct nlmsghdr *nlh, bool want)
{
	struct rule_info ri;

	return !rule_info_parse(nlh, &ri) && ri.conditional == want;
}

int main(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rule_info ri;
	uint8_t want[16];

	check(!rule_info_parse(rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 32766), &ri) &&
	      ri.family == AF_INET && ri.action == FR_ACT_TO_TBL && ri.table == RT_TABLE_MAIN &&
	      ri.priority == 32766 && !ri.dst_len && !ri.conditional && !ri.l3mdev,
	      "from all lookup main: table 254, priority 32766, unconditional");
	check(!rule_info_parse(rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_LOCAL, 0), &ri) &&
	      ri.table == RT_TABLE_LOCAL && ri.priority == 0 && !ri.conditional,
	      "from all lookup local: priority 0 (no FRA_PRIORITY)");
	check(!rule_info_parse(rule_msg(buf, AF_INET6, FR_ACT_TO_TBL, 1000, 100), &ri) &&
	      ri.family == AF_INET6 && ri.table == 1000,
	      "IPv6 lookup 1000: FRA_TABLE over the header's RT_TABLE_COMPAT");

	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, 100, 1000);
	frh_of(nlh)->dst_len = 24;
	inet_pton(AF_INET, "192.0.2.0", want);
	mnl_attr_put(nlh, FRA_DST, 4, want);
	check(!rule_info_parse(nlh, &ri) && ri.dst_len == 24 && !memcmp(ri.dst, want, 4) &&
	      !ri.conditional, "to 192.0.2.0/24 lookup 100: the prefix, unconditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, 100, 1000);
	frh_of(nlh)->dst_len = 24;
	check(!rule_info_parse(nlh, &ri) && !ri.dst_len && ri.conditional,
	      "a prefix length without FRA_DST: any destination, conditional");

	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	frh_of(nlh)->src_len = 24;
	check(parses_conditional(nlh, true), "from a prefix: conditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	frh_of(nlh)->flags |= FIB_RULE_INVERT;
	check(parses_conditional(nlh, true), "not from all (inverted): conditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	frh_of(nlh)->tos = 0x10;
	check(parses_conditional(nlh, true), "tos 0x10: conditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_strz(nlh, FRA_IIFNAME, "tap0");
	check(parses_conditional(nlh, true), "iif tap0: conditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_u32(nlh, FRA_FWMARK, 1);
	check(parses_conditional(nlh, true), "fwmark 1: conditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_IFGROUP, 0);
	check(parses_conditional(nlh, true), "suppress_ifgroup 0: conditional");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, 0);
	check(parses_conditional(nlh, true), "suppress_prefixlength 0 (after -1): conditional");

	nlh = rule_msg(buf, AF_INET, FR_ACT_GOTO, 0, 100);
	mnl_attr_put_u32(nlh, FRA_GOTO, 32766);
	check(!rule_info_parse(nlh, &ri) && ri.action == FR_ACT_GOTO && ri.goto_target == 32766,
	      "goto 32766: the target");
	nlh = rule_msg(buf, AF_INET, FR_ACT_TO_TBL, 0, 1000);
	mnl_attr_put_u8(nlh, FRA_L3MDEV, 1);
	check(!rule_info_parse(nlh, &ri) && ri.l3mdev && !ri.conditional, "l3mdev: a VRF rule");
	check(!rule_info_parse(rule_msg(buf, AF_INET, FR_ACT_UNREACHABLE, 0, 100), &ri) &&
	      ri.action == FR_ACT_UNREACHABLE, "unreachable: the action");

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWRULE;
	check(rule_info_parse(nlh, &ri) == -EINVAL, "too short: -EINVAL");
	check(rule_info_parse(rule_msg(buf, AF_UNSPEC, FR_ACT_TO_TBL, 254, 1), &ri) == -EINVAL,
	      "family other than IPv4/IPv6: -EINVAL");
	return check_exit_status();
}
