// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host path computation (lib/path_limits.c) on random link tables:
 * any masters, lowers, kinds, loops and duplicate ifindexes, as a racing
 * dump or a strange host may produce; VXLAN/Geneve underlays and routes
 * and policy rules taken from the same bytes (the input format is
 * unchanged: 12 bytes a link).  Every link is tried as the start.
 */
#include <sys/socket.h>

#include "fuzz/fuzz_input.h"
#include "lib/path_limits.h"

#define FUZZ_MAX_LINKS	48
#define LINK_BYTES	12

static const char *const kinds[] = {
	"", "tun", "bridge", "veth", "vlan", "macvlan", "macvtap", "ipvlan", "ipvtap",
	"bond", "team", "openvswitch", "vrf", "vxlan", "geneve",
};

static uint32_t limit(uint8_t b)
{
	/* Around the interesting values: 0, small, 64000, 65536, BIG TCP. */
	static const uint32_t v[] = { 0, 1, 1280, 64000, 65535, 65536, 185000, UINT32_MAX };

	return b < 8 ? v[b] : (uint32_t)b * 257u;
}

static void check_path(const struct link_table *t, const struct link_info *start)
{
	struct path_limits p;
	size_t i;

	path_limits_compute(t, start, &p);
	fuzz_assert(p.max_size <= PATH_NO_SIZE_LIMIT && p.max_segs <= PATH_NO_SEGS_LIMIT);
	fuzz_assert(p.egress_count <= PATH_MAX_EGRESS);
	fuzz_assert(!p.incomplete || p.incomplete_why);
	(void)path_rule_name(p.size_rule);
	fuzz_assert((p.status == PATH_OK) == (p.egress_count > 0));
	for (i = 0; i < p.egress_count; i++) {
		fuzz_assert(p.egress[i] >= t->links && p.egress[i] < t->links + t->count);
		fuzz_assert(p.egress[i] != start);
		fuzz_assert(path_device_max_size(p.egress[i]) >= p.max_size);
	}
	(void)path_limits_exceeded(&p);
	(void)path_status_name(p.status);
	(void)link_table_peer_bridge(t, start, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct link_info *links;
	struct route_info *routes;
	struct rule_info *rules;
	struct link_table t;
	size_t nroutes = 0, nrules = 0;
	size_t n = size / LINK_BYTES, i;

	if (n > FUZZ_MAX_LINKS)
		n = FUZZ_MAX_LINKS;
	links = calloc(n ? n : 1, sizeof(*links));
	routes = calloc(n ? n : 1, sizeof(*routes));
	rules = calloc(n ? n : 1, sizeof(*rules));
	if (!links || !routes || !rules)
		abort();
	for (i = 0; i < n; i++) {
		const uint8_t *b = data + i * LINK_BYTES;
		struct link_info *li = &links[i];

		/* Small index space: masters and lowers hit real links, and each other. */
		li->ifindex = 1 + b[0] % 40;
		li->master = b[1] % 41;
		li->lower = b[2] % 41;
		snprintf(li->kind, sizeof(li->kind), "%s", kinds[b[3] % (sizeof(kinds) / sizeof(kinds[0]))]);
		snprintf(li->name, sizeof(li->name), "l%zu", i);
		li->type = b[4] & 1 ? 1 : 65534;
		li->lower_in_other_netns = b[4] & 2;
		li->present = b[5];
		li->gso_max_size = limit(b[6]);
		li->gso_ipv4_max_size = limit(b[7]);
		li->tso_max_size = limit(b[8]);
		li->gso_max_segs = limit(b[9]);
		li->tso_max_segs = limit(b[10]);
		li->mtu = limit(b[11]);
		/* A tunnel: its underlay is the lower byte, family and remote from the others. */
		li->tunnel_link = b[2] % 41;
		li->tunnel_family = b[11] & 1 ? AF_INET6 : b[11] & 2 ? AF_INET : 0;
		li->tunnel_external = b[4] & 4;
		li->tunnel_remote_known = b[4] & 8;
		memcpy(li->tunnel_remote, b, sizeof(li->tunnel_remote) < LINK_BYTES ?
		       sizeof(li->tunnel_remote) : LINK_BYTES);
		/* Some links also give a route: out of the master byte's ifindex (and the lower's). */
		if (b[4] & 16) {
			struct route_info *r = &routes[nroutes++];

			r->family = b[11] & 1 ? AF_INET6 : AF_INET;
			r->type = b[4] & 32 ? 1 : b[5] % 10;
			r->table = b[4] & 64 ? 254 : b[6];
			r->dst_len = b[7] % 129;
			memcpy(r->dst, b + 8, 4);
			r->oif[r->noif++] = b[1] % 41;
			if (b[4] & 128)
				r->oif[r->noif++] = b[2] % 41;
			r->nexthop_object = b[3] & 128;
		}
		/*
		 * Some give a policy rule: any action (unknown ones too), table,
		 * prefix, goto target; in the order of the bytes, not sorted.
		 */
		if (b[3] & 64) {
			struct rule_info *ru = &rules[nrules++];

			ru->family = b[11] & 1 ? AF_INET6 : AF_INET;
			ru->action = b[9] % 10;
			ru->table = b[4] & 64 ? 254 : b[6];
			ru->priority = b[10];
			ru->goto_target = b[5];
			ru->dst_len = b[8] % 129;
			memcpy(ru->dst, b + 4, 4);
			ru->conditional = b[3] & 32;
			ru->l3mdev = b[3] & 16;
		}
	}
	t = (struct link_table){ .links = links, .count = n, .routes = routes,
				 .nroutes = nroutes, .rules = rules, .nrules = nrules,
				 .routes_known = n && (data[0] & 1) };
	for (i = 0; i < n; i++)
		check_path(&t, &links[i]);
	free(links);
	free(routes);
	free(rules);
	return 0;
}
