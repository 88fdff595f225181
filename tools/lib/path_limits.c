// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-path GSO limit discovery.  The rules, each with the kernel
 * behaviour it follows (Linux 7.2); each egress device is reported with
 * the rule that reached it (enum path_rule, gso-probe's "rule").
 *
 * 1. Where a frame from the guest goes.
 *    - A tap that is a bridge port: the bridge forwards the frame to its
 *      other ports (br_forward.c), so those are the first egress devices
 *      ("bridge_port").  The tap itself is not one (frames are received on
 *      it).  All other ports count, up or down, as the bridge does not know
 *      where a flow will go before it learns the address: the path limit
 *      is the minimum over all of them (conservative, never too large).
 *    - A tap that is a port of an Open vSwitch kernel datapath (its master
 *      is the datapath's device, kind "openvswitch", or the port's
 *      IFLA_INFO_SLAVE_KIND is "openvswitch", ovs_netdev_link()): the
 *      flows decide which port a frame leaves by (ovs_vport_send() ->
 *      dev_queue_xmit()), and they are not in the link table: every other
 *      port of the datapath counts, as for a bridge ("ovs_port").
 *    - A macvtap (or macvlan): frames go out of its lower device
 *      (IFLA_LINK; macvlan_queue_xmit -> dev_queue_xmit(lowerdev)).
 *    - Any other master (bond, team, vrf): not followed; status
 *      "unsupported master".  A tap enslaved to a bond does not forward
 *      frames: they go up to the host stack.
 *    - No master and not macvtap: rule 6 (routes), or status "no master".
 * 2. What an egress device passes frames to (followed recursively, up to
 *    PATH_MAX_DEPTH levels, a device deeper counting with its own limits
 *    only; every device on the way counts, since each one's dev_queue_xmit
 *    checks its own limits in gso_features_check()):
 *    - vlan, macvlan, macvtap, ipvlan: their lower device (IFLA_LINK,
 *      "lower").  netif_inherit_tso_max() copies the lower's limits only at
 *      creation and on feature changes, and a later `ip link set
 *      gso_max_size` on the lower is not copied up: read the lower itself.
 *    - bond, team: rule 3.  vxlan, geneve: rule 5.
 *    - bridge (e.g. a vlan of a bridge used as a port): its ports.
 *    - veth whose peer is in this namespace and a bridge port (Proxmox's
 *      fwbr/fwln/fwpr firewall hop, seed 003): the peer's bridge forwards
 *      the frame on, so continue from the peer as from a tap (rule 1).
 *      The peer itself is not an egress device (it receives).  A peer in
 *      another namespace (IFLA_LINK_NETNSID) ends the walk: its limits are
 *      not ours to see.
 *    - An Open vSwitch internal port that is not a datapath's own port
 *      (Proxmox's fwln<VMID>o<N> in the VM's firewall bridge, on an OVS
 *      bridge with the firewall on): internal_dev_xmit() hands the frame
 *      to ovs_vport_receive(), into the datapath, and the flows send it
 *      out by its ports ("ovs_port", as rule 1).  Which datapath an
 *      internal port belongs to is not in rtnetlink; ovs-vswitchd keeps
 *      one kernel datapath ("ovs-system") for all its bridges, so the
 *      ports of every datapath count (with several: their minimum, never
 *      too large).
 *    The walk keeps, per device, the largest tunnel overhead it reached
 *    the device with (a table of any size: no device is ever skipped
 *    unread); reached again with no more overhead it ends there (loops).
 * 3. Bond and team: a bond sends each frame out of one slave, chosen per
 *    flow or by failover (bond_start_xmit()), a team out of one port
 *    (team_xmit()): every slave counts ("bond_slave", "team_slave"), and
 *    a bond without slaves counts with its own limits.  The kernel takes
 *    the minimum of the slaves' tso_max_size/tso_max_segs for the master
 *    (7.2: netdev_compute_master_upper_features(), called where
 *    bond_compute_features() and __team_compute_features() did it), but
 *    not of a gso_max_size/segs the admin set on a slave: read each slave.
 * 4. A device's limit: the minimum of gso_max_size, gso_ipv4_max_size and
 *    tso_max_size in bytes, and of gso_max_segs and tso_max_segs in
 *    segments, over the attributes the kernel reports.  gso_ipv4_max_size
 *    applies to IPv4, gso_max_size to IPv6 (netif_get_gso_max_size()): a
 *    guest sends both, so both count.  Above 65536 bytes (BIG TCP) the
 *    result is capped at 65536, the largest the virtio config carries.
 *    The kernel segments a packet whose skb->len is >= the limit
 *    (gso_features_check()): the bound is exclusive, as the project's
 *    gso_max_size is.
 * 5. VXLAN and Geneve ("vxlan_underlay", "geneve_underlay"): the tunnel
 *    device itself counts with its own limits (the frame as the guest
 *    sent it), its underlay with the underlay's limits less what the
 *    encapsulation adds to skb->len by the time the underlay's
 *    dev_queue_xmit() checks it.  The guest's length already holds the
 *    inner Ethernet header, which vxlan_xmit_one()/geneve_xmit_skb() keep
 *    as payload; on top of it:
 *      VXLAN/Geneve header 8 (vxlan_build_skb(): __skb_push(sizeof(*vxh));
 *        geneve_build_skb(): __skb_push(sizeof(*gnvh) + opt_size)),
 *      UDP 8 (udp_tunnel_xmit_skb(), udp_tunnel6_xmit_skb()),
 *      IPv4 20 or IPv6 40 (iptunnel_xmit(), udp_tunnel6_xmit_skb()),
 *      outer Ethernet 14 (ip_finish_output2() -> neigh_output() pushes
 *        the underlay's link header before dev_queue_xmit()),
 *    50 bytes over IPv4 and 70 over IPv6 (tests/tools-paths.sh measures
 *    the IPv4 boundary).  Options: none on a Geneve device with a fixed
 *    remote; with collect_metadata they come per packet and up to 252
 *    bytes are counted.  The family is the remote's, else the local
 *    address's; a VXLAN device with neither is IPv4
 *    (vxlan_config_validate()); collect_metadata devices count IPv6.
 *    The underlay is IFLA_VXLAN_LINK when set (Geneve has none); else the
 *    main table's longest-prefix route to the remote; else (no fixed
 *    remote: FDB entries, collect_metadata) every route of the family.
 *    A route through a nexthop object leads to the object's devices (a
 *    group's: every member's; lib/nexthop_query.c).  Not covered: policy
 *    rules, a VLAN or other non-Ethernet link header of the underlay
 *    (counted as 14).
 *    Without an underlay to read, the tunnel device's own limits less the
 *    headers stand in and the result is marked incomplete.
 * 6. A tap with no master (routed or NAT'ed, e.g. libvirt's routed
 *    networks, `ip route add GUEST dev tap0`): the host's routing table
 *    chooses the egress per packet (ip_route_input() -> ip_forward(),
 *    ip6_forward()), so every device a forwarded packet can leave by
 *    counts ("route"): each unicast route of the main table and the
 *    default routes of other tables, every nexthop of a multipath route,
 *    every device of a nexthop object (a group's members', resolved by
 *    lib/nexthop_query.c; an object not found: incomplete);
 *    not the tap itself, the loopback, IPv6 link-local routes
 *    (ip6_forward() does not forward them), local, blackhole or
 *    unreachable routes.  NAT rewrites addresses, not the device choice
 *    made by routing after it.  Which tables count is rule 7's answer.
 *    No route out: status "no master".
 * 7. Policy rules (`ip rule`, lib/rule_query.c) choose the tables a
 *    routed tap's packet is looked up in: fib_rules_lookup() tries the
 *    rules by priority, and a rule "to table" that matches ends the walk
 *    unless that table has no route for the packet (fib4_rule_action(),
 *    fib6_rule_action(): only -EAGAIN goes on).  A route counts if, for
 *    some destination in its prefix, a rule that may match looks up its
 *    table before the walk has surely ended:
 *    - a rule whose destination prefix excludes the route's prefix never
 *      matches its packets;
 *    - a rule that matches every packet to the prefix (no selector but a
 *      destination prefix that holds it; `conditional` rules: iif/oif,
 *      fwmark, ports, UID range, TOS, protocol, source prefix, inverted,
 *      a suppressor, may or may not) ends the walk for all of them when
 *      its table answers the whole prefix (a route that holds it, of any
 *      type but throw, and no throw route inside it), and so does a
 *      blackhole, unreachable or prohibit rule (the packet is dropped);
 *    - a goto may jump over the rules up to its target's priority: those
 *      end nothing; a nop goes on;
 *    - an l3mdev (VRF) rule looks up the table of the packet's VRF
 *      (l3mdev_fib_rule_match()); a routed tap has no master, so is in
 *      none, and the rule never matches its packets;
 *    - an action not named here: the route counts and the path is
 *      incomplete.
 *    So a route counts when the walk may reach its table; that it is then
 *    the longest match is not checked (every route of a reached table
 *    counts): the limit may be lower than a given flow needs, never
 *    higher.  A family without rules (a kernel without
 *    CONFIG_FIB_RULES, whose fib_lookup() reads local and main) is
 *    walked with the three rules every namespace starts with.  Tunnel
 *    underlays (rule 5) read the main table only: rules are not applied
 *    there.
 */
#include <linux/fib_rules.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fail.h"
#include "path_limits.h"

#define ARPHRD_ETHER_NUM	1
#define ARPHRD_LOOPBACK_NUM	772
#define RT_TABLE_DEFAULT_NUM	253
#define RT_TABLE_MAIN_NUM	254
#define RT_TABLE_LOCAL_NUM	255
#define RTN_UNICAST_NUM		1
#define RTN_THROW_NUM		9
#define NOT_VISITED		(-1)

/*
 * Devices already seen, one slot per link of the table (so no table is
 * too large: a bridge of 1000 taps is walked whole), holding the largest
 * encapsulation overhead the device was reached with: a device reached
 * again behind more tunnel headers is walked again, since its limit then
 * means less; reached again with the same or less, it is a loop (a veth
 * pair in one bridge) or a shared lower, and the walk ends there.
 */
struct path_walk {
	const struct link_table *t;
	struct path_limits *out;
	int64_t *transmitting;		/* added as egress devices */
	int64_t *entering;		/* bridge/datapath ports a frame entered by */
};

const struct link_info *link_table_by_index(const struct link_table *t, int ifindex)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (t->links[i].ifindex == ifindex)
			return &t->links[i];
	return NULL;
}

const struct link_info *link_table_by_name(const struct link_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (!strcmp(t->links[i].name, name))
			return &t->links[i];
	return NULL;
}

bool path_is_tap(const struct link_info *li)
{
	return (link_is_kind(li, "tun") && li->type == ARPHRD_ETHER_NUM) ||
	       link_is_kind(li, "macvtap");
}

static bool has_lower_device(const struct link_info *li)
{
	return link_is_kind(li, "vlan") || link_is_kind(li, "macvlan") ||
	       link_is_kind(li, "macvtap") || link_is_kind(li, "ipvlan") ||
	       link_is_kind(li, "ipvtap");
}

static bool is_ovs_datapath(const struct link_info *li)
{
	return link_is_kind(li, "openvswitch");
}

/* Whether some device of @t has @li as its master (a datapath's device has its ports). */
static bool is_master(const struct link_table *t, const struct link_info *li)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (t->links[i].master == li->ifindex && &t->links[i] != li)
			return true;
	return false;
}

/*
 * An Open vSwitch internal port: kind "openvswitch" and the master of
 * nothing (the datapath's own device, ovs-system, has its netdev ports).
 * Proxmox's fwln<VMID>o<N>, the OVS bridge's internal port put into the
 * VM's firewall bridge fwbr<VMID>i<N> (pve-common, PVE/Network.pm
 * create_firewall_bridge_ovs): what the firewall bridge sends to it,
 * internal_dev_xmit() hands to ovs_vport_receive(), into the datapath, and
 * the flows send it out of the datapath's ports.
 *
 * Its master, if any, is a Linux bridge or bond, never the datapath: the
 * kernel refuses an internal device as a datapath's netdev port
 * (net/openvswitch/vport-netdev.c ovs_netdev_link(): ovs_is_internal_dev()
 * is -EINVAL) and links no internal port below its datapath
 * (vport-internal_dev.c has no netdev_upper_dev_link()).  So the walker
 * does not ask whether the master is a datapath: only a table no kernel
 * sends has one (tools/test/test-path.c, check_ovs_internal_enslaved()).
 */
static bool is_ovs_internal_port(const struct link_table *t, const struct link_info *li)
{
	return is_ovs_datapath(li) && !is_master(t, li);
}

const struct link_info *link_table_peer_bridge(const struct link_table *t,
					       const struct link_info *veth,
					       const struct link_info **peer_out)
{
	const struct link_info *peer, *bridge;

	if (!link_is_kind(veth, "veth") || !veth->lower || veth->lower == veth->ifindex ||
	    veth->lower_in_other_netns)
		return NULL;
	peer = link_table_by_index(t, veth->lower);
	if (!peer || !peer->master)
		return NULL;
	bridge = link_table_by_index(t, peer->master);
	if (!bridge || !link_is_kind(bridge, "bridge"))
		return NULL;
	if (peer_out)
		*peer_out = peer;
	return bridge;
}

/* @acc lowered to @val if the kernel reported the attribute (@bit). */
static uint32_t min_reported(uint32_t acc, const struct link_info *li, unsigned int bit,
			     uint32_t val)
{
	return (li->present & bit) && val < acc ? val : acc;
}

/* A device's own size limit, not capped (UINT32_MAX: nothing reported). */
static uint32_t device_raw_size(const struct link_info *li)
{
	uint32_t size = UINT32_MAX;

	size = min_reported(size, li, LINK_HAS_GSO_MAX_SIZE, li->gso_max_size);
	size = min_reported(size, li, LINK_HAS_GSO_IPV4_MAX_SIZE, li->gso_ipv4_max_size);
	return min_reported(size, li, LINK_HAS_TSO_MAX_SIZE, li->tso_max_size);
}

uint32_t path_device_max_size(const struct link_info *li)
{
	uint32_t size = device_raw_size(li);

	return size < PATH_NO_SIZE_LIMIT ? size : PATH_NO_SIZE_LIMIT;
}

uint32_t path_device_max_segs(const struct link_info *li)
{
	uint32_t segs = PATH_NO_SEGS_LIMIT;

	segs = min_reported(segs, li, LINK_HAS_GSO_MAX_SEGS, li->gso_max_segs);
	return min_reported(segs, li, LINK_HAS_TSO_MAX_SEGS, li->tso_max_segs);
}

/* @li's slot in the walk's per-link arrays, or -1 if @li is not a table entry. */
static ssize_t slot_of(const struct path_walk *w, const struct link_info *li)
{
	if (li >= w->t->links && li < w->t->links + w->t->count)
		return li - w->t->links;
	li = link_table_by_index(w->t, li->ifindex);
	return li ? li - w->t->links : -1;
}

/* Record @li in @set reached with @overhead; false if it was reached with as much before. */
static bool visit(const struct path_walk *w, int64_t *set, const struct link_info *li,
		  uint32_t overhead)
{
	ssize_t i = slot_of(w, li);

	if (i < 0 || set[i] >= (int64_t)overhead)
		return false;
	set[i] = overhead;
	return true;
}

static void mark_incomplete(struct path_walk *w, const char *why)
{
	if (!w->out->incomplete)
		w->out->incomplete_why = why;
	w->out->incomplete = true;
}

static void add_egress(struct path_walk *w, const struct link_info *li, enum path_rule rule,
		       uint32_t overhead)
{
	struct path_limits *p = w->out;
	uint32_t raw = device_raw_size(li), segs = path_device_max_segs(li), size;

	/* Rule 5: the guest's frame may be at most the device's limit less the tunnel headers. */
	size = raw == UINT32_MAX ? UINT32_MAX : raw > overhead ? raw - overhead : 0;
	if (size > PATH_NO_SIZE_LIMIT)
		size = PATH_NO_SIZE_LIMIT;
	if (p->egress_count == PATH_MAX_EGRESS) {
		p->truncated = true;
	} else {
		p->egress_rule[p->egress_count] = rule;
		p->egress_overhead[p->egress_count] = overhead;
		p->egress[p->egress_count++] = li;
	}
	if (size < p->max_size) {
		p->max_size = size;
		p->size_from = li;
		p->size_rule = rule;
		p->size_overhead = overhead;
	}
	if (segs < p->max_segs) {
		p->max_segs = segs;
		p->segs_from = li;
		p->segs_rule = rule;
	}
}

static void expand_egress(struct path_walk *w, const struct link_info *li, int depth,
			  enum path_rule rule, uint32_t overhead);
static void forward_through_ports(struct path_walk *w, const struct link_info *port,
				  const struct link_info *master, int depth, enum path_rule rule,
				  uint32_t overhead);

/* Whether IPv6 address @a is link-local (fe80::/10): never forwarded (ip6_forward()). */
static bool ipv6_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/*
 * Whether route @r can carry a forwarded packet of @family (0: either) out
 * of a device, if its table is looked up (rule 7 says whether it is).
 */
static bool route_forwards(const struct route_info *r, uint8_t family)
{
	if (r->type != RTN_UNICAST_NUM || r->table == RT_TABLE_LOCAL_NUM)
		return false;
	if (family && r->family != family)
		return false;
	return !(r->family == AF_INET6 && r->dst_len >= 10 && ipv6_link_local(r->dst));
}

/* Expand every device of route @r, except @skip (the tap the traffic comes from). */
static void expand_route(struct path_walk *w, const struct route_info *r,
			 const struct link_info *skip, int depth, enum path_rule rule,
			 uint32_t overhead)
{
	bool followed = false;
	size_t k;

	if (r->nexthop_object)
		mark_incomplete(w, "a route uses a nexthop object that was not found");
	if (r->truncated)
		mark_incomplete(w, "a multipath route has more nexthops than are followed");
	for (k = 0; k < r->noif; k++) {
		const struct link_info *dev = link_table_by_index(w->t, r->oif[k]);

		if (!dev || dev == skip || (skip && dev->ifindex == skip->ifindex) ||
		    dev->type == ARPHRD_LOOPBACK_NUM)
			continue;
		expand_egress(w, dev, depth, rule, overhead);
		followed = true;
	}
	/* Recorded for gso-doctor: the routes that led somewhere, each once. */
	for (k = 0; followed && k < w->out->route_count && w->out->routes[k] != r; k++)
		;
	if (followed && k == w->out->route_count) {
		if (k < PATH_MAX_ROUTES)
			w->out->routes[w->out->route_count++] = r;
		else
			w->out->routes_truncated = true;
	}
}

/* Whether the first @bits bits of @a and @b agree. */
static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned int bits)
{
	unsigned int full, rest;

	if (bits > 128)
		bits = 128;	/* the addresses' 16 bytes: a made-up length reads no further */
	full = bits / 8;
	rest = bits % 8;

	if (memcmp(a, b, full))
		return false;
	return !rest || !((a[full] ^ b[full]) & (0xff00u >> rest));
}

/* Whether prefixes @a/@alen and @b/@blen share an address. */
static bool prefixes_overlap(const uint8_t *a, unsigned int alen, const uint8_t *b,
			     unsigned int blen)
{
	return prefix_match(a, b, alen < blen ? alen : blen);
}

/* Whether prefix @a/@alen holds all of @b/@blen. */
static bool prefix_holds(const uint8_t *a, unsigned int alen, const uint8_t *b, unsigned int blen)
{
	return alen <= blen && prefix_match(a, b, alen);
}

/*
 * Rule 7: whether a lookup in @table answers every destination of
 * @dst/@dst_len, so a rule that sends them all there ends the walk: a
 * route holds the prefix (of any type but throw: a blackhole or
 * unreachable answer ends the walk too) and no throw route, which sends
 * the walk on (-EAGAIN), lies in it.
 */
static bool table_answers(const struct link_table *t, uint8_t family, uint32_t table,
			  const uint8_t *dst, unsigned int dst_len)
{
	bool held = false;
	size_t i;

	for (i = 0; i < t->nroutes; i++) {
		const struct route_info *r = &t->routes[i];

		if (r->family != family || r->table != table)
			continue;
		if (r->type == RTN_THROW_NUM) {
			if (prefixes_overlap(r->dst, r->dst_len, dst, dst_len))
				return false;
		} else if (prefix_holds(r->dst, r->dst_len, dst, dst_len)) {
			held = true;
		}
	}
	return held;
}

/*
 * The rules of a family the table has none of: what every namespace
 * starts with (fib_default_rules_init(), fib6_rules_net_init()), which
 * is also the lookup of a kernel without CONFIG_FIB_RULES.
 */
static const struct rule_info implicit_rules[] = {
	{ .action = FR_ACT_TO_TBL, .priority = 0, .table = RT_TABLE_LOCAL_NUM },
	{ .action = FR_ACT_TO_TBL, .priority = 32766, .table = RT_TABLE_MAIN_NUM },
	{ .action = FR_ACT_TO_TBL, .priority = 32767, .table = RT_TABLE_DEFAULT_NUM },
};

/*
 * Rule 7: whether the rules may look route @r's table up for a packet to
 * some destination of @r's prefix (a routed tap's packet: no VRF).
 */
static bool route_chosen_by_rules(struct path_walk *w, const struct route_info *r)
{
	const struct link_table *t = w->t;
	const struct rule_info *rules = implicit_rules;
	size_t n = sizeof(implicit_rules) / sizeof(implicit_rules[0]), i;
	uint32_t jumped_to = 0;		/* a goto may skip the rules below this priority */
	bool own = false;

	for (i = 0; i < t->nrules && !own; i++)
		own = t->rules[i].family == r->family;
	if (own) {
		rules = t->rules;
		n = t->nrules;
	}
	for (i = 0; i < n; i++) {
		const struct rule_info *ru = &rules[i];
		bool all;

		if ((own && ru->family != r->family) || ru->l3mdev ||
		    !prefixes_overlap(ru->dst, ru->dst_len, r->dst, r->dst_len))
			continue;
		/* Applies to every packet to the prefix (unless a goto jumped over it). */
		all = !ru->conditional && ru->priority >= jumped_to &&
		      prefix_holds(ru->dst, ru->dst_len, r->dst, r->dst_len);
		switch (ru->action) {
		case FR_ACT_TO_TBL:
			if (ru->table == r->table)
				return true;
			if (all && table_answers(t, r->family, ru->table, r->dst, r->dst_len))
				return false;
			break;
		case FR_ACT_GOTO:
			if (ru->goto_target > jumped_to)
				jumped_to = ru->goto_target;
			break;
		case FR_ACT_NOP:
			break;
		case FR_ACT_BLACKHOLE:
		case FR_ACT_UNREACHABLE:
		case FR_ACT_PROHIBIT:
			if (all)
				return false;	/* dropped: nothing leaves */
			break;
		default:
			mark_incomplete(w, "a policy rule has an action that is not evaluated");
			return true;
		}
	}
	return false;
}

/*
 * The main table's longest-prefix route to @addr (fib_table_lookup()),
 * lowest metric among equals; NULL if none.  Policy rules are not read.
 */
static const struct route_info *route_lookup(const struct link_table *t, uint8_t family,
					     const uint8_t *addr)
{
	const struct route_info *best = NULL;
	size_t i;

	for (i = 0; i < t->nroutes; i++) {
		const struct route_info *r = &t->routes[i];

		if (r->family != family || r->table != RT_TABLE_MAIN_NUM ||
		    !prefix_match(r->dst, addr, r->dst_len))
			continue;
		if (!best || r->dst_len > best->dst_len ||
		    (r->dst_len == best->dst_len && r->priority < best->priority))
			best = r;
	}
	/* A blackhole or unreachable route: nothing leaves. */
	return best && best->type == RTN_UNICAST_NUM ? best : NULL;
}

/*
 * Rule 5: a VXLAN or Geneve device @li passes the frame, encapsulated, to
 * its underlay: the IFLA_VXLAN_LINK device, else the route to the remote,
 * else (no fixed remote: FDB entries, collect_metadata) any route of the
 * tunnel's family.
 */
static void expand_tunnel(struct path_walk *w, const struct link_info *li, int depth,
			  uint32_t overhead)
{
	bool geneve = link_is_kind(li, "geneve");
	enum path_rule rule = geneve ? PATH_RULE_GENEVE_UNDERLAY : PATH_RULE_VXLAN_UNDERLAY;
	/*
	 * vxlan_config_validate(): "Unless IPv6 is explicitly requested,
	 * assume IPv4"; a collect_metadata device opens both sockets, and a
	 * Geneve device without a remote is one: count the larger IPv6 headers.
	 */
	bool v6 = li->tunnel_family == AF_INET6 || li->tunnel_external ||
		  (geneve && li->tunnel_family != AF_INET);
	uint32_t encap = v6 ? PATH_TUNNEL_V6_OVERHEAD : PATH_TUNNEL_V4_OVERHEAD;
	const struct link_info *underlay;
	size_t before = w->out->egress_count, i;
	bool found = false;

	if (!li->tunnel_link)
		w->out->used_routes = true;
	/* Options are set per packet with collect_metadata (geneve_build_skb()'s opt_len). */
	if (geneve && li->tunnel_external)
		encap += PATH_GENEVE_MAX_OPTIONS;
	overhead += encap;

	/*
	 * A tunnel whose sockets and underlay live in another namespace
	 * (vxlan_get_link_net() differs: IFLA_LINK_NETNSID): its
	 * IFLA_VXLAN_LINK ifindex and routes are not this table's.
	 */
	if (li->lower_in_other_netns) {
		mark_incomplete(w, "a VXLAN or Geneve device's underlay is in another namespace");
		add_egress(w, li, rule, overhead);
		return;
	}
	if (li->tunnel_link) {
		underlay = link_table_by_index(w->t, li->tunnel_link);
		if (underlay && underlay != li) {
			expand_egress(w, underlay, depth + 1, rule, overhead);
			found = true;
		}
	} else if (w->t->routes_known && li->tunnel_remote_known && !li->tunnel_external) {
		const struct route_info *r = route_lookup(w->t, v6 ? AF_INET6 : AF_INET,
							  li->tunnel_remote);

		if (r) {
			expand_route(w, r, li, depth + 1, rule, overhead);
			found = true;
		}
	} else if (w->t->routes_known) {
		for (i = 0; i < w->t->nroutes; i++) {
			const struct route_info *r = &w->t->routes[i];

			if (route_forwards(r, li->tunnel_external ? 0 : (v6 ? AF_INET6 : AF_INET)) &&
			    r->table == RT_TABLE_MAIN_NUM && r->noif) {
				expand_route(w, r, li, depth + 1, rule, overhead);
				found = true;
			}
		}
	}
	if (!found || (w->out->egress_count == before && !w->out->truncated)) {
		/*
		 * No underlay to read: the tunnel device's own limits stand in
		 * (vxlan_config_apply() copies its lower's with
		 * netif_inherit_tso_max() at creation), less the headers.
		 */
		mark_incomplete(w, "a VXLAN or Geneve device's underlay was not found");
		add_egress(w, li, rule, overhead);
	}
}

/* Rule 2: @li transmits the frame; add it and whatever it passes the frame to. */
static void expand_egress(struct path_walk *w, const struct link_info *li, int depth,
			  enum path_rule rule, uint32_t overhead)
{
	const struct link_info *next, *bridge;
	size_t i;

	if (depth > PATH_MAX_DEPTH) {
		/* Deeper than followed: its limits still count, its lowers do not. */
		if (visit(w, w->transmitting, li, overhead))
			add_egress(w, li, rule, overhead);
		return;
	}
	if (!visit(w, w->transmitting, li, overhead))
		return;
	add_egress(w, li, rule, overhead);

	if (has_lower_device(li) && li->lower && li->lower != li->ifindex &&
	    !li->lower_in_other_netns) {
		next = link_table_by_index(w->t, li->lower);
		if (next)
			expand_egress(w, next, depth + 1, PATH_RULE_LOWER, overhead);
	}
	/*
	 * A bond or team sends each frame out of one of its slaves, chosen per
	 * flow or by failover: all count.  7.2's
	 * netdev_compute_master_upper_features() (called by bond_compute_features()
	 * and team's __team_compute_features() before 6.18) lowers the master's
	 * tso_max_size/segs to its slaves' but not gso_max_size/segs set on a
	 * slave by the admin: read the slaves themselves.
	 */
	if (link_is_kind(li, "bond") || link_is_kind(li, "team") || link_is_kind(li, "bridge")) {
		enum path_rule r = link_is_kind(li, "bond") ? PATH_RULE_BOND_SLAVE :
				   link_is_kind(li, "team") ? PATH_RULE_TEAM_SLAVE :
				   PATH_RULE_BRIDGE_PORT;

		for (i = 0; i < w->t->count; i++)
			if (w->t->links[i].master == li->ifindex && &w->t->links[i] != li)
				expand_egress(w, &w->t->links[i], depth + 1, r, overhead);
	}
	if (link_is_kind(li, "vxlan") || link_is_kind(li, "geneve"))
		expand_tunnel(w, li, depth, overhead);
	bridge = link_table_peer_bridge(w->t, li, &next);
	if (bridge && visit(w, w->entering, next, overhead))
		forward_through_ports(w, next, bridge, depth + 1, PATH_RULE_BRIDGE_PORT, overhead);
	if (is_ovs_internal_port(w->t, li) && visit(w, w->entering, li, overhead)) {
		/* Rule 2b: into the datapath, out by its ports (every datapath's: see below). */
		for (i = 0; i < w->t->count; i++)
			if (is_ovs_datapath(&w->t->links[i]) && is_master(w->t, &w->t->links[i]))
				forward_through_ports(w, li, &w->t->links[i], depth + 1,
						      PATH_RULE_OVS_PORT, overhead);
	}
}

/*
 * Rule 1: a frame received on port @port of bridge (or Open vSwitch
 * datapath) @master leaves by the other ports.
 */
static void forward_through_ports(struct path_walk *w, const struct link_info *port,
				  const struct link_info *master, int depth, enum path_rule rule,
				  uint32_t overhead)
{
	size_t i;

	for (i = 0; i < w->t->count; i++) {
		const struct link_info *li = &w->t->links[i];

		if (li->master == master->ifindex && li->ifindex != port->ifindex && li != master)
			expand_egress(w, li, depth + 1, rule, overhead);
	}
}

/* Rule 6: a tap that is no port of anything: the host routes the guest's packets. */
static void forward_by_routes(struct path_walk *w, const struct link_info *start)
{
	size_t i;

	w->out->used_routes = true;
	for (i = 0; i < w->t->nroutes; i++) {
		const struct route_info *r = &w->t->routes[i];

		if (route_forwards(r, 0) && route_chosen_by_rules(w, r))
			expand_route(w, r, start, 1, PATH_RULE_ROUTE, 0);
	}
}

/* Whether @br has a route of its own (a connected route: an address on the bridge). */
static bool bridge_has_address(const struct link_table *t, const struct link_info *br)
{
	size_t i, k;

	for (i = 0; i < t->nroutes; i++)
		for (k = 0; k < t->routes[i].noif; k++)
			if (t->routes[i].oif[k] == br->ifindex && route_forwards(&t->routes[i], 0))
				return true;
	return false;
}

static int64_t *visit_set_new(size_t count)
{
	int64_t *set = malloc((count ? count : 1) * sizeof(*set));
	size_t i;

	if (!set)
		fail_errno("malloc");
	for (i = 0; i < count; i++)
		set[i] = NOT_VISITED;
	return set;
}

void path_limits_compute(const struct link_table *t, const struct link_info *start,
			 struct path_limits *out)
{
	struct path_walk w = { .t = t, .out = out };

	memset(out, 0, sizeof(*out));
	out->start = start;
	out->max_size = PATH_NO_SIZE_LIMIT;
	out->max_segs = PATH_NO_SEGS_LIMIT;
	w.transmitting = visit_set_new(t->count);
	w.entering = visit_set_new(t->count);
	/*
	 * The start receives the guest's frames: never an egress device itself
	 * (INT64_MAX: not even behind tunnel headers).
	 */
	{
		ssize_t i = slot_of(&w, start);

		if (i >= 0)
			w.transmitting[i] = w.entering[i] = INT64_MAX;
	}

	if (start->master)
		out->master = link_table_by_index(t, start->master);

	if (has_lower_device(start)) {
		const struct link_info *lower = NULL;

		if (start->lower && !start->lower_in_other_netns)
			lower = link_table_by_index(t, start->lower);
		if (lower)
			expand_egress(&w, lower, 1, PATH_RULE_LOWER, 0);
	} else if (out->master && link_is_kind(out->master, "bridge")) {
		forward_through_ports(&w, start, out->master, 0, PATH_RULE_BRIDGE_PORT, 0);
		/*
		 * Rule 1b: a bridge with an address of its own is the guests'
		 * gateway (NAT, routed and SDN set-ups: libvirt's virbr0, a
		 * Proxmox vmbr1 with masquerading): what the guests send to it is
		 * routed out by the host's routes, not by the bridge's ports.
		 */
		if (t->routes_known && bridge_has_address(t, out->master))
			forward_by_routes(&w, out->master);
	} else if (out->master && (is_ovs_datapath(out->master) ||
				   !strcmp(start->slave_kind, "openvswitch"))) {
		forward_through_ports(&w, start, out->master, 0, PATH_RULE_OVS_PORT, 0);
	} else if (out->master) {
		out->status = PATH_UNSUPPORTED_MASTER;
		goto out;
	} else if (t->routes_known) {
		forward_by_routes(&w, start);
		if (!out->egress_count) {
			out->status = PATH_NO_MASTER;
			goto out;
		}
	} else {
		out->status = PATH_NO_MASTER;
		goto out;
	}
	out->status = out->egress_count ? PATH_OK : PATH_NO_EGRESS;
out:
	free(w.transmitting);
	free(w.entering);
}

const char *path_status_name(enum path_status status)
{
	switch (status) {
	case PATH_OK:
		return "ok";
	case PATH_NO_MASTER:
		return "no_master";
	case PATH_UNSUPPORTED_MASTER:
		return "unsupported_master";
	case PATH_NO_EGRESS:
		return "no_egress";
	}
	return "?";
}

const char *path_rule_name(enum path_rule rule)
{
	static const char *const names[] = {
		[PATH_RULE_NONE] = "", [PATH_RULE_BRIDGE_PORT] = "bridge_port",
		[PATH_RULE_LOWER] = "lower", [PATH_RULE_BOND_SLAVE] = "bond_slave",
		[PATH_RULE_TEAM_SLAVE] = "team_slave",
		[PATH_RULE_VXLAN_UNDERLAY] = "vxlan_underlay",
		[PATH_RULE_GENEVE_UNDERLAY] = "geneve_underlay", [PATH_RULE_ROUTE] = "route",
		[PATH_RULE_OVS_PORT] = "ovs_port",
	};

	return (unsigned int)rule < sizeof(names) / sizeof(names[0]) ? names[rule] : "?";
}

bool path_limits_exceeded(const struct path_limits *p)
{
	return p->status == PATH_OK &&
	       (p->max_size < PATH_NO_SIZE_LIMIT || p->max_segs < PATH_NO_SEGS_LIMIT);
}
