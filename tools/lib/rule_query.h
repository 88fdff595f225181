/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only rtnetlink policy rule queries (RTM_GETRULE) for the routed
 * path rule (lib/path_limits.c): whether any rule beyond the three every
 * namespace starts with (`from all lookup local|main|default`) exists.
 * The routes alone then do not say which table a forwarded packet uses,
 * so the path is marked incomplete instead of giving a wrong limit.
 */
#ifndef GSO_TOOLS_RULE_QUERY_H
#define GSO_TOOLS_RULE_QUERY_H

#include <stdbool.h>

struct link_query;
struct nlmsghdr;

/*
 * Whether one RTM_NEWRULE message is a default rule: action "to table"
 * local, main or default, no selector (no prefix, TOS, device, mark,
 * port, UID range ...), not inverted.  Pure: no socket.
 */
bool rule_is_default(const struct nlmsghdr *nlh);

/*
 * Set @present when the current namespace has an IPv4 or IPv6 rule that
 * is not a default one.  0 or -errno.
 */
int rule_query_policy(struct link_query *q, bool *present);

#endif
