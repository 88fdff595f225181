// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/path_limits.c on made-up link tables, including the
 * topologies this machine's kernel cannot build (bond, vlan, team, geneve,
 * openvswitch) and tables no kernel would send (loops, missing underlays,
 * a bond that is its own master): every rule of the discovery is
 * exercised here; the real namespaces of tests/tools-probe.sh and
 * tests/tools-paths.sh check the netlink side and the kernel's behaviour.
 */
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/path_limits.h"
#include "lib/text_append.h"
#include "test/check.h"

#define ALL_LIMITS (LINK_HAS_GSO_MAX_SIZE | LINK_HAS_GSO_MAX_SEGS | \
		    LINK_HAS_GSO_IPV4_MAX_SIZE | LINK_HAS_TSO_MAX_SIZE | LINK_HAS_TSO_MAX_SEGS)
#define TOPO_MAX_LINKS	24
#define NO_SUCH_LINK	1000	/* a lower whose ifindex is not in the table */

struct topology {
	struct link_info links[TOPO_MAX_LINKS];
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
 * (default 65536/65535 with tso_max_size 524280, as veth has).  For kinds
 * vxlan and geneve, LOWER is the underlay (IFLA_VXLAN_LINK), an IPv4 one.
 */
static struct topology topology(const char *spec)
{
	struct topology t = { .count = 0 };
	char copy[512], *words[TOPO_MAX_LINKS] = { NULL }, *w, *save = NULL;
	size_t i;

	snprintf(copy, sizeof(copy), "%s", spec);
	for (w = strtok_r(copy, " ", &save); w && t.count < TOPO_MAX_LINKS; w = strtok_r(NULL, " ", &save)) {
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
		if (link_is_kind(&t.links[i], "vxlan") || link_is_kind(&t.links[i], "geneve")) {
			t.links[i].tunnel_link = t.links[i].lower;
			t.links[i].lower = 0;
			t.links[i].tunnel_family = AF_INET;
		}
	}
	return t;
}

static struct link_info *link_named(struct topology *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (!strcmp(t->links[i].name, name))
			return &t->links[i];
	abort();
}

/* "DST/LEN" ("default" for IPv4's 0/0, "default6" for IPv6's) into its family, address, length. */
static void prefix(const char *dst, uint8_t *family, uint8_t *addr, uint8_t *len)
{
	const char *slash = strchr(dst, '/');
	char text[64];

	*family = strchr(dst, ':') || !strcmp(dst, "default6") ? AF_INET6 : AF_INET;
	*len = 0;
	if (!strncmp(dst, "default", 7))
		return;
	if (!slash)
		abort();
	snprintf(text, sizeof(text), "%.*s", (int)(slash - dst), dst);
	if (inet_pton(*family, text, addr) != 1)
		abort();
	*len = (uint8_t)strtoul(slash + 1, NULL, 10);
}

/* A route of the main table: "DST/LEN" ("default" for 0/0) out of the named devices. */
static struct route_info route(const struct topology *t, const char *dst, const char *devs)
{
	struct route_info r = { .type = 1, .table = 254 };
	char copy[128], *w, *save = NULL;

	prefix(dst, &r.family, r.dst, &r.dst_len);
	snprintf(copy, sizeof(copy), "%s", devs);
	for (w = strtok_r(copy, ",", &save); w && r.noif < ROUTE_MAX_NEXTHOPS;
	     w = strtok_r(NULL, ",", &save))
		r.oif[r.noif++] = index_of(t, w);
	return r;
}

/* The rules of @p's egress devices, "name:rule[-overhead]" joined by commas. */
static void egress_rules(const struct path_limits *p, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < p->egress_count; i++) {
		text_append(buf, len, &used, "%s%s:%s", i ? "," : "", p->egress[i]->name,
			    path_rule_name(p->egress_rule[i]));
		if (p->egress_overhead[i])
			text_append(buf, len, &used, "-%u", p->egress_overhead[i]);
	}
}

/* Like check_path, on a table with routes and rules, comparing the rules and the size's rule. */
static void check_table(const char *what, const struct link_table *t, const char *start,
			const char *want_status, uint32_t want_size, uint32_t want_segs,
			const char *want_size_rule, const char *want_egress, bool want_incomplete)
{
	struct path_limits p;
	char egress[512];
	bool ok;

	path_limits_compute(t, link_table_by_name(t, start), &p);
	egress_rules(&p, egress, sizeof(egress));
	ok = !strcmp(path_status_name(p.status), want_status) && p.max_size == want_size &&
	     p.max_segs == want_segs && !strcmp(path_rule_name(p.size_rule), want_size_rule) &&
	     !strcmp(egress, want_egress) && p.incomplete == want_incomplete;
	check(ok, "%s (status %s size %u segs %u size_rule '%s' egress [%s]%s%s)", what,
	      path_status_name(p.status), p.max_size, p.max_segs, path_rule_name(p.size_rule),
	      egress, p.incomplete ? " incomplete: " : "", p.incomplete ? p.incomplete_why : "");
}

/* check_table() on @topo with @routes (NULL: not dumped) and no policy rules. */
static void check_rules(const char *what, const struct topology *topo,
			const struct route_info *routes, size_t nroutes, const char *start,
			const char *want_status, uint32_t want_size, uint32_t want_segs,
			const char *want_size_rule, const char *want_egress, bool want_incomplete)
{
	struct link_table t = { .links = topo->links, .count = topo->count, .routes = routes,
				.nroutes = nroutes, .routes_known = routes != NULL };

	check_table(what, &t, start, want_status, want_size, want_segs, want_size_rule,
		    want_egress, want_incomplete);
}

/*
 * Defect of the fixed 256-entry visit set: with more ports than it held,
 * the ports after the 256th were skipped, limits and all.  300 taps and
 * the smallest uplink last (the highest ifindex).
 */
static void check_many_ports(void)
{
	enum { TAPS = 300 };
	struct link_info *links = calloc(TAPS + 2, sizeof(*links));
	struct link_table t = { .links = links, .count = TAPS + 2 };
	struct path_limits p;
	size_t i;

	if (!links)
		abort();
	for (i = 0; i < TAPS + 2; i++) {
		links[i] = (struct link_info){
			.ifindex = (int)i + 1, .type = 1, .master = 1,
			.present = ALL_LIMITS, .gso_max_size = 65536, .gso_ipv4_max_size = 65536,
			.tso_max_size = 524280, .gso_max_segs = 65535, .tso_max_segs = 65535,
		};
		snprintf(links[i].name, sizeof(links[i].name), "tap%zu", i);
		snprintf(links[i].kind, sizeof(links[i].kind), "tun");
	}
	links[0] = (struct link_info){ .ifindex = 1, .type = 1, .name = "br0", .kind = "bridge" };
	snprintf(links[TAPS + 1].name, sizeof(links[TAPS + 1].name), "uplink");
	snprintf(links[TAPS + 1].kind, sizeof(links[TAPS + 1].kind), "veth");
	links[TAPS + 1].gso_max_size = links[TAPS + 1].gso_ipv4_max_size = 64000;
	links[TAPS + 1].gso_max_segs = 64;
	path_limits_compute(&t, &links[1], &p);
	check(p.status == PATH_OK && p.max_size == 64000 && p.max_segs == 64 &&
	      p.size_from == &links[TAPS + 1] && p.truncated &&
	      p.egress_count == PATH_MAX_EGRESS,
	      "%d ports: the uplink after them all counts (size %u segs %u from %s)", TAPS + 1,
	      p.max_size, p.max_segs, p.size_from ? p.size_from->name : "none");
	free(links);
}

static void check_path(const char *what, const struct topology *topo, const char *start,
		       const char *want_status, uint32_t want_size, uint32_t want_segs,
		       const char *want_egress)
{
	struct link_table t = { .links = topo->links, .count = topo->count };
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

/* Rule 3: bond and team ports (and a tap enslaved to one: not followed). */
static void check_bond_team(void)
{
	const struct topology bond = topology("br0:bridge tap0:tun@br0 bond0:bond@br0 "
					      "eth0@bond0/64000/64 eth1@bond0/62000/100");
	const struct topology team = topology("br0:bridge tap0:tun@br0 team0:team@br0 "
					      "eth0@team0/63000/65535 eth1@team0/65536/40");
	const struct topology empty = topology("br0:bridge tap0:tun@br0 bond0:bond@br0/60000/65535");
	const struct topology enslaved = topology("bond0:bond tap0:tun@bond0 eth0@bond0/64000/64");
	/* Hostile: two bonds each the other's slave, and a bond that is its own master. */
	const struct topology loop = topology("br0:bridge tap0:tun@br0 bond0:bond@br0 "
					      "bond1:bond@bond0/61000/65535 bond2:bond@bond1 "
					      "bond3:bond@bond3/50000/50");

	check_rules("bond port: its slaves count", &bond, NULL, 0, "tap0", "ok", 62000, 64,
		    "bond_slave", "bond0:bridge_port,eth0:bond_slave,eth1:bond_slave", false);
	check_rules("team port: its ports count", &team, NULL, 0, "tap0", "ok", 63000, 40,
		    "team_slave", "team0:bridge_port,eth0:team_slave,eth1:team_slave", false);
	check_rules("bond without slaves: its own limits", &empty, NULL, 0, "tap0", "ok",
		    60000, 65535, "bridge_port", "bond0:bridge_port", false);
	check_rules("tap enslaved to a bond: not followed", &enslaved, NULL, 0, "tap0",
		    "unsupported_master", 65536, 65535, "", "", false);
	check_rules("bond loop ends; a self-mastered bond is no port", &loop, NULL, 0, "tap0", "ok",
		    61000, 65535, "bond_slave",
		    "bond0:bridge_port,bond1:bond_slave,bond2:bond_slave", false);
}

/* Rule 5: VXLAN and Geneve ports, their underlay less the encapsulation. */
static void check_tunnels(void)
{
	struct topology vx = topology("br0:bridge tap0:tun@br0 vx0:vxlan@br0^eth0 eth0/64000/64 "
				      "eth1/60000/65535 br1:bridge tap1:tun@br1 vx1:vxlan@br1 "
				      "br2:bridge tap2:tun@br2 gn0:geneve@br2 "
				      "br3:bridge tap3:tun@br3 vx3:vxlan@br3^big0 big0/185000/65535 "
				      "br4:bridge tap4:tun@br4 vx4:vxlan@br4^br4 "
				      "br5:bridge tap5:tun@br5 vx5:vxlan@br5^gone eth0a@br5");
	struct route_info routes[4];
	struct link_info *vx1 = link_named(&vx, "vx1"), *gn0 = link_named(&vx, "gn0");

	check_rules("vxlan over IPv4: underlay less 50", &vx, NULL, 0, "tap0", "ok", 63950, 64,
		    "vxlan_underlay", "vx0:bridge_port,eth0:vxlan_underlay-50", false);
	link_named(&vx, "vx0")->tunnel_family = AF_INET6;
	check_rules("vxlan over IPv6: underlay less 70", &vx, NULL, 0, "tap0", "ok", 63930, 64,
		    "vxlan_underlay", "vx0:bridge_port,eth0:vxlan_underlay-70", false);
	check_rules("vxlan over a BIG TCP underlay: 65536", &vx, NULL, 0, "tap3", "ok", 65536, 65535,
		    "", "vx3:bridge_port,big0:vxlan_underlay-50", false);
	check_rules("vxlan whose underlay is its own bridge: the loop ends", &vx, NULL, 0, "tap4",
		    "ok", 65536 - 4 * 50, 65535, "vxlan_underlay",
		    "vx4:bridge_port,br4:vxlan_underlay-50,vx4:bridge_port-50,"
		    "br4:vxlan_underlay-100,vx4:bridge_port-100,br4:vxlan_underlay-150,"
		    "vx4:bridge_port-150,br4:vxlan_underlay-200,vx4:bridge_port-200", false);
	/* Missing underlay: the vxlan's own limits less the headers, and said so. */
	link_named(&vx, "vx5")->tunnel_link = NO_SUCH_LINK;
	check_rules("vxlan with a missing underlay", &vx, NULL, 0, "tap5", "ok", 65486, 65535,
		    "vxlan_underlay", "vx5:bridge_port,vx5:vxlan_underlay-50,eth0a:bridge_port",
		    true);

	/* Created elsewhere and moved here: its link's ifindex is another namespace's. */
	link_named(&vx, "vx0")->lower_in_other_netns = true;
	check_rules("vxlan with its underlay in another namespace", &vx, NULL, 0, "tap0", "ok",
		    65466, 65535, "vxlan_underlay", "vx0:bridge_port,vx0:vxlan_underlay-70", true);
	link_named(&vx, "vx0")->lower_in_other_netns = false;

	/* No link: the route to the remote (longest prefix), else any route of its family. */
	routes[0] = route(&vx, "default", "eth0");
	routes[1] = route(&vx, "192.0.2.0/24", "eth1");
	routes[2] = route(&vx, "2001:db8::/32", "eth0");
	routes[3] = route(&vx, "fe80::/64", "big0");
	vx1->tunnel_remote_known = true;
	inet_pton(AF_INET, "192.0.2.9", vx1->tunnel_remote);
	check_rules("vxlan without link: the route to its remote", &vx, routes, 4, "tap1", "ok",
		    59950, 65535, "vxlan_underlay", "vx1:bridge_port,eth1:vxlan_underlay-50", false);
	inet_pton(AF_INET, "198.51.100.1", vx1->tunnel_remote);
	check_rules("vxlan without link: the default route", &vx, routes, 4, "tap1", "ok",
		    63950, 64, "vxlan_underlay", "vx1:bridge_port,eth0:vxlan_underlay-50", false);
	check_rules("vxlan without link or routes: incomplete", &vx, NULL, 0, "tap1", "ok",
		    65486, 65535, "vxlan_underlay", "vx1:bridge_port,vx1:vxlan_underlay-50", true);
	gn0->tunnel_family = AF_INET6;
	gn0->tunnel_remote_known = true;
	inet_pton(AF_INET6, "2001:db8::1", gn0->tunnel_remote);
	check_rules("geneve over IPv6: the route to its remote", &vx, routes, 4, "tap2", "ok",
		    63930, 64, "geneve_underlay", "gn0:bridge_port,eth0:geneve_underlay-70", false);
	/* collect_metadata: any remote, any family, options up to 252 bytes. */
	gn0->tunnel_external = true;
	gn0->tunnel_remote_known = false;
	gn0->tunnel_family = 0;
	check_rules("geneve external: every route, IPv6 and options", &vx, routes, 4, "tap2", "ok",
		    60000 - 70 - 252, 64, "geneve_underlay",
		    "gn0:bridge_port,eth0:geneve_underlay-322,eth1:geneve_underlay-322", false);
	/* The same device as a plain port and as an underlay: the tunnel's headers count. */
	{
		const struct topology both = topology("br0:bridge tap0:tun@br0 eth0@br0/64000/64 "
						      "vx0:vxlan@br0^eth0");

		check_rules("underlay also a plain port: reached again behind headers", &both,
			    NULL, 0, "tap0", "ok", 63950, 64, "vxlan_underlay",
			    "eth0:bridge_port,vx0:bridge_port,eth0:vxlan_underlay-50", false);
	}
}

/* Rule 6: a tap that is no port: the devices of the routes. */
static void check_routed(void)
{
	const struct topology t = topology("tap0:tun eth0/64000/65535 eth1/60000/65535 "
					   "eth2/65536/32 eth3/1500/2 lo tap1:tun/62000/65535 "
					   "br0:bridge eth4@br0/61000/65535");
	struct route_info routes[10];
	size_t n = 0;

	routes[n++] = route(&t, "default", "eth0");
	routes[n++] = route(&t, "10.0.0.0/8", "eth1,eth2");	/* multipath */
	routes[n++] = route(&t, "192.0.2.5/32", "tap0");	/* back to the guest itself */
	routes[n++] = route(&t, "fe80::/64", "eth3");		/* link-local: never forwarded */
	routes[n] = route(&t, "127.0.0.0/8", "lo");
	routes[n++].table = 255;				/* local table: to the host */
	routes[n] = route(&t, "203.0.113.0/24", "eth3");
	routes[n++].type = 6;					/* blackhole */
	routes[n] = route(&t, "198.51.100.0/24", "eth3");
	routes[n++].table = 100;				/* a table no rule looks up */
	check_rules("routed tap: default and multipath routes", &t, routes, n, "tap0", "ok",
		    60000, 32, "route", "eth0:route,eth1:route,eth2:route", false);
	routes[n++] = route(&t, "192.0.2.6/32", "tap1");	/* another routed guest */
	routes[n++] = route(&t, "172.16.0.0/12", "br0");	/* via a bridge: its ports */
	routes[n] = route(&t, "2001:db8::/32", "");
	routes[n++].nexthop_object = true;
	check_rules("routed tap: another tap, a bridge, a nexthop object", &t, routes, n, "tap0",
		    "ok", 60000, 32, "route",
		    "eth0:route,eth1:route,eth2:route,tap1:route,br0:route,eth4:bridge_port", true);
	check_rules("routed tap: no routes", &t, routes + 2, 1, "tap0", "no_master", 65536, 65535,
		    "", "", false);
}

/* A policy rule: priority, action (FR_ACT_*), table, destination ("default": any). */
static struct rule_info rule(uint32_t priority, uint8_t action, uint32_t table, const char *dst)
{
	struct rule_info r = { .priority = priority, .action = action, .table = table };

	prefix(dst, &r.family, r.dst, &r.dst_len);
	return r;
}

/* Insert @r into @rules (*@n of them) by priority, after equals: the kernel's order. */
static void add_rule(struct rule_info *rules, size_t *n, struct rule_info r)
{
	size_t i = *n;

	for (; i > 0 && rules[i - 1].priority > r.priority; i--)
		rules[i] = rules[i - 1];
	rules[i] = r;
	(*n)++;
}

/*
 * Rule 7: the policy rules choose the tables.  Main: default via eth0
 * (64000) and 192.0.2.128/25 via eth3 (32 segments); table 100:
 * 192.0.2.0/24 via eth1 (60000); table 200: default via eth2 (50000);
 * main, IPv6: 2001:db8::/32 via eth4 (63000).
 */
static void check_policy_rules(void)
{
	const struct topology topo = topology("tap0:tun eth0/64000/65535 eth1/60000/65535 "
					      "eth2/50000/65535 eth3/65536/32 eth4/63000/65535");
	struct route_info routes[5];
	struct rule_info rules[10] = { 0 }, r;
	struct link_table t;
	size_t n = 0;

	routes[0] = route(&topo, "default", "eth0");
	routes[1] = route(&topo, "192.0.2.0/24", "eth1");
	routes[1].table = 100;
	routes[2] = route(&topo, "default", "eth2");
	routes[2].table = 200;
	routes[3] = route(&topo, "192.0.2.128/25", "eth3");
	routes[4] = route(&topo, "2001:db8::/32", "eth4");
	t = (struct link_table){ .links = topo.links, .count = topo.count, .routes = routes,
				 .nroutes = 5, .rules = rules, .routes_known = true };
	check_table("rules: none (no CONFIG_FIB_RULES): local, main, default", &t, "tap0", "ok",
		    63000, 32, "route", "eth0:route,eth3:route,eth4:route", false);

	add_rule(rules, &n, rule(0, FR_ACT_TO_TBL, 255, "default"));
	add_rule(rules, &n, rule(1000, FR_ACT_TO_TBL, 100, "192.0.2.0/24"));
	add_rule(rules, &n, rule(32766, FR_ACT_TO_TBL, 254, "default"));
	add_rule(rules, &n, rule(32767, FR_ACT_TO_TBL, 253, "default"));
	t.nrules = n;
	/* Table 100 answers all of 192.0.2.0/24: main's /25 is never reached; IPv6 has no rules. */
	check_table("rules: to 192.0.2.0/24 lookup 100 ends the walk", &t, "tap0", "ok", 60000,
		    65535, "route", "eth0:route,eth1:route,eth4:route", false);

	r = rule(900, FR_ACT_TO_TBL, 200, "default");
	r.conditional = true;					/* fwmark 1 */
	add_rule(rules, &n, r);
	t.nrules = n;
	check_table("rules: fwmark 1 lookup 200 may apply: its table counts too", &t, "tap0",
		    "ok", 50000, 65535, "route", "eth0:route,eth1:route,eth2:route,eth4:route",
		    false);

	r = rule(500, FR_ACT_GOTO, 0, "default");
	r.goto_target = 32766;					/* fwmark 2 goto 32766 */
	r.conditional = true;
	add_rule(rules, &n, r);
	t.nrules = n;
	check_table("rules: a goto may jump over the rule that ended the walk", &t, "tap0", "ok",
		    50000, 32, "route", "eth0:route,eth1:route,eth2:route,eth3:route,eth4:route",
		    false);

	add_rule(rules, &n, rule(400, FR_ACT_UNREACHABLE, 0, "192.0.2.128/25"));
	add_rule(rules, &n, rule(450, FR_ACT_NOP, 0, "default"));
	r = rule(460, FR_ACT_TO_TBL, 0, "default");
	r.l3mdev = true;					/* l3mdev: no VRF here */
	add_rule(rules, &n, r);
	add_rule(rules, &n, rule(470, FR_ACT_TO_TBL, 254, "default6"));	/* IPv6's own */
	t.nrules = n;
	check_table("rules: unreachable, nop, l3mdev; IPv6 by its own rules", &t, "tap0", "ok",
		    50000, 65535, "route", "eth0:route,eth1:route,eth2:route,eth4:route", false);

	rules[0] = rule(0, 42, 0, "default");			/* an action not known here */
	t.rules = rules;
	check_table("rules: an action not evaluated: every route, incomplete", &t, "tap0", "ok",
		    50000, 32, "route", "eth0:route,eth1:route,eth2:route,eth3:route,eth4:route",
		    true);
}

/*
 * Rule 1: Open vSwitch kernel datapath ports.  br-int, the OVS bridge's
 * internal port, has no master, as the kernel reports it (an internal
 * port is no netdev port of its datapath: check_ovs_internal_enslaved()).
 */
static void check_ovs(void)
{
	const struct topology t = topology("ovs-system:openvswitch tap0:tun@ovs-system "
					   "eth0@ovs-system/64000/64 br-int:openvswitch "
					   "vxlan_sys_4789:vxlan@ovs-system tap1:tun@ovs-system");
	struct route_info r;
	struct topology ext = t;

	check_rules("ovs datapath: the other ports", &t, NULL, 0, "tap0", "ok", 64000, 64,
		    "ovs_port",
		    "eth0:ovs_port,vxlan_sys_4789:ovs_port,"
		    "vxlan_sys_4789:vxlan_underlay-50,tap1:ovs_port", true);
	/* The port's IFLA_INFO_SLAVE_KIND says openvswitch even if the master's kind is unknown. */
	link_named(&ext, "ovs-system")->kind[0] = '\0';
	link_named(&ext, "tap0")->slave_kind[0] = '\0';
	check_rules("a master of unknown kind: not followed", &ext, NULL, 0, "tap0",
		    "unsupported_master", 65536, 65535, "", "", false);
	snprintf(link_named(&ext, "tap0")->slave_kind, sizeof(ext.links[0].slave_kind),
		 "openvswitch");
	check_rules("ovs port by its slave kind", &ext, NULL, 0, "tap0", "ok", 64000, 64,
		    "ovs_port",
		    "eth0:ovs_port,vxlan_sys_4789:ovs_port,"
		    "vxlan_sys_4789:vxlan_underlay-50,tap1:ovs_port", true);
	/* OVS's tunnel port is external: the remote comes with each packet. */
	link_named(&ext, "vxlan_sys_4789")->tunnel_link = 0;
	link_named(&ext, "vxlan_sys_4789")->tunnel_external = true;
	r = route(&ext, "default", "eth0");
	check_rules("ovs datapath with a tunnel port over the default route", &ext, &r, 1, "tap0",
		    "ok", 63930, 64, "vxlan_underlay",
		    "eth0:ovs_port,vxlan_sys_4789:ovs_port,"
		    "eth0:vxlan_underlay-70,tap1:ovs_port", false);
}

/*
 * A table no kernel sends: an internal port (kind openvswitch) whose master
 * is a datapath.  ovs_netdev_link() refuses an internal device as a netdev
 * port (-EINVAL) and internal ports get no upper link, so every internal
 * port a kernel reports has no master or a Linux bridge/bond as master.
 * This is the only input on which is_ovs_internal_port()'s former "and its
 * master is no datapath" made a difference: br-int then led nowhere; now it
 * is an internal port like any other, into every datapath, so dp2's
 * smaller limit counts (only ever lower: never software segmentation).
 */
static void check_ovs_internal_enslaved(void)
{
	const struct topology t = topology("ovs-system:openvswitch tap0:tun@ovs-system "
					   "eth0@ovs-system/64000/64 br-int:openvswitch@ovs-system "
					   "dp2:openvswitch eth2@dp2/32000/32");

	check_rules("ovs internal port enslaved to a datapath (no kernel): an internal port", &t,
		    NULL, 0, "tap0", "ok", 32000, 32, "ovs_port",
		    "eth0:ovs_port,br-int:ovs_port,eth2:ovs_port", false);
}

/*
 * Rule 2b: Proxmox's firewall on an OVS bridge: tap100i0 in the Linux
 * bridge fwbr100i0 with the OVS internal port fwln100o0; the datapath's
 * port eno1 is the uplink.  vmbr1 (the OVS bridge's own internal port,
 * not in the firewall bridge) is not on the way.
 */
static void check_ovs_firewall(void)
{
	const struct topology t = topology("ovs-system:openvswitch eno1@ovs-system/58000/64 "
					   "vmbr1:openvswitch fwbr100i0:bridge "
					   "tap100i0:tun@fwbr100i0 fwln100o0:openvswitch@fwbr100i0 "
					   "tap101i0:tun@ovs-system");
	struct topology ext = t;

	check_rules("ovs firewall: fwln into the datapath, out by its uplink", &t, NULL, 0,
		    "tap100i0", "ok", 58000, 64, "ovs_port",
		    "fwln100o0:bridge_port,eno1:ovs_port,tap101i0:ovs_port", false);
	/* A datapath's own internal port hands frames to the host: not followed back in. */
	check_rules("ovs port next to an internal one", &t, NULL, 0, "tap101i0", "ok", 58000, 64,
		    "ovs_port", "eno1:ovs_port", false);
	/* Without a datapath (OVS not running): the internal port alone. */
	link_named(&ext, "eno1")->master = 0;
	link_named(&ext, "tap101i0")->master = 0;
	check_rules("ovs firewall without a datapath", &ext, NULL, 0, "tap100i0", "ok", 65536,
		    65535, "", "fwln100o0:bridge_port", false);
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
	const struct link_table fwbr_table = { .links = fwbr.links, .count = fwbr.count };

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
	check_path("openvswitch datapath with no other port", &other, "tap2", "no_egress",
		   65536, 65535, "");
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
	check_many_ports();
	check_bond_team();
	check_tunnels();
	check_routed();
	check_policy_rules();
	check_ovs();
	check_ovs_internal_enslaved();
	check_ovs_firewall();
	return check_exit_status();
}
