// SPDX-License-Identifier: GPL-2.0-only
/*
 * gro-off, tso-off (seed 003): offloads turned off on the host's bridge
 * ports and physical NICs, typically by a forgotten
 * `post-up ethtool -K eno1 tso off gso off gro off` line.
 *
 * Which devices: every bridge port that is not a tap, every device with
 * a bus device behind it (/sys/class/net/DEV/device: a physical NIC),
 * and every egress device of a tap's host path (bond slaves, vlan lowers),
 * or with IFACE arguments only those devices and the selected taps'
 * egress devices.  A tap's offloads belong to its VM (QEMU sets them with
 * TUNSETOFFLOAD) and are not checked.
 *
 * - gro-off: GRO ("rx-gro", ethtool's generic-receive-offload) off and
 *   changeable.  Not on veth: veth's GRO is off by default and its peer
 *   hands over GSO packets intact, so there is nothing to coalesce.
 * - tso-off: TSO ("tx-tcp-segmentation") off and changeable, or GSO
 *   ("tx-generic-segmentation") off and changeable: forwarded GSO packets
 *   are then cut into MSS-sized frames in software before the device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/sysfs.h"

static bool is_bridge_port(const struct doctor_ctx *ctx, const struct link_info *li)
{
	const struct link_info *m = li->master ? link_table_by_index(&ctx->table, li->master) : NULL;

	return m && link_is_kind(m, "bridge");
}

static const char *role_of(const struct doctor_ctx *ctx, const struct link_info *li)
{
	if (is_bridge_port(ctx, li))
		return "bridge_port";
	if (sysfs_netdev_has_device(li->name))
		return "physical";
	return "egress";
}

static void check_device(struct doctor_ctx *ctx, const struct link_info *li)
{
	struct ethtool_feature_state gro, tso, gso;
	struct ethtool_features feats;
	struct doctor_finding *f;
	const struct link_info *m;
	const char *role = role_of(ctx, li);
	int ret;

	ret = ethtool_query_features(&ctx->eth, li->name, &feats);
	if (ret) {
		if (ret != -EOPNOTSUPP && ret != -ENODEV) {
			f = doctor_report_add(&ctx->report, "tso-off", DOCTOR_INFO, li->name,
					      "cannot read the offload features (ETHTOOL_GFEATURES: %s)",
					      strerror(-ret));
			doctor_ev_str(f, "error", "%s", strerror(-ret));
		}
		return;
	}
	gro = ethtool_feature(&feats, "rx-gro");
	tso = ethtool_feature(&feats, "tx-tcp-segmentation");
	gso = ethtool_feature(&feats, "tx-generic-segmentation");
	ethtool_features_free(&feats);
	m = li->master ? link_table_by_index(&ctx->table, li->master) : NULL;

	if (gro.found && !gro.active && !gro.fixed && !link_is_kind(li, "veth")) {
		f = doctor_report_add(&ctx->report, "gro-off", DOCTOR_WARNING, li->name,
				      "GRO is off: every received frame crosses the bridge and the "
				      "vhost/tap path one by one");
		doctor_ev_str(f, "kind", "%s", li->kind[0] ? li->kind : "device");
		doctor_ev_str(f, "role", "%s", role);
		doctor_ev_str(f, "master", "%s", m ? m->name : "");
		doctor_ev_str(f, "generic-receive-offload", "off");
		doctor_fix(f, "ethtool -K %s gro on", li->name);
		doctor_fix(f, "and remove 'gro off' from the interface's post-up line "
			   "(/etc/network/interfaces) so that it survives a reboot");
	}
	if ((tso.found && !tso.active && !tso.fixed) || (gso.found && !gso.active && !gso.fixed)) {
		bool tso_off = tso.found && !tso.active && !tso.fixed;
		bool gso_off = gso.found && !gso.active && !gso.fixed;

		f = doctor_report_add(&ctx->report, "tso-off", DOCTOR_WARNING, li->name,
				      "%s%s%s off: GSO packets forwarded to this device are segmented "
				      "in software first", tso_off ? "TSO" : "",
				      tso_off && gso_off ? " and " : "", gso_off ? "GSO" : "");
		doctor_ev_str(f, "kind", "%s", li->kind[0] ? li->kind : "device");
		doctor_ev_str(f, "role", "%s", role);
		doctor_ev_str(f, "master", "%s", m ? m->name : "");
		doctor_ev_str(f, "tcp-segmentation-offload", "%s", !tso.found ? "absent" :
			      tso.active ? "on" : tso.fixed ? "off [fixed]" : "off");
		doctor_ev_str(f, "generic-segmentation-offload", "%s", !gso.found ? "absent" :
			      gso.active ? "on" : gso.fixed ? "off [fixed]" : "off");
		doctor_fix(f, "ethtool -K %s%s%s", li->name, tso_off ? " tso on" : "",
			   gso_off ? " gso on" : "");
		doctor_fix(f, "and remove '%s%s%s off' from the interface's post-up line so that it "
			   "survives a reboot", tso_off ? "tso" : "", tso_off && gso_off ? "/" : "",
			   gso_off ? "gso" : "");
	}
}

/* Collect candidate devices by ifindex (no duplicates, in table order). */
static void mark(const struct doctor_ctx *ctx, bool *want, const struct link_info *li)
{
	want[li - ctx->links] = true;
}

void doctor_host_offload_run(struct doctor_ctx *ctx)
{
	bool *want = calloc(ctx->link_count ? ctx->link_count : 1, sizeof(*want));
	struct path_limits p;
	size_t i, j;

	if (!want)
		return;
	doctor_report_check(&ctx->report, "gro-off");
	doctor_report_check(&ctx->report, "tso-off");
	for (i = 0; i < ctx->link_count; i++) {
		const struct link_info *li = &ctx->links[i];
		bool tap = path_is_tap(li);
		bool selected_tap = ctx->iface_count ? doctor_iface_selected(ctx, li->name) && tap : tap;

		if (selected_tap) {
			path_limits_compute(&ctx->table, li, &p);
			for (j = 0; j < p.egress_count; j++)
				mark(ctx, want, p.egress[j]);
		}
		if (tap || (li->flags & 0x8 /* IFF_LOOPBACK */) || link_is_kind(li, "bridge"))
			continue;
		if (ctx->iface_count) {
			if (doctor_iface_selected(ctx, li->name))
				mark(ctx, want, li);
		} else if (is_bridge_port(ctx, li) || sysfs_netdev_has_device(li->name)) {
			mark(ctx, want, li);
		}
	}
	for (i = 0; i < ctx->link_count; i++)
		if (want[i] && !path_is_tap(&ctx->links[i]) && !link_is_kind(&ctx->links[i], "bridge"))
			check_device(ctx, &ctx->links[i]);
	free(want);
}
