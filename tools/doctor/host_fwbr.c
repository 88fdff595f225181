// SPDX-License-Identifier: GPL-2.0-only
/*
 * fwbr-hop (seed 003): Proxmox puts a VM NIC with firewall=1 behind an
 * extra bridge, tap -> fwbrNiM -> fwlnNiM = fwprNiM (veth) -> vmbrX, so
 * that bridge netfilter can filter the tap's traffic with iptables.  With
 * no rule to enforce, the hop only costs: two more devices and one more
 * bridge per packet.
 *
 * A tap crosses a firewall hop when its bridge has exactly two ports, the
 * tap and a veth whose peer is a port of another bridge (any names;
 * fwbr/fwln/fwpr are Proxmox's).  A bridge with more ports is a switch of
 * its own, not a hop.
 * Nothing is enforced there when either
 * - bridge netfilter is off for that bridge: no
 *   /proc/sys/net/bridge/bridge-nf-call-ip{,6}tables set to 1 (br_netfilter
 *   absent or disabled) and the bridge's own nf_call_ip{,6}tables 0; or
 * - no netfilter rule of the namespace mentions the tap (lib/nf_rules.c:
 *   nftables and iptables-legacy, read-only; Proxmox's rules name the tap
 *   in --physdev-out/-in matches and in its tapN-IN/-OUT chains).
 * Rules that cannot be read (no CAP_NET_ADMIN) give an info finding.
 */
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/nf_rules.h"
#include "lib/sysfs.h"
#include "lib/qemu_cmdline.h"

/* The veth port of @bridge whose peer is a port of another bridge, or NULL. */
static const struct link_info *hop_port(const struct doctor_ctx *ctx, const struct link_info *bridge,
					const struct link_info **peer_out)
{
	const struct link_info *next;
	size_t i, ports = 0;

	for (i = 0; i < ctx->link_count; i++)
		if (ctx->links[i].master == bridge->ifindex)
			ports++;
	if (ports != 2)
		return NULL;
	for (i = 0; i < ctx->link_count; i++)
		if (ctx->links[i].master == bridge->ifindex &&
		    (next = link_table_peer_bridge(&ctx->table, &ctx->links[i], peer_out)) &&
		    next != bridge)
			return &ctx->links[i];
	return NULL;
}

static bool proc_flag(const char *path)
{
	uint64_t v;

	return !sysfs_read_u64(path, &v) && v;
}

static bool bridge_flag(const char *bridge, const char *attr)
{
	char a[64];
	uint64_t v;

	snprintf(a, sizeof(a), "bridge/%s", attr);
	return !sysfs_netdev_u64(bridge, a, &v) && v;
}

static void check_tap(struct doctor_ctx *ctx, const struct link_info *tap)
{
	const struct link_info *bridge, *port, *peer = NULL;
	struct nf_rules_count rules = { 0 };
	struct doctor_finding *f;
	bool global4, global6, local4, local6, nf_on;
	enum doctor_severity sev;
	unsigned int vmid, net;
	bool proxmox;
	int ret = 0;

	bridge = tap->master ? link_table_by_index(&ctx->table, tap->master) : NULL;
	if (!bridge || !link_is_kind(bridge, "bridge"))
		return;
	port = hop_port(ctx, bridge, &peer);
	if (!port)
		return;

	global4 = proc_flag("/proc/sys/net/bridge/bridge-nf-call-iptables");
	global6 = proc_flag("/proc/sys/net/bridge/bridge-nf-call-ip6tables");
	local4 = bridge_flag(bridge->name, "nf_call_iptables");
	local6 = bridge_flag(bridge->name, "nf_call_ip6tables");
	nf_on = global4 || global6 || local4 || local6;
	if (nf_on) {
		ret = nf_rules_mentioning(tap->name, &rules);
		if (!ret && rules.matching)
			return;		/* rules for this tap exist: the hop has a job */
	}
	sev = nf_on && ret ? DOCTOR_INFO : DOCTOR_WARNING;
	f = doctor_report_add(&ctx->report, "fwbr-hop", sev, tap->name,
			      "an extra firewall bridge hop (%s -> %s = %s -> %s) %s",
			      bridge->name, port->name, peer->name, doctor_vm_bridge(ctx, tap),
			      !nf_on ? "with bridge netfilter off: it filters nothing" :
			      ret ? "whose rules cannot be read" :
			      "with no firewall rule for this tap: it filters nothing");
	doctor_ev_str(f, "bridge", "%s", bridge->name);
	doctor_ev_str(f, "hop", "%s", port->name);
	doctor_ev_str(f, "hop_peer", "%s", peer->name);
	doctor_ev_str(f, "vm_bridge", "%s", doctor_vm_bridge(ctx, tap));
	doctor_ev_bool(f, "bridge-nf-call-iptables", global4);
	doctor_ev_bool(f, "bridge-nf-call-ip6tables", global6);
	doctor_ev_bool(f, "nf_call_iptables", local4);
	doctor_ev_bool(f, "nf_call_ip6tables", local6);
	if (nf_on && !ret) {
		doctor_ev_u64(f, "rules", rules.rules);
		doctor_ev_u64(f, "rules_for_tap", rules.matching);
	} else if (nf_on) {
		doctor_ev_str(f, "rules_error", "%s", strerror(-ret));
	}
	proxmox = qemu_proxmox_tap_name(tap->name, &vmid, &net);
	if (proxmox)
		doctor_fix(f, "Proxmox: drop firewall=1 from net%u (keep its other options, see "
			   "`qm config %u`): qm set %u --net%u virtio=<MAC>,bridge=%s,firewall=0 "
			   "(applied at the next VM start)", net, vmid, vmid, net,
			   doctor_vm_bridge(ctx, tap));
	doctor_fix(f, "%sttach the tap directly to %s: ip link set dev %s master %s "
		   "(and delete %s, %s)", proxmox ? "or a" : "a", doctor_vm_bridge(ctx, tap),
		   tap->name, doctor_vm_bridge(ctx, tap), port->name, bridge->name);
}

void doctor_host_fwbr_run(struct doctor_ctx *ctx)
{
	doctor_report_check(&ctx->report, "fwbr-hop");
	doctor_for_each_tap(ctx, check_tap);
}
