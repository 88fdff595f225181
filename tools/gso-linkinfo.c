// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-linkinfo: print a link's GSO/TSO limits and MTU, as the kernel reports them.
 *
 *   gso-linkinfo IFACE [--json]
 *
 * Text:  mtu 1500 gso_max_size 64000 gso_max_segs 64 tso_max_size 65536 tso_max_segs 65535 gso_ipv4_max_size 64000
 * JSON:  {"ifname":"eth0","mtu":1500,"gso_max_size":64000,...}
 *
 * The test harness needs these numbers in a busybox guest and on hosts
 * whose iproute2 (6.1 on Debian 12) does not print gso_ipv4_max_size.
 * Labels and JSON keys are iproute2's, and, as in iproute2, an attribute
 * the kernel did not send is not printed (an old kernel has no
 * tso_max_size: printing 0 would read as a limit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fail.h"
#include "lib/parse.h"
#include "lib/json.h"
#include "lib/link_query.h"

static const char usage[] =
	"usage: gso-linkinfo IFACE [--json]\n"
	"  IFACE: interface name in the current network namespace\n";

int main(int argc, char **argv)
{
	const char *ifname = NULL;
	struct link_query q;
	struct link_info li;
	bool json = false;
	const char *sep;
	size_t i;
	int err;

	fail_prog = "gso-linkinfo";
	parse_version_exit(argc, argv);
	parse_json_iface_args(argc, argv, usage, true, &json, &ifname);

	link_query_init(&q);
	err = link_query_by_name(&q, ifname, &li);
	link_query_fini(&q);
	if (err) {
		fprintf(stderr, "gso-linkinfo: %s: %s\n", ifname, strerror(-err));
		exit(EXIT_FAILURE);
	}

	if (json) {
		printf("{\"ifname\":");
		json_print_string(stdout, li.name);
	}
	sep = json ? "," : "";
	for (i = 0; i < link_fields_count; i++) {
		const struct link_field *f = &link_fields[i];

		if (!(li.present & f->present_bit))
			continue;
		if (json)
			printf(",\"%s\":%u", f->key, link_field_value(&li, f));
		else
			printf("%s%s %u", sep, f->key, link_field_value(&li, f));
		sep = " ";
	}
	printf(json ? "}\n" : "\n");
	if (fflush(stdout))
		fail_errno("stdout");
	return EXIT_SUCCESS;
}
