// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/path_limits.c on made-up link tables, including the
 * topologies this machine's kernel cannot build (bond, vlan, team,
 * openvswitch): every rule of the discovery is exercised here, the real
 * namespaces of tests/tools-probe.sh check the netlink side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/path_limits.h"
#include "test/check.h"

#define ALL_LIMITS (LINK_HAS_GSO_MAX_SIZE | LINK_HAS_GSO_MAX_SEGS | \
		    LINK_HAS_GSO_IPV4_MAX_SIZE | LINK_HAS_TSO_MAX_SIZE | LINK_HAS_TSO_MAX_SEGS)

/* A device with default limits (65536 / 65535, tso 524280 as veth has). */
static struct link_info dev(int ifindex, const char *name, const char *kind, int master,
			    int lower)
{
	struct link_info li = {
		.ifindex = ifindex, .type = 1, .master = master, .lower = lower,
		.present = ALL_LIMITS | LINK_HAS_MTU, .mtu = 1500,
		.gso_max_size = 65536, .gso_ipv4_max_size = 65536, .tso_max_size = 524280,
		.gso_max_segs = 65535, .tso_max_segs = 65535,
	};

	snprintf(li.name, sizeof(li.name), "%s", name);
	snprintf(li.kind, sizeof(li.kind), "%s", kind);
	return li;
}

static struct link_info limited(struct link_info li, uint32_t size, uint32_t segs)
{
	li.gso_max_size = li.gso_ipv4_max_size = size;
	li.gso_max_segs = segs;
	return li;
}

static void check_path(const char *what, struct link_info *links, size_t count,
		       const char *start, const char *want_status, uint32_t want_size,
		       uint32_t want_segs, const char *want_egress)
{
	struct link_table t = { links, count };
	struct path_limits p;
	char egress[256] = "";
	size_t i;
	bool ok;

	path_limits_compute(&t, link_table_by_name(&t, start), &p);
	for (i = 0; i < p.egress_count; i++) {
		if (i)
			strcat(egress, ",");
		strcat(egress, p.egress[i]->name);
	}
	ok = !strcmp(path_status_name(p.status), want_status) && p.max_size == want_size &&
	     p.max_segs == want_segs && !strcmp(egress, want_egress);
	check(ok, "%s (status %s size %u segs %u egress [%s])", what,
	      path_status_name(p.status), p.max_size, p.max_segs, egress);
}

int main(void)
{
	/* Seed 000: tap0 and the r8169 NIC (64000 / 64) in one bridge. */
	struct link_info seed[] = {
		dev(1, "br0", "bridge", 0, 0),
		dev(2, "tap0", "tun", 1, 0),
		limited(dev(3, "nic0", "", 1, 0), 64000, 64),
	};
	/* Ports of different limits: the minimum of each, from different ports. */
	struct link_info mixed[] = {
		dev(1, "br0", "bridge", 0, 0),
		dev(2, "tap0", "tun", 1, 0),
		limited(dev(3, "p1", "veth", 1, 0), 48000, 65535),
		limited(dev(4, "p2", "veth", 1, 0), 65536, 32),
		dev(5, "tap1", "tun", 1, 0),	/* another guest: a port like any */
	};
	/* A vlan on a bond as the bridge port: the slaves' limits count. */
	struct link_info vlan_bond[] = {
		dev(1, "br0", "bridge", 0, 0),
		dev(2, "tap0", "tun", 1, 0),
		dev(3, "bond0", "bond", 0, 0),
		dev(4, "bond0.5", "vlan", 1, 3),
		limited(dev(5, "eth0", "", 3, 0), 64000, 64),
		limited(dev(6, "eth1", "", 3, 0), 62000, 100),
	};
	/* Proxmox firewall hop: tap -> fwbr -> fwln=fwpr -> vmbr0 -> nic. */
	struct link_info fwbr[] = {
		dev(1, "fwbr100i0", "bridge", 0, 0),
		dev(2, "tap100i0", "tun", 1, 0),
		dev(3, "fwln100i0", "veth", 1, 4),
		dev(4, "fwpr100p0", "veth", 5, 3),
		dev(5, "vmbr0", "bridge", 0, 0),
		limited(dev(6, "enp1s0", "", 5, 0), 64000, 64),
		dev(7, "tap101i0", "tun", 5, 0),
	};
	/* macvtap on a NIC; macvtap on a lower in another namespace. */
	struct link_info mvt[] = {
		limited(dev(1, "nic0", "", 0, 0), 64000, 64),
		dev(2, "macvtap0", "macvtap", 0, 1),
		dev(3, "macvtap1", "macvtap", 0, 7),
	};
	/* Others: lone tap, bridge without other ports, openvswitch, BIG TCP, a loop. */
	struct link_info other[] = {
		dev(1, "tap0", "tun", 0, 0),
		dev(2, "br0", "bridge", 0, 0),
		dev(3, "tap1", "tun", 2, 0),
		dev(4, "ovs-system", "openvswitch", 0, 0),
		dev(5, "tap2", "tun", 4, 0),
		dev(6, "br1", "bridge", 0, 0),
		dev(7, "tap3", "tun", 6, 0),
		limited(dev(8, "big0", "", 6, 0), 185000, 65535),
		dev(9, "vl0", "veth", 6, 10),	/* veth pair looped into the same bridge */
		dev(10, "vl1", "veth", 6, 9),
	};

	mvt[2].lower_in_other_netns = true;

	check_path("seed 000: bridge with r8169 NIC", seed, 3, "tap0", "ok", 64000, 64, "nic0");
	check_path("ports of different limits", mixed, 5, "tap0", "ok", 48000, 32, "p1,p2,tap1");
	check_path("vlan on bond: the slaves count", vlan_bond, 6, "tap0", "ok", 62000, 64,
		   "bond0.5,bond0,eth0,eth1");
	check_path("Proxmox fwbr hop to vmbr0", fwbr, 7, "tap100i0", "ok", 64000, 64,
		   "fwln100i0,enp1s0,tap101i0");
	check_path("macvtap: its lower device", mvt, 3, "macvtap0", "ok", 64000, 64, "nic0");
	check_path("macvtap: lower in another netns", mvt, 3, "macvtap1", "no_egress",
		   65536, 65535, "");
	check_path("tap alone", other, 10, "tap0", "no_master", 65536, 65535, "");
	check_path("bridge without other ports", other, 10, "tap1", "no_egress", 65536, 65535, "");
	check_path("openvswitch master", other, 10, "tap2", "unsupported_master",
		   65536, 65535, "");
	check_path("BIG TCP port capped at 65536; veth loop ends", other, 10, "tap3", "ok",
		   65536, 65535, "big0,vl0,vl1");

	/* A tap is kind tun with Ethernet type; a tun (type NONE) is not. */
	other[0].type = 65534;
	check(!path_is_tap(&other[0]) && path_is_tap(&other[2]) && path_is_tap(&mvt[1]),
	      "path_is_tap tells tap from tun");

	/* The firewall hop's veth leads into vmbr0; a veth looped into its own bridge too. */
	check(link_table_peer_bridge(&(struct link_table){ fwbr, 7 }, &fwbr[2], NULL) == &fwbr[4],
	      "peer bridge: fwln's peer is a port of vmbr0");
	check(!link_table_peer_bridge(&(struct link_table){ fwbr, 7 }, &fwbr[5], NULL),
	      "peer bridge: not a veth");
	return check_exit_status();
}
