// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inside a guest:
 *
 * - guest-offloads-off (seed 002): offloads of the virtio-net device
 *   turned off although the device could do them (changeable, not
 *   "[fixed]").  In a guest they run in the guest kernel and are nearly
 *   free; off, every packet costs a full trip through the stack.
 * - guest-gso-limits (seed 000, this project): the device's GSO limits
 *   (tso_max_size/tso_max_segs, which the driver sets from the negotiated
 *   VIRTIO_NET_F_GSO_LIMITS config) and the guest's gso_max_size, and
 *   whether the feature (bit 71) was negotiated, from the virtio device's
 *   sysfs "features" bit string.  Info only: the guest cannot see the host
 *   path.  Silent when the feature is not negotiated and the limits are
 *   the defaults (nothing to report; run gso-probe or gso-doctor --host on
 *   the host).
 */
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/path_limits.h"
#include "lib/sysfs.h"
#include "lib/text_append.h"

#define GSO_LIMITS_FEATURE_BIT	71	/* VIRTIO_NET_F_GSO_LIMITS */

/* Offload feature (kernel name) and its ethtool -K keyword. */
static const struct {
	const char *name;
	const char *keyword;
} offloads[] = {
	{ "rx-gro", "gro" },
	{ "tx-generic-segmentation", "gso" },
	{ "tx-tcp-segmentation", "tso" },
	{ "tx-tcp6-segmentation", "tso" },
	{ "tx-scatter-gather", "sg" },
	{ "tx-checksum-ip-generic", "tx" },
	{ "rx-checksum", "rx" },
};

static void check_offloads(struct doctor_ctx *ctx, const struct doctor_guest_dev *d)
{
	struct ethtool_features feats;
	struct doctor_finding *f = NULL;
	char off[256] = "", cmd[256];
	const char *keywords[8];
	size_t i, j, nkw = 0, used = 0;

	if (ethtool_query_features(&ctx->eth, d->ifname, &feats))
		return;
	for (i = 0; i < sizeof(offloads) / sizeof(offloads[0]); i++) {
		struct ethtool_feature_state st = ethtool_feature(&feats, offloads[i].name);
		bool dup = false;

		if (!st.found || st.active || st.fixed)
			continue;
		text_append(off, sizeof(off), &used, "%s%s", used ? "," : "", offloads[i].name);
		for (j = 0; j < nkw; j++)
			dup |= !strcmp(keywords[j], offloads[i].keyword);
		if (!dup)
			keywords[nkw++] = offloads[i].keyword;
	}
	ethtool_features_free(&feats);
	if (!nkw)
		return;
	f = doctor_report_add(&ctx->report, "guest-offloads-off", DOCTOR_WARNING, d->ifname,
			      "offloads turned off (%s): more per-packet work on the receiving vCPU",
			      off);
	doctor_ev_str(f, "driver", "%s", d->driver);
	doctor_ev_str(f, "off", "%s", off);
	used = 0;
	text_append(cmd, sizeof(cmd), &used, "ethtool -K %s", d->ifname);
	for (j = 0; j < nkw; j++)
		text_append(cmd, sizeof(cmd), &used, " %s on", keywords[j]);
	doctor_fix(f, "%s", cmd);
	doctor_fix(f, "and remove whatever turns them off at boot (a post-up line, a udev rule, "
		   "a tuning script)");
}

static const struct link_info *link_by_name(const struct doctor_ctx *ctx, const char *name)
{
	return link_table_by_name(&ctx->table, name);
}

/* "negotiated", "not_negotiated", or "unknown" (no virtio device, or a kernel whose bit string is shorter). */
static const char *feature_state(const char *ifname)
{
	char bits[512];

	if (sysfs_netdev_read(ifname, "device/features", bits, sizeof(bits)))
		return "unknown";
	if (strlen(bits) <= GSO_LIMITS_FEATURE_BIT)
		return "unknown";
	return bits[GSO_LIMITS_FEATURE_BIT] == '1' ? "negotiated" : "not_negotiated";
}

static void check_gso_limits(struct doctor_ctx *ctx, const struct doctor_guest_dev *d)
{
	const struct link_info *li = link_by_name(ctx, d->ifname);
	const char *feature = feature_state(d->ifname);
	struct doctor_finding *f;
	size_t i;
	bool negotiated = !strcmp(feature, "negotiated");
	bool lowered;

	if (!li)
		return;
	lowered = path_device_max_size(li) < PATH_NO_SIZE_LIMIT ||
		  path_device_max_segs(li) < PATH_NO_SEGS_LIMIT;
	if (!negotiated && !lowered)
		return;
	if (negotiated && lowered)
		f = doctor_report_add(&ctx->report, "guest-gso-limits", DOCTOR_INFO, d->ifname,
				      "the device negotiated VIRTIO_NET_F_GSO_LIMITS: GSO packets are "
				      "kept within %u bytes / %u segments, the host path's limits",
				      path_device_max_size(li), path_device_max_segs(li));
	else if (negotiated)
		/*
		 * QEMU offers the feature by default on new machine types,
		 * with no limit until management sets one: say so, rather
		 * than present 64 KiB as a limit the host path asked for.
		 */
		f = doctor_report_add(&ctx->report, "guest-gso-limits", DOCTOR_INFO, d->ifname,
				      "the device negotiated VIRTIO_NET_F_GSO_LIMITS and reports no "
				      "limit: the host path takes 64 KiB GSO packets, or nothing on "
				      "the host (gso-limitsd) has set its limit yet");
	else
		f = doctor_report_add(&ctx->report, "guest-gso-limits", DOCTOR_INFO, d->ifname,
				      "GSO limited to %u bytes / %u segments by hand (the device did not "
				      "negotiate VIRTIO_NET_F_GSO_LIMITS: %s)",
				      path_device_max_size(li), path_device_max_segs(li), feature);
	doctor_ev_str(f, "driver", "%s", d->driver);
	doctor_ev_str(f, "gso_limits_feature", "%s", feature);
	for (i = 0; i < link_fields_count; i++)
		if (li->present & link_fields[i].present_bit && strcmp(link_fields[i].key, "mtu"))
			doctor_ev_u64(f, link_fields[i].key, link_field_value(li, &link_fields[i]));
	if (!negotiated)
		doctor_fix(f, "nothing to fix here; check the host path with `gso-doctor --host` "
			   "(or gso-probe) and keep the guest's limit at or below it");
	else
		doctor_fix(f, "nothing to fix: the host keeps these limits up to date");
}

void doctor_guest_offload_run(struct doctor_ctx *ctx, const struct doctor_guest *g)
{
	size_t i;

	doctor_report_check(&ctx->report, "guest-offloads-off");
	doctor_report_check(&ctx->report, "guest-gso-limits");
	for (i = 0; i < g->count; i++) {
		check_offloads(ctx, &g->devs[i]);
		check_gso_limits(ctx, &g->devs[i]);
	}
}
