/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only rtnetlink link queries (RTM_GETLINK) for the gso-* tools.
 *
 * One place that turns a link's netlink attributes into a struct, so
 * gso-linkinfo, gso-probe and later tools read the GSO/TSO limits the
 * same way.  Queries only: a probe must never change the state it
 * measures.  Parsing follows libmnl's examples/rtnl/rtnl-link-dump.c: one
 * attribute callback, mnl_attr_validate() on each attribute, attribute
 * types newer than we know skipped.
 */
#ifndef GSO_TOOLS_LINK_QUERY_H
#define GSO_TOOLS_LINK_QUERY_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct mnl_socket;
struct nlmsghdr;

/* Which optional fields of struct link_info the kernel sent. */
enum link_present {
	LINK_HAS_MTU			= 1u << 0,
	LINK_HAS_GSO_MAX_SIZE		= 1u << 1,
	LINK_HAS_GSO_MAX_SEGS		= 1u << 2,
	LINK_HAS_GSO_IPV4_MAX_SIZE	= 1u << 3,
	LINK_HAS_TSO_MAX_SIZE		= 1u << 4,
	LINK_HAS_TSO_MAX_SEGS		= 1u << 5,
	LINK_HAS_TUN_QUEUES		= 1u << 6,	/* tun_num_* (multi_queue taps only) */
};

struct link_info {
	int ifindex;
	unsigned int flags;		/* IFF_* from ifinfomsg */
	unsigned int type;		/* ARPHRD_* from ifinfomsg: a tap is ETHER, a tun NONE */
	char name[IF_NAMESIZE];
	char kind[32];			/* IFLA_INFO_KIND ("bridge", "veth", "tun"), or "" */
	int master;			/* IFLA_MASTER ifindex, 0: none */
	int lower;			/* IFLA_LINK ifindex, 0: none (== ifindex: self) */
	bool lower_in_other_netns;	/* IFLA_LINK_NETNSID sent: lower is not ours */
	unsigned int present;		/* enum link_present bits */
	uint32_t mtu;
	uint32_t gso_max_size;
	uint32_t gso_max_segs;
	uint32_t gso_ipv4_max_size;
	uint32_t tso_max_size;
	uint32_t tso_max_segs;
	/* kind "tun": IFLA_INFO_DATA (tun_fill_info(), iproute2's "multi_queue numqueues N") */
	bool tun_multi_queue;		/* IFLA_TUN_MULTI_QUEUE: created multi_queue */
	uint32_t tun_num_queues;	/* IFLA_TUN_NUM_QUEUES: queues attached now */
	uint32_t tun_num_disabled_queues; /* IFLA_TUN_NUM_DISABLED_QUEUES */
	char slave_kind[32];		/* IFLA_INFO_SLAVE_KIND ("bridge", "bond", "openvswitch"), or "" */
	/* kind "vxlan", "geneve": IFLA_INFO_DATA (vxlan_fill_info(), geneve_fill_info()) */
	int tunnel_link;		/* IFLA_VXLAN_LINK: the underlay device, 0: none */
	uint8_t tunnel_family;		/* AF_INET, AF_INET6 of the remote or local, 0: unknown */
	bool tunnel_remote_known;	/* tunnel_remote holds IFLA_*_GROUP/REMOTE(6) */
	bool tunnel_external;		/* IFLA_*_COLLECT_METADATA: remote set per packet */
	uint8_t tunnel_remote[16];	/* 4 bytes for AF_INET */
};

/* Whether @li's IFLA_INFO_KIND is @kind ("bridge", "veth", "tun"; "" for none). */
static inline bool link_is_kind(const struct link_info *li, const char *kind)
{
	return !strcmp(li->kind, kind);
}

/*
 * Fill @li from one RTM_NEWLINK message (lib/link_parse.c).  Returns 0, or
 * -EINVAL for a message too short for its struct ifinfomsg or without a
 * valid ifindex; malformed attributes are skipped.  Pure: no socket.
 */
int link_info_parse(const struct nlmsghdr *nlh, struct link_info *li);

struct link_query {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
};

/* Open and bind a NETLINK_ROUTE socket; fails loudly if that is impossible. */
void link_query_init(struct link_query *q);
void link_query_fini(struct link_query *q);

/* One link by name or index.  Returns 0, or -errno (-ENODEV: no such link). */
int link_query_by_name(struct link_query *q, const char *name, struct link_info *out);
int link_query_by_index(struct link_query *q, int ifindex, struct link_info *out);

/*
 * All links of the current network namespace, in a malloc()ed array the
 * caller frees.  Returns 0 or -errno.  A dump interrupted by a concurrent
 * change (NLM_F_DUMP_INTR) is retried, a few times.
 */
int link_query_dump(struct link_query *q, struct link_info **links, size_t *count);

/*
 * Send request @nlh on @q and run @cb (libmnl's mnl_cb_t) over the replies
 * until the ACK or the dump's end: 0, -EINTR for an interrupted dump (ask
 * again), or -errno.  For other rtnetlink queries (lib/route_query.c).
 */
int link_query_request(struct link_query *q, struct nlmsghdr *nlh,
		       int (*cb)(const struct nlmsghdr *nlh, void *data), void *data);

/*
 * The numeric fields of struct link_info with iproute2's names for them, in
 * the order `ip -d link show` prints them: tools print from this table so
 * their labels and JSON keys cannot drift from iproute2's.
 */
struct link_field {
	const char *key;
	unsigned int present_bit;
	size_t offset;		/* of a uint32_t in struct link_info */
};

extern const struct link_field link_fields[];
extern const size_t link_fields_count;

static inline uint32_t link_field_value(const struct link_info *li,
					const struct link_field *f)
{
	return *(const uint32_t *)((const char *)li + f->offset);
}

#endif
