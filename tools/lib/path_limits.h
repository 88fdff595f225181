/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The GSO limits of the host path behind a tap: which devices a guest's
 * frames leave by, and the smallest limits among them.
 *
 * Linux passes GSO limits down a stack of devices only in a few places
 * (netif_inherit_tso_max() for vlan, macvlan and veth at creation); a
 * bridge or a bond does not lower its own gso_max_size to its ports'.  A
 * guest behind a tap therefore sees 65536 while an egress port two hops
 * away segments everything above 64000 in software (seed 000).  This
 * library finds those egress devices from an rtnetlink link dump and
 * takes the minimum, so gso-probe and gso-limitsd compute the same
 * number.  The rules are in path_limits.c
 * and docs/tools.md.
 *
 * Pure: it works on a table of struct link_info (link_query_dump()), so
 * unit tests can feed it made-up topologies.
 */
#ifndef GSO_TOOLS_PATH_LIMITS_H
#define GSO_TOOLS_PATH_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link_query.h"
#include "route_query.h"
#include "rule_query.h"

/* The guest's defaults, and the largest values the virtio config can carry. */
#define PATH_NO_SIZE_LIMIT	65536u	/* GSO_LEGACY_MAX_SIZE */
#define PATH_NO_SEGS_LIMIT	65535u	/* GSO_MAX_SEGS */
#define PATH_MAX_EGRESS		64
#define PATH_MAX_DEPTH		8	/* stacking depth followed; deeper is ignored */
#define PATH_MAX_ROUTES		16	/* routes recorded in struct path_limits */

/*
 * Headers a UDP tunnel adds in front of the guest's frame (inner Ethernet
 * included in the guest's length) by the time the underlay device checks
 * skb->len: outer Ethernet 14 (neigh_hh_output()), IP 20 / 40
 * (iptunnel_xmit(), udp_tunnel6_xmit_skb()), UDP 8
 * (udp_tunnel_xmit_skb()), VXLAN or Geneve 8 (vxlan_build_skb(),
 * geneve_build_skb()).  path_limits.c, rule 5.
 */
#define PATH_TUNNEL_V4_OVERHEAD		50u
#define PATH_TUNNEL_V6_OVERHEAD		70u
#define PATH_GENEVE_MAX_OPTIONS		252u	/* opt_len: 6 bits of 4-byte words */

enum path_status {
	PATH_OK,			/* egress devices found; limits valid */
	PATH_NO_MASTER,			/* not a bridge/ovs port, not macvtap, no route out */
	PATH_UNSUPPORTED_MASTER,	/* master is not followed (bond, team, vrf, ...) */
	PATH_NO_EGRESS,			/* a bridge with no other port, or lower in another netns */
};

/* How the walk reached an egress device: the rule that makes it count. */
enum path_rule {
	PATH_RULE_NONE,
	PATH_RULE_BRIDGE_PORT,		/* another port of a bridge the frame crosses */
	PATH_RULE_LOWER,		/* vlan/macvlan/macvtap/ipvlan's lower device */
	PATH_RULE_BOND_SLAVE,		/* a slave of a bond */
	PATH_RULE_TEAM_SLAVE,		/* a port of a team */
	PATH_RULE_VXLAN_UNDERLAY,	/* a VXLAN device's underlay, less the encapsulation */
	PATH_RULE_GENEVE_UNDERLAY,	/* a Geneve device's underlay, less the encapsulation */
	PATH_RULE_ROUTE,		/* the device of a route (routed or NAT'ed tap) */
	PATH_RULE_OVS_PORT,		/* another port of the Open vSwitch datapath */
};

struct path_limits {
	enum path_status status;
	const struct link_info *start;
	const struct link_info *master;		/* the start's master, or NULL */
	const struct link_info *egress[PATH_MAX_EGRESS];
	enum path_rule egress_rule[PATH_MAX_EGRESS];	/* how egress[i] was reached */
	uint32_t egress_overhead[PATH_MAX_EGRESS];	/* tunnel headers in front on egress[i] */
	size_t egress_count;
	bool truncated;				/* more than PATH_MAX_EGRESS devices */
	/*
	 * A part of the path could not be followed (a tunnel's underlay not in
	 * the table, a route through a nexthop object, a policy rule whose
	 * action is not evaluated): the limits cover what was followed;
	 * incomplete_why says what was not.
	 */
	bool incomplete;
	const char *incomplete_why;		/* static text, or NULL */
	bool used_routes;			/* the result depends on the routes (rules 5, 6) */
	/*
	 * The routes whose devices the walk followed (a routed tap's, a
	 * tunnel's to its underlay; not a route back to the tap itself), in
	 * the order their devices were done: what gso-doctor shows; more
	 * than PATH_MAX_ROUTES: routes_truncated.
	 */
	const struct route_info *routes[PATH_MAX_ROUTES];
	size_t route_count;
	bool routes_truncated;
	uint32_t max_size;			/* min over egress, capped at 65536 */
	uint32_t max_segs;			/* min over egress, capped at 65535 */
	const struct link_info *size_from;	/* the device that set max_size, or NULL */
	const struct link_info *segs_from;
	enum path_rule size_rule, segs_rule;	/* the rule that reached size_from, segs_from */
	uint32_t size_overhead;			/* the encapsulation subtracted at size_from */
};

/*
 * The namespace's links and, when the caller dumped them, its routes
 * (routes_known): without routes, a tap that is no port of anything is
 * "no_master" and a tunnel without a link attribute has no known underlay.
 * With the routes, its policy rules (rule_query_dump(), in the kernel's
 * order): they choose the tables a routed tap's packets are looked up in
 * (path_limits.c, rule 7).  A family without rules is looked up as a
 * kernel without policy routing does it.
 */
struct link_table {
	const struct link_info *links;
	size_t count;
	const struct route_info *routes;
	size_t nroutes;
	const struct rule_info *rules;
	size_t nrules;
	bool routes_known;
};

const struct link_info *link_table_by_index(const struct link_table *t, int ifindex);
const struct link_info *link_table_by_name(const struct link_table *t, const char *name);

/*
 * The bridge a frame sent into veth @veth continues in: the bridge whose
 * port is the veth's peer, when that peer is in this namespace (Proxmox's
 * fwln/fwpr firewall hop).  NULL otherwise; the peer in *peer_out if set.
 */
const struct link_info *link_table_peer_bridge(const struct link_table *t,
					       const struct link_info *veth,
					       const struct link_info **peer_out);

/* Whether @li is a tap (kind tun, Ethernet type) or a macvtap. */
bool path_is_tap(const struct link_info *li);

/* A device's own GSO limits: min(gso_max_size, gso_ipv4_max_size, tso_max_size), segs likewise. */
uint32_t path_device_max_size(const struct link_info *li);
uint32_t path_device_max_segs(const struct link_info *li);

/* Compute the egress devices and limits of the host path behind @start. */
void path_limits_compute(const struct link_table *t, const struct link_info *start,
			 struct path_limits *out);

const char *path_status_name(enum path_status status);
/* "bridge_port", "lower", "bond_slave", ... ("" for PATH_RULE_NONE). */
const char *path_rule_name(enum path_rule rule);

/* Whether the guest's defaults (65536 bytes, 65535 segments) exceed the path's limits. */
bool path_limits_exceeded(const struct path_limits *p);

#endif
