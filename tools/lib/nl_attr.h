/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One rtnetlink message's family header checked, and its netlink
 * attributes into a table by type, driven by a policy
 * array as the kernel's struct nla_policy arrays drive nla_parse(): one
 * attribute callback (libmnl's examples/rtnl idiom: skip types newer than
 * the headers, mnl_attr_validate() each kept one) for every parser that
 * only picks attributes, instead of a switch statement per message type.
 */
#ifndef GSO_TOOLS_NL_ATTR_H
#define GSO_TOOLS_NL_ATTR_H

#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The family header of @nlh, @len bytes, if the message holds it and the
 * family (its first byte in every rtnetlink header) is IPv4 or IPv6; NULL
 * otherwise: the route and rule parsers read nothing else.
 */
const void *nl_inet_header(const struct nlmsghdr *nlh, size_t len);

/*
 * Fill @tb (@maxtype + 1 slots, zeroed by the caller) with the attributes
 * of @nlh that follow its @offset bytes of family header.  @policy has
 * @maxtype + 1 entries, indexed by attribute type: MNL_TYPE_UNSPEC (an
 * entry left out) skips the type, any other is what mnl_attr_validate()
 * checks (MNL_TYPE_BINARY: any payload).  An attribute that fails the
 * check is skipped, as one of a type above @maxtype is: a malformed
 * attribute is never half-read.
 */
void nl_attr_parse(const struct nlmsghdr *nlh, size_t offset,
		   const enum mnl_attr_data_type *policy, uint16_t maxtype,
		   const struct nlattr **tb);

#endif
