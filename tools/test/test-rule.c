// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/rule_query.c on made-up RTM_NEWRULE messages: the
 * three rules every namespace starts with are defaults; a rule to another
 * table, a selector (source prefix, iif, fwmark), an inverted rule or
 * another action (blackhole, unreachable, prohibit) is not.
 * tests/tools-paths.sh checks the same on the kernel's own dump.
 */
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/rule_query.h"
#include "test/check.h"

/* An RTM_NEWRULE message in @buf as fib_nl_fill_rule() writes it, no selector. */
static struct nlmsghdr *rule_msg(char *buf, uint8_t action, uint32_t table, uint32_t prio)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct fib_rule_hdr *frh;

	nlh->nlmsg_type = RTM_NEWRULE;
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = AF_INET;
	frh->action = action;
	frh->table = table < 256 ? (uint8_t)table : RT_TABLE_COMPAT;
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	if (prio)
		mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, UINT32_MAX);	/* -1: unset */
	mnl_attr_put_u8(nlh, FRA_PROTOCOL, RTPROT_KERNEL);
	return nlh;
}

int main(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	check(rule_is_default(rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_LOCAL, 0)), "default: local");
	check(rule_is_default(rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_MAIN, 32766)), "default: main");
	check(rule_is_default(rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_DEFAULT, 32767)),
	      "default: default");
	check(!rule_is_default(rule_msg(buf, FR_ACT_TO_TBL, 100, 32765)), "table 100: not default");
	check(!rule_is_default(rule_msg(buf, FR_ACT_TO_TBL, 1000, 32765)),
	      "table 1000: not default");
	check(!rule_is_default(rule_msg(buf, FR_ACT_BLACKHOLE, 0, 100)), "blackhole: not default");
	check(!rule_is_default(rule_msg(buf, FR_ACT_UNREACHABLE, 0, 100)),
	      "unreachable: not default");
	check(!rule_is_default(rule_msg(buf, FR_ACT_PROHIBIT, 0, 100)), "prohibit: not default");
	nlh = rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	((struct fib_rule_hdr *)mnl_nlmsg_get_payload(nlh))->src_len = 24;
	check(!rule_is_default(nlh), "from a prefix lookup main: not default");
	nlh = rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	((struct fib_rule_hdr *)mnl_nlmsg_get_payload(nlh))->flags |= FIB_RULE_INVERT;
	check(!rule_is_default(nlh), "not from all (inverted): not default");
	nlh = rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_strz(nlh, FRA_IIFNAME, "tap0");
	check(!rule_is_default(nlh), "iif tap0 lookup main: not default");
	nlh = rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_u32(nlh, FRA_FWMARK, 1);
	check(!rule_is_default(nlh), "fwmark lookup main: not default");
	nlh = rule_msg(buf, FR_ACT_TO_TBL, RT_TABLE_MAIN, 100);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_IFGROUP, 0);
	check(!rule_is_default(nlh), "lookup main suppress_ifgroup 0: not default");
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWRULE;
	check(!rule_is_default(nlh), "too short: not default");
	return check_exit_status();
}
