// SPDX-License-Identifier: GPL-2.0-only
/*
 * An RTM_NEWLINK message into a struct link_info.  Pure (no socket), so
 * that the fuzzer (fuzz/fuzz-link-parse.c) feeds it arbitrary messages:
 * the kernel is trusted to send well-formed ones, the parser is not
 * trusted to need that.
 */
#include <errno.h>
#include <sys/socket.h>
#include <stddef.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>

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
		static bool warned;

		/* A malformed attribute from the kernel: say so (once), ignore it. */
		if (!warned)
			fprintf(stderr, "%s: ignoring malformed link attribute %d: %s\n",
				fail_prog, type, strerror(errno));
		warned = true;
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
	if (mnl_attr_get_type(attr) == IFLA_INFO_SLAVE_KIND &&
	    mnl_attr_validate(attr, MNL_TYPE_STRING) >= 0)
		tb[IFLA_INFO_SLAVE_KIND] = attr;
	return MNL_CB_OK;
}

/* A string attribute into @dst, by length: the kernel's kinds are not always NUL-terminated. */
static void copy_kind(const struct nlattr *attr, char *dst, size_t size)
{
	size_t len = mnl_attr_get_payload_len(attr);

	if (len >= size)
		len = size - 1;
	memcpy(dst, mnl_attr_get_payload(attr), len);
	dst[len] = '\0';
}

/*
 * The attributes of a UDP tunnel (vxlan, geneve) that place its underlay:
 * the numbering differs per kind, so the table is filled by attribute
 * number and read by tunnel_info_from_attr().
 */
struct tunnel_attrs {
	int link, remote4, remote6, local4, local6, external;	/* attribute numbers, 0: none */
	const struct nlattr *tb[32];
};

static int tunnel_attr_cb(const struct nlattr *attr, void *data)
{
	struct tunnel_attrs *ta = data;
	int type = mnl_attr_get_type(attr);
	size_t len = mnl_attr_get_payload_len(attr);
	bool ok;

	if (type <= 0 || type >= (int)(sizeof(ta->tb) / sizeof(ta->tb[0])))
		return MNL_CB_OK;
	if (type == ta->link)
		ok = mnl_attr_validate(attr, MNL_TYPE_U32) >= 0;
	else if (type == ta->remote4 || type == ta->local4)
		ok = len == 4;
	else if (type == ta->remote6 || type == ta->local6)
		ok = len == 16;
	else if (type == ta->external)
		ok = mnl_attr_validate(attr, MNL_TYPE_U8) >= 0 || len == 0;
	else
		ok = false;
	if (ok)
		ta->tb[type] = attr;
	return MNL_CB_OK;
}

static void tunnel_info_from_attr(const struct nlattr *data, struct link_info *li,
				  struct tunnel_attrs *ta)
{
	const struct nlattr *remote;

	mnl_attr_parse_nested(data, tunnel_attr_cb, ta);
	if (ta->link && ta->tb[ta->link])
		li->tunnel_link = (int)mnl_attr_get_u32(ta->tb[ta->link]);
	/* A flag in some kernels, a u8 in others (vxlan_fill_info(): nla_put_u8). */
	if (ta->tb[ta->external])
		li->tunnel_external = !mnl_attr_get_payload_len(ta->tb[ta->external]) ||
				      mnl_attr_get_u8(ta->tb[ta->external]);
	remote = ta->remote6 ? ta->tb[ta->remote6] : NULL;
	if (!remote)
		remote = ta->tb[ta->remote4];
	/* The family: the remote's (its length, checked in tunnel_attr_cb()), else the local's. */
	if (remote)
		li->tunnel_family = mnl_attr_get_payload_len(remote) == 16 ? AF_INET6 : AF_INET;
	else if (ta->local6 && ta->tb[ta->local6])
		li->tunnel_family = AF_INET6;
	else if (ta->local4 && ta->tb[ta->local4])
		li->tunnel_family = AF_INET;
	if (remote) {
		memcpy(li->tunnel_remote, mnl_attr_get_payload(remote),
		       mnl_attr_get_payload_len(remote));
		li->tunnel_remote_known = true;
	}
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

int link_info_parse(const struct nlmsghdr *nlh, struct link_info *li)
{
	const struct nlattr *tb[LINK_IFLA_MAX + 1] = { 0 };
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	memset(li, 0, sizeof(*li));
	/* The fixed header first: a shorter message has no link in it. */
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm))
		return -EINVAL;
	li->ifindex = ifm->ifi_index;
	li->flags = ifm->ifi_flags;
	li->type = ifm->ifi_type;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, tb);

	if (tb[IFLA_IFNAME])
		snprintf(li->name, sizeof(li->name), "%s", mnl_attr_get_str(tb[IFLA_IFNAME]));
	if (tb[IFLA_LINKINFO]) {
		const struct nlattr *info[IFLA_INFO_MAX + 1] = { 0 };

		mnl_attr_parse_nested(tb[IFLA_LINKINFO], linkinfo_attr_cb, info);
		if (info[IFLA_INFO_KIND])
			copy_kind(info[IFLA_INFO_KIND], li->kind, sizeof(li->kind));
		if (info[IFLA_INFO_SLAVE_KIND])
			copy_kind(info[IFLA_INFO_SLAVE_KIND], li->slave_kind, sizeof(li->slave_kind));
		if (info[IFLA_INFO_DATA] && !strcmp(li->kind, "tun"))
			tun_info_from_attr(info[IFLA_INFO_DATA], li);
		if (info[IFLA_INFO_DATA] && !strcmp(li->kind, "vxlan")) {
			struct tunnel_attrs ta = {
				.link = IFLA_VXLAN_LINK, .remote4 = IFLA_VXLAN_GROUP,
				.remote6 = IFLA_VXLAN_GROUP6, .local4 = IFLA_VXLAN_LOCAL,
				.local6 = IFLA_VXLAN_LOCAL6, .external = IFLA_VXLAN_COLLECT_METADATA,
			};

			tunnel_info_from_attr(info[IFLA_INFO_DATA], li, &ta);
		}
		if (info[IFLA_INFO_DATA] && !strcmp(li->kind, "geneve")) {
			/* Geneve has no underlay link: the route to the remote decides. */
			struct tunnel_attrs ta = {
				.remote4 = IFLA_GENEVE_REMOTE, .remote6 = IFLA_GENEVE_REMOTE6,
				.external = IFLA_GENEVE_COLLECT_METADATA,
			};

			tunnel_info_from_attr(info[IFLA_INFO_DATA], li, &ta);
		}
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
	return li->ifindex > 0 ? 0 : -EINVAL;
}
