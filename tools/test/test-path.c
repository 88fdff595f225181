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
#include "lib/text_append.h"
#include "test/check.h"

#define ALL_LIMITS (LINK_HAS_GSO_MAX_SIZE | LINK_HAS_GSO_MAX_SEGS | \
		    LINK_HAS_GSO_IPV4_MAX_SIZE | LINK_HAS_TSO_MAX_SIZE | LINK_HAS_TSO_MAX_SEGS)
#define MAX_LINKS	16
#define NO_SUCH_LINK	1000	/* a lower whose ifindex is not in the table */

struct topology {
	struct link_info links[MAX_LINKS];
	size_t count;
};

static int index_of(const struct topology *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (!strcmp(t->links[i].name, name))
			return t->links[i].ifindex;
	return NO_SUCH_LINK;
}

/*
 * A link table from words "NAME[:KIND][@MASTER][^LOWER][!][/SIZE/SEGS]":
 * ifindexes in word order from 1, master and lower by name (forward too),
 * '!' a lower in another namespace, SIZE/SEGS the device's GSO limits
 * (default 65536/65535 with tso_max_size 524280, as veth has).
 */
static struct topology topology(const char *spec)
{
	struct topology t = { .count = 0 };
	char copy[512], *words[MAX_LINKS] = { NULL }, *w, *save = NULL;
	size_t i;

	snprintf(copy, sizeof(copy), "%s", spec);
	for (w = strtok_r(copy, " ", &save); w && t.count < MAX_LINKS; w = strtok_r(NULL, " ", &save)) {
		struct link_info *li = &t.links[t.count];
		char *limits = strchr(w, '/');

		*li = (struct link_info){
			.ifindex = (int)t.count + 1, .type = 1, .present = ALL_LIMITS | LINK_HAS_MTU,
			.mtu = 1500, .gso_max_size = 65536, .gso_ipv4_max_size = 65536,
			.tso_max_size = 524280, .gso_max_segs = 65535, .tso_max_segs = 65535,
		};
		if (limits) {
			*limits = '\0';
			li->gso_max_size = li->gso_ipv4_max_size = (uint32_t)strtoul(limits + 1, &limits, 10);
			li->gso_max_segs = (uint32_t)strtoul(limits + 1, NULL, 10);
		}
		li->lower_in_other_netns = strchr(w, '!') != NULL;
		snprintf(li->name, sizeof(li->name), "%.*s", (int)strcspn(w, ":@^!"), w);
		if (strchr(w, ':'))
			snprintf(li->kind, sizeof(li->kind), "%.*s", (int)strcspn(strchr(w, ':') + 1, "@^!"),
				 strchr(w, ':') + 1);
		words[t.count++] = w;
	}
	for (i = 0; i < t.count; i++) {
		char name[IF_NAMESIZE], *at = strchr(words[i], '@'), *up = strchr(words[i], '^');

		if (at) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(at + 1, "^!"), at + 1);
			t.links[i].master = index_of(&t, name);
		}
		if (up) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(up + 1, "@!"), up + 1);
			t.links[i].lower = index_of(&t, name);
		}
	}
	return t;
}

static void check_path(const char *what, const struct topology *topo, const char *start,
		       const char *want_status, uint32_t want_size, uint32_t want_segs,
		       const char *want_egress)
{
	struct link_table t = { topo->links, topo->count };
	struct path_limits p;
	char egress[256] = "";
	size_t i, used = 0;
	bool ok;

	path_limits_compute(&t, link_table_by_name(&t, start), &p);
	for (i = 0; i < p.egress_count; i++)
		text_append(egress, sizeof(egress), &used, "%s%s", i ? "," : "", p.egress[i]->name);
	ok = !strcmp(path_status_name(p.status), want_status) && p.max_size == want_size &&
	     p.max_segs == want_segs && !strcmp(egress, want_egress);
	check(ok, "%s (status %s size %u segs %u egress [%s])", what,
	      path_status_name(p.status), p.max_size, p.max_segs, egress);
}

int main(void)
{
	/* Seed 000: tap0 and the r8169 NIC (64000 / 64) in one bridge. */
	const struct topology seed = topology("br0:bridge tap0:tun@br0 nic0@br0/64000/64");
	/* Ports of different limits: the minimum of each, from different ports; tap1 is another guest. */
	const struct topology mixed = topology("br0:bridge tap0:tun@br0 p1:veth@br0/48000/65535 "
					       "p2:veth@br0/65536/32 tap1:tun@br0");
	/* A vlan on a bond as the bridge port: the slaves' limits count. */
	const struct topology vlan_bond = topology("br0:bridge tap0:tun@br0 bond0:bond "
						   "bond0.5:vlan@br0^bond0 eth0@bond0/64000/64 "
						   "eth1@bond0/62000/100");
	/* Proxmox firewall hop: tap -> fwbr -> fwln=fwpr -> vmbr0 -> nic. */
	const struct topology fwbr = topology("fwbr100i0:bridge tap100i0:tun@fwbr100i0 "
					      "fwln100i0:veth@fwbr100i0^fwpr100p0 "
					      "fwpr100p0:veth@vmbr0^fwln100i0 vmbr0:bridge "
					      "enp1s0@vmbr0/64000/64 tap101i0:tun@vmbr0");
	/* macvtap on a NIC; macvtap on a lower in another namespace. */
	const struct topology mvt = topology("nic0/64000/64 macvtap0:macvtap^nic0 "
					     "macvtap1:macvtap^elsewhere!");
	/* Others: lone tap, bridge without other ports, openvswitch, BIG TCP, a veth loop. */
	struct topology other = topology("tap0:tun br0:bridge tap1:tun@br0 ovs-system:openvswitch "
					 "tap2:tun@ovs-system br1:bridge tap3:tun@br1 "
					 "big0@br1/185000/65535 vl0:veth@br1^vl1 vl1:veth@br1^vl0");
	const struct link_table fwbr_table = { fwbr.links, fwbr.count };

	check_path("seed 000: bridge with r8169 NIC", &seed, "tap0", "ok", 64000, 64, "nic0");
	check_path("ports of different limits", &mixed, "tap0", "ok", 48000, 32, "p1,p2,tap1");
	check_path("vlan on bond: the slaves count", &vlan_bond, "tap0", "ok", 62000, 64,
		   "bond0.5,bond0,eth0,eth1");
	check_path("Proxmox fwbr hop to vmbr0", &fwbr, "tap100i0", "ok", 64000, 64,
		   "fwln100i0,enp1s0,tap101i0");
	check_path("macvtap: its lower device", &mvt, "macvtap0", "ok", 64000, 64, "nic0");
	check_path("macvtap: lower in another netns", &mvt, "macvtap1", "no_egress",
		   65536, 65535, "");
	check_path("tap alone", &other, "tap0", "no_master", 65536, 65535, "");
	check_path("bridge without other ports", &other, "tap1", "no_egress", 65536, 65535, "");
	check_path("openvswitch master", &other, "tap2", "unsupported_master", 65536, 65535, "");
	check_path("BIG TCP port capped at 65536; veth loop ends", &other, "tap3", "ok",
		   65536, 65535, "big0,vl0,vl1");

	/* A tap is kind tun with Ethernet type; a tun (type NONE) is not. */
	other.links[0].type = 65534;
	check(!path_is_tap(&other.links[0]) && path_is_tap(&other.links[2]) &&
	      path_is_tap(&mvt.links[1]), "path_is_tap tells tap from tun");

	/* The firewall hop's veth leads into vmbr0; the NIC is no veth. */
	check(link_table_peer_bridge(&fwbr_table, &fwbr.links[2], NULL) == &fwbr.links[4],
	      "peer bridge: fwln's peer is a port of vmbr0");
	check(!link_table_peer_bridge(&fwbr_table, &fwbr.links[5], NULL), "peer bridge: not a veth");
	return check_exit_status();
}
