// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
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

/*
 * IFLA_GSO_IPV4_MAX_SIZE arrived in Linux 6.3, after the uapi headers of
 * Debian 12 (6.1).  Attribute numbers are ABI, so name it ourselves and
 * size the attribute table to hold it whatever the headers say.
 */
#define LINK_IFLA_GSO_IPV4_MAX_SIZE	63
#define LINK_IFLA_MAX	(IFLA_MAX > LINK_IFLA_GSO_IPV4_MAX_SIZE ? \
			 IFLA_MAX : LINK_IFLA_GSO_IPV4_MAX_SIZE)

_Static_assert(IFLA_TSO_MAX_SEGS == 60, "uapi IFLA numbering differs from the ABI");

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type want;

	/* Attributes newer than this table: not ours to read. */
	if (mnl_attr_type_valid(attr, LINK_IFLA_MAX) < 0)
		return MNL_CB_OK;

	switch (type) {
	case IFLA_IFNAME:
		want = MNL_TYPE_NUL_STRING;
		break;
	case IFLA_LINKINFO:
		want = MNL_TYPE_NESTED;
		break;
	case IFLA_MTU:
	case IFLA_MASTER:
	case IFLA_LINK:
	case IFLA_LINK_NETNSID:
	case IFLA_GSO_MAX_SIZE:
	case IFLA_GSO_MAX_SEGS:
	case IFLA_TSO_MAX_SIZE:
	case IFLA_TSO_MAX_SEGS:
	case LINK_IFLA_GSO_IPV4_MAX_SIZE:
		want = MNL_TYPE_U32;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, want) < 0) {
		/* A malformed attribute from the kernel: say so, ignore it. */
		fprintf(stderr, "%s: ignoring malformed link attribute %d: %s\n",
			fail_prog, type, strerror(errno));
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static int linkinfo_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(attr, IFLA_INFO_MAX) < 0)
		return MNL_CB_OK;
	if (mnl_attr_get_type(attr) == IFLA_INFO_KIND &&
	    mnl_attr_validate(attr, MNL_TYPE_STRING) >= 0)
		tb[IFLA_INFO_KIND] = attr;
	if (mnl_attr_get_type(attr) == IFLA_INFO_DATA &&
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) >= 0)
		tb[IFLA_INFO_DATA] = attr;
	return MNL_CB_OK;
}

static int tun_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, IFLA_TUN_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case IFLA_TUN_MULTI_QUEUE:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) >= 0)
			tb[type] = attr;
		break;
	case IFLA_TUN_NUM_QUEUES:
	case IFLA_TUN_NUM_DISABLED_QUEUES:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			tb[type] = attr;
		break;
	}
	return MNL_CB_OK;
}

/* A tun/tap's queue state (tun_fill_info()), when the kernel sends it. */
static void tun_info_from_attr(const struct nlattr *data, struct link_info *li)
{
	const struct nlattr *tb[IFLA_TUN_MAX + 1] = { 0 };

	mnl_attr_parse_nested(data, tun_attr_cb, tb);
	if (tb[IFLA_TUN_MULTI_QUEUE])
		li->tun_multi_queue = mnl_attr_get_u8(tb[IFLA_TUN_MULTI_QUEUE]);
	/* Sent for multi_queue taps only (tun_fill_info()). */
	if (!tb[IFLA_TUN_NUM_QUEUES])
		return;
	li->present |= LINK_HAS_TUN_QUEUES;
	li->tun_num_queues = mnl_attr_get_u32(tb[IFLA_TUN_NUM_QUEUES]);
	if (tb[IFLA_TUN_NUM_DISABLED_QUEUES])
		li->tun_num_disabled_queues = mnl_attr_get_u32(tb[IFLA_TUN_NUM_DISABLED_QUEUES]);
}

static void copy_u32(const struct nlattr *attr, uint32_t *field,
		     unsigned int *present, unsigned int bit)
{
	if (!attr)
		return;
	*field = mnl_attr_get_u32(attr);
	*present |= bit;
}

static void link_info_from_nlh(const struct nlmsghdr *nlh, struct link_info *li)
{
	const struct nlattr *tb[LINK_IFLA_MAX + 1] = { 0 };
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	memset(li, 0, sizeof(*li));
	li->ifindex = ifm->ifi_index;
	li->flags = ifm->ifi_flags;
	li->type = ifm->ifi_type;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, tb);

	if (tb[IFLA_IFNAME])
		snprintf(li->name, sizeof(li->name), "%s", mnl_attr_get_str(tb[IFLA_IFNAME]));
	if (tb[IFLA_LINKINFO]) {
		const struct nlattr *info[IFLA_INFO_MAX + 1] = { 0 };

		mnl_attr_parse_nested(tb[IFLA_LINKINFO], linkinfo_attr_cb, info);
		if (info[IFLA_INFO_KIND]) {
			/* The kind is not always NUL-terminated: copy by length. */
			size_t len = mnl_attr_get_payload_len(info[IFLA_INFO_KIND]);
			const char *kind = mnl_attr_get_payload(info[IFLA_INFO_KIND]);

			if (len >= sizeof(li->kind))
				len = sizeof(li->kind) - 1;
			memcpy(li->kind, kind, len);
			li->kind[len] = '\0';
		}
		if (info[IFLA_INFO_DATA] && !strcmp(li->kind, "tun"))
			tun_info_from_attr(info[IFLA_INFO_DATA], li);
	}
	if (tb[IFLA_MASTER])
		li->master = mnl_attr_get_u32(tb[IFLA_MASTER]);
	if (tb[IFLA_LINK])
		li->lower = mnl_attr_get_u32(tb[IFLA_LINK]);
	li->lower_in_other_netns = tb[IFLA_LINK_NETNSID] != NULL;

	copy_u32(tb[IFLA_MTU], &li->mtu, &li->present, LINK_HAS_MTU);
	copy_u32(tb[IFLA_GSO_MAX_SIZE], &li->gso_max_size, &li->present,
		 LINK_HAS_GSO_MAX_SIZE);
	copy_u32(tb[IFLA_GSO_MAX_SEGS], &li->gso_max_segs, &li->present,
		 LINK_HAS_GSO_MAX_SEGS);
	copy_u32(tb[LINK_IFLA_GSO_IPV4_MAX_SIZE], &li->gso_ipv4_max_size, &li->present,
		 LINK_HAS_GSO_IPV4_MAX_SIZE);
	copy_u32(tb[IFLA_TSO_MAX_SIZE], &li->tso_max_size, &li->present,
		 LINK_HAS_TSO_MAX_SIZE);
	copy_u32(tb[IFLA_TSO_MAX_SEGS], &li->tso_max_segs, &li->present,
		 LINK_HAS_TSO_MAX_SEGS);
}

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

/* Send @nlh and run @cb over the replies until the ACK or the dump's end. */
static int link_query_run(struct link_query *q, struct nlmsghdr *nlh,
			  mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0)
		fail_errno("mnl_socket_sendto");
	for (;;) {
		len = mnl_socket_recvfrom(q->nl, buf, sizeof(buf));
		if (len < 0)
			fail_errno("mnl_socket_recvfrom");
		ret = mnl_cb_run(buf, len, seq, q->portid, cb, data);
		if (ret < 0)
			return -errno;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static int link_one_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWLINK)
		link_info_from_nlh(nlh, data);
	return MNL_CB_OK;
}

static struct nlmsghdr *link_request(struct link_query *q, char *buf, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++q->seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	return nlh;
}

static int link_query_one(struct link_query *q, const char *name, int ifindex,
			  struct link_info *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_request(q, buf, NLM_F_ACK);
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	int ret;

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

struct link_list {
	struct link_info *links;
	size_t count;
	size_t cap;
};

static int link_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_list *list = data;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	if (list->count == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 16;
		struct link_info *links = realloc(list->links, cap * sizeof(*links));

		if (!links)
			fail_errno("realloc");
		list->links = links;
		list->cap = cap;
	}
	link_info_from_nlh(nlh, &list->links[list->count++]);
	return MNL_CB_OK;
}

int link_query_dump(struct link_query *q, struct link_info **links, size_t *count)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_request(q, buf, NLM_F_DUMP);
	struct link_list list = { 0 };
	int ret;

	ret = link_query_run(q, nlh, link_dump_cb, &list);
	if (ret) {
		free(list.links);
		return ret;
	}
	*links = list.links;
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
