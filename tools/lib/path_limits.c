// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-path GSO limit discovery.  The rules, each with the kernel
 * behaviour it follows (Linux 7.2):
 *
 * 1. Where a frame from the guest goes.
 *    - A tap that is a bridge port: the bridge forwards the frame to its
 *      other ports (br_forward.c), so those are the first egress devices.
 *      The tap itself is not one (frames are received on it).  All other
 *      ports count, up or down, as the bridge does not know where a flow
 *      will go before it learns the address: the path limit is the
 *      minimum over all of them (conservative, never too large).
 *    - A macvtap (or macvlan): frames go out of its lower device
 *      (IFLA_LINK; macvlan_queue_xmit -> dev_queue_xmit(lowerdev)).
 *    - Any other master (openvswitch, bond, team, vrf): not followed;
 *      status "unsupported master".  A tap enslaved to a bond does not
 *      forward frames: they go up to the host stack.
 *    - No master and not macvtap: routed or isolated; status "no master".
 * 2. What an egress device passes frames to (followed recursively, up to
 *    PATH_MAX_DEPTH levels; every device on the way counts, since each
 *    one's dev_queue_xmit checks its own limits in gso_features_check()):
 *    - vlan, macvlan, macvtap, ipvlan: their lower device (IFLA_LINK).
 *      netif_inherit_tso_max() copies the lower's limits only at creation
 *      and on feature changes, and a later `ip link set gso_max_size` on
 *      the lower is not copied up: read the lower itself.
 *    - bond, team: every slave (devices whose IFLA_MASTER is it); the
 *      bond does not lower its own gso_max_size to its slaves' (7.2's
 *      bond_compute_features() handles features, not GSO limits).
 *    - bridge (e.g. a vlan of a bridge used as a port): its ports.
 *    - veth whose peer is in this namespace and a bridge port (Proxmox's
 *      fwbr/fwln/fwpr firewall hop, seed 003): the peer's bridge forwards
 *      the frame on, so continue from the peer as from a tap (rule 1).
 *      The peer itself is not an egress device (it receives).  A peer in
 *      another namespace (IFLA_LINK_NETNSID) ends the walk: its limits are
 *      not ours to see.
 * 3. A device's limit: the minimum of gso_max_size, gso_ipv4_max_size and
 *    tso_max_size in bytes, and of gso_max_segs and tso_max_segs in
 *    segments, over the attributes the kernel reports.  gso_ipv4_max_size
 *    applies to IPv4, gso_max_size to IPv6 (netif_get_gso_max_size()): a
 *    guest sends both, so both count.  Above 65536 bytes (BIG TCP) the
 *    result is capped at 65536, the largest the virtio config carries.
 * 4. The kernel segments a packet whose skb->len is >= gso_max_size
 *    (gso_features_check()), so the largest packet that passes intact is
 *    one byte less than the limit; the guest's TCP keeps its packets at
 *    least MAX_TCP_HEADER below its own gso_max_size (sk_gso_max_size),
 *    so setting the guest to the path limit is enough.
 */
#include <string.h>

#include "path_limits.h"

#define ARPHRD_ETHER_NUM	1

/* Devices already seen, so loops (a veth pair in one bridge) end. */
struct visit_set {
	int ifindex[PATH_MAX_EGRESS * 4];
	size_t count;
};

struct path_walk {
	const struct link_table *t;
	struct path_limits *out;
	struct visit_set transmitting;	/* added as egress devices */
	struct visit_set entering;	/* bridge ports a frame entered a bridge by */
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

uint32_t path_device_max_size(const struct link_info *li)
{
	uint32_t size = PATH_NO_SIZE_LIMIT;

	size = min_reported(size, li, LINK_HAS_GSO_MAX_SIZE, li->gso_max_size);
	size = min_reported(size, li, LINK_HAS_GSO_IPV4_MAX_SIZE, li->gso_ipv4_max_size);
	return min_reported(size, li, LINK_HAS_TSO_MAX_SIZE, li->tso_max_size);
}

uint32_t path_device_max_segs(const struct link_info *li)
{
	uint32_t segs = PATH_NO_SEGS_LIMIT;

	segs = min_reported(segs, li, LINK_HAS_GSO_MAX_SEGS, li->gso_max_segs);
	return min_reported(segs, li, LINK_HAS_TSO_MAX_SEGS, li->tso_max_segs);
}

/* Add @ifindex to @set; false if it was there (a loop, or a shared lower) or @set is full. */
static bool visit(struct visit_set *set, int ifindex)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		if (set->ifindex[i] == ifindex)
			return false;
	if (set->count == sizeof(set->ifindex) / sizeof(set->ifindex[0]))
		return false;
	set->ifindex[set->count++] = ifindex;
	return true;
}

static void add_egress(struct path_walk *w, const struct link_info *li)
{
	struct path_limits *p = w->out;
	uint32_t size = path_device_max_size(li), segs = path_device_max_segs(li);

	if (p->egress_count == PATH_MAX_EGRESS) {
		p->truncated = true;
	} else {
		p->egress[p->egress_count++] = li;
	}
	if (size < p->max_size) {
		p->max_size = size;
		p->size_from = li;
	}
	if (segs < p->max_segs) {
		p->max_segs = segs;
		p->segs_from = li;
	}
}

static void forward_through_bridge(struct path_walk *w, const struct link_info *port,
				   const struct link_info *bridge, int depth);

/* Rule 2: @li transmits the frame; add it and whatever it passes the frame to. */
static void expand_egress(struct path_walk *w, const struct link_info *li, int depth)
{
	const struct link_info *next, *bridge;
	size_t i;

	if (depth > PATH_MAX_DEPTH || !visit(&w->transmitting, li->ifindex))
		return;
	add_egress(w, li);

	if (has_lower_device(li) && li->lower && li->lower != li->ifindex &&
	    !li->lower_in_other_netns) {
		next = link_table_by_index(w->t, li->lower);
		if (next)
			expand_egress(w, next, depth + 1);
	}
	if (link_is_kind(li, "bond") || link_is_kind(li, "team") || link_is_kind(li, "bridge")) {
		for (i = 0; i < w->t->count; i++)
			if (w->t->links[i].master == li->ifindex)
				expand_egress(w, &w->t->links[i], depth + 1);
	}
	bridge = link_table_peer_bridge(w->t, li, &next);
	if (bridge && visit(&w->entering, next->ifindex))
		forward_through_bridge(w, next, bridge, depth + 1);
}

/* Rule 1: a frame received on bridge port @port leaves by the other ports. */
static void forward_through_bridge(struct path_walk *w, const struct link_info *port,
				   const struct link_info *bridge, int depth)
{
	size_t i;

	if (depth > PATH_MAX_DEPTH)
		return;
	for (i = 0; i < w->t->count; i++) {
		const struct link_info *li = &w->t->links[i];

		if (li->master == bridge->ifindex && li->ifindex != port->ifindex)
			expand_egress(w, li, depth + 1);
	}
}

void path_limits_compute(const struct link_table *t, const struct link_info *start,
			 struct path_limits *out)
{
	struct path_walk w = { .t = t, .out = out };

	memset(out, 0, sizeof(*out));
	out->start = start;
	out->max_size = PATH_NO_SIZE_LIMIT;
	out->max_segs = PATH_NO_SEGS_LIMIT;
	/* The start receives the guest's frames: never an egress device itself. */
	visit(&w.transmitting, start->ifindex);
	visit(&w.entering, start->ifindex);

	if (start->master)
		out->master = link_table_by_index(t, start->master);

	if (has_lower_device(start)) {
		const struct link_info *lower = NULL;

		if (start->lower && !start->lower_in_other_netns)
			lower = link_table_by_index(t, start->lower);
		if (lower)
			expand_egress(&w, lower, 1);
	} else if (out->master) {
		if (!link_is_kind(out->master, "bridge")) {
			out->status = PATH_UNSUPPORTED_MASTER;
			return;
		}
		forward_through_bridge(&w, start, out->master, 0);
	} else {
		out->status = PATH_NO_MASTER;
		return;
	}
	out->status = out->egress_count ? PATH_OK : PATH_NO_EGRESS;
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

bool path_limits_exceeded(const struct path_limits *p)
{
	return p->status == PATH_OK &&
	       (p->max_size < PATH_NO_SIZE_LIMIT || p->max_segs < PATH_NO_SEGS_LIMIT);
}
