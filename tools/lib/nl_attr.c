// SPDX-License-Identifier: GPL-2.0-only
#include <sys/socket.h>

#include "nl_attr.h"

const void *nl_inet_header(const struct nlmsghdr *nlh, size_t len)
{
	const uint8_t *hdr = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || mnl_nlmsg_get_payload_len(nlh) < len || !len)
		return NULL;
	return hdr[0] == AF_INET || hdr[0] == AF_INET6 ? hdr : NULL;
}

struct nl_attr_table {
	const enum mnl_attr_data_type *policy;
	uint16_t maxtype;
	const struct nlattr **tb;
};

static int nl_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nl_attr_table *t = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, t->maxtype) < 0 || t->policy[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, t->policy[type]) < 0)
		return MNL_CB_OK;
	t->tb[type] = attr;
	return MNL_CB_OK;
}

void nl_attr_parse(const struct nlmsghdr *nlh, size_t offset,
		   const enum mnl_attr_data_type *policy, uint16_t maxtype,
		   const struct nlattr **tb)
{
	struct nl_attr_table t = { .policy = policy, .maxtype = maxtype, .tb = tb };

	mnl_attr_parse(nlh, (unsigned int)offset, nl_attr_cb, &t);
}
