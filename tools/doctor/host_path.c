// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-path-limit (seed 000): for each tap, the GSO limits of the host path
 * behind it (lib/path_limits.c, the same walk gso-probe does) against the
 * guest's default 65536 bytes / 65535 segments.  Above the limit, every
 * larger GSO packet from the guest is segmented in software on the host.
 * The VMM's command line says whether the negotiated limits
 * (VIRTIO_NET_F_GSO_LIMITS: host_gso_max_size/host_gso_max_segs) are
 * configured; with none there, whether the device offers the feature all
 * the same (host_offer.c: on by default from machine type 11.0, off for
 * 10.2 and older); a guest still has to be patched to use them.  A routed
 * tap's finding lists the routes the walk followed (evidence "routes").
 */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/parse.h"
#include "lib/text_append.h"
#include "lib/vmm.h"

/*
 * host_gso_max_size=N on the -device bound to this tap's -netdev (another
 * NIC of the same VM has its own path): the digits, or "" when absent or
 * not a number.
 */
static void vmm_prop(const struct vmm_info *v, const char *tap, const char *prop, char *buf,
		     size_t len)
{
	uint64_t n;

	if (!vmm_tap_device_prop(&v->args, tap, v->tap_fd, v->ntap_fd, prop, buf, len) ||
	    !parse_u64(buf, 0, UINT32_MAX, &n))
		buf[0] = '\0';
}

/* host_gso_auto=on (QEMU takes on/yes/true for a bool property). */
static bool vmm_auto(const struct vmm_info *v, const char *tap)
{
	char val[8];

	return vmm_tap_device_prop(&v->args, tap, v->tap_fd, v->ntap_fd, "host_gso_auto", val,
				   sizeof(val)) &&
	       (!strcmp(val, "on") || !strcmp(val, "yes") || !strcmp(val, "true"));
}

static void egress_list(const struct path_limits *p, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < p->egress_count; i++)
		text_append(buf, len, &used, "%s%s", i ? "," : "", p->egress[i]->name);
}

/*
 * The routes the walk followed, as `ip route` names them: "DST/LEN [nhid
 * N] dev A[,B] [table T]" joined by "; " (the main table unnamed; a
 * nexthop object's devices as lib/nexthop_query.c resolved them), "; ..."
 * when there were more than the walk records.
 */
static void route_list(const struct doctor_ctx *ctx, const struct path_limits *p, char *buf,
		       size_t len)
{
	size_t i, k, used = 0;

	buf[0] = '\0';
	for (i = 0; i < p->route_count; i++) {
		const struct route_info *r = p->routes[i];
		char addr[INET6_ADDRSTRLEN];

		text_append(buf, len, &used, "%s", i ? "; " : "");
		if (!r->dst_len)
			text_append(buf, len, &used, "default");
		else if (inet_ntop(r->family, r->dst, addr, sizeof(addr)))
			text_append(buf, len, &used, "%s/%u", addr, r->dst_len);
		if (r->nh_id)
			text_append(buf, len, &used, " nhid %u", r->nh_id);
		for (k = 0; k < r->noif; k++) {
			const struct link_info *dev = link_table_by_index(&ctx->table, r->oif[k]);

			text_append(buf, len, &used, "%s", k ? "," : " dev ");
			if (dev)
				text_append(buf, len, &used, "%s", dev->name);
			else
				text_append(buf, len, &used, "if%d", r->oif[k]);
		}
		if (r->table != RT_TABLE_MAIN)
			text_append(buf, len, &used, " table %u", r->table);
	}
	if (p->routes_truncated)
		text_append(buf, len, &used, "; ...");
}

static void check_tap(struct doctor_ctx *ctx, const struct link_info *tap)
{
	struct path_limits p;
	struct vmm_info vmm;
	struct doctor_finding *f;
	char size_prop[32] = "", segs_prop[32] = "", egress[512], routes[1024];
	enum doctor_severity sev = DOCTOR_WARNING;
	const char *feature;
	struct doctor_limitsd_tap ld;
	struct doctor_offer offer;
	bool managed = false, have_offer = false;

	path_limits_compute(&ctx->table, tap, &p);
	if (!path_limits_exceeded(&p))
		return;

	if (vmm_find_by_tap(tap->name, &vmm) == 0 && vmm.pid) {
		bool gso_auto = vmm_auto(&vmm, tap->name);

		vmm_prop(&vmm, tap->name, "host_gso_max_size", size_prop, sizeof(size_prop));
		vmm_prop(&vmm, tap->name, "host_gso_max_segs", segs_prop, sizeof(segs_prop));
		if (!size_prop[0] && !segs_prop[0] && !gso_auto) {
			doctor_offer(&vmm, tap->name, &offer);
			have_offer = true;
			feature = offer.state == DOCTOR_OFFER_ON ? "offered_no_limit" :
				  offer.state == DOCTOR_OFFER_MACHINE_OFF ? "not_offered_machine_type" :
				  offer.state == DOCTOR_OFFER_PROP_OFF ? "not_offered_host_gso_limits_off" :
				  "not_configured";
		} else if (gso_auto ||
			   ((!size_prop[0] || strtoul(size_prop, NULL, 10) <= p.max_size) &&
			    (!segs_prop[0] || strtoul(segs_prop, NULL, 10) <= p.max_segs))) {
			feature = "configured";
			/* The host offers the limit; patched guests follow it. */
			sev = DOCTOR_INFO;
		} else {
			feature = "configured_above_path";
		}
	} else {
		feature = "unknown";
	}
	/*
	 * gso-limitsd sets the limits at run time, not on the command line: when
	 * it says it set this tap's path limits (or lower), the doctor agrees.
	 */
	if (doctor_limitsd_tap(ctx, tap, &ld)) {
		managed = !strcmp(ld.state, "synced") && ld.set && ld.size <= p.max_size &&
			  ld.segs <= p.max_segs;
		if (managed) {
			feature = "set_by_gso_limitsd";
			sev = DOCTOR_INFO;
		}
	}

	f = doctor_report_add(&ctx->report, "gso-path-limit", sev, tap->name,
			      "guest GSO packets up to %u bytes / %u segments exceed the host path's "
			      "%u bytes / %u segments: larger ones are segmented in software on this host",
			      PATH_NO_SIZE_LIMIT, PATH_NO_SEGS_LIMIT, p.max_size, p.max_segs);
	doctor_ev_str(f, "master", "%s", p.master ? p.master->name : "");
	egress_list(&p, egress, sizeof(egress));
	doctor_ev_str(f, "egress", "%s", egress);
	/* A routed tap (or a tunnel found by route): which routes led where. */
	if (p.route_count) {
		route_list(ctx, &p, routes, sizeof(routes));
		doctor_ev_str(f, "routes", "%s", routes);
	}
	doctor_ev_u64(f, "gso_max_size", p.max_size);
	doctor_ev_u64(f, "gso_max_segs", p.max_segs);
	doctor_ev_str(f, "size_from", "%s", p.size_from ? p.size_from->name : "");
	doctor_ev_str(f, "segs_from", "%s", p.segs_from ? p.segs_from->name : "");
	doctor_ev_u64(f, "vmm_pid", vmm.pid);
	doctor_ev_str(f, "gso_limits_feature", "%s", feature);
	if (ld.state[0]) {
		doctor_ev_str(f, "gso_limitsd_state", "%s", ld.state);
		if (ld.set) {
			doctor_ev_u64(f, "gso_limitsd_size", ld.size);
			doctor_ev_u64(f, "gso_limitsd_segs", ld.segs);
		}
		if (ld.negotiated && ld.negotiated[0])
			doctor_ev_str(f, "gso_limitsd_negotiated", "%s", ld.negotiated);
		if (!managed && ld.error[0])
			doctor_ev_str(f, "gso_limitsd_error", "%s", ld.error);
	}
	if (have_offer) {
		doctor_ev_str(f, "machine", "%s", offer.machine[0] ? offer.machine : "(default)");
		doctor_ev_str(f, "qemu_gso_series", "%s",
			      offer.series > 0 ? "yes" : offer.series ? "unknown" : "no");
		doctor_ev_str(f, "host_gso_limits", "%s",
			      offer.prop > 0 ? "on" : offer.prop ? "default" : "off");
	}
	if (size_prop[0])
		doctor_ev_str(f, "host_gso_max_size", "%s", size_prop);
	if (segs_prop[0])
		doctor_ev_str(f, "host_gso_max_segs", "%s", segs_prop);

	if (p.max_size < PATH_NO_SIZE_LIMIT)
		doctor_fix(f, "in the guest (any kernel): ip link set dev <guest-if> gso_max_size %u "
			   "gso_ipv4_max_size %u", p.max_size, p.max_size);
	if (p.max_segs < PATH_NO_SEGS_LIMIT)
		doctor_fix(f, "in the guest (any kernel): ip link set dev <guest-if> gso_max_segs %u",
			   p.max_segs);
	if (have_offer && offer.state == DOCTOR_OFFER_ON)
		doctor_fix(f, "the device offers VIRTIO_NET_F_GSO_LIMITS with no limit (machine type "
			   "%s): give it the path's limits at run time, with gso-limitsd or over QMP: "
			   "qom-set <device> host_gso_max {\"size\": %u, \"segs\": %u}",
			   offer.machine[0] ? offer.machine : "(default)", p.max_size, p.max_segs);
	else if (have_offer && offer.state == DOCTOR_OFFER_MACHINE_OFF)
		doctor_fix(f, "machine type %s (10.2 or older, hw_compat_10_2) does not offer "
			   "VIRTIO_NET_F_GSO_LIMITS: -device virtio-net-pci,...,host_gso_limits=on,"
			   "host_gso_max_size=%u,host_gso_max_segs=%u, or a machine type >= 11.0 "
			   "(a guest ABI change)", offer.machine, p.max_size, p.max_segs);
	else if (have_offer && offer.state == DOCTOR_OFFER_PROP_OFF)
		doctor_fix(f, "the device has host_gso_limits=off: -device virtio-net-pci,...,"
			   "host_gso_limits=on,host_gso_max_size=%u,host_gso_max_segs=%u",
			   p.max_size, p.max_segs);
	else
		doctor_fix(f, "patched QEMU and guest: -device virtio-net-pci,...,host_gso_max_size=%u,"
			   "host_gso_max_segs=%u (VIRTIO_NET_F_GSO_LIMITS)", p.max_size, p.max_segs);
	vmm_info_free(&vmm);
}

void doctor_host_path_run(struct doctor_ctx *ctx)
{
	doctor_report_check(&ctx->report, "gso-path-limit");
	doctor_for_each_tap(ctx, check_tap);
}
