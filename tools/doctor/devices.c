// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which devices gso-doctor's checks look at: the taps (or the IFACE
 * arguments) on a host, the virtio_net devices (or the IFACE arguments)
 * in a guest, and the bridge a tap's VM is attached to.  One copy of
 * each selection rule, for every check family.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/fail.h"
#include "lib/sysfs.h"

bool doctor_iface_selected(const struct doctor_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->iface_count; i++)
		if (!strcmp(ctx->ifaces[i], name))
			return true;
	return false;
}

void doctor_for_each_tap(struct doctor_ctx *ctx,
			 void (*check_tap)(struct doctor_ctx *ctx, const struct link_info *tap))
{
	size_t i;

	for (i = 0; i < ctx->link_count; i++) {
		const struct link_info *li = &ctx->links[i];

		if (ctx->iface_count ? doctor_iface_selected(ctx, li->name) : path_is_tap(li))
			check_tap(ctx, li);
	}
}

bool doctor_is_virtio_net(struct doctor_ctx *ctx, const struct link_info *li, char *driver,
			  size_t len)
{
	driver[0] = '\0';
	if (ethtool_query_driver(&ctx->eth, li->name, driver, len) &&
	    sysfs_netdev_driver(li->name, driver, len))
		return false;
	return !strcmp(driver, "virtio_net");
}

void doctor_guest_devs_init(struct doctor_ctx *ctx, struct doctor_guest *g)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g->devs = calloc(ctx->link_count ? ctx->link_count : 1, sizeof(*g->devs));
	if (!g->devs)
		fail_errno("calloc");
	for (i = 0; i < ctx->link_count; i++) {
		const struct link_info *li = &ctx->links[i];
		struct doctor_guest_dev *d = &g->devs[g->count];
		bool virtio = doctor_is_virtio_net(ctx, li, d->driver, sizeof(d->driver));

		if (ctx->iface_count ? !doctor_iface_selected(ctx, li->name) : !virtio)
			continue;
		snprintf(d->ifname, sizeof(d->ifname), "%s", li->name);
		g->count++;
	}
}

void doctor_guest_devs_fini(struct doctor_guest *g)
{
	free(g->devs);
	memset(g, 0, sizeof(*g));
}

const char *doctor_vm_bridge(const struct doctor_ctx *ctx, const struct link_info *tap)
{
	const struct link_info *m = tap->master ? link_table_by_index(&ctx->table, tap->master) : NULL;
	const struct link_info *next;
	size_t i;

	if (!m)
		return "<bridge>";
	/* Behind a firewall hop (a veth port whose peer is in another bridge): that bridge. */
	for (i = 0; i < ctx->link_count; i++)
		if (ctx->links[i].master == m->ifindex &&
		    (next = link_table_peer_bridge(&ctx->table, &ctx->links[i], NULL)))
			return next->name;
	return m->name;
}
