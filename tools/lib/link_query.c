// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fail.h"
#include "link_query.h"
#include "nl_batch.h"
#include "nl_dump.h"

/*
 * Receive buffer: a dump message batch is up to 32 KiB (the kernel's
 * netlink_dump() allocates max(16 KiB, the reader's buffer) up to 32 KiB),
 * and a recvmsg() into a smaller buffer truncates it (MSG_TRUNC).  libmnl
 * 1.0.5 names it MNL_SOCKET_DUMP_SIZE; Debian 12's 1.0.4 does not.
 */
#ifndef MNL_SOCKET_DUMP_SIZE
#define MNL_SOCKET_DUMP_SIZE	32768
#endif

#ifndef RTEXT_FILTER_SKIP_STATS
#define RTEXT_FILTER_SKIP_STATS	(1 << 3)
#endif

void link_query_init(struct link_query *q)
{
	q->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!q->nl)
		fail_errno("mnl_socket_open");
	if (mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		fail_errno("mnl_socket_bind");
	q->portid = mnl_socket_get_portid(q->nl);
	q->seq = (unsigned int)time(NULL);
}

void link_query_fini(struct link_query *q)
{
	if (q->nl)
		mnl_socket_close(q->nl);
	q->nl = NULL;
}

/* Whether the @len bytes at @buf hold the end of dump @seq (NLMSG_DONE, or an error). */
static bool holds_dump_end(const char *buf, size_t len, unsigned int seq)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int left = (int)len;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left))
		if (nlh->nlmsg_seq == seq &&
		    (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR))
			return true;
	return false;
}

/*
 * Send @nlh and run @cb over the replies until the ACK or the dump's end.
 * 0 or -errno; -EINTR: the dump was interrupted by a change (libmnl's
 * mnl_cb_run() reports NLM_F_DUMP_INTR so).  The rest of an interrupted
 * dump is read and dropped here, so the caller can ask again on the same
 * socket (which stays in the network namespace it was opened in).
 */
static int link_query_run(struct link_query *q, struct nlmsghdr *nlh,
			  mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_DUMP_SIZE];
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0)
		fail_errno("mnl_socket_sendto");
	for (;;) {
		len = mnl_socket_recvfrom(q->nl, buf, sizeof(buf));
		if (len < 0)
			fail_errno("mnl_socket_recvfrom");
		if (!nl_batch_ok(buf, (size_t)len))
			return -EBADMSG;
		ret = mnl_cb_run(buf, (size_t)len, seq, q->portid, cb, data);
		if (ret < 0 && errno == EINTR)
			break;
		if (ret < 0)
			return -errno;
		if (ret == MNL_CB_STOP)
			return 0;
	}
	while (!holds_dump_end(buf, (size_t)len, seq)) {
		len = mnl_socket_recvfrom(q->nl, buf, sizeof(buf));
		if (len < 0)
			fail_errno("mnl_socket_recvfrom");
		if (!nl_batch_ok(buf, (size_t)len))
			return -EBADMSG;
	}
	return -EINTR;
}

static int link_one_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWLINK && link_info_parse(nlh, data))
		memset(data, 0, sizeof(struct link_info));
	return MNL_CB_OK;
}

/*
 * RTM_GETLINK without the statistics (RTEXT_FILTER_SKIP_STATS): a third of
 * each reply.  A dump's request, or with NLM_F_ACK one link's.
 */
static struct nlmsghdr *link_request(char *buf, uint16_t flags)
{
	struct nlmsghdr *nlh = nl_dump_request(buf, RTM_GETLINK, sizeof(struct ifinfomsg),
					       AF_UNSPEC);

	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nlh;
}

static int link_query_one(struct link_query *q, const char *name, int ifindex,
			  struct link_info *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_request(buf, NLM_F_ACK);
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	int ret;

	nlh->nlmsg_seq = ++q->seq;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	else
		ifm->ifi_index = ifindex;
	out->ifindex = 0;
	ret = link_query_run(q, nlh, link_one_cb, out);
	if (!ret && !out->ifindex)
		ret = -ENODEV;
	return ret;
}

int link_query_by_name(struct link_query *q, const char *name, struct link_info *out)
{
	if (!name[0] || strlen(name) >= IF_NAMESIZE)
		return -EINVAL;
	return link_query_one(q, name, 0, out);
}

int link_query_by_index(struct link_query *q, int ifindex, struct link_info *out)
{
	if (ifindex <= 0)
		return -EINVAL;
	return link_query_one(q, NULL, ifindex, out);
}

/* A message too short for a link is skipped, not half-read (lib/nl_dump.h). */
static int link_parse_item(const struct nlmsghdr *nlh, void *item)
{
	return link_info_parse(nlh, item);
}

int link_query_request(struct link_query *q, struct nlmsghdr *nlh,
		       int (*cb)(const struct nlmsghdr *nlh, void *data), void *data)
{
	return link_query_run(q, nlh, cb, data);
}

int link_query_dump(struct link_query *q, struct link_info **links, size_t *count)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nl_dump_array list = { .msg_type = RTM_NEWLINK, .item_size = sizeof(**links),
				      .parse = link_parse_item };
	int ret;

	ret = nl_dump_collect(q, link_request(buf, NLM_F_DUMP), &list);
	if (ret) {
		free(list.items);
		return ret;
	}
	*links = list.items;
	*count = list.count;
	return 0;
}

#define LINK_FIELD(name, bit) { #name, bit, offsetof(struct link_info, name) }

const struct link_field link_fields[] = {
	LINK_FIELD(mtu, LINK_HAS_MTU),
	LINK_FIELD(gso_max_size, LINK_HAS_GSO_MAX_SIZE),
	LINK_FIELD(gso_max_segs, LINK_HAS_GSO_MAX_SEGS),
	LINK_FIELD(tso_max_size, LINK_HAS_TSO_MAX_SIZE),
	LINK_FIELD(tso_max_segs, LINK_HAS_TSO_MAX_SEGS),
	LINK_FIELD(gso_ipv4_max_size, LINK_HAS_GSO_IPV4_MAX_SIZE),
};

const size_t link_fields_count = sizeof(link_fields) / sizeof(link_fields[0]);
