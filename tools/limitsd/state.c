// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's state that is not a namespace's or a conversation's: its
 * configuration (defaults here, options in options.c), its
 * counters, and which tap gets a QMP conversation next.
 *
 * Scheduling is driven by changes, not by the clock: a thousand synced taps
 * are not looked at on every turn of the event loop (each QMP reply is
 * one), only after something could have given one of them work (a pass
 * over a namespace, a conversation ending: sched_changed()) or when a
 * retry falls due.
 */
#include <stdlib.h>

#include "limitsd.h"

struct ld_config ld_cfg = {
	.settle_s = 0.1,
	.max_settle_s = 1.0,
	.qmp_timeout_s = 5.0,
	.retry_max_s = 60.0,
	.max_jobs = 64,
	.rescan_s = 10.0,
	.proxmox_run_dir = "/var/run/qemu-server",
	.libvirt_run_dir = "/run/libvirt/qemu",
	.virsh = "virsh",
};
struct ld_counters ld_count;

static bool changed = true;
static double next_retry;	/* the earliest retry_at of a waiting tap, or 0 */

void sched_changed(void)
{
	changed = true;
}

static bool waiting(const struct tap *t)
{
	return (t->want_sync || t->want_status) && !t->job && t->pid && t->ep.kind != EP_NONE;
}

double sched_start_jobs(struct netns *const *nss, size_t nns, double now)
{
	size_t i, k;

	if (!changed && (!next_retry || next_retry > now) && !ld_cfg.unoptimised)
		return next_retry;
	/* Full: the next conversation to end calls sched_changed(). */
	if (job_count() >= ld_cfg.max_jobs && !ld_cfg.dry_run)
		return next_retry;
	next_retry = 0;
	for (i = 0; i < nns; i++) {
		for (k = 0; k < nss[i]->ntaps; k++) {
			struct tap *t = nss[i]->taps[k];

			if (!waiting(t))
				continue;
			if (t->retry_at > now) {
				if (!next_retry || t->retry_at < next_retry)
					next_retry = t->retry_at;
				continue;
			}
			if (job_count() >= ld_cfg.max_jobs && !ld_cfg.dry_run)
				return next_retry;	/* still changed: looked at again */
			job_start(t, now);
		}
	}
	changed = false;
	return next_retry;
}

bool sched_settled(struct netns *const *nss, size_t nns)
{
	size_t i, k;

	if (job_count())
		return false;
	for (i = 0; i < nns; i++) {
		if (nss[i]->dirty && !nss[i]->links)
			return false;
		for (k = 0; k < nss[i]->ntaps; k++)
			if (waiting(nss[i]->taps[k]))
				return false;
	}
	return true;
}

int sched_once_status(struct netns *const *nss, size_t nns)
{
	size_t i, k;

	for (i = 0; i < nns; i++)
		for (k = 0; k < nss[i]->ntaps; k++) {
			enum tap_state s = nss[i]->taps[k]->state;

			/* Every tap held by a process must have been reached. */
			if (s == TAP_RETRY || s == TAP_FAILED || s == TAP_UNSUPPORTED ||
			    s == TAP_UNTRUSTED || s == TAP_NO_ENDPOINT)
				return EXIT_FAILURE;
		}
	return EXIT_SUCCESS;
}
