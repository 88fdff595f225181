// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-probe: the GSO limits of the host path behind a tap, and the guest
 * command that avoids software segmentation on it.
 *
 *   gso-probe [--json] [IFACE]
 *
 * For every tap and macvtap of the current network namespace (or only
 * IFACE, which may be any device, e.g. a veth standing in for a tap), it
 * finds the devices the guest's frames leave by (lib/path_limits.c: the
 * bridge's or Open vSwitch datapath's other ports and what they stack on,
 * bond slaves, VXLAN/Geneve underlays less the encapsulation; a macvtap's
 * lower device; the routes' devices for a tap the host routes),
 * and prints their smallest gso_max_size and gso_max_segs, whether the
 * guest's defaults (65536 bytes, 65535 segments) exceed them, and the
 * exact workaround of seed 000 to run inside the guest:
 *
 *   ip link set dev <guest-if> gso_max_size N gso_ipv4_max_size N
 *
 * Read-only (RTM_GETLINK and RTM_GETROUTE dumps), unprivileged, for patched and unpatched
 * hosts alike.  Output formats: docs/tools.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fail.h"
#include "lib/parse.h"
#include "lib/json.h"
#include "lib/link_query.h"
#include "lib/path_limits.h"

static const char usage[] =
	"usage: gso-probe [--json] [IFACE]\n"
	"  IFACE: a tap, macvtap or other device of the current network namespace\n"
	"         (default: every tap and macvtap)\n";

static const char *status_text(const struct path_limits *p)
{
	switch (p->status) {
	case PATH_OK:
		return "ok";
	case PATH_NO_MASTER:
		return "no master: not a bridge or Open vSwitch port, no macvtap, and no route "
		       "leaves by another device";
	case PATH_UNSUPPORTED_MASTER:
		return "master is not a bridge or Open vSwitch datapath (bond, team, vrf?): "
		       "not followed";
	case PATH_NO_EGRESS:
		return "no egress device: a bridge without other ports, or a lower in another namespace";
	}
	return "?";
}

static void format_commands(const struct path_limits *p, char *size_cmd, size_t size_len,
			    char *segs_cmd, size_t segs_len)
{
	size_cmd[0] = segs_cmd[0] = '\0';
	if (!path_limits_exceeded(p))
		return;
	if (p->max_size < PATH_NO_SIZE_LIMIT)
		snprintf(size_cmd, size_len,
			 "ip link set dev <guest-if> gso_max_size %u gso_ipv4_max_size %u",
			 p->max_size, p->max_size);
	if (p->max_segs < PATH_NO_SEGS_LIMIT)
		snprintf(segs_cmd, segs_len, "ip link set dev <guest-if> gso_max_segs %u",
			 p->max_segs);
}

static void print_text(const struct path_limits *p)
{
	char size_cmd[128], segs_cmd[128];
	size_t i;

	format_commands(p, size_cmd, sizeof(size_cmd), segs_cmd, sizeof(segs_cmd));
	printf("%s (%s): master %s%s%s%s\n", p->start->name,
	       p->start->kind[0] ? p->start->kind : "device",
	       p->master ? p->master->name : "none",
	       p->master ? " (" : "", p->master ? p->master->kind : "", p->master ? ")" : "");
	if (p->status != PATH_OK) {
		printf("  path: unknown: %s\n", status_text(p));
		return;
	}
	for (i = 0; i < p->egress_count; i++) {
		printf("  egress: %s (%s) gso_max_size %u gso_max_segs %u rule %s",
		       p->egress[i]->name, p->egress[i]->kind[0] ? p->egress[i]->kind : "device",
		       path_device_max_size(p->egress[i]), path_device_max_segs(p->egress[i]),
		       path_rule_name(p->egress_rule[i]));
		if (p->egress_overhead[i])
			printf(" (less %u bytes of tunnel headers)", p->egress_overhead[i]);
		printf("\n");
	}
	if (p->truncated)
		printf("  egress: (more than %d devices; limits cover all)\n", PATH_MAX_EGRESS);
	if (p->incomplete)
		printf("  incomplete: %s; the limits cover the rest\n", p->incomplete_why);
	printf("  path limit: gso_max_size %u%s%s%s%s%s gso_max_segs %u%s%s%s%s%s\n",
	       p->max_size, p->size_from ? " (" : "", p->size_from ? p->size_from->name : "",
	       p->size_from ? ", " : "", p->size_from ? path_rule_name(p->size_rule) : "",
	       p->size_from ? ")" : "",
	       p->max_segs, p->segs_from ? " (" : "", p->segs_from ? p->segs_from->name : "",
	       p->segs_from ? ", " : "", p->segs_from ? path_rule_name(p->segs_rule) : "",
	       p->segs_from ? ")" : "");
	if (!path_limits_exceeded(p)) {
		printf("  guest default (%u bytes, %u segments) fits: nothing to do\n",
		       PATH_NO_SIZE_LIMIT, PATH_NO_SEGS_LIMIT);
		return;
	}
	printf("  guest default (%u bytes, %u segments) exceeds the path limit: larger "
	       "GSO packets are segmented in software on this host\n",
	       PATH_NO_SIZE_LIMIT, PATH_NO_SEGS_LIMIT);
	if (size_cmd[0])
		printf("  guest command: %s\n", size_cmd);
	if (segs_cmd[0])
		printf("  guest command: %s\n", segs_cmd);
}

static void print_json_name(const char *key, const struct link_info *li)
{
	printf(",\"%s\":", key);
	if (li)
		json_print_string(stdout, li->name);
	else
		printf("null");
}

static void print_json_rule(const char *key, enum path_rule rule)
{
	if (rule == PATH_RULE_NONE)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":\"%s\"", key, path_rule_name(rule));
}

static void print_json(const struct path_limits *p)
{
	char size_cmd[128], segs_cmd[128];
	size_t i;

	format_commands(p, size_cmd, sizeof(size_cmd), segs_cmd, sizeof(segs_cmd));
	printf("{\"ifname\":");
	json_print_string(stdout, p->start->name);
	printf(",\"kind\":");
	json_print_string(stdout, p->start->kind);
	printf(",\"status\":\"%s\"", path_status_name(p->status));
	print_json_name("master", p->master);
	printf(",\"master_kind\":");
	if (p->master)
		json_print_string(stdout, p->master->kind);
	else
		printf("null");
	printf(",\"egress\":[");
	for (i = 0; i < p->egress_count; i++) {
		printf("%s{\"ifname\":", i ? "," : "");
		json_print_string(stdout, p->egress[i]->name);
		printf(",\"kind\":");
		json_print_string(stdout, p->egress[i]->kind);
		printf(",\"gso_max_size\":%u,\"gso_max_segs\":%u,\"rule\":\"%s\",\"overhead\":%u}",
		       path_device_max_size(p->egress[i]), path_device_max_segs(p->egress[i]),
		       path_rule_name(p->egress_rule[i]), p->egress_overhead[i]);
	}
	printf("],\"truncated\":%s", p->truncated ? "true" : "false");
	printf(",\"incomplete\":");
	if (p->incomplete)
		json_print_string(stdout, p->incomplete_why);
	else
		printf("null");
	if (p->status == PATH_OK)
		printf(",\"gso_max_size\":%u,\"gso_max_segs\":%u", p->max_size, p->max_segs);
	else
		printf(",\"gso_max_size\":null,\"gso_max_segs\":null");
	print_json_name("size_from", p->size_from);
	print_json_name("segs_from", p->segs_from);
	print_json_rule("size_rule", p->size_from ? p->size_rule : PATH_RULE_NONE);
	print_json_rule("segs_rule", p->segs_from ? p->segs_rule : PATH_RULE_NONE);
	printf(",\"size_overhead\":%u", p->size_from ? p->size_overhead : 0);
	printf(",\"exceeded\":%s,\"guest_command\":", path_limits_exceeded(p) ? "true" : "false");
	if (size_cmd[0])
		json_print_string(stdout, size_cmd);
	else
		printf("null");
	printf(",\"guest_segs_command\":");
	if (segs_cmd[0])
		json_print_string(stdout, segs_cmd);
	else
		printf("null");
	printf("}");
}

int main(int argc, char **argv)
{
	const char *ifname = NULL;
	struct link_info *links;
	struct route_info *routes = NULL;
	struct rule_info *rules = NULL;
	size_t nroutes = 0, nrules = 0;
	struct link_table table;
	struct link_query q;
	struct path_limits p;
	size_t count, i, shown = 0;
	bool json = false;
	int err;

	fail_prog = "gso-probe";
	parse_version_exit(argc, argv);
	parse_json_iface_args(argc, argv, usage, false, &json, &ifname);

	link_query_init(&q);
	err = link_query_dump(&q, &links, &count);
	if (err) {
		errno = -err;
		fail_errno("RTM_GETLINK dump");
	}
	/* Routes: a routed tap's egress, a tunnel's underlay (lib/path_limits.c). */
	err = route_query_dump(&q, &routes, &nroutes);
	if (err) {
		errno = -err;
		fail_errno("RTM_GETROUTE dump");
	}
	/* Rules: the tables a routed tap's packets are looked up in (rule 7). */
	err = rule_query_dump(&q, &rules, &nrules);
	link_query_fini(&q);
	if (err) {
		errno = -err;
		fail_errno("RTM_GETRULE dump");
	}
	table = (struct link_table){ .links = links, .count = count, .routes = routes,
				     .nroutes = nroutes, .rules = rules, .nrules = nrules,
				     .routes_known = true };
	if (ifname && !link_table_by_name(&table, ifname))
		fail_msg("%s: No such device", ifname);

	if (json)
		printf("{\"taps\":[");
	for (i = 0; i < count; i++) {
		const struct link_info *li = &links[i];

		if (ifname ? strcmp(li->name, ifname) : !path_is_tap(li))
			continue;
		path_limits_compute(&table, li, &p);
		if (json) {
			if (shown)
				printf(",");
			print_json(&p);
		} else {
			print_text(&p);
		}
		shown++;
	}
	if (json)
		printf("]}\n");
	else if (!shown)
		printf("no tap or macvtap in this network namespace\n");
	if (fflush(stdout))
		fail_errno("stdout");
	free(links);
	free(routes);
	free(rules);
	return EXIT_SUCCESS;
}
