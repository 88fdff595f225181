// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host path computation (lib/path_limits.c) on random link tables:
 * any masters, lowers, kinds, loops and duplicate ifindexes, as a racing
 * dump or a strange host may produce.  Every link is tried as the start.
 */
#include "fuzz/fuzz_input.h"
#include "lib/path_limits.h"

#define FUZZ_MAX_LINKS	48
#define LINK_BYTES	12

static const char *const kinds[] = {
	"", "tun", "bridge", "veth", "vlan", "macvlan", "macvtap", "ipvlan", "ipvtap",
	"bond", "team", "openvswitch", "vrf",
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
	struct link_table t;
	size_t n = size / LINK_BYTES, i;

	if (n > FUZZ_MAX_LINKS)
		n = FUZZ_MAX_LINKS;
	links = calloc(n ? n : 1, sizeof(*links));
	if (!links)
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
	}
	t = (struct link_table){ links, n };
	for (i = 0; i < n; i++)
		check_path(&t, &links[i]);
	free(links);
	return 0;
}
